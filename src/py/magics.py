"""IPython-style magics for the omp-eval kernel: the source transformer and the magic functions.

Loaded by runner.py the first time a cell contains `%`, `!` or `?`. Stdlib only, Python 3.8
grammar. Where the spec is brief, IPython's documented behaviour is the reference.

The transformer rewrites magic lines into calls of helpers that live in `builtins` (so they never
show up among the user's names) and keeps every line where it was, so tracebacks still point at
the user's lines.
"""
import builtins
import math
import os
import re
import shlex
import subprocess
import sys
import time

_R = None  # the runner module, set by install()


class UsageError(Exception):
    """A magic was misused or does not exist (IPython's name and wording)."""


# ---------------------------------------------------------------------------
# The transformer.
# ---------------------------------------------------------------------------

_ASSIGN = re.compile(r"^(?P<lhs>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*(?P<kind>[!%])(?P<rest>.*)$")
_HELP = re.compile(r"^(?P<pre>\?{1,2})?(?P<name>[A-Za-z_][\w.]*(?:\(\))?)(?P<post>\?{1,2})?$")
_MAGIC_NAME = re.compile(r"^%?([\w.-]*)\s*(.*)$", re.S)


def _scan(line, state):
    """Advances the string/bracket state over one line of code (not a magic line)."""
    quote = state["quote"]
    depth = state["depth"]
    i = 0
    n = len(line)
    comment = False
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
            comment = True
            break
        if c in "'\"":
            quote = c * 3 if line.startswith(c * 3, i) else c
            i += len(quote)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        i += 1
    continued = not comment and line.endswith("\\")
    if quote and len(quote) == 1 and not continued:
        quote = None  # an unterminated one-line string ends with its line (a syntax error anyway)
    state["quote"] = quote
    state["depth"] = depth
    state["continued"] = continued


def _split_magic(text):
    match = _MAGIC_NAME.match(text)
    name, arg = match.group(1), match.group(2)
    return name, arg.strip()


def _rewrite(stripped):
    """The Python call for a magic line (without indentation), or None for ordinary code."""
    if stripped.startswith("!") and not stripped.startswith("!="):
        return "__omp_system__(%r)" % stripped[1:].strip()
    if stripped.startswith("%"):
        name, arg = _split_magic(stripped[1:])
        return "__omp_magic__(%r, %r)" % (name, arg)
    assign = _ASSIGN.match(stripped)
    if assign:
        rest = assign.group("rest")
        if assign.group("kind") == "!":
            if rest.startswith("="):
                return None  # `a = != b` is not a shell escape
            call = "__omp_getoutput__(%r)" % rest.strip()
        else:
            if rest.startswith("="):
                return None
            name, arg = _split_magic(rest)
            call = "__omp_magic__(%r, %r)" % (name, arg)
        return "%s = %s" % (assign.group("lhs"), call)
    if "?" in stripped:
        help_ = _HELP.match(stripped)
        if help_ and bool(help_.group("pre")) != bool(help_.group("post")):
            marks = help_.group("pre") or help_.group("post")
            return "__omp_help__(%r, %d)" % (help_.group("name"), len(marks))
    return None


def transform(code):
    """Rewrites IPython syntax into helper calls, line for line. Code without magics comes back
    unchanged (the same string)."""
    lines = code.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].startswith("%%"):
        name, arg = _split_magic(lines[first][2:])
        body = "\n".join(lines[first + 1 :])
        call = "__omp_cell_magic__(%r, %r, %r, %d)" % (name, arg, body, first + 2)
        return "\n" * first + call + "\n" * (len(lines) - first - 1)
    state = {"quote": None, "depth": 0, "continued": False}
    out = []
    changed = False
    i = 0
    while i < len(lines):
        line = lines[i]
        starts = state["quote"] is None and state["depth"] == 0 and not state["continued"]
        stripped = line.lstrip()
        call = _rewrite(stripped.rstrip()) if starts and stripped else None
        if call is None:
            out.append(line)
            _scan(line, state)
            i += 1
            continue
        # A magic line may continue with backslashes; the call keeps the first line's place and
        # the continuation lines become empty, so later line numbers stay where they were.
        taken = 1
        text = stripped.rstrip()
        while text.endswith("\\") and i + taken < len(lines):
            text = text[:-1] + " " + lines[i + taken].strip()
            taken += 1
        if taken > 1:
            call = _rewrite(text) or call
        out.append(line[: len(line) - len(stripped)] + call)
        out.extend([""] * (taken - 1))
        changed = True
        i += taken
    return "\n".join(out) if changed else code


