import { describe, expect, it } from 'vitest';
import { suspendProcess } from '../../src/tui/terminal/terminalModes.js';

function terminal(isTTY = true) {
  const log: string[] = [];
  return {
    log,
    stdin: { isTTY, setRawMode: (raw: boolean) => log.push(`raw ${raw}`) },
    stdout: { write: (text: string) => log.push(JSON.stringify(text)) },
  };
}

describe('Ctrl-Z (suspendProcess)', () => {
  it('gives the shell a cooked terminal while the group is stopped, and takes it back after', () => {
    const t = terminal();
    const kill = (pid: number, signal: string) => t.log.push(`kill ${pid} ${signal}`);
    expect(suspendProcess(t, kill, 'linux')).toBe(true);
    expect(t.log).toEqual([
      JSON.stringify('\x1b[?2004l\x1b[?25h'),
      'raw false',
      'kill 0 SIGTSTP',
      'raw true',
      JSON.stringify('\x1b[?2004h\x1b[?25l'),
    ]);
  });

  it('takes the terminal back even when the signal cannot be sent', () => {
    const t = terminal();
    const kill = () => {
      throw new Error('EPERM');
    };
    expect(() => suspendProcess(t, kill, 'linux')).toThrow('EPERM');
    expect(t.log.slice(-2)).toEqual(['raw true', JSON.stringify('\x1b[?2004h\x1b[?25l')]);
  });

  it('does nothing without job control or a terminal', () => {
    const never = () => {
      throw new Error('no signal expected');
    };
    const windows = terminal();
    expect(suspendProcess(windows, never, 'win32')).toBe(false);
    expect(windows.log).toEqual([]);
    const piped = terminal(false);
    expect(suspendProcess(piped, never, 'linux')).toBe(false);
    expect(piped.log).toEqual([]);
  });
});
