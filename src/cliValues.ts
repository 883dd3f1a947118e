/** The values of omp-eval's flags, checked as commander parses them (a clear error otherwise). */
import { InvalidArgumentError } from 'commander';

export function seconds(value: string): number {
  const n = Number(value);
  if (!value.trim() || !Number.isFinite(n) || n <= 0) {
    throw new InvalidArgumentError('must be a positive number of seconds (clamped to 1..3600)');
  }
  return n;
}

export function count(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < 1 || n > 10_000)
    throw new InvalidArgumentError('must be a whole number from 1 to 10000');
  return n;
}

/** `HOST:PORT`, `[::1]:PORT` or `PORT` (whether it is a loopback address is checked when serving). */
export function listenAddress(value: string): string {
  if (!/^(\[[^\]]+\]|[^\s:]*):\d+$|^\d+$/.test(value))
    throw new InvalidArgumentError('takes HOST:PORT on loopback (127.0.0.1:8765), or nothing');
  return value;
}

export function nonEmpty(value: string): string {
  if (!value.trim()) throw new InvalidArgumentError('must not be empty');
  return value;
}