# ---------------------------------------------------------------------------
# Shell commands: !cmd, var = !cmd, %%bash, %%sh.
# ---------------------------------------------------------------------------


class SList(list):
    """A list of output lines with IPython's helpers: .n .s .l .p .grep() .fields()."""

    @property
    def l(self):  # noqa: E743 - IPython's name
        return list(self)

    @property
    def n(self):
        return "\n".join(self)

    @property
    def s(self):
        return " ".join(self)

    @property
    def p(self):
        import pathlib

        return [pathlib.Path(line) for line in self]

    def grep(self, pattern, prune=False, field=None):
        match = pattern if callable(pattern) else re.compile(pattern, re.I).search

        def key(line):
            if field is None:
                return line
            parts = line.split()
            return parts[field] if len(parts) > abs(field) - (field < 0) else ""

        return SList(line for line in self if bool(match(key(line))) != prune)

    def fields(self, *indices):
        result = SList()
        for line in self:
            parts = line.split()
            if not indices:
                result.append(parts)
                continue
            picked = [parts[i] for i in indices if -len(parts) <= i < len(parts)]
            if picked:
                result.append(" ".join(picked))
        return result


_DOLLAR = re.compile(r"\$(\$|\{[^}]*\}|[A-Za-z_][\w.]*)")
_BRACE = re.compile(r"\{([^{}]+)\}")


def _expand(text, frame):
    """IPython's variable expansion: $name, ${expr} and {expr} from the caller's namespace; `$$`
    is a literal `$`. Anything that does not evaluate is left as it was (shell variables)."""
    ns = dict(frame.f_globals)
    ns.update(frame.f_locals)

    def evaluate(expr, original):
        try:
            return str(eval(expr, ns))
        except Exception:
            return original

    def dollar(match):
        token = match.group(1)
        if token == "$":
            return "$"
        if token.startswith("{"):
            return evaluate(token[1:-1], match.group(0))
        head = token.split(".")[0]
        return evaluate(token, match.group(0)) if head in ns else match.group(0)

    text = _BRACE.sub(lambda m: evaluate(m.group(1), m.group(0)), text)
    return _DOLLAR.sub(dollar, text)


def _popen(args, shell, **kwargs):
    """A child in a process group of its own, with stdin from /dev/null."""
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    return _R._spawn_in_group(args, shell, **kwargs)


def _system(cmd):
    frame = sys._getframe(1)
    proc = _popen(_expand(cmd, frame), True)
    code = _R._wait_interruptible(proc)
    _R._user_ns["_exit_code"] = code
    return None


