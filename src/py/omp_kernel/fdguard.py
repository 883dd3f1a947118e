"""The runner's private descriptors (the protocol channel, the capture pipes, the bridge) are out
of reach of cells: writing to, duplicating, replacing or closing one raises a clear OSError in the
cell, instead of forging frames or killing the kernel. A forked child may do as it likes (it owns
no channel). What this cannot stop: C code, ctypes, io.FileIO(fd) on a guessed number. Importing
this module has no side effects; `protect()` wraps the os functions."""
import builtins
import errno
import io
import os

_WHAT = "belong to the kernel's own channel"


def _refuse(call, fds):
    names = ", ".join(map(str, sorted(fds)))
    noun = "descriptors" if len(fds) > 1 else "descriptor"
    return OSError(errno.EBADF, "%s: %s %s %s (its protocol and output pipes)" % (call, noun, names, _WHAT))


def protect(fds, diag=None):
    private = frozenset(fds)
    main_pid = os.getpid()
    real = {name: getattr(os, name) for name in ("write", "close", "closerange", "dup", "dup2", "fdopen")}
    real_open, real_io_open = builtins.open, io.open

    def guarded(fd):
        return isinstance(fd, int) and fd in private and os.getpid() == main_pid

    def write(fd, data):
        if guarded(fd):
            raise _refuse("os.write(%d)" % fd, [fd])
        return real["write"](fd, data)

    def close(fd):
        if guarded(fd):
            raise _refuse("os.close(%d)" % fd, [fd])
        return real["close"](fd)

    def closerange(low, high):
        hit = [fd for fd in private if low <= fd < high] if os.getpid() == main_pid else []
        if hit:
            raise _refuse("os.closerange(%d, %d) would close descriptors the kernel needs; leave out" % (low, high), hit)
        return real["closerange"](low, high)

    def dup(fd):
        if guarded(fd):
            raise _refuse("os.dup(%d)" % fd, [fd])
        return real["dup"](fd)

    def dup2(fd, fd2, inheritable=True):
        if guarded(fd) or guarded(fd2):
            raise _refuse("os.dup2(%d, %d)" % (fd, fd2), [f for f in (fd, fd2) if guarded(f)])
        return real["dup2"](fd, fd2, inheritable)

    def fdopen(fd, *args, **kwargs):
        if guarded(fd):
            raise _refuse("os.fdopen(%d)" % fd, [fd])
        return real["fdopen"](fd, *args, **kwargs)

    def opener(original):
        def open(file, *args, **kwargs):  # noqa: A001 - wraps the builtin on purpose
            if guarded(file):
                raise _refuse("open(%d)" % file, [file])
            return original(file, *args, **kwargs)

        open.__doc__ = original.__doc__
        return open

    wrappers = (("write", write), ("close", close), ("closerange", closerange), ("dup", dup), ("dup2", dup2), ("fdopen", fdopen))
    for name, fn in wrappers:
        fn.__name__ = name
        fn.__doc__ = real[name].__doc__
        setattr(os, name, fn)
    posix = __import__("sys").modules.get("posix")
    if posix is not None:
        for name, fn in wrappers[:5]:
            setattr(posix, name, fn)
    builtins.open = opener(real_open)
    io.open = opener(real_io_open)
    return private
