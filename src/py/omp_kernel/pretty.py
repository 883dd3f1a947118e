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
import types

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
            cls = _attr(obj, "__class__") or type(obj)
            for base in getattr(cls, "__mro__", (cls,)):
                printer = _printer_for(base)
                if printer is not None:
                    return printer(obj, self, cycle)
                if "_repr_pretty_" in base.__dict__ and callable(base._repr_pretty_):
                    return base._repr_pretty_(obj, self, cycle)
                if base is not object and callable(base.__dict__.get("__repr__")):
                    return self._repr(obj)
            return _default(obj, self, cycle)
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


def _attr(obj, name):
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


# ---- printers by type -----------------------------------------------------------------------


def _repr_printer(obj, p, cycle):
    p._repr(obj)


def _float_printer(obj, p, cycle):
    p.text(p.float_format % obj)


def _sequence(start, end):
    def printer(obj, p, cycle):
        if cycle:
            return p.text(start + "..." + end)
        with p.group(len(start), start, end):
            for index, item in p._enumerate(obj):
                if index:
                    p.text(",")
                    p.breakable()
                p.pretty(item)
            if len(obj) == 1 and isinstance(obj, tuple):
                p.text(",")

    return printer


def _sorted(items):
    items = list(items)
    for key in (None, str):
        try:
            return sorted(items, key=key)
        except Exception:
            pass
    return items


def _set(start, end):
    def printer(obj, p, cycle):
        if cycle:
            return p.text(start + "..." + end)
        if not obj:
            return p.text(type(obj).__name__ + "()")
        items = obj if p.max_seq_length and len(obj) >= p.max_seq_length else _sorted(obj)
        with p.group(len(start), start, end):
            for index, item in p._enumerate(items):
                if index:
                    p.text(",")
                    p.breakable()
                p.pretty(item)

    return printer


def _mapping(start, end):
    def printer(obj, p, cycle):
        if cycle:
            return p.text("{...}")
        with p.group(len(start), start, end):
            for index, key in p._enumerate(obj.keys()):
                if index:
                    p.text(",")
                    p.breakable()
                p.pretty(key)
                p.text(": ")
                p.pretty(obj[key])

    return printer


