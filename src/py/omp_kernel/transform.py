"""IPython's syntax → Python, as IPython's input transformers do it, line for line.

Cleanup first: a uniform indentation and pasted prompts (`>>> `, `... `, `In [n]: `, `...: `)
are stripped. Then a `%%name` first line makes the cell a cell magic; otherwise each logical line
that starts with an escape (`%magic`, `!cmd`, `!!cmd`, `?obj`, `??obj`, `,f a b`, `;f a b`,
`/f a b`), assigns one (`x = %magic`, `x = !cmd`) or ends with `?`/`??` (help) becomes a call of a
helper in builtins (so it never shows up among the user's names). Every line stays where it was,
so tracebacks still point at the user's lines. Strings, comments and brackets are respected.
Stdlib only; no side effects on import.
"""
import re

_CLASSIC_FIRST = re.compile(r"^>>>( |$)")
_CLASSIC = re.compile(r"^(>>>|\.\.\.)( |$)")
_IPYTHON = re.compile(r"^((((\[nav\]|\[ins\]) )?In \[\d+\]: )|(\s*\.{3,}: ?))")
_INDENT = re.compile(r"^[ \t]+")
_HELP_END = re.compile(r"(%{0,2}(?!\d)[\w*]+(\.(?!\d)[\w*]+)*)(\?\??)$")
_NAME_START = re.compile(r"[^\W\d]", re.UNICODE)
_CELL_MAGIC_HELP = re.compile(r"%%\w+\?")  # %%bash? is help on %%bash, as in IPython


