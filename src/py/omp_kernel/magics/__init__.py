"""IPython-style magics over the kernel's API object (api.KernelAPI): a registry, the dispatch the
transformed code calls, and the magic modules (one per job). Loaded the first time a cell needs
one; importing a module registers nothing until `Magics(api)` is made.

Where the spec is brief, IPython's documented behaviour is the reference: arguments are expanded
($name, {expr}) from the caller's namespace unless a magic says otherwise, a misused magic raises
UsageError, help is `%name?`.
"""
import sys

from .expand import expand


class UsageError(Exception):
    """A magic was misused or does not exist (IPython's name and wording)."""


class UnknownMagic(UsageError, NameError):
    """A magic that does not exist: a UsageError by IPython's name and words, and a NameError too,
    as an unknown name is (the specification's `NameError: UsageError`), so that `except
    NameError` catches it."""


UnknownMagic.__name__ = UnknownMagic.__qualname__ = "UsageError"


class Registry(object):
    """The magics by kind and name; each module's register(reg) adds its own."""

    # Cell magics that the front ends take as the cell's language (src/eval/script.ts): a Python
    # kernel never runs them, but %lsmagic lists them and running one here says where it belongs.
    front_end_cells = ("js", "javascript")

    def __init__(self, api):
        self.api = api
        self.line = {}
        self.cell = {}
        self.no_expand = set()  # line magics whose argument is code (%time, %timeit, ...)
        self.state = {}  # what magics keep between cells (directory history, bookmarks, ...)
        self.shell = None  # what `!cmd` runs (system.py); %system is %sx, as in IPython

    def line_magic(self, name, expand=True):
        def add(fn):
            self.line[name] = fn
            if not expand:
                self.no_expand.add(name)
            return fn

        return add

    def cell_magic(self, name):
        def add(fn):
            self.cell[name] = fn
            return fn

        return add


class Magics(object):
    def __init__(self, api):
        from . import capture, debug, files, help, history, namespace, runscript, script, session, system, timing

        self.api = api
        self.reg = Registry(api)
        self.reg.magics = self
        for module in (namespace, files, runscript, system, script, timing, capture, history, session, debug, help):
            module.register(self.reg)
        import builtins

        builtins.UsageError = UsageError

    # ---- what transformed code calls ------------------------------------------------------------

    def magic(self, name, arg, frame=None):
        """%name arg (from a cell, or get_ipython().run_line_magic)."""
        frame = frame or sys._getframe(1)
        fn = self.reg.line.get(name)
        if fn is None:
            hint = " (But cell magic `%%%%%s` exists, did you mean that instead?)" % name if name in self.reg.cell else ""
            raise UnknownMagic("Line magic function `%%%s` not found%s." % (name, hint))
        if name not in self.reg.no_expand:
            arg = expand(arg, frame, self.api.user_ns)
        return fn(arg, frame)

    def cell_magic(self, name, line, body, body_line=1, frame=None):
        """%%name line / body (the line is expanded, the body is not)."""
        frame = frame or sys._getframe(1)
        fn = self.reg.cell.get(name)
        if fn is None and name in self.reg.front_end_cells:
            raise UsageError(
                "`%%%%%s` cells run in the JavaScript kernel, not in Python's: in the notebook and in "
                "`omp-eval run`, a first line `%%%%js` makes the cell a JavaScript one; the eval tool "
                'takes {"language": "js"} instead.' % name
            )
        if fn is None:
            hint = " (But line magic `%%%s` exists, did you mean that instead?)" % name if name in self.reg.line else ""
            raise UnknownMagic("Cell magic `%%%%%s` not found%s." % (name, hint))
        if body == "":
            message = "%%%%%s is a cell magic, but the cell body is empty." % name
            if name in self.reg.line:
                message += " Did you mean the line magic %%%s (single %%)?" % name
            raise UsageError(message)
        if name not in ("time", "timeit", "prun"):
            line = expand(line, frame, self.api.user_ns)
        return fn(line, body, body_line, frame)

    def system(self, cmd, frame=None):
        return self.reg.shell(expand(cmd, frame or sys._getframe(1), self.api.user_ns), frame)

    def getoutput(self, cmd, frame=None):
        return self.reg.line["sx"](expand(cmd, frame or sys._getframe(1), self.api.user_ns), frame)

    def show_usage(self, frame=None):
        return self.reg.line["quickref"]("", frame)

    # ---- for get_ipython() ----------------------------------------------------------------------

    def register_function(self, fn, kind="line", name=None):
        name = name or fn.__name__
        if kind in ("line", "line_cell"):
            self.reg.line[name] = lambda arg, frame: fn(arg)
        if kind in ("cell", "line_cell"):
            self.reg.cell[name] = lambda line, body, body_line, frame: fn(line, body)


def parse_options(arg, flags, valued="", strict=False, multi=""):
    """Leading -x options and the rest: flags take no value, `valued` letters take one. `strict`:
    a leading `-` word that is no option is a UsageError, as IPython's getopt says it (else it is
    the start of the rest); a string there is the list of options that IPython's message shows
    for the magic (its getopt string, then its long options after a space). `multi`: valued
    letters that may come more than once, whose values are kept as a list (%prun -s calls -s time)."""
    opts = {}
    rest = arg.strip()
    while rest.startswith("-") and len(rest) > 1:
        head, _, tail = rest.partition(" ")
        letters = head[1:]
        consumed = True
        for index, letter in enumerate(letters):
            if letter in flags:
                opts[letter] = True
            elif letter in valued:
                value = letters[index + 1 :]
                if not value:
                    value, _, tail = tail.strip().partition(" ")
                if not value:
                    raise UsageError("Option -%s requires an argument." % letter)
                if letter in multi:
                    opts.setdefault(letter, []).append(value)
                else:
                    opts[letter] = value
                break
            else:
                if strict:
                    allowed = strict if isinstance(strict, str) else "".join(v + ":" for v in valued) + flags
                    short, _, long = allowed.partition(" ")
                    named = head if head.startswith("--") else "-" + letter
                    raise UsageError('option %s not recognized ( allowed: "%s" %s)' % (named, short, long))
                consumed = False
                break
        if not consumed:
            break
        rest = tail.strip()
    return opts, rest


def value_of(result, api):
    return None if result is api.NO_VALUE else result
