"""The plain-text form of results and displays, laid out as IPython lays it out.

A printer in the Oppen style (as Ruby's prettyprint and IPython's lib.pretty): text and
breakable spaces are buffered by group; when a line would pass `max_width`, the outermost group
that can break does, all its spaces becoming newlines at their indentation. Containers, classes,
functions, exceptions and objects without a repr of their own get IPython's forms; an object's
`_repr_pretty_(printer, cycle)` writes its own, with the same printer API (text, breakable,
break_, begin_group, end_group, group, indent, pretty). Stdlib only; no side effects on import.
"""
import contextlib
import io

from .printers import REGISTERED, Call, Raw, attr, default, printer_for  # noqa: F401 - the API of _repr_pretty_

MAX_WIDTH = 79
MAX_SEQ_LENGTH = 1000


class _Text(object):
    def __init__(self):
        self.parts = []
        self.width = 0

    def emit(self, printer, column):
        printer.output.write("".join(self.parts))
        return column + self.width


class _Space(object):
    """A breakable: its separator, or a newline at its indentation once its group breaks."""

    def __init__(self, sep, printer):
        self.sep = sep
        self.width = len(sep)
        self.indentation = printer.indentation
        self.group = printer.groups[-1]
        self.group.spaces.append(self)

    def emit(self, printer, column):
        self.group.spaces.pop(0)
        if self.group.broken:
            printer.output.write(printer.newline + " " * self.indentation)
            return self.indentation
        if not self.group.spaces:
            printer.pending_forget(self.group)
        printer.output.write(self.sep)
        return column + self.width


class _Group(object):
    def __init__(self, depth):
        self.depth = depth
        self.spaces = []
        self.broken = False


class Printer(object):
    def __init__(
        self, output, max_width=MAX_WIDTH, newline="\n", max_seq_length=MAX_SEQ_LENGTH, verbose=False, float_format="%r"
    ):
        self.output = output
        self.max_width = max_width
        self.newline = newline
        self.max_seq_length = max_seq_length
        self.verbose = verbose
        self.float_format = float_format
        self.indentation = 0
        self.column = 0  # width of what was written on the current line
        self.buffered = []  # _Text and _Space not written yet
        self.buffered_width = 0
        root = _Group(0)
        self.groups = [root]
        self.pending = [[root]]  # groups that may still break, by depth
        self.stack = []  # ids of the objects being printed (cycles)

    # ---- layout -------------------------------------------------------------------------------

    def pending_forget(self, group):
        if group.depth < len(self.pending) and group in self.pending[group.depth]:
            self.pending[group.depth].remove(group)

    def _next_to_break(self):
        """The outermost group that can still break (IPython's order, quirk included: within a
        depth the newest group is chosen, and the entry at the mirrored position is dropped)."""
        for level in self.pending:
            for index, group in enumerate(reversed(level)):
                if group.spaces:
                    del level[index]
                    group.broken = True
                    return group
            for group in level:
                group.broken = True
            del level[:]
        return None

    def _write_through(self, group):
        while group.spaces:
            item = self.buffered.pop(0)
            self.column = item.emit(self, self.column)
            self.buffered_width -= item.width
        while self.buffered and isinstance(self.buffered[0], _Text):
            item = self.buffered.pop(0)
            self.column = item.emit(self, self.column)
            self.buffered_width -= item.width

    def _fit(self):
        while self.max_width < self.column + self.buffered_width:
            group = self._next_to_break()
            if group is None:
                return
            self._write_through(group)

    def text(self, obj):
        width = len(obj)
        if not self.buffered:
            self.output.write(obj)
            self.column += width
            return
        last = self.buffered[-1]
        if not isinstance(last, _Text):
            last = _Text()
            self.buffered.append(last)
        last.parts.append(obj)
        last.width += width
        self.buffered_width += width
        self._fit()

    def breakable(self, sep=" "):
        if self.groups[-1].broken:
            self.flush()
            self._newline()
            return
        self.buffered.append(_Space(sep, self))
        self.buffered_width += len(sep)
        self._fit()

    def break_(self):
        """A newline here, whatever the width."""
        group = self._next_to_break()
        if group is not None:
            self._write_through(group)
        self.flush()
        self._newline()

    def _newline(self):
        self.output.write(self.newline + " " * self.indentation)
        self.column = self.indentation
        self.buffered_width = 0

    def begin_group(self, indent=0, open=""):
        if open:
            self.text(open)
        group = _Group(self.groups[-1].depth + 1)
        self.groups.append(group)
        while group.depth > len(self.pending) - 1:
            self.pending.append([])
        self.pending[group.depth].append(group)
        self.indentation += indent

    def end_group(self, dedent=0, close=""):
        self.indentation -= dedent
        group = self.groups.pop()
        if not group.spaces:
            self.pending_forget(group)
        if close:
            self.text(close)

    @contextlib.contextmanager
    def group(self, indent=0, open="", close=""):
        self.begin_group(indent, open)
        try:
            yield
        finally:
            self.end_group(indent, close)

    @contextlib.contextmanager
    def indent(self, indent):
        self.indentation += indent
        try:
            yield
        finally:
            self.indentation -= indent

    def flush(self):
        for item in self.buffered:
            self.column = item.emit(self, self.column)
        self.buffered = []
        self.buffered_width = 0

    def _enumerate(self, items):
        """enumerate() up to max_seq_length items, then `, ...`."""
        for index, item in enumerate(items):
            if self.max_seq_length and index >= self.max_seq_length:
                self.text(",")
                self.breakable()
                self.text("...")
                return
            yield index, item

    # ---- objects ------------------------------------------------------------------------------

    def pretty(self, obj):
        cycle = id(obj) in self.stack
        self.stack.append(id(obj))
        self.begin_group()
        try:
            if obj is None or obj is True or obj is False or obj is Ellipsis or obj is NotImplemented:
                return self._repr(obj)
            cls = attr(obj, "__class__") or type(obj)
            for base in getattr(cls, "__mro__", (cls,)):
                printer = printer_for(base)
                if printer is not None:
                    return printer(obj, self, cycle)
                if "_repr_pretty_" in base.__dict__ and callable(base._repr_pretty_):
                    return base._repr_pretty_(obj, self, cycle)
                if base is not object and callable(base.__dict__.get("__repr__")):
                    return self._repr(obj)
            return default(obj, self, cycle)
        finally:
            self.end_group()
            self.stack.pop()

    def _repr(self, obj, cycle=False):
        lines = repr(obj).splitlines()
        with self.group():
            for index, line in enumerate(lines):
                if index:
                    self.break_()
                self.text(line)


def pretty(obj, max_width=MAX_WIDTH, max_seq_length=MAX_SEQ_LENGTH, float_format="%r", verbose=False):
    """The plain-text form of obj."""
    stream = io.StringIO()
    printer = Printer(stream, max_width, "\n", max_seq_length, verbose, float_format)
    printer.pretty(obj)
    printer.flush()
    return stream.getvalue()
