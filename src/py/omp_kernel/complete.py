"""Completions of the name before the cursor, and whether a cell is complete (Enter runs it) or
needs more lines: the `complete` and `is_complete` requests. No side effects on import."""
import re

_TOKEN = re.compile(r"[\w.]*$")
_INDENT = re.compile(r"^[ \t]+")
# `expr[` then, maybe, the start of a string key: d["al, obj.attr['x, d[b"k
_KEY = re.compile(r"""(?P<expr>[^\W\d][\w.]*)\s*\[\s*(?P<prefix>[bB]?)(?P<quote>['"]?)(?P<typed>[^'"\]]*)$""")


def completions(code, cursor, namespace, magics=None):
    """(matches, start): the keys of a mapping inside `d["…` (as IPython's dict-key completer),
    magic names after `%` (`magics()`: the line and cell magics' names, and those whose argument
    is code), paths in a magic's or a shell command's arguments and inside a string, else jedi
    when it is installed, else rlcompleter over the namespace. Only names that extend what was
    typed, without duplicates."""
    keys = key_completions(code, cursor, namespace)
    if keys is not None:
        return keys
    before = code[:cursor]
    line_start = before.rfind("\n") + 1
    line = before[line_start:]
    # (`%` and `!` make a magic or a command only where a statement starts: not `a\n  % b` or
    # `!=` inside brackets.)
    command = _COMMAND_ARG.match(line) if _statement_starts(before[:line_start]) else None
    magic = _MAGIC.match(line) if command is None and _statement_starts(before[:line_start]) else None
    if magic and magics is not None:
        return _magic_completions(magic.group(1), magic.group(2), magics), cursor - len(magic.group(0).lstrip())
    word = _path_word(line, command, magics)
    paths = _command_paths(word, command) if command is not None else _paths(word) if word is not None else []
    if paths:
        return paths, cursor - len(word)
    if command is not None and command.group("magic") and word is not None:
        # A magic's argument that is no path: a name (%xdel name), completed on its own.
        matches, start = completions(word, len(word), namespace)
        return matches, cursor - len(word) + start
    token = _TOKEN.search(before).group(0)
    try:
        import jedi  # noqa: F401 - optional

        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1)
        names = jedi.Interpreter(code, [namespace]).complete(line, column)
        prefix = token.rsplit(".", 1)[0] + "." if "." in token else ""
        matches = [prefix + c.name for c in names]
    except KeyboardInterrupt:
        raise
    except Exception:
        matches = _rlcompleter(namespace, token)
    seen = set()
    unique = [m for m in matches if m.startswith(token) and not (m in seen or seen.add(m))]
    return unique[:200], cursor - len(token)


_MAGIC = re.compile(r"^\s*(%%?)(\w*)$")
# A magic's or a shell command's argument being typed: `%cd /tm`, `!ls da`, `files = !ls da`.
# (The word may hold spaces and other shell characters escaped with a backslash: `!ls my\ d`.)
_COMMAND_ARG = re.compile(
    r"^\s*(?:\w+\s*=\s*)?(?:%%?(?P<magic>\w+)|!!?(?!=)\S+)\s(?:.*(?<!\\)\s)?(?P<word>(?:\\.|[^\s\\])*\\?)$"
)
# As IPython's protect_filename: what a shell or a magic's argument parser would split or expand.
_PROTECTABLES = set(" ()[]{}?=\\|;:'#*\"^&")
_ESCAPED = re.compile(r"\\(.)")


def _scanned(text):
    """The string and bracket state at the end of `text` (Python code), as the cell transformer
    reads it (transform.scan, one physical line at a time)."""
    from .transform import scan

    state = {"quote": None, "depth": 0, "continued": False, "open": None}
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # (the line being typed starts after it: the one before ends with its \n)
    for line in lines:
        scan(line, state)
    return state


def _statement_starts(text):
    """Whether a statement may start after `text`: no bracket or string left open, no `\\` ending."""
    state = _scanned(text)
    return state["depth"] == 0 and state["quote"] is None and not state["continued"]


