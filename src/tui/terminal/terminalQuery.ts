/**
 * Asks the terminal which image protocol it speaks, before Ink takes the input: the kitty
 * graphics query, XTVERSION (iTerm2 names itself there), and DA1, which every terminal answers
 * and so marks the end of the replies. Keys typed meanwhile are kept for the prompt.
 */
export const IMAGE_QUERY = '\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\\x1b[>q\x1b[c';

/** What the replies say: kitty answers its query with OK; iTerm2 names itself in XTVERSION. */
export function protocolFromReply(reply: string): 'kitty' | 'iterm' | undefined {
  if (reply.includes('\x1b_Gi=31;OK')) return 'kitty';
  if (/^P>\|iTerm2/im.test(reply.split('\x1b').join('\n'))) return 'iterm';
  return undefined;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the DA1 reply is an escape sequence
const DA1_REPLY = /\x1b\[\?[\d;]*c/;
/** The replies the query gets: kitty's APC, XTVERSION's DCS and DA1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the replies are escape sequences
const REPLIES = /\x1b_G[^\x1b]*\x1b\\|\x1bP>\|[^\x1b]*\x1b\\|\x1b\[\?[\d;]*c/g;

/** What the query reads the replies from: the keys typed meanwhile stay there (earlyInput.ts). */
export interface ReplySource {
  until(pattern: RegExp, timeoutMs: number): Promise<string>;
  remove(pattern: RegExp): void;
}

export async function queryImageProtocol(
  input: ReplySource,
  stdout: Pick<NodeJS.WriteStream, 'isTTY' | 'write'>,
  timeoutMs = 150,
): Promise<'kitty' | 'iterm' | undefined> {
  if (!stdout.isTTY) return undefined;
  stdout.write(IMAGE_QUERY);
  const reply = await input.until(DA1_REPLY, timeoutMs);
  input.remove(REPLIES);
  return protocolFromReply(reply);
}
