"""The `variables` request: the names the user defined, as %whos lists them (name, type, a short
form of the value) and a shape where the value has one (numpy, pandas). No side effects on
import."""

_SIZED = ("dict", "list", "tuple", "set", "frozenset")


def summary(value, kind):
    """%whos's Data/Info: n=len for containers, else str() with its middle cut past 50 characters."""
    try:
        if kind in _SIZED:
            return "n=%d" % len(value)
        info = str(value)
    except Exception:
        return "<object with id %d (str() failed)>" % id(value)
    info = info.replace("\n", "\\n")
    if len(info) >= 50:
        info = info[:25] + "<...>" + info[-25:]
    return info


def shape_of(value):
    if isinstance(value, type):
        return None
    try:
        shape = getattr(value, "shape", None)
    except Exception:
        return None
    if isinstance(shape, tuple) and all(isinstance(n, int) and not isinstance(n, bool) for n in shape):
        return list(shape)
    return None


def describe(name, value):
    kind = type(value).__name__
    item = {"name": name, "type": kind, "summary": summary(value, kind)}
    shape = shape_of(value)
    if shape is not None:
        item["shape"] = shape
    return item


_NOTHING = object()


def user_names(namespace, hidden):
    """The user's names, sorted: not private (`_x`), and not one the kernel put there still
    holding what it put (IPython's rule for %who: a hidden name bound again is the user's)."""
    return sorted(
        k
        for k, v in namespace.items()
        if isinstance(k, str) and not k.startswith("_") and hidden.get(k, _NOTHING) is not v
    )


def list_variables(namespace, hidden, limit):
    """(described, total): the first `limit` of the user's names, sorted, and how many there are."""
    names = user_names(namespace, hidden)
    described = []
    for name in names[: max(0, limit)]:
        described.append(describe(name, namespace[name]))
    return described, len(names)