def _magic_completions(sign, typed, magics):
    """As IPython: after `%`, the line magics then the cell magics that start with what was typed;
    after `%%`, the cell magics."""
    line_names, cell_names, _ = magics()
    found = [("%%", n) for n in cell_names if n.startswith(typed)]
    if sign == "%":
        found += [("%", n) for n in line_names if n.startswith(typed)]
    return [prefix + name for prefix, name in sorted(found, key=lambda f: (f[1], len(f[0])))]


def _path_word(line, command, magics):
    """The path being typed at the end of `line` (an argument of a magic or a shell command, or
    the text of a string left open on it), or None when the cursor is at neither. A magic whose
    argument is code (%timeit x.ap), a `$name` or a `{expression}` (an f-string's) complete names."""
    if command is not None:
        code_magics = magics()[2] if magics is not None else ()
        word = None if command.group("magic") in code_magics else command.group("word")
    else:
        opened = _scanned(line)["open"]
        word = line[opened[0] + len(opened[1]) :] if opened is not None else None
        if word is not None and any(ch.isspace() for ch in word):
            return None
    if word is None or word.startswith("$") or "{" in word:
        return None
    return word


# As IPython's: %cd takes a directory, %run a directory or a script.
_PATH_KINDS = {"cd": (), "pushd": (), "run": (".py", ".ipy", ".ipynb")}


def _command_paths(word, command):
    """Paths for an argument of a shell command or a magic, written as typed there: a space or
    another character the shell would take (`my dir` → `my\\ dir/`) with a backslash, as IPython."""
    if word is None:
        return []
    paths = _paths(_ESCAPED.sub(r"\1", word), command.group("magic"))
    return ["".join("\\" + ch if ch in _PROTECTABLES else ch for ch in path) for path in paths]


def _paths(word, magic=None):
    """Files and directories whose path starts with `word` (`~` is the home directory; relative to
    the kernel's working directory), a directory with its `/`."""
    import glob
    import os

    suffixes = _PATH_KINDS.get(magic)
    expanded = os.path.expanduser(word)
    matches = []
    for path in sorted(glob.glob(glob.escape(expanded) + "*")):
        directory = os.path.isdir(path)
        if directory or suffixes is None or path.endswith(suffixes):
            matches.append(word + path[len(expanded) :] + ("/" if directory else ""))
            if len(matches) == 200:
                break
    return matches


def _lookup(expr, namespace):
    """The value a dotted name has in the namespace (attributes read with getattr), or raise."""
    head, _, rest = expr.partition(".")
    value = namespace[head] if head in namespace else getattr(__import__("builtins"), head)
    for part in rest.split(".") if rest else ():
        value = getattr(value, part)
    return value


def _escaped(key, quote):
    """The key as it is written inside `quote`s, escaped as IPython escapes it (repr's escapes;
    a quote of either kind gets a backslash)."""
    text = repr(key + (b'"' if isinstance(key, bytes) else '"'))
    text = text[text.index("'") + 1 : -2]
    return text.replace('"', '\\"') if quote == '"' else text


def key_completions(code, cursor, namespace):
    """(matches, start) for the key typed after `mapping[`, or None when the cursor is not there.
    As IPython: string (and bytes, after b") keys that start with what was typed, with the closing
    quote and bracket added unless they follow the cursor already; right after the bracket, every
    string and bytes key as repr()."""
    match = _KEY.search(code[:cursor])
    if match is None or (not match.group("quote") and (match.group("typed") or match.group("prefix"))):
        return None  # d[na: a name, not a key
    try:
        keys = list(_lookup(match.group("expr"), namespace).keys())
    except Exception:
        return None
    quote, typed = match.group("quote"), match.group("typed")
    rest = code[cursor:]
    if quote and rest.startswith(quote):
        rest, quote_after = rest[1:], ""
    else:
        quote_after = quote
    closing = quote_after + ("" if rest.lstrip().startswith("]") else "]")
    matches = set()
    for key in keys:
        if not quote:
            if isinstance(key, (str, bytes)):
                matches.add(repr(key) + closing)
            continue
        if not isinstance(key, bytes if match.group("prefix") else str):
            continue
        text = _escaped(key, quote)
        if text.startswith(typed):
            matches.add(text + closing)
    return sorted(matches)[:200], cursor - len(typed)


def _rlcompleter(namespace, token):
    import rlcompleter

    matches = []
    completer = rlcompleter.Completer(namespace)
    for state in range(500):
        try:
            match = completer.complete(token, state)
        except Exception:
            break
        if match is None:
            break
        matches.append(match)
    return matches


