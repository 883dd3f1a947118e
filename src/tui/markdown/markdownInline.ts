/**
 * Markdown's inline tokens (marked's lexer) as styled terminal text: bold, italic, struck through,
 * code in yellow, links as "text (href)" (terminal hyperlinks would be invisible to width
 * measuring), images as their markdown, inline HTML as written, in grey. A hard break is `\n`; the
 * soft line breaks of the source are spaces (the text is wrapped at the terminal's width later).
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { Token } from 'marked';

/** The styles of each element, all the identity without colour. */
export interface Styles {
  color: boolean;
  firstHeading: ChalkInstance;
  heading: ChalkInstance;
  strong: ChalkInstance;
  em: ChalkInstance;
  codespan: ChalkInstance;
  del: ChalkInstance;
  link: ChalkInstance;
  href: ChalkInstance;
  html: ChalkInstance;
  blockquote: ChalkInstance;
  tableHead: ChalkInstance;
  tableBorder: ChalkInstance;
}

const styles = new Map<boolean, Styles>();

/** The styles with colour (at least 16 colours, more when chalk sees them) or without. */
export function stylesFor(color: boolean): Styles {
  const known = styles.get(color);
  if (known) return known;
  const c = new Chalk({ level: color ? (Math.max(new Chalk().level, 1) as 1 | 2 | 3) : 0 });
  const made: Styles = {
    color,
    firstHeading: c.magenta.underline.bold,
    heading: c.green.bold,
    strong: c.bold,
    em: c.italic,
    codespan: c.yellow,
    del: c.dim.gray.strikethrough,
    link: c.blue,
    href: c.blue.underline,
    html: c.gray,
    blockquote: c.gray.italic,
    tableHead: c.bold,
    tableBorder: c.gray,
  };
  styles.set(color, made);
  return made;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/**
 * Text from the markdown, made safe to print: no control characters (an escape sequence in the
 * source must not reach the terminal), and the five entities HTML escaping makes read as characters.
 */
export function clean(text: string): string {
  return text
    .replace(CONTROL, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ENTITIES[name] ?? '');
}

/** Inline tokens as one line of styled text (`\n` where the source has a hard break). */
export function renderInline(tokens: Token[], s: Styles): string {
  let out = '';
  for (const token of tokens) out += inline(token, s);
  return out;
}

function inline(token: Token, s: Styles): string {
  switch (token.type) {
    case 'text':
      return token.tokens ? renderInline(token.tokens, s) : clean(token.text).replace(/\n/g, ' ');
    case 'escape':
      return clean(token.text);
    case 'strong':
      return s.strong(renderInline(token.tokens ?? [], s));
    case 'em':
      return s.em(renderInline(token.tokens ?? [], s));
    case 'del':
      return s.del(renderInline(token.tokens ?? [], s));
    case 'codespan':
      return s.codespan(clean(token.text).replace(/\n/g, ' '));
    case 'br':
      return '\n';
    case 'link': {
      const text = renderInline(token.tokens ?? [], s);
      const href = clean(token.href);
      return text && text !== href ? `${s.link(text)} (${s.href(href)})` : s.href(href);
    }
    case 'image': {
      const title = token.title ? ` – ${clean(token.title)}` : '';
      return `![${clean(token.text)}${title}](${clean(token.href)})`;
    }
    case 'html':
      return s.html(clean(token.text).replace(/\n/g, ' '));
    case 'checkbox':
      return '';
    default:
      if ('tokens' in token && Array.isArray(token.tokens)) return renderInline(token.tokens, s);
      return clean(token.raw).replace(/\n/g, ' ');
  }
}
