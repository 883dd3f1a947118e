/**
 * IPython's editor as the oracle of the word keys: for every cursor position of each sample, the
 * notebook's Alt-B, Alt-F, Alt-D, Alt-Backspace, Ctrl-W and Ctrl-T do what prompt_toolkit does for
 * IPython's bindings (backward-word, forward-word, kill-word, backward-kill-word,
 * unix-word-rubout, transpose-chars). Needs Debian's /usr/bin/python3 with prompt_toolkit (`ipython3`), which CI
 * installs: without it this test fails, it does not skip.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  cursorOffset,
  deleteToSpace,
  deleteWord,
  deleteWordForward,
  type EditorState,
  editorText,
  transpose,
  wordLeft,
  wordRight,
} from '../../src/tui/keys/editor.js';

const SAMPLES = [
  'total = compute(alpha, beta)',
  'foo.bar_baz(qux)',
  'x = "hello" + y',
  'a.b',
  'abcd',
  '  lead',
  'trail  ',
  'ab\ncd ef',
  'def f(x):\n    return x**2  # square\n',
  'd["al',
  "print('a,b')",
  '',
  ' \n ',
  'x+=1;y-=2',
  '\n\nz',
];

/** Each key's result at each offset, as [text, cursor] (motions keep the text). */
type Results = Record<'B' | 'F' | 'D' | 'BK' | 'W' | 'T', [string, number][]>;

const ORACLE = String.raw`
import json, sys
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document

def keys(text, c):
    d = Document(text, c)
    b = d.find_previous_word_beginning()
    f = d.find_next_word_ending()
    out = {"B": [text, c + b if b else c], "F": [text, c + f if f else c]}
    out["D"] = [text[:c] + text[c + f:], c] if f else [text, c]
    for key, big in (("BK", False), ("W", True)):
        p = d.find_start_of_previous_word(WORD=big)
        p = -c if p is None else p
        out[key] = [text[:c + p] + text[c:], c + p]
    b = Buffer()
    b.set_document(d, bypass_readonly=True)
    # prompt_toolkit's transpose-chars (named_commands.py), which IPython binds to Ctrl-T
    if c == len(text) or text[c] == "\n":
        b.swap_characters_before_cursor()
    elif c > 0:
        b.cursor_position += b.document.get_cursor_right_position()
        b.swap_characters_before_cursor()
    out["T"] = [b.text, b.cursor_position]
    return out

result = []
for text in json.load(sys.stdin):
    per = {k: [] for k in ("B", "F", "D", "BK", "W", "T")}
    for c in range(len(text) + 1):
        for k, v in keys(text, c).items():
            per[k].append(v)
    result.append(per)
print(json.dumps(result))
`;

/** The editor with `text` and its cursor at `offset`. */
function at(text: string, offset: number): EditorState {
  const before = text.slice(0, offset).split('\n');
  return { lines: text.split('\n'), row: before.length - 1, col: (before.at(-1) ?? '').length };
}

const ours = (f: (s: EditorState) => EditorState, text: string, c: number): [string, number] => {
  const s = f(at(text, c));
  return [editorText(s), cursorOffset(s)];
};

describe("the word keys, against IPython's editor", () => {
  it('move and delete as prompt_toolkit does at every position of every sample', () => {
    const theirs = JSON.parse(
      execFileSync('/usr/bin/python3', ['-c', ORACLE], { input: JSON.stringify(SAMPLES), encoding: 'utf8' }),
    ) as Results[];
    const differences: string[] = [];
    SAMPLES.forEach((text, i) => {
      const expected = theirs[i] as Results;
      for (let c = 0; c <= text.length; c++) {
        const mine: Results = {
          B: [ours(wordLeft, text, c)],
          F: [ours(wordRight, text, c)],
          D: [ours(deleteWordForward, text, c)],
          BK: [ours(deleteWord, text, c)],
          W: [ours(deleteToSpace, text, c)],
          T: [ours(transpose, text, c)],
        };
        for (const key of ['B', 'F', 'D', 'BK', 'W', 'T'] as const) {
          const [want, got] = [expected[key][c], mine[key][0]];
          if (JSON.stringify(want) !== JSON.stringify(got))
            differences.push(
              `${key} in ${JSON.stringify(text)} at ${c}: IPython ${JSON.stringify(want)}, here ${JSON.stringify(got)}`,
            );
        }
      }
    });
    expect(differences).toEqual([]);
  });
});