def _getoutput(cmd):
    frame = sys._getframe(1)
    proc = _popen(_expand(cmd, frame), True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    chunks = []
    try:
        for chunk in iter(lambda: proc.stdout.read1(1 << 16), b""):
            chunks.append(chunk)
    except KeyboardInterrupt:
        _R._stop_process_group(proc)
        raise
    _R._user_ns["_exit_code"] = _R._wait_interruptible(proc)
    text = b"".join(chunks).decode("utf-8", "replace")
    return SList(text.splitlines())


def _script(shell, line, body):
    args = shlex.split(line)
    raise_error = "--no-raise-error" not in args
    proc = _popen([shell], False, stdin=subprocess.PIPE)
    try:
        proc.stdin.write(body.encode("utf-8"))
        proc.stdin.close()
    except BrokenPipeError:
        pass
    code = _R._wait_interruptible(proc)
    if code and raise_error:
        raise subprocess.CalledProcessError(code, shell)


# ---------------------------------------------------------------------------
# Magic registry and helpers.
# ---------------------------------------------------------------------------

LINE_MAGICS = {}
CELL_MAGICS = {}
_NO_EXPAND = {"time", "timeit", "who", "whos", "xmode"}


def line_magic(name):
    def register(fn):
        LINE_MAGICS[name] = fn
        return fn

    return register


def cell_magic(name):
    def register(fn):
        CELL_MAGICS[name] = fn
        return fn

    return register


def _magic(name, arg):
    fn = LINE_MAGICS.get(name)
    if fn is None:
        raise UsageError("Line magic function `%%%s` not found." % name)
    frame = sys._getframe(1)
    if name not in _NO_EXPAND:
        arg = _expand(arg, frame)
    return fn(arg, frame)


def _cell_magic(name, line, body, body_line):
    fn = CELL_MAGICS.get(name)
    if fn is None:
        raise UsageError("Cell magic `%%%%%s` not found." % name)
    return fn(line, body, body_line)


def _emit_status(op, **data):
    data["op"] = op
    _R._publish_display({"application/x-omp-status": data})


def _run_body(body, body_line, want_value=True):
    """Runs a cell magic's body as code of the current cell, with its own line numbers."""
    filename = _R._cell_filename(_R._exec_count)
    return _R._run_source("\n" * (body_line - 1) + body, filename, want_value, register=False)


def _value(result):
    return None if result is _R._NO_VALUE else result


def _parse_opts(arg, flags, valued):
    """Splits leading -x options from the rest. flags: letters without value; valued: with one."""
    opts = {}
    rest = arg.strip()
    while rest.startswith("-") and len(rest) > 1:
        head, _, tail = rest.partition(" ")
        letter, attached = head[1:2], head[2:]
        if letter in flags and not attached:
            opts[letter] = True
        elif letter in valued:
            value = attached
            if not value:
                value, _, tail = tail.strip().partition(" ")
            if not value:
                raise UsageError("option -%s needs a value" % letter)
            opts[letter] = value
        else:
            break
        rest = tail.strip()
    return opts, rest


# ---------------------------------------------------------------------------
# The magics.
# ---------------------------------------------------------------------------

_dir_history = []


@line_magic("cd")
def _cd(arg, frame):
    opts, target = _parse_opts(arg, "q", "")
    previous = os.getcwd()
    if target == "-":
        if not _dir_history:
            raise UsageError("%cd -: no previous directory")
        target = _dir_history[-1]
    elif not target:
        target = os.path.expanduser("~")
    target = os.path.expanduser(target.strip("'\""))
    try:
        os.chdir(target)
    except OSError as exc:
        raise UsageError("%s" % exc) from None
    _dir_history.append(previous)
    cwd = os.getcwd()
    if not opts.get("q"):
        print(cwd)
    _emit_status("cd", path=cwd)


@line_magic("pwd")
def _pwd(arg, frame):
    return os.getcwd()


@line_magic("ls")
def _ls(arg, frame):
    return sorted(os.listdir(os.path.expanduser(arg.strip("'\"")) if arg else "."))


@line_magic("env")
def _env(arg, frame):
    if not arg:
        return dict(os.environ)
    if "=" in arg or " " in arg.strip():
        if "=" in arg.split(" ")[0]:
            key, _, value = arg.partition("=")
        else:
            key, _, value = arg.strip().partition(" ")
        key, value = key.strip(), value.strip()
        if not key:
            raise UsageError("env: bad assignment %r" % arg)
        os.environ[key] = value
        print("env: %s=%s" % (key, value))
        return None
    try:
        return os.environ[arg]
    except KeyError:
        raise UsageError("Environment does not have key: %s" % arg) from None


@line_magic("set_env")
def _set_env(arg, frame):
    key, _, value = arg.strip().partition(" ")
    if not key or not value:
        raise UsageError("usage is 'set_env var value'")
    os.environ[key] = value.strip()
    print("env: %s=%s" % (key, value.strip()))


def _format_time(timespan, precision=3):
    """IPython's _format_time: `precision` significant digits in the largest fitting unit."""
    if timespan >= 60.0:
        parts = []
        leftover = timespan
        for suffix, length in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
            value = int(leftover / length)
            if value > 0:
                leftover = leftover % length
                parts.append("%d%s" % (value, suffix))
            if leftover < 1:
                break
        return " ".join(parts)
    units = ["s", "ms", "\u00b5s", "ns"]
    scaling = [1, 1e3, 1e6, 1e9]
    order = min(-int(math.floor(math.log10(timespan)) // 3), 3) if timespan > 0.0 else 3
    return "%.*g %s" % (precision, timespan * scaling[order], units[order])


def _time_code(code, body_line, frame, is_cell):
    if not is_cell:
        try:
            compiled, is_expr = compile(code, "<timed eval>", "eval"), True
        except SyntaxError:
            compiled, is_expr = compile(code, "<timed exec>", "exec"), False
    start_cpu = os.times()
    start = time.perf_counter()
    try:
        if is_cell:
            result = _value(_run_body(code, body_line))
        elif is_expr:
            result = eval(compiled, frame.f_globals, frame.f_locals)
        else:
            exec(compiled, frame.f_globals, frame.f_locals)
            result = None
    finally:
        wall = time.perf_counter() - start
        end_cpu = os.times()
        user = end_cpu.user - start_cpu.user
        system = end_cpu.system - start_cpu.system
        print(
            "CPU times: user %s, sys: %s, total: %s\nWall time: %s"
            % (_format_time(user), _format_time(system), _format_time(user + system), _format_time(wall))
        )
        _emit_status("time", ms=round(wall * 1000, 3))
    return result


@line_magic("time")
def _time(arg, frame):
    if not arg.strip():
        raise UsageError("%time needs a statement or an expression")
    return _time_code(arg, 0, frame, False)


@cell_magic("time")
def _time_cell(line, body, body_line):
    return _time_code(body, body_line, sys._getframe(1), True)


class TimeitResult(object):
    """What %timeit -o returns (IPython's attributes)."""

    def __init__(self, loops, repeat, best, worst, all_runs):
        self.loops = loops
        self.repeat = repeat
        self.best = best
        self.worst = worst
        self.all_runs = all_runs
        self.timings = [t / loops for t in all_runs]
        self.average = sum(self.timings) / len(self.timings)
        mean = self.average
        self.stdev = (sum((t - mean) ** 2 for t in self.timings) / len(self.timings)) ** 0.5

    def __str__(self):
        return "%s \u00b1 %s per loop (mean \u00b1 std. dev. of %d run%s, %s loop%s each)" % (
            _format_time(self.average),
            _format_time(self.stdev),
            self.repeat,
            "" if self.repeat == 1 else "s",
            "{:,}".format(self.loops),
            "" if self.loops == 1 else "s",
        )

    __repr__ = __str__


def _timeit(arg, setup, stmt):
    import timeit

    opts, rest = _parse_opts(arg, "qo", "nr")
    if stmt is None:
        stmt = rest
    elif rest:
        setup = rest
    if not stmt.strip():
        raise UsageError("%timeit needs a statement")
    timer = timeit.Timer(stmt, setup or "pass", globals=_R._user_ns)
    repeat = int(opts.get("r", 7))
    number = int(opts.get("n", 0))
    if not number:
        number = 1
        for _ in range(10):
            if timer.timeit(number) >= 0.2:
                break
            number *= 10
    runs = timer.repeat(repeat, number)
    result = TimeitResult(number, repeat, min(runs) / number, max(runs) / number, runs)
    if not opts.get("q"):
        print(result)
    _emit_status("timeit", ms=round(result.average * 1000, 6), loops=number, runs=repeat)
    return result if opts.get("o") else None


@line_magic("timeit")
def _timeit_line(arg, frame):
    return _timeit(arg, "", None)


@cell_magic("timeit")
def _timeit_cell(line, body, body_line):
    return _timeit(line, "", body)


def _user_names():
    hidden = _R._hidden_names
    ns = _R._user_ns
    return sorted(k for k in ns if not k.startswith("_") and k not in hidden)


@line_magic("who")
def _who(arg, frame):
    types = arg.split()
    names = [n for n in _user_names() if not types or type(_R._user_ns[n]).__name__ in types]
    if not names:
        print("Interactive namespace is empty." if not types else "No variables match your requested type.")
        return None
    # IPython's layout: each name, a tab and a space; a line break after every nine names.
    for count, name in enumerate(names, 1):
        print(name + "\t", end=" ")
        if count % 9 == 0:
            print()
    print()
    return None


@line_magic("whos")
def _whos(arg, frame):
    types = arg.split()
    ns = _R._user_ns
    names = [n for n in _user_names() if not types or type(ns[n]).__name__ in types]
    if not names:
        print("Interactive namespace is empty." if not types else "No variables match your requested type.")
        return None
    kinds = [type(ns[n]).__name__ for n in names]
    width_name = max(max(map(len, names)), len("Variable")) + 3
    width_type = max(max(map(len, kinds)), len("Type")) + 3
    # IPython's layout, column for column.
    print("Variable".ljust(width_name) + "Type".ljust(width_type) + " Data/Info")
    print("-" * (width_name + width_type + len("Data/Info") + 1))
    for name, kind in zip(names, kinds):
        value = ns[name]
        if kind in ("dict", "list", "tuple"):
            info = "n=%d" % len(value)
        else:
            try:
                info = str(value)
            except Exception:
                info = "<object with id %d (str() failed)>" % id(value)
            info = info.replace("\n", "\\n")
            if len(info) >= 50:
                info = info[:25] + "<...>" + info[-25:]
        print(name.ljust(width_name) + kind.ljust(width_type) + " " + info)
    return None


@line_magic("reset")
def _reset(arg, frame):
    opts, _ = _parse_opts(arg, "fs", "")
    ns = _R._user_ns
    keep = {"__builtins__", "__name__", "__doc__", "__package__", "__loader__", "__spec__", "In", "Out"}
    for name in list(ns):
        if name not in keep:
            del ns[name]
    del _R._In[1:]
    _R._Out.clear()
    if _R._prelude:
        _R._run_source(_R._prelude, "<omp-prelude>", False)


@line_magic("load")
def _load(arg, frame):
    path = os.path.expanduser(arg.strip().strip("'\""))
    if not path:
        raise UsageError("%load needs a file name")
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    except OSError as exc:
        raise UsageError("could not load %s: %s" % (path, exc.strerror or exc)) from None
    return _value(_R._run_source(source, os.path.abspath(path)))


@line_magic("run")
def _run(arg, frame):
    import runpy

    argv = shlex.split(arg)
    if not argv:
        raise UsageError("%run needs a file name (or -m module)")
    module = None
    if argv[0] == "-m":
        if len(argv) < 2:
            raise UsageError("%run -m needs a module name")
        module, argv = argv[1], argv[1:]
    else:
        path = os.path.expanduser(argv[0])
        if not os.path.exists(path) and os.path.exists(path + ".py"):
            path += ".py"
        if not os.path.isfile(path):
            raise UsageError("File %r not found." % argv[0])
        argv[0] = path
    saved_argv = sys.argv
    saved_main = sys.modules.get("__main__")
    sys.argv = argv
    try:
        if module:
            result = runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            result = runpy.run_path(argv[0], run_name="__main__")
    finally:
        sys.argv = saved_argv
        sys.modules["__main__"] = saved_main
    ns = _R._user_ns
    for key, value in result.items():
        if not (key.startswith("__") and key.endswith("__")):
            ns[key] = value


@cell_magic("bash")
def _bash(line, body, body_line):
    _script("bash", line, body)


@cell_magic("sh")
def _sh(line, body, body_line):
    _script("sh", line, body)


class CapturedIO(object):
    """What %%capture stores: the body's stdout, stderr and display outputs."""

    def __init__(self, stdout, stderr, outputs):
        self._stdout = stdout
        self._stderr = stderr
        self.outputs = outputs

    @property
    def stdout(self):
        return self._stdout

    @property
    def stderr(self):
        return self._stderr

    def show(self):
        """Writes the captured output and shows the captured displays."""
        sys.stdout.write(self._stdout)
        sys.stderr.write(self._stderr)
        for bundle in self.outputs:
            _R._publish_display(bundle)

    __call__ = show

    def __repr__(self):
        return "<CapturedIO stdout=%d chars, stderr=%d chars, %d outputs>" % (
            len(self._stdout),
            len(self._stderr),
            len(self.outputs),
        )


@cell_magic("capture")
def _capture(line, body, body_line):
    import io

    args = line.split()
    flags = {a for a in args if a.startswith("--")}
    names = [a for a in args if not a.startswith("--")]
    out, err, outputs = io.StringIO(), io.StringIO(), []
    saved = sys.stdout, sys.stderr
    if "--no-stdout" not in flags:
        sys.stdout = out
    if "--no-stderr" not in flags:
        sys.stderr = err
    if "--no-display" not in flags:
        _R._display_captures.append(outputs)
    try:
        _run_body(body, body_line, want_value=False)
    finally:
        sys.stdout, sys.stderr = saved
        if "--no-display" not in flags:
            _R._display_captures.pop()
    if names:
        _R._user_ns[names[0]] = CapturedIO(out.getvalue(), err.getvalue(), outputs)


@cell_magic("writefile")
def _writefile(line, body, body_line):
    opts, path = _parse_opts(line, "a", "")
    path = os.path.expanduser(path.strip().strip("'\""))
    if not path:
        raise UsageError("%%writefile needs a file name")
    exists = os.path.exists(path)
    if opts.get("a"):
        print("Appending to %s" % path)
    else:
        print(("Overwriting %s" if exists else "Writing %s") % path)
    with open(path, "a" if opts.get("a") else "w", encoding="utf-8") as handle:
        handle.write(body if body.endswith("\n") or not body else body + "\n")


@line_magic("pip")
def _pip(arg, frame):
    args = shlex.split(arg)
    proc = _popen([sys.executable, "-m", "pip"] + args, False)
    code = _R._wait_interruptible(proc)
    if args and args[0] == "install" and code == 0:
        _evict(_requirement_names(args[1:]))
        print("Note: modules of the installed packages were unloaded; the next import loads them fresh.")
    _R._user_ns["_exit_code"] = code
    if code:
        print("pip exited with code %d" % code, file=sys.stderr)


def _requirement_names(args):
    names = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-r", "-c", "-e", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target"):
            skip = True
            continue
        if a.startswith("-"):
            continue
        base = os.path.basename(a)
        if base.endswith((".whl", ".tar.gz", ".zip")):
            names.append(base.split("-")[0])
        else:
            names.append(re.split(r"[\[<>=!~; @]", a, 1)[0])
    return [n for n in names if n]


def _import_names(dist_name):
    """Top-level import names of an installed distribution (Pillow -> PIL), from its metadata."""
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover - Python < 3.8 is not supported anyway
        return {dist_name}
    try:
        dist = metadata.distribution(dist_name)
    except Exception:
        return {dist_name.replace("-", "_").lower()}
    top = dist.read_text("top_level.txt")
    if top:
        return {line.strip() for line in top.splitlines() if line.strip()}
    names = set()
    for path in dist.files or []:
        parts = path.parts
        if not parts or parts[0].endswith((".dist-info", ".egg-info")) or parts[0] in ("..", "__pycache__"):
            continue
        head = parts[0]
        if head.endswith(".py"):
            names.add(head[:-3])
        elif len(parts) > 1:
            names.add(head)
    return names or {dist_name.replace("-", "_").lower()}


def _evict(dist_names):
    import importlib

    importlib.invalidate_caches()
    for dist in dist_names:
        for top in _import_names(dist):
            for mod in list(sys.modules):
                if mod == top or mod.startswith(top + "."):
                    del sys.modules[mod]


@line_magic("matplotlib")
def _matplotlib(arg, frame):
    return None  # figures are captured after every cell already


@line_magic("lsmagic")
def _lsmagic(arg, frame):
    print("Available line magics:")
    print("  ".join("%" + n for n in sorted(LINE_MAGICS)))
    print()
    print("Available cell magics:")
    print("  ".join("%%" + n for n in sorted(CELL_MAGICS)))


@line_magic("history")
def _history(arg, frame):
    opts, _ = _parse_opts(arg, "n", "")
    for number, source in enumerate(_R._In[1:], 1):
        if opts.get("n"):
            lines = source.split("\n")
            print("%3d: %s" % (number, ("\n" + " " * 5).join(lines)))
        else:
            print(source)


@line_magic("xmode")
def _xmode(arg, frame):
    modes = {"plain": "Plain", "context": "Context", "verbose": "Verbose", "minimal": "Minimal"}
    mode = modes.get(arg.strip().lower())
    if arg.strip() and mode is None:
        raise UsageError("Valid modes: Plain, Context, Verbose, Minimal")
    if mode is None:
        order = ["Plain", "Context", "Verbose", "Minimal"]
        mode = order[(order.index(_R._xmode) + 1) % len(order)]
    _R._xmode = mode
    print("Exception reporting mode: %s" % mode)


def _help(expr, detail, frame=None):
    import inspect

    frame = frame or sys._getframe(1)
    ns = dict(frame.f_globals)
    ns.update(frame.f_locals)
    try:
        obj = eval(expr.replace("()", ""), ns)
    except Exception:
        print("Object `%s` not found." % expr)
        return None
    rows = []
    try:
        rows.append(("Signature", "%s%s" % (expr.replace("()", ""), inspect.signature(obj))))
    except (TypeError, ValueError):
        pass
    if not callable(obj) or isinstance(obj, type):
        text = repr(obj)
        rows.append(("String form", text if len(text) < 200 else text[:200] + "..."))
    if detail == 2:
        try:
            rows.append(("Source", "\n" + inspect.getsource(obj)))
        except (TypeError, OSError):
            rows.append(("Docstring", inspect.getdoc(obj) or "<no docstring>"))
    else:
        rows.append(("Docstring", inspect.getdoc(obj) or "<no docstring>"))
    try:
        path = inspect.getsourcefile(obj) or inspect.getfile(obj)
        rows.append(("File", path))
    except TypeError:
        pass
    rows.append(("Type", type(obj).__name__))
    for label, value in rows:
        print("%-10s %s" % (label + ":", str(value).rstrip()))
    return None


def install(runner):
    """Connects the magics to the runner and puts the helpers the transformed code calls into
    builtins (where they do not show up among the user's names)."""
    global _R
    _R = runner
    builtins.__omp_magic__ = _magic
    builtins.__omp_cell_magic__ = _cell_magic
    builtins.__omp_system__ = _system
    builtins.__omp_getoutput__ = _getoutput
    builtins.__omp_help__ = _help
    builtins.UsageError = UsageError
