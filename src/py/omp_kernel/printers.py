"""IPython's plain-text forms by type, for the printer in pretty.py: containers, classes,
functions, exceptions, collections, and `<module.Class at 0x...>` for objects without a repr of
their own. Each printer writes through the printer API (text, breakable, group, pretty)."""
import types


def attr(obj, name):
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
    module = attr(obj, "__module__")
    name = attr(obj, "__qualname__")
    if not isinstance(name, str):
        name = attr(obj, "__name__")
        name = name if isinstance(name, str) else "<unknown type>"
    p.text(name if module in (None, "builtins") else "%s.%s" % (module, name))


def _function_printer(obj, p, cycle):
    name = attr(obj, "__qualname__") or obj.__name__
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


def printer_for(cls):
    printer = REGISTERED.get(cls) or _BY_TYPE.get(cls)
    if printer is None:
        try:
            printer = _BY_NAME.get((cls.__module__, cls.__name__))
        except Exception:
            return None
    return printer


def default(obj, p, cycle):
    cls = attr(obj, "__class__") or type(obj)
    if attr(cls, "__repr__") is not object.__repr__:
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