def _last_indent(lines):
    match = _INDENT.match(lines[-1])
    return len(match.group(0).replace("\t", " " * 4)) if match else 0


def _logical_lines(lines, tokenize):
    """Tokens grouped by logical line: a bracketed expression over several lines is one."""
    grouped = [[]]
    depth = 0
    try:
        for token in tokenize.generate_tokens(iter(lines).__next__):
            grouped[-1].append(token)
            if token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth <= 0):
                grouped.append([])
            elif token.string in ("(", "[", "{"):
                depth += 1
            elif token.string in (")", "]", "}") and depth > 0:
                depth -= 1
    except tokenize.TokenError:
        pass  # the input ends inside a string or brackets
    if not grouped[-1]:
        grouped.pop()
    return grouped


def _sunken(tokens):
    """More closing brackets than opening ones, at some point of the line."""
    depth = 0
    for token in tokens:
        if token.string in ("(", "[", "{"):
            depth += 1
        elif token.string in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return True
    return False


def is_complete(cell, private_import):
    """('complete' | 'incomplete' | 'invalid', indent or None), with IPython's rules: a block
    opener asks for four more spaces, open brackets and strings for the line's indentation,
    a cell magic ends at an empty line; the rest is settled by codeop, as ipykernel does."""
    from . import transform

    tokenize = private_import("tokenize")
    stripped_end = cell[len(cell.rstrip()) :]
    ends_with_newline = "\n" in stripped_end or "\r" in stripped_end
    if not ends_with_newline:
        cell += "\n"
    lines = cell.splitlines(True)
    if not lines:
        return "complete", None
    if lines[-1].endswith("\\"):
        return "incomplete", _last_indent(lines)
    lines = [line + "\n" for line in transform.cleanup([line.rstrip("\r\n") for line in lines])]
    if lines[0].startswith("%%"):
        return ("incomplete", _last_indent(lines)) if lines[-1].strip() else ("complete", None)
    try:
        lines = [line + "\n" for line in transform.transform("".join(lines)).split("\n")][:-1]
    except SyntaxError:
        return "invalid", None
    try:
        grouped = _logical_lines(lines, tokenize)
    except SyntaxError:  # an unindent that matches no outer level (IndentationError): as IPython's
        return "invalid", None
    if len(lines) == 1 and grouped and _sunken(grouped[0]):
        return "invalid", None
    if not grouped:
        return "incomplete", _last_indent(lines)
    if grouped[-1][-1].type != tokenize.ENDMARKER:
        return "incomplete", _last_indent(lines)  # inside a string or brackets
    return _settle(lines, grouped, tokenize, ends_with_newline, private_import)


def _settle(lines, grouped, tokenize, ends_with_newline, private_import):
    ending = {tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER}
    last_line = None
    kinds = {t.type for t in grouped[-1]}
    if kinds in ({tokenize.DEDENT, tokenize.ENDMARKER}, {tokenize.ENDMARKER}) and len(grouped) > 1:
        last_line = grouped.pop()
    while grouped[-1] and grouped[-1][-1].type in ending:
        grouped[-1].pop()
    if not grouped[-1]:
        return "incomplete", _last_indent(lines)
    if grouped[-1][-1].string == ":":
        first = next(t for t in grouped[-1] if t.type not in (tokenize.INDENT, tokenize.DEDENT))
        return "incomplete", first.start[1] + 4
    if grouped[-1][0].line.endswith("\\"):
        return "incomplete", None
    codeop = private_import("codeop")
    warnings = private_import("warnings")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", SyntaxWarning)
            compiled = _compile(codeop, lines)
    except (SyntaxError, OverflowError, ValueError, TypeError, MemoryError, SyntaxWarning):
        return "invalid", None
    if compiled is None:
        return "incomplete", _last_indent(lines)
    if last_line and last_line[0].type == tokenize.DEDENT and not ends_with_newline:
        return "incomplete", _last_indent(lines)
    return "complete", None


def _compile(codeop, lines):
    """codeop.compile_command with top-level await allowed."""
    compiler = codeop.CommandCompiler()
    compiler.compiler.flags |= 0x2000  # ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    return compiler("".join(lines), "<input>", "exec")
