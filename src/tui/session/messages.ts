/**
 * The engine's notices are written for the agent that calls the eval tool ("Reset the kernel via
 * { reset: true }"). The notebook shows them to a person: one line per event, in its own words,
 * short enough for 80 columns where it can.
 */

import { withoutToolAdvice } from '../../eval/index.js';

const TIMED_OUT = /^eval cell timed out after (\d+(?:\.\d+)?)s; kernel interrupted but remains running\./;
const TIMED_OUT_KILLED = /^eval cell timed out and the kernel was unresponsive to interrupt/;
const KILLED = /^The kernel did not respond to the interrupt and was killed/;
const DIED_ON_INTERRUPT = /^The kernel died when it was interrupted \(([^)]*)\)/;
const DIED = /^The (\w+) kernel died(?: again on the retry)? \(([^)]*)\)\.?$/;
const EXITED = /^The (\w+) kernel exited while running this cell \(([^)]*)\)/;
const SHUT_DOWN = /^The kernel was shut down while this cell was running\.?$/;

const FRESH_KERNEL = 'A fresh kernel is starting.';

/** The notice as the notebook shows it, or undefined when the notebook says it otherwise. */
export function notebookNotice(text: string, opts: { restarting?: boolean } = {}): string | undefined {
  const timedOut = TIMED_OUT.exec(text);
  if (timedOut)
    return `Timed out after ${timedOut[1]} s: the cell was interrupted; the kernel keeps its state.`;
  if (TIMED_OUT_KILLED.test(text))
    return `Timed out and did not stop: the kernel was killed. ${FRESH_KERNEL}`;
  if (KILLED.test(text))
    return `The cell did not stop within 5 s: the kernel was killed and its state is lost. ${FRESH_KERNEL}`;
  const diedOnInterrupt = DIED_ON_INTERRUPT.exec(text);
  if (diedOnInterrupt) return `The kernel died when interrupted (${diedOnInterrupt[1]}). ${FRESH_KERNEL}`;
  const died = DIED.exec(text);
  if (died) return `The ${died[1]} kernel died (${died[2]}): its state is lost. ${FRESH_KERNEL}`;
  const exited = EXITED.exec(text);
  if (exited)
    return `The cell ended the ${exited[1]} kernel (${exited[2]}): its state is lost. ${FRESH_KERNEL}`;
  if (SHUT_DOWN.test(text)) return opts.restarting ? undefined : 'The kernel was shut down during this cell.';
  // Advice in the tool's protocol is meaningless in the notebook.
  return withoutToolAdvice(text) || undefined;
}

/** What getpass prints when it cannot hide input: the notebook hides it, so the warning is false. */
const ECHO_WARNING = /^Warning: Password input may be echoed\.\n?/m;

export function withoutEchoWarning(text: string): string {
  return ECHO_WARNING.test(text) ? text.replace(ECHO_WARNING, '') : text;
}
