/**
 * The answers given at each input() prompt (`(Pdb) `, `name: `), for Up and Down while answering
 * one, as pdb's readline recalls its commands. A password is never kept; nor an empty line (pdb
 * repeats the last command on one itself) or the same answer twice in a row.
 */
const KEPT = 500;

export class AnswerHistory {
  private readonly byPrompt = new Map<string, string[]>();
  /** Where Up and Down are for the prompt being answered, and what was typed before the first. */
  private walk?: { key: string; index: number; draft: string };

  /** An answer was given: kept for the same prompt later; any walk ends. */
  remember(prompt: string, password: boolean, answer: string): void {
    this.walk = undefined;
    if (password || !answer.trim()) return;
    const list = this.byPrompt.get(prompt) ?? [];
    if (list.at(-1) !== answer) list.push(answer);
    if (list.length > KEPT) list.shift();
    this.byPrompt.set(prompt, list);
  }

  /** The input ended without an answer (Ctrl-D): any walk ends. */
  reset(): void {
    this.walk = undefined;
  }

  /**
   * Up (-1) or Down (1) while answering `prompt` (`key` tells one request from the next): the
   * answer to show, or undefined when there is nothing further that way. Down past the newest
   * gives back what was typed before the first Up.
   */
  step(key: string, prompt: string, password: boolean, typed: string, step: number): string | undefined {
    const list = password ? [] : (this.byPrompt.get(prompt) ?? []);
    const walk = this.walk?.key === key ? this.walk : { key, index: list.length, draft: typed };
    const index = Math.min(list.length, Math.max(0, walk.index + step));
    if (index === walk.index) return undefined;
    this.walk = { ...walk, index };
    return index === list.length ? walk.draft : list[index];
  }
}
