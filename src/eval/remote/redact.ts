/**
 * A Jupyter server's URL without its credentials, for every message, label and snippet: what an
 * error says reaches the agent (and its transcript, and logs), so a password in the URL's user
 * info or a `?token=` in its query is never repeated. No imports: the settings check uses it too.
 */

/** Query parameters that carry a credential (Jupyter's `token`, and the names proxies use). */
const SECRET_PARAMS = new Set(['token', 'access_token', 'password']);

/** `url` with no user name, password or credential query parameter; text that is no URL, scrubbed alike. */
export function redactUrl(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  // Not a URL with a host (`ann:pw@gpu:8888` parses as the scheme "ann:"): scrubbed as text, and
  // whatever precedes an `@` that no `/` precedes is taken for user info.
  if (!parsed?.host) return redactText(url).replace(/^(\s*)[^\s/@]*@/, '$1');
  parsed.username = '';
  parsed.password = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMS.has(name.toLowerCase())) parsed.searchParams.delete(name);
  }
  return parsed.toString();
}

/** `text` (a message, a string that is no URL) with every URL's `user:pass@` and `token=...` dropped. */
export function redactText(text: string): string {
  return text
    .replace(/(\/\/)[^/?#@\s]*@/g, '$1')
    .replace(/\b(token|access_token|password)=[^&#\s"']*/gi, '$1=…');
}

/** Whether `url` carries a credential: user info, or a `token=`-like query parameter. */
export function hasCredentials(url: string): boolean {
  if (hasUserInfo(url)) return true;
  try {
    return [...new URL(url).searchParams.keys()].some((name) => SECRET_PARAMS.has(name.toLowerCase()));
  } catch {
    return redactText(url) !== url;
  }
}

/** Whether `url` carries a user name or password (which a Jupyter server does not take). */
export function hasUserInfo(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return /\/\/[^/?#@\s]*@/.test(url);
  }
}

/**
 * `text` with each of `secrets` (a token, a password) replaced by "…": the last guard on a message
 * made from what a library or the network said. Secrets shorter than 4 characters are left alone
 * (replacing every "x" would garble the message and hides nothing worth hiding).
 */
export function scrub(text: string, secrets: Iterable<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    out = out.split(secret).join('…');
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join('…');
  }
  return out;
}
