"""A cell's source and request, read before it runs: whether it may hold IPython syntax, what a
one-line cell means (IPython's prefilter), where its value is silenced, which name an assignment
binds, the numbers the host sent; and for its run, the warnings shown again and the coroutine
chain a top-level-await cell waits in. No side effects on import."""
import sys

MAYBE_IPYTHON_MARKS = ("%", "!", "?", ">>>", "...", "In [")


def maybe_ipython(code):
    """False when code certainly has no IPython syntax (most cells: the transformer is not loaded)."""
    if any(mark in code for mark in MAYBE_IPYTHON_MARKS):
        return True
    for line in code.split("\n"):
        if line.strip():
            if line[:1].isspace():
                return True  # a uniformly indented cell
            break
    return any(line.lstrip()[:1] in (",", ";", "/") for line in code.split("\n"))


FIRST_WORD = r"^([^\W\d][\w.]*)\s*(.*)$"  # IPython's split of a line into `ifun rest`


def shadowed(name):
    import builtins
    import keyword

    return name in builtins.__dict__ or keyword.iskeyword(name)


def prefilter(code, user_ns, line_magics):
    """A one-line cell, as IPython's prefilter sees it: a macro's name runs the macro, and
    `name args` runs the line magic `name` when nothing in the namespace is called so
    (automagic). `line_magics()` gives the line magics' names."""
    line = code.strip()
    if not line or "\n" in line:
        return code
    import re

    match = re.match(FIRST_WORD, line, re.S)
    if match is None:
        return code
    ifun, rest = match.group(1), match.group(2)
    head = ifun.split(".", 1)[0]
    value = user_ns.get(head)
    if ifun == head and type(value).__name__ == "Macro" and isinstance(getattr(value, "value", None), str):
        return value.value
    if rest[:1] in ("=", ",") or head in user_ns or shadowed(head):
        return code
    if ifun not in line_magics():
        return code
    return "%" + line


def normalize(code):
    # compile() reads \r\n and \r as newlines; normalising first keeps line numbers, the
    # registered source and the ';' check in agreement.
    return code.replace("\r\n", "\n").replace("\r", "\n")


def semicolon_after(code, node):
    """True if the cell's last expression is followed by ';' (IPython's output suppression)."""
    lines = code.split("\n")
    tail = lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset :].decode("utf-8", "replace")
    for text in [tail] + lines[node.end_lineno :]:
        text = text.strip()
        if text.startswith(";"):
            return True
        if text and not text.startswith("\\"):
            return False
    return False


def assigned_name(ast, node):
    """The name an assignment statement binds alone (`x = ...`, `x += ...`, `x: int = ...`), as
    IPython's last_expr_or_assign shows it; None for other statements."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        target = node.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def script_line(request):
    """Where the cell starts in the script it comes from (`omp-eval run`), if the host said."""
    line = request.get("scriptLine")
    return line if isinstance(line, int) and not isinstance(line, bool) and line > 0 else None


def cell_number(request):
    """The number the front end shows for the cell, when it sends one: tracebacks name it, and
    the cell's count follows it (never going back), so that Out[n], _n and In[n] are the cell the
    screen shows as [n] (after a restart, or js cells in between)."""
    number = request.get("cellNumber")
    return number if isinstance(number, int) and not isinstance(number, bool) and number > 0 else None


def new_warning_registry():
    """Each cell shows its warnings again, as in IPython (the registry of warnings already shown
    is keyed by line, and every cell's code is `__main__`)."""
    mutated = getattr(sys.modules.get("warnings"), "_filters_mutated", None)
    if mutated is not None:
        mutated()


def await_traceback(coro):
    """A traceback through the chain of coroutines the cell is suspended in."""
    import types

    frames = []
    while coro is not None and getattr(coro, "cr_frame", None) is not None:
        frames.append(coro.cr_frame)
        coro = coro.cr_await
    tb = None
    for frame in reversed(frames):
        tb = types.TracebackType(tb, frame, frame.f_lasti, frame.f_lineno)
    return tb