class Call(object):
    """Shown as `name(arg, ..., key=value)`, wrapped like a container."""

    def __init__(self, name, *args, **kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs

    def _repr_pretty_(self, p, cycle):
        prefix = self.name + "("
        with p.group(len(prefix), prefix, ")"):
            items = [(None, a) for a in self.args] + list(self.kwargs.items())
            for index, (key, value) in enumerate(items):
                if index:
                    p.text(",")
                    p.breakable()
                if key is None:
                    p.pretty(value)
                else:
                    with p.group(len(key) + 1, key + "="):
                        p.pretty(value)


class Raw(object):
    def __init__(self, text):
        self.value = text

    def _repr_pretty_(self, p, cycle):
        p.text(self.value)


def _type_printer(obj, p, cycle):
    overrides = [m for m in getattr(type(obj), "__mro__", ()) if "__repr__" in vars(m)][:1]
    if overrides != [type]:
        return p._repr(obj)  # a metaclass with its own repr
    module = _attr(obj, "__module__")
    name = _attr(obj, "__qualname__")
    if not isinstance(name, str):
        name = _attr(obj, "__name__")
        name = name if isinstance(name, str) else "<unknown type>"
    p.text(name if module in (None, "builtins") else "%s.%s" % (module, name))


def _function_printer(obj, p, cycle):
    name = _attr(obj, "__qualname__") or obj.__name__
    module = obj.__module__
    if module and module != "builtins":
        name = module + "." + name
    try:
        import inspect

        name += str(inspect.signature(obj))
    except (ValueError, TypeError):
        pass
    p.text("<function %s>" % name)


def _exception_printer(obj, p, cycle):
    cls = obj.__class__
    name = getattr(cls, "__qualname__", cls.__name__)
    if cls.__module__ != "builtins":
        name = "%s.%s" % (cls.__module__, name)
    p.pretty(Call(name, *getattr(obj, "args", ())))


def _super_printer(obj, p, cycle):
    with p.group(8, "<super: ", ">"):
        p.pretty(obj.__thisclass__)
        p.text(",")
        p.breakable()
        p.pretty(obj.__self__)


_FLAGS = ("TEMPLATE", "IGNORECASE", "LOCALE", "MULTILINE", "DOTALL", "UNICODE", "VERBOSE", "DEBUG")


def _pattern_printer(obj, p, cycle):
    import re

    text = repr(obj.pattern)
    pattern = Raw("r" + text.replace("\\\\", "\\"))
    flags = [f for f in _FLAGS if hasattr(re, f) and obj.flags & getattr(re, f)]
    args = [pattern] + ([Raw("|".join("re." + f for f in flags))] if obj.flags else [])
    p.pretty(Call("re.compile", *args))


def _namespace_printer(obj, p, cycle):
    p.pretty(Call("namespace", Raw("...")) if cycle else Call("namespace", **obj.__dict__))


def _named(maker):
    def printer(obj, p, cycle):
        name = obj.__class__.__name__
        p.pretty(Call(name, Raw("...")) if cycle else maker(name, obj))

    return printer


_BY_TYPE = {
    int: _repr_printer,
    float: _float_printer,
    str: _repr_printer,
    bytes: _repr_printer,
    range: _repr_printer,
    slice: _repr_printer,
    tuple: _sequence("(", ")"),
    list: _sequence("[", "]"),
    dict: _mapping("{", "}"),
    set: _set("{", "}"),
    frozenset: _set("frozenset({", "})"),
    super: _super_printer,
    type: _type_printer,
    types.FunctionType: _function_printer,
    types.BuiltinFunctionType: _function_printer,
    types.MethodType: _repr_printer,
    types.SimpleNamespace: _namespace_printer,
    types.MappingProxyType: _mapping("mappingproxy({", "})"),
    BaseException: _exception_printer,
}
_BY_NAME = {
    ("collections", "defaultdict"): _named(lambda n, o: Call(n, o.default_factory, dict(o))),
    ("collections", "OrderedDict"): _named(lambda n, o: Call(n, list(o.items())) if len(o) else Call(n)),
    ("collections", "deque"): _named(
        lambda n, o: Call(n, list(o), maxlen=o.maxlen) if o.maxlen is not None else Call(n, list(o))
    ),
    ("collections", "Counter"): _named(lambda n, o: Call(n, dict(o)) if len(o) else Call(n)),
    ("collections", "UserList"): _named(lambda n, o: Call(n, o.data)),
    ("datetime", "datetime"): _repr_printer,
    ("datetime", "timedelta"): _repr_printer,
    ("re", "Pattern"): _pattern_printer,
    ("os", "_Environ"): _mapping("environ{", "}"),
}
REGISTERED = {}  # printers added at run time (IPython's for_type), by type


def _printer_for(cls):
    printer = REGISTERED.get(cls) or _BY_TYPE.get(cls)
    if printer is None:
        try:
            printer = _BY_NAME.get((cls.__module__, cls.__name__))
        except Exception:
            return None
    return printer


def _default(obj, p, cycle):
    cls = _attr(obj, "__class__") or type(obj)
    if _attr(cls, "__repr__") is not object.__repr__:
        return p._repr(obj)
    with p.group(1, "<", ">"):
        p.pretty(cls)
        p.text(" at 0x%x" % id(obj))
        if cycle:
            p.text(" ...")
        elif p.verbose:
            _verbose_attributes(obj, p)


def _verbose_attributes(obj, p):
    first = True
    for key in dir(obj):
        if key.startswith("_"):
            continue
        try:
            value = getattr(obj, key)
        except AttributeError:
            continue
        if isinstance(value, types.MethodType):
            continue
        if not first:
            p.text(",")
        p.breakable()
        p.text(key + "=")
        with p.indent(len(key) + 1):
            p.pretty(value)
        first = False