def cleanup(lines):
    """Uniform indentation and pasted prompts removed (IPython's cleanup transforms); empty
    leading lines are kept, so line numbers stay true."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return lines
    indent = _INDENT.match(lines[first])
    if indent:
        space = indent.group(0)
        lines = lines[:first] + [line[len(space) :] if line.startswith(space) else line for line in lines[first:]]
    body = lines[first:]
    for initial, prompt in ((_CLASSIC_FIRST, _CLASSIC), (_IPYTHON, _IPYTHON)):
        if initial.match(body[0]) or (len(body) > 1 and prompt.match(body[1])):
            body = [prompt.sub("", line, count=1) for line in body]
    return lines[:first] + body


def scan(line, state):
    """Advances the string/bracket state over one physical line of code; returns where a
    comment starts in it (or len(line)). `state["open"]` is the string still open at the line's
    end, as (where it starts in the line, its quote), even a one-line string that the line's end
    then closes (what is being typed there: a completion reads it); None when there is none."""
    quote, depth = state["quote"], state["depth"]
    start = 0  # (a string carried over from an earlier line started before this one)
    i, n = 0, len(line)
    comment = n
    while i < n:
        c = line[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
            i += 1
            continue
        if c == "#":
            comment = i
            break
        if c in "'\"":
            quote = c * 3 if line.startswith(c * 3, i) else c
            start = i
            i += len(quote)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        i += 1
    continued = comment == n and line.endswith("\\")
    state["open"] = (start, quote) if quote else None
    if quote and len(quote) == 1 and not continued:
        quote = None  # an unterminated one-line string ends with its line (a syntax error anyway)
    state["quote"], state["depth"], state["continued"] = quote, depth, continued
    return comment


def _call(name, *args):
    return "%s(%s)" % (name, ", ".join(repr(a) for a in args))


# The kernel's helper calls as IPython spells them (what IPython keeps in In and %history -t shows).
_IPYTHON_FORMS = (
    (re.compile(r"__omp_cell_magic__\((.*), \d+\)"), r"get_ipython().run_cell_magic(\1)"),
    (re.compile(r"__omp_magic__\("), "get_ipython().run_line_magic("),
    (re.compile(r"__omp_system__\("), "get_ipython().system("),
    (re.compile(r"__omp_getoutput__\("), "get_ipython().getoutput("),
    (re.compile(r"__omp_show_usage__\(\)"), "get_ipython().show_usage()"),
)


def ipython_form(code):
    """`code` translated into plain Python as IPython spells it (get_ipython().run_line_magic(...));
    code that cannot be translated (`f(1)?`) as it was typed, as IPython keeps it."""
    try:
        text = transform(code)
    except SyntaxError:
        return code
    for pattern, replacement in _IPYTHON_FORMS:
        text = pattern.sub(replacement, text)
    return text


def help_call(target, marks):
    method = "pinfo2" if marks == "??" else "psearch" if "*" in target else "pinfo"
    return _call("__omp_magic__", method, target)


def _escape(text):
    """The call for a logical line that starts with an escape, or None."""
    if text.startswith("!!"):
        return _call("__omp_getoutput__", text[2:])
    if text.startswith("!") and not text.startswith("!="):
        return _call("__omp_system__", text[1:])
    if text.startswith("??") or (text.startswith("?") and not text.startswith("??")):
        marks = "??" if text.startswith("??") else "?"
        content = text[len(marks) :]
        return "__omp_show_usage__()" if not content else help_call(content, marks)
    if text.startswith("%") and not text.startswith("%="):
        name, _, args = text[1:].partition(" ")
        return _call("__omp_magic__", name, args)
    if text[:1] in ",;/" and _NAME_START.match(text[1:2]):
        name, _, args = text[1:].partition(" ")
        if text[0] == ",":
            return '%s("%s")' % (name, '", "'.join(args.split()))
        if text[0] == ";":
            return '%s("%s")' % (name, args)
        return "%s(%s)" % (name, ", ".join(args.split()))
    return None


def _assign_position(line):
    """Where the first plain `=` outside strings and brackets is, or -1."""
    quote, depth, i = None, 0, 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
        elif c == "#":
            return -1
        elif c in "'\"":
            quote = c * 3 if line.startswith(c * 3, i) else c
            i += len(quote)
            continue
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "=" and depth == 0:
            if line[i + 1 : i + 2] == "=" or (i and line[i - 1] in "=!<>+-*/%&|^@:"):
                return -1  # ==, !=, <=, +=, ... and the walrus
            return i
        i += 1
    return -1


def _assignment(line):
    """`lhs = %magic args` / `lhs = !cmd`: (lhs text, call), or None."""
    i = _assign_position(line)
    if i < 0:
        return None
    rest = line[i + 1 :]
    stripped = rest.lstrip()
    offset = i + 1 + len(rest) - len(stripped)
    if stripped.startswith("!") and not stripped.startswith("!="):
        return line[:offset], _call("__omp_getoutput__", stripped[1:])
    if stripped.startswith("%") and _NAME_START.match(stripped[1:2]):
        name, _, args = stripped[1:].partition(" ")
        return line[:offset], _call("__omp_magic__", name, args)
    return None


def _backslash_extent(lines, start):
    """The physical lines of an escaped line (continued by backslashes only), joined as IPython
    joins them: each continued line without its backslash, one space between."""
    end = start
    while end < len(lines) - 1 and lines[end].rstrip("\n").endswith("\\"):
        end += 1
    parts = [line.rstrip()[:-1] for line in lines[start:end]] + [lines[end].rstrip()]
    return end, " ".join(parts)


def transform(code):
    """Rewrites IPython syntax into helper calls. Code without any comes back unchanged (the
    same string)."""
    lines = code.split("\n")
    cleaned = cleanup(lines)
    first = next((i for i, line in enumerate(cleaned) if line.strip()), None)
    if first is not None and cleaned[first].startswith("%%") and not _CELL_MAGIC_HELP.match(cleaned[first]):
        name, _, arg = cleaned[first][2:].rstrip().partition(" ")
        body = "\n".join(cleaned[first + 1 :])
        if not code.endswith("\n"):
            body += "\n"
        return "\n" * first + _call("__omp_cell_magic__", name, arg, body, first + 2) + "\n" * (len(lines) - first - 1)
    out = _transform_lines(cleaned)
    return code if out == lines else "\n".join(out)


def _transform_lines(lines):
    state = {"quote": None, "depth": 0, "continued": False}
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        at_start = state["quote"] is None and state["depth"] == 0 and not state["continued"]
        if not at_start or not stripped:
            out.append(line)
            scan(line, state)
            i += 1
            continue
        indent = line[: len(line) - len(stripped)]
        end, call = _statement(lines, i, state)
        out.append(indent + call if call is not None else line)
        if call is None:
            out.extend(lines[i + 1 : end + 1])
        else:
            out.extend([""] * (end - i))
        i = end + 1
    return out


def _statement(lines, start, state):
    """(last physical line, call or None) for the logical line starting at `start`; leaves
    `state` at its end."""
    stripped = lines[start].lstrip()
    probe = dict(state)
    end = start
    comment = scan(lines[start], probe)
    while (probe["quote"] or probe["depth"] or probe["continued"]) and end < len(lines) - 1:
        end += 1
        comment = scan(lines[end], probe)
    tail = lines[end][:comment].rstrip()
    if tail.endswith("?") and not probe["quote"]:
        content = tail.lstrip() if end == start else "\n".join([stripped] + lines[start + 1 : end] + [tail])
        match = _HELP_END.search(content)
        if match is not None:
            state.update(probe)
            return end, help_call(match.group(1), match.group(3))
        if not content.startswith("?"):
            raise SyntaxError("invalid syntax: %s" % content)
    escaped_end, text = _backslash_extent(lines, start)
    call = _escape(text.lstrip())
    if call is not None:
        return escaped_end, call
    assign = _assignment(text.lstrip())
    if assign is not None:
        return escaped_end, assign[0] + assign[1]
    state.update(probe)
    return end, None
