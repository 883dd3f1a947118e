/**
 * Asks the terminal which image protocol it speaks, before Ink takes the input: the kitty
 * graphics query, XTVERSION (iTerm2 names itself there), and DA1, which every terminal answers
 * and so marks the end of the replies.
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

export async function queryImageProtocol(
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  timeoutMs = 150,
): Promise<'kitty' | 'iterm' | undefined> {
  if (!stdin.isTTY || !stdout.isTTY || typeof stdin.setRawMode !== 'function') return undefined;
  const wasRaw = stdin.isRaw;
  stdin.setRawMode(true);
  let reply = '';
  let onReadable: () => void = () => {};
  // 'readable' rather than 'data': a stream switched to flowing mode would not feed Ink later.
  const answered = new Promise<void>((resolve) => {
    onReadable = () => {
      for (let chunk = stdin.read(); chunk !== null; chunk = stdin.read()) reply += String(chunk);
      if (DA1_REPLY.test(reply)) resolve();
    };
    setTimeout(resolve, timeoutMs);
  });
  stdin.on('readable', onReadable);
  stdout.write(IMAGE_QUERY);
  await answered;
  stdin.off('readable', onReadable);
  stdin.setRawMode(wasRaw);
  return protocolFromReply(reply);
}
