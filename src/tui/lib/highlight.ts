/**
 * Syntax highlighting of cell code with lowlight (highlight.js 11), which registers only the two
 * languages cells are written in; the tree it returns is turned into ANSI colours here.
 */
import chalk, { type ChalkInstance } from 'chalk';
import type { Element, Root, RootContent } from 'hast';
import javascript from 'highlight.js/lib/languages/javascript';
import python from 'highlight.js/lib/languages/python';
import { createLowlight } from 'lowlight';
import type { CellLanguage } from '../../eval/index.js';

const lowlight = createLowlight({ python, javascript });
const LANGUAGE: Record<CellLanguage, string> = { py: 'python', js: 'javascript' };

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

function styleOf(node: Element): ChalkInstance | undefined {
  const classes = node.properties?.className;
  if (!Array.isArray(classes)) return undefined;
  for (const name of classes) {
    const scope = String(name).replace(/^hljs-/, '');
    const style = THEME[scope] ?? THEME[scope.split('.')[0] as string];
    if (style) return style;
  }
  return undefined;
}

function toAnsi(nodes: readonly RootContent[]): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text') out += node.value;
    else if (node.type === 'element') {
      const inner = toAnsi(node.children);
      const style = styleOf(node);
      // Colour each line apart: a styled span across a newline would colour the prompt prefix.
      out += style
        ? inner
            .split('\n')
            .map((line) => (line ? style(line) : line))
            .join('\n')
        : inner;
    }
  }
  return out;
}

const cache = new Map<string, string>();

export function highlightCode(code: string, color: boolean, language: CellLanguage = 'py'): string {
  if (!color || chalk.level === 0) return code;
  const key = `${language}\0${code}`;
  let out = cache.get(key);
  if (out === undefined) {
    try {
      const tree: Root = lowlight.highlight(LANGUAGE[language], code);
      out = toAnsi(tree.children);
    } catch {
      out = code;
    }
    if (cache.size > 500) cache.clear();
    cache.set(key, out);
  }
  return out;
}
