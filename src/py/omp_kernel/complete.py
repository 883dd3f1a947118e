"""Completions of the name before the cursor, and whether a cell is complete (Enter runs it) or
needs more lines: the `complete` and `is_complete` requests. No side effects on import."""
import re

_TOKEN = re.compile(r"[\w.]*$")
_INDENT = re.compile(r"^[ \t]+")


def completions(code, cursor, namespace):
    """(matches, start): jedi when it is installed, else rlcompleter over the namespace. Only
    names that extend what was typed, without duplicates."""
    before = code[:cursor]
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
    grouped = _logical_lines(lines, tokenize)
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
