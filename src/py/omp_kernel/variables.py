"""The `variables` request: the names the user defined, as %whos lists them (name, type, a short
form of the value) and a shape where the value has one (numpy, pandas). A summary runs user code
(__str__, a shape property) and may never return: each name has a deadline, past which it is
listed as skipped and the next one is described. No side effects on import."""
import signal
import time

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


class _Late(BaseException):
    """A name's summary outlived its deadline (not an Exception: summary() catches those)."""


def _seconds(value):
    return "%g s" % round(value, 3)


def skipped(name, value, why):
    """A name listed without running its code: its type and why."""
    return {"name": name, "type": type(value).__name__, "summary": "<skipped: %s>" % why, "skipped": True}


class _Deadlines(object):
    """SIGALRM on the main thread raises _Late while armed (again every 0.1 s, for a __str__ that
    swallows the first); the handler and timer that were there are put back at the end."""

    def __init__(self):
        self.armed = False
        self.usable = hasattr(signal, "setitimer")

    def _handler(self, signum, frame):
        if self.armed:
            raise _Late()

    def __enter__(self):
        if self.usable:
            self.began = time.monotonic()
            self.previous = signal.signal(signal.SIGALRM, self._handler)
            self.timer = signal.setitimer(signal.ITIMER_REAL, 0)
        return self

    def arm(self, seconds):
        if self.usable:
            self.armed = True
            signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001), 0.1)

    def disarm(self):
        self.armed = False
        if self.usable:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def __exit__(self, *exc):
        if not self.usable:
            return False
        self.disarm()
        signal.signal(signal.SIGALRM, self.previous if self.previous is not None else signal.SIG_DFL)
        delay, interval = self.timer
        if delay > 0:  # the user's own alarm goes on, less the time spent here
            signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - self.began), 0.001), interval)
        return False


def list_variables(namespace, hidden, limit, name_timeout=1.0, timeout=None):
    """(described, total): the first `limit` of the user's names, sorted, and how many there are.
    A name whose summary takes longer than `name_timeout` seconds is listed as skipped, and so are
    those left when `timeout` (seconds, for the whole listing) runs out."""
    names = user_names(namespace, hidden)
    described = []
    began = time.monotonic()
    with _Deadlines() as deadlines:
        for name in names[: max(0, limit)]:
            value = namespace[name]
            left = None if timeout is None else timeout - (time.monotonic() - began)
            if left is not None and left <= 0:
                described.append(skipped(name, value, "the listing ran out of time (%s)" % _seconds(timeout)))
                continue
            seconds = name_timeout if left is None else min(name_timeout, left)
            try:
                deadlines.arm(seconds)
                try:
                    item = describe(name, value)
                finally:
                    deadlines.disarm()
            except _Late:
                item = skipped(name, value, "its summary took longer than %s" % _seconds(seconds))
            described.append(item)
    return described, len(names)
