"""Tracebacks: the user's frames with their source; none of the runner's, none of the prelude's.
Importing this module has no side effects."""
import os
import re

PRELUDE_FILENAME = "<omp-prelude>"
MODES = ("Plain", "Context", "Verbose", "Minimal")


def cell_filename(count):
    return "<cell In[%d]>" % count


# The scripts whose cells ran here under their own name (`omp-eval run`): their frames are cells'.
_SCRIPT_FILES = set()


def is_cell_frame(filename):
    return (
        filename.startswith("<cell In[")
        or (filename.startswith("<omp-") and filename != PRELUDE_FILENAME)
        or filename in _SCRIPT_FILES
    )


def exit_status(exc):
    """What the interpreter does with an uncaught SystemExit at the end of a script: its exit status
    and, for a code that is neither None nor an integer, the text it prints on stderr."""
    code = exc.code
    if code is None:
        return {"exitCode": 0}
    if isinstance(code, int):  # (bool too: False is 0)
        # The code goes through a C long: one out of its range exits with -1, as 255.
        return {"exitCode": code & 0xFF if -(1 << 63) <= code < (1 << 63) else 255}
    return {"exitCode": 1, "exitMessage": safe_str(code)}


SYSTEM_EXIT_NOTE = "An exception has occurred, use %tb to see the full traceback."


def system_exit_lines(traceback_module, exc):
    """A SystemExit as IPython shows it in a cell or after %run: the exception alone, its notes too
    (%tb shows where it came from). `traceback_module` is the runner's own traceback."""
    only = "".join(traceback_module.format_exception_only(type(exc), exc))
    return [SYSTEM_EXIT_NOTE, ""] + only.rstrip("\n").split("\n")


def safe_str(exc):
    try:
        return str(exc)
    except Exception:
        return "<unprintable %s>" % type(exc).__name__


_NAME = re.compile(r"[^\W\d]\w*")


def _only_named(te, seen):
    """Verbose tracebacks show the values of the names on each frame's shown line, as IPython's:
    all of a frame's locals would be the whole namespace for a cell's own frame."""
    if te is None or id(te) in seen:
        return
    seen.add(id(te))
    for frame in te.stack:
        if frame.locals:
            names = set(_NAME.findall(frame.line or ""))
            frame.locals = {name: value for name, value in frame.locals.items() if name in names}
    _only_named(te.__cause__, seen)
    _only_named(te.__context__, seen)


class Tracebacks(object):
    def __init__(self, runner_dir, private_import):
        self._runner_dir = os.path.abspath(runner_dir)
        self._import = private_import
        self.mode = "Context"  # %xmode: Plain and Context show frames with source, Verbose adds locals
        self.last = None  # (type, value, traceback) of the last error, for %tb

    def register_source(self, filename, code, linecache, first_line=None):
        """The cell's lines, for tracebacks and inspect. A script's cell (`first_line`, where it
        starts in the script) joins the script's other cells under the script's name."""
        lines = [line + "\n" for line in code.split("\n")]
        if first_line is not None:
            _SCRIPT_FILES.add(filename)
            entry = linecache.cache.get(filename)
            known = list(entry[2]) if entry is not None and entry[1] is None else []
            start = first_line - 1
            known.extend(["\n"] * (start + len(lines) - len(known)))
            known[start : start + len(lines)] = lines
            lines = known
        # (No modification time: linecache.checkcache leaves it, and never reads a file instead.)
        linecache.cache[filename] = (sum(len(line) for line in lines), None, lines, filename)

    def _is_runner_frame(self, filename):
        path = os.path.abspath(filename)
        return path == self._runner_dir or path.startswith(self._runner_dir + os.sep) or filename == PRELUDE_FILENAME

    def _clean(self, te, seen):
        traceback = self._import("traceback")
        if te is None or id(te) in seen:
            return
        seen.add(id(te))
        frames = [f for f in te.stack if not self._is_runner_frame(f.filename)]
        first_cell = next((i for i, f in enumerate(frames) if is_cell_frame(f.filename)), 0)
        te.stack = traceback.StackSummary.from_list(frames[first_cell:])
        self._clean(te.__cause__, seen)
        self._clean(te.__context__, seen)

    def format(self, exc_type, exc, tb):
        """The traceback's lines as the user sees them."""
        if exc_type.__name__ == "UsageError":
            return ["UsageError: %s" % safe_str(exc)]  # IPython shows a misused magic without frames
        traceback = self._import("traceback")
        if isinstance(exc, SyntaxError) and exc.text is None and exc.filename and exc.lineno:
            # The compiler's later passes ('return' outside function) give no line: python reads
            # it from the file, as this reads it from the cell's registered source.
            line = self._import("linecache").getline(exc.filename, exc.lineno)
            if line:
                exc.text = line
        if self.mode == "Minimal":
            return [line.rstrip("\n") for line in traceback.format_exception_only(exc_type, exc)]
        te = traceback.TracebackException(exc_type, exc, tb, capture_locals=self.mode == "Verbose")
        self._clean(te, set())
        if self.mode == "Verbose":
            _only_named(te, set())
        lines = []
        warnings = self._import("warnings")
        with warnings.catch_warnings():
            # Python 3.11+ parses each shown line to place its carets: a line that is not Python
            # (`%notebook /tmp/a1in/nb.ipynb`) must not print a SyntaxWarning under the traceback.
            warnings.simplefilter("ignore", SyntaxWarning)
            for chunk in te.format():
                chunk = chunk.replace('File "<cell In[', "Cell In[").replace(']>", line ', "], line ")
                lines.extend(chunk.rstrip("\n").split("\n"))
        return lines

    def frame(self, request_id, exc_type, exc, tb):
        """The error frame of an exception in a cell."""
        self.last = (exc_type, exc, tb)
        frame = {
            "type": "error",
            "id": request_id,
            "ename": exc_type.__name__,
            "evalue": safe_str(exc),
            "traceback": self.format(exc_type, exc, tb),
        }
        if isinstance(exc, SystemExit):
            frame.update(exit_status(exc))
            frame["traceback"] = system_exit_lines(self._import("traceback"), exc)
        elif exc_type.__name__ == "BdbQuit" and exc_type.__module__ == "bdb":
            # `q` at a breakpoint() or set_trace(): the cell ends where the user quit, and, as in
            # IPython, no traceback (it would be pdb's own frames).
            frame["traceback"] = []
        return frame
