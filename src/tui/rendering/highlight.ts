/**
 * Syntax highlighting with highlight.js 11's core: the two cell languages are registered at
 * start; another language (a markdown code block's, a remote kernel's) loads its grammar the
 * first time it is shown. (The full highlight.js, or lowlight's only entry, would load some 190
 * grammars at start.) The HTML it makes (nested spans, escaped text) becomes ANSI colours here.
 */
import { createRequire } from 'node:module';
import chalk, { type ChalkInstance } from 'chalk';
import type { LanguageFn } from 'highlight.js';
import hljs from 'highlight.js/lib/core';
import javascript from 'highlight.js/lib/languages/javascript';
import python from 'highlight.js/lib/languages/python';
import type { Language } from '../../eval/index.js';

hljs.registerLanguage('python', python);
hljs.registerLanguage('javascript', javascript);
/** Cell languages and common fence names, for the grammars' file names. */
const ALIASES = new Map(
  Object.entries({
    py: 'python',
    js: 'javascript',
    ts: 'typescript',
    sh: 'bash',
    shell: 'bash',
    zsh: 'bash',
    html: 'xml',
    svg: 'xml',
    yml: 'yaml',
    md: 'markdown',
    rs: 'rust',
    rb: 'ruby',
    jl: 'julia',
    kt: 'kotlin',
    cs: 'csharp',
    hs: 'haskell',
    ps1: 'powershell',
    tex: 'latex',
    ipython: 'python',
    python3: 'python',
  }),
);
const require = createRequire(import.meta.url);
const unavailable = new Set<string>();

/** The grammar registered for `language`, loading it on first use; undefined when there is none. */
function grammarFor(language: string): string | undefined {
  const lower = language.toLowerCase();
  const name = ALIASES.get(lower) ?? lower;
  // (A name such as `constructor` must not reach an object's prototype: checked first.)
  if (!/^[a-z0-9]+$/.test(name) || unavailable.has(name)) return undefined;
  if (hljs.getLanguage(name)) return name;
  try {
    hljs.registerLanguage(name, require(`highlight.js/lib/languages/${name}`) as LanguageFn);
    return name;
  } catch {
    unavailable.add(name);
    return undefined;
  }
}

/** highlight.js scopes → colours (IPython's defaults, roughly). */
const THEME: Record<string, ChalkInstance> = {
  keyword: chalk.green.bold,
  built_in: chalk.green,
  literal: chalk.green.bold,
  type: chalk.green,
  number: chalk.yellow,
  string: chalk.red,
  regexp: chalk.red,
  subst: chalk.reset,
  comment: chalk.cyan.italic,
  meta: chalk.magenta,
  title: chalk.blue,
  'title.function': chalk.blue,
  'title.class': chalk.blue.bold,
  params: chalk.reset,
  variable: chalk.reset,
  attr: chalk.yellow,
  symbol: chalk.magenta,
};

function styleOf(classes: string): ChalkInstance | undefined {
  for (const name of classes.split(' ')) {
    const scope = name.replace(/^hljs-/, '').replace(/_+$/, '');
    const style = THEME[scope] ?? THEME[scope.split('.')[0] as string];
    if (style) return style;
  }
  return undefined;
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
};
const unescapeHtml = (text: string) => text.replace(/&(amp|lt|gt|quot|#x27);/g, (e) => ENTITIES[e] ?? e);
/** highlight.js's HTML: opening spans with classes, closing spans, and escaped text between. */
const PIECE = /<span class="([^"]*)">|<\/span>|[^<]+/g;

/** The HTML as ANSI: each run of text in the innermost styled span's colour, line by line. */
export function htmlToAnsi(html: string): string {
  const styles: (ChalkInstance | undefined)[] = [];
  let out = '';
  for (const [piece, classes] of html.matchAll(PIECE)) {
    if (classes !== undefined) styles.push(styleOf(classes) ?? styles.at(-1));
    else if (piece === '</span>') styles.pop();
    else {
      const text = unescapeHtml(piece);
      const style = styles.at(-1);
      // Colour each line apart: a styled span across a newline would colour the prompt prefix.
      out += style
        ? text
            .split('\n')
            .map((line) => (line ? style(line) : line))
            .join('\n')
        : text;
    }
  }
  return out;
}

const cache = new Map<string, string>();

/**
 * The most code highlighted: highlight.js takes about 3 s a megabyte, and a pasted cell can have
 * many. The lines after it are printed as they are (no colour), from a line's start.
 */
export const HIGHLIGHT_LIMIT = 100_000;

/**
 * `code` in colour. `language` is a cell language, the name a Jupyter kernel gives its language
 * (`python`, `R`, `julia`) or a markdown fence's: code of a language without a grammar is plain.
 * Code longer than HIGHLIGHT_LIMIT is highlighted up to the last line that starts before it.
 */
export function highlightCode(code: string, color: boolean, language: Language | string = 'py'): string {
  if (!color || chalk.level === 0) return code;
  if (code.length > HIGHLIGHT_LIMIT) {
    const cut = code.lastIndexOf('\n', HIGHLIGHT_LIMIT);
    if (cut <= 0) return code;
    return `${highlightCode(code.slice(0, cut), color, language)}${code.slice(cut)}`;
  }
  const grammar = grammarFor(language);
  if (!grammar) return code;
  const key = `${language}\0${code}`;
  let out = cache.get(key);
  if (out === undefined) {
    try {
      out = htmlToAnsi(hljs.highlight(code, { language: grammar, ignoreIllegals: true }).value);
    } catch {
      out = code;
    }
    if (cache.size > 500) cache.clear();
    cache.set(key, out);
  }
  return out;
}
