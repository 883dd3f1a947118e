"""omp-eval Python kernel: an NDJSON server on the protocol pipe (runner.py loads it).

Stdlib only, Python 3.8 grammar. The host writes one JSON request per line;
this process answers with frames (see docs/architecture.md). Start-up imports
only what serving a request needs; everything else is imported on first use.
"""
import os
import sys

if sys.version_info < (3, 8):
    sys.stderr.write(
        "omp-eval: Python 3.8 or newer is required (this is %d.%d)\n" % sys.version_info[:2]
    )
    sys.exit(78)

import builtins
import codecs
import io
import json
import select
import signal
import threading
import time

# ---------------------------------------------------------------------------
# Protocol channel. The requests arrive on fd 0 and frames leave on fd 1; both
# are moved to private descriptors so that user code, C extensions and child
# processes can neither read requests nor write into the frame stream.
# ---------------------------------------------------------------------------

_PROTO_IN = os.dup(0)
_PROTO_OUT = os.dup(1)
_DIAG = os.dup(2)  # the host's stderr pipe: runner diagnostics and fatal errors only

_devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(_devnull, 0)
os.close(_devnull)

_out_r, _out_w = os.pipe()
_err_r, _err_w = os.pipe()
os.dup2(_out_w, 1)
os.dup2(_err_w, 2)
# _out_w/_err_w stay open: each cell restores fd 1/2 from them if user code closed or moved them.
_MAIN_PID = os.getpid()

try:
    import faulthandler

    faulthandler.enable(file=_DIAG, all_threads=False)
except Exception:  # pragma: no cover - faulthandler is optional
    pass

_RUNNER_FILE = os.path.abspath(__file__)
_RUNNER_DIR = os.path.dirname(_RUNNER_FILE)  # runner.py and its sibling modules (magics.py)
if sys.path and os.path.abspath(sys.path[0] or os.curdir) == os.path.dirname(_RUNNER_FILE):
    del sys.path[0]  # never import siblings of the cached runner file

_write_lock = threading.Lock()
_os_write = os.write  # the runner's own writes bypass the user-facing os.write wrapper


def _diag(message):
    try:
        _os_write(_DIAG, ("omp-eval runner: %s\n" % message).encode("utf-8", "replace"))
    except OSError:
        pass


def _json_safe(value):
    """A copy of value that json can encode strictly (NaN and infinities become None)."""
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return repr(value)


def _encode(frame):
    try:
        text = json.dumps(frame, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = json.dumps(_json_safe(frame), ensure_ascii=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # lone surrogates: let json escape them
        return json.dumps(json.loads(text)).encode("ascii") + b"\n"


# Interrupt bookkeeping. SIGINT only raises KeyboardInterrupt while user code
# runs and never in the middle of writing a frame (that would corrupt the stream).
_in_cell = False
_defer_depth = 0
_deferred_interrupt = False


def _on_sigint(signum, frame):
    global _deferred_interrupt
    if not _in_cell:
        return  # between requests a stray interrupt is ignored
    if _defer_depth:
        _deferred_interrupt = True
        return
    raise KeyboardInterrupt


class _NoInterrupt(object):
    """Defers KeyboardInterrupt on the main thread until the block ends."""

    def __enter__(self):
        global _defer_depth
        if threading.current_thread() is threading.main_thread():
            _defer_depth += 1
        return self

    def __exit__(self, *exc):
        global _defer_depth, _deferred_interrupt
        if threading.current_thread() is not threading.main_thread():
            return False
        _defer_depth -= 1
        if _defer_depth == 0 and _deferred_interrupt and _in_cell and exc[0] is None:
            _deferred_interrupt = False
            raise KeyboardInterrupt
        return False


_no_interrupt = _NoInterrupt()


def _send(frame):
    if os.getpid() != _MAIN_PID:
        _send_from_fork(frame)
        return
    data = _encode(frame)
    trace = _TRACE
    with _no_interrupt:
        with _write_lock:
            view = memoryview(data)
            while view:
                n = _os_write(_PROTO_OUT, view)
                view = view[n:]
    if trace:
        _diag("-> " + data[:2000].decode("utf-8", "replace").rstrip("\n"))


_TRACE = os.environ.get("PI_PYTHON_IPC_TRACE") == "1"


def _send_from_fork(frame):
    """A forked child of a cell owns no protocol channel: errors go to its stderr, the rest is dropped."""
    if frame.get("type") == "error":
        try:
            _stderr.write("\n".join(frame.get("traceback", [])) + "\n")
            _stderr.flush()
        except Exception:
            pass

# ---------------------------------------------------------------------------
# Output capture. sys.stdout/sys.stderr write into the fd 1/fd 2 pipes, like
# everything else in the process, so one reader thread sees all output in the
# order it was written and forwards it as stdout/stderr frames of the running
# cell (or with id null between cells: background output).
# ---------------------------------------------------------------------------

_current_id = None
_cap_lock = threading.Lock()
_pending = []  # [stream name, text] segments not yet sent
_pending_size = 0
_FRAME_CAP = 1 << 19  # characters per stdout/stderr frame
_WINDOW = 0.01  # seconds output may wait to be coalesced with more


def _emit_pending(keep_partial=False):
    """Sends pending output as frames. Caller holds _cap_lock."""
    global _pending, _pending_size
    segments = _pending
    tail = None
    if keep_partial and segments:
        name, text = segments[-1]
        cut = text.rfind("\n") + 1
        if 0 < cut < len(text) and len(text) - cut < _FRAME_CAP:
            segments[-1] = [name, text[:cut]]
            tail = [name, text[cut:]]
    _pending = [tail] if tail else []
    _pending_size = len(tail[1]) if tail else 0
    for name, text in segments:
        for start in range(0, len(text), _FRAME_CAP):
            _send({"type": name, "id": _current_id, "data": text[start : start + _FRAME_CAP]})


def _append_output(name, text):
    global _pending_size
    if not text:
        return
    if _pending and _pending[-1][0] == name:
        _pending[-1][1] += text
    else:
        _pending.append([name, text])
    _pending_size += len(text)


def _reader():
    fds = {_out_r: "stdout", _err_r: "stderr"}
    decoders = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in fds}
    order = [_out_r, _err_r]
    deadline = None
    while order:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            ready, _, _ = select.select(order, [], [], timeout)
        except (OSError, ValueError):
            return
        with _cap_lock:
            for fd in order[:]:
                if fd not in ready:
                    continue
                try:
                    data = os.read(fd, 1 << 16)
                except OSError:
                    data = b""
                if not data:
                    order.remove(fd)
                    continue
                _append_output(fds[fd], decoders[fd].decode(data))
            if _pending_size and deadline is None:
                deadline = time.monotonic() + _WINDOW
            if _pending_size >= _FRAME_CAP:
                _emit_pending(keep_partial=True)
            elif deadline is not None and (not ready or time.monotonic() >= deadline):
                _emit_pending()
            if not _pending_size:
                deadline = None


_FIONREAD = None


def _unread(fd):
    """Bytes waiting in a pipe."""
    global _FIONREAD
    import fcntl

    if _FIONREAD is None:
        import termios

        _FIONREAD = termios.FIONREAD
    return int.from_bytes(fcntl.ioctl(fd, _FIONREAD, b"\0\0\0\0"), sys.byteorder)


def _sync(pipe_r, limit=0.5):
    """Waits until the reader thread has taken what is in a capture pipe. Writing to stderr waits
    for stdout's pipe before and for its own after, so the two streams keep their order."""
    if os.getpid() != _MAIN_PID:
        return
    give_up = time.monotonic() + limit
    while True:
        with _cap_lock:
            if _unread(pipe_r) == 0:
                return
        if time.monotonic() > give_up:
            return
        time.sleep(0.0001)


def _flush_streams():
    for stream in (_stdout, _stderr):
        try:
            stream.flush()
        except Exception:
            pass


def _drain(limit=1.0):
    """Forwards everything written to fd 1/2 so far, before the caller's next frame."""
    _flush_streams()
    if os.getpid() != _MAIN_PID:
        return  # the reader thread lives in the kernel process only
    give_up = time.monotonic() + limit
    with _no_interrupt:
        while True:
            with _cap_lock:
                if (_unread(_out_r) == 0 and _unread(_err_r) == 0) or time.monotonic() > give_up:
                    _emit_pending()
                    return
            time.sleep(0.0002)


class _Stderr(io.TextIOWrapper):
    """Unbuffered, and flushes stdout first, so both reach the host in the order written."""

    def write(self, text):
        _stdout.flush()
        _sync(_out_r)
        n = super().write(text)
        self.flush()  # write_through skips the text layer only; the byte buffer still holds it
        _sync(_err_r)
        return n


def _make_stream(fd, cls, write_through):
    raw = io.FileIO(fd, "wb", closefd=False)
    return cls(
        io.BufferedWriter(raw, 1 << 16),
        encoding="utf-8",
        errors="backslashreplace",
        write_through=write_through,
        line_buffering=write_through,
    )


def _install_streams(stdout_write_through):
    """(Re)creates sys.stdout/sys.stderr on fd 1/2. stdout is block-buffered and flushed by the
    pump thread and before every frame; a forked child, which has no pump, writes through."""
    global _stdout, _stderr
    # A plain TextIOWrapper: any subclass costs print() about a third more.
    _stdout = _make_stream(1, io.TextIOWrapper, stdout_write_through)
    _stderr = _make_stream(2, _Stderr, True)
    sys.stdout = sys.__stdout__ = _stdout
    sys.stderr = sys.__stderr__ = _stderr


_install_streams(False)


def _restore_io():
    """Undoes what a previous cell did to the output channels: closed or moved fd 1/2, closed
    sys.stdout/sys.stderr, a replaced SIGINT handler."""
    for fd, keep in ((1, _out_w), (2, _err_w)):
        try:
            same = os.path.sameopenfile(fd, keep)
        except OSError:
            same = False
        if not same:
            os.dup2(keep, fd)
    if _stdout.closed or _stderr.closed:
        _install_streams(False)
    if getattr(sys.stdout, "closed", True):
        sys.stdout = _stdout
    if getattr(sys.stderr, "closed", True):
        sys.stderr = _stderr
    if signal.getsignal(signal.SIGINT) is not _on_sigint:
        signal.signal(signal.SIGINT, _on_sigint)


def _after_fork_in_child():
    _install_streams(True)


# Children, C functions and os.write reach fd 1/2 directly: flush what Python buffered first, so
# a cell's output keeps the order in which it was written.
_FLUSH_EVENTS = frozenset(
    (
        "os.system",
        "subprocess.Popen",
        "os.posix_spawn",
        "os.spawn",
        "os.exec",
        "os.fork",
        "os.forkpty",
        "ctypes.call_function",
    )
)


def _audit(event, args):
    if event in _FLUSH_EVENTS:
        _flush_streams()


def _user_os_write(fd, data):
    if fd != 1 and fd != 2:
        return _os_write(fd, data)
    _flush_streams()
    if fd == 1:
        return _os_write(fd, data)
    _sync(_out_r)
    n = _os_write(fd, data)
    _sync(_err_r)
    return n


def _wait_status(returncode):
    """A Popen return code as the wait status os.system returns."""
    return returncode << 8 if returncode >= 0 else -returncode


def _spawn_in_group(args, shell, **kwargs):
    """A child in a process group of its own, so that Ctrl-C can stop it with all it started
    (os.system, !cmd, %%bash, %pip). Python's buffered output is flushed first, to keep order."""
    import subprocess

    _flush_streams()
    if sys.version_info >= (3, 11):
        kwargs["process_group"] = 0
    else:
        kwargs["preexec_fn"] = os.setpgrp
    return subprocess.Popen(args, shell=shell, **kwargs)


def _wait_interruptible(proc):
    """Waits for a child from _spawn_in_group; on Ctrl-C stops its whole group."""
    try:
        return proc.wait()
    except KeyboardInterrupt:
        _stop_process_group(proc)
        raise


def _interruptible_system(command):
    """os.system that Ctrl-C can stop (C's system() ignores SIGINT in the caller, so the cell could
    not be interrupted)."""
    return _wait_status(_wait_interruptible(_spawn_in_group(command, True)))


def _stop_process_group(proc, grace=1.0):
    """Stops an interrupted command and everything it started: SIGINT to its process group, up to
    `grace` seconds for the command to end, then SIGKILL to whatever is left in the group (shells
    run background jobs with SIGINT ignored)."""
    import subprocess

    with _no_interrupt:
        try:
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(timeout=grace)
        except (OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()


def _pump():
    """Flushes the block-buffered streams so partial output streams while a cell runs."""
    while True:
        time.sleep(0.02 if _in_cell else 0.1)
        _flush_streams()


# ---------------------------------------------------------------------------
# Requests and stdin.
# ---------------------------------------------------------------------------


class _LineReader(object):
    """Reads request lines; data already read survives a KeyboardInterrupt."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()

    def readline(self):
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[: i + 1])
                del self.buf[: i + 1]
                return line
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                line = bytes(self.buf)
                self.buf = bytearray()
                return line
            self.buf += chunk


_requests = _LineReader(_PROTO_IN)
_queued = []  # requests that arrived while a cell waited for input
_allow_stdin = False


def _next_request():
    """The next request: a dict, an ('error', message) tuple, or None at EOF."""
    if _queued:
        return _queued.pop(0)
    line = b"\n"
    while not line.strip():
        line = _requests.readline()
        if not line:
            return None
    if _TRACE:
        _diag("<- " + line[:2000].decode("utf-8", "replace").rstrip("\n"))
    try:
        request = json.loads(line)
    except ValueError as exc:
        return ("error", "request is not valid JSON: %s" % exc)
    if not isinstance(request, dict):
        return ("error", "request must be a JSON object, got %s" % type(request).__name__)
    return request


class StdinNotImplementedError(RuntimeError):
    """Raised by input() in a cell that was run without stdin (the name Jupyter uses)."""


def _input(prompt="", password=False):
    if not _allow_stdin or _current_id is None:
        raise StdinNotImplementedError(
            "input() is not available: this cell was run without stdin. "
            "Pass the data in the code instead."
        )
    _drain()
    _send({"type": "input_request", "id": _current_id, "prompt": str(prompt), "password": password})
    while True:
        request = _requests.readline()
        if not request:
            raise EOFError("the host closed the request channel")
        try:
            request = json.loads(request)
        except ValueError:
            continue
        if isinstance(request, dict) and request.get("type") == "input_reply":
            value = request.get("value", "")
            return value if isinstance(value, str) else str(value)
        _queued.append(request)


def input(prompt=""):  # noqa: A001 - replaces the builtin on purpose
    return _input(prompt)


def _getpass(prompt="Password: ", stream=None):
    """getpass.getpass in a cell: the front end asks, and hides what is typed."""
    return _input(prompt, password=True)


def _patch_getpass():
    module = sys.modules.get("getpass")
    if module is not None and module.getpass is not _getpass:
        module.getpass = _getpass


class _Stdin(io.TextIOBase):
    def readable(self):
        return True

    def readline(self, size=-1):
        # getpass imported in this very cell falls back to reading stdin: still hide the answer.
        caller = sys._getframe(1)
        password = caller.f_globals.get("__name__") == "getpass" or (
            caller.f_back is not None and caller.f_back.f_globals.get("__name__") == "getpass"
        )
        return _input("", password=password) + "\n"

    def read(self, size=-1):
        return self.readline()

    def fileno(self):
        return 0


# ---------------------------------------------------------------------------
# Rich output: MIME bundles from _repr_*_ methods, matplotlib figures, plotly.
# Nothing here imports matplotlib, PIL, pandas or plotly: they are looked up in
# sys.modules, so only cells that already use them pay for them.
# ---------------------------------------------------------------------------

_REPR_METHODS = (
    ("text/html", "_repr_html_", str),
    ("text/markdown", "_repr_markdown_", str),
    ("image/svg+xml", "_repr_svg_", str),
    ("image/png", "_repr_png_", (bytes, str)),
    ("image/jpeg", "_repr_jpeg_", (bytes, str)),
    ("application/json", "_repr_json_", (dict, list)),
    ("text/latex", "_repr_latex_", str),
)
_BINARY_MIMES = frozenset(("image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"))
_BUNDLE_VALUE_CAP = 32 * 1024 * 1024  # characters; keeps every frame far below the host's cap
_IMAGE_CAP = 16 * 1024 * 1024  # base64 characters (12 MiB of image): the host shows no larger image
_IMPLICIT_JSON_CAP = 8 * 1024 * 1024  # display() of a dict or list adds its JSON up to this size


class _Bundle(dict):
    """A MIME bundle. `plain_is_repr` marks a text/plain that is only the runner's repr() of the
    object (not a text form the object offered): the host ranks it below HTML and markdown."""

    plain_is_repr = False


def _warn(text):
    _stderr.write("omp-eval: %s\n" % text)


def _repr_method(obj, name):
    if isinstance(obj, type):
        return None  # a class's _repr_html_ is an unbound function, not a display of it
    try:
        method = getattr(obj, name, None)
    except Exception:
        return None
    return method if callable(method) else None


def _b64(data):
    import base64

    return base64.b64encode(bytes(data)).decode("ascii")


def _bundle_value(mime, value, from_repr=True):
    if from_repr and isinstance(value, tuple) and len(value) == 2:
        value = value[0]  # a repr method's (data, metadata)
    if isinstance(value, (bytes, bytearray, memoryview)):
        if mime in _BINARY_MIMES:
            return _b64(value)
        return bytes(value).decode("utf-8", "replace")
    return value


def _mb(chars):
    return "%.1f MB" % (chars / 1e6)


def _format_bundle(obj, include=None, exclude=None):
    kind = type(obj).__name__
    bundle = _special_bundle(obj)
    if bundle is None:
        bundle = _repr_bundle(obj, kind, include, exclude)
    if include or exclude:
        for mime in list(bundle):
            if (include and mime not in include) or (exclude and mime in exclude):
                del bundle[mime]
    return _bounded_bundle(bundle, kind)


def _repr_bundle(obj, kind, include, exclude):
    bundle = _Bundle()
    if _repr_method(obj, "_ipython_canary_method_should_not_exist_") is not None:
        # It answers every attribute (a mock, a proxy): its "repr methods" are not (IPython's test).
        bundle["text/plain"] = _safe_repr(obj)
        return bundle
    method = _repr_method(obj, "_repr_mimebundle_")
    if method is not None:
        try:
            data = method(include=include, exclude=exclude)
            if isinstance(data, tuple):
                data = data[0]
            if isinstance(data, dict):
                for mime, value in data.items():
                    bundle[str(mime)] = _bundle_value(str(mime), value)
            elif data is not None:
                _warn("%s._repr_mimebundle_ returned %s, not a dict (ignored)" % (kind, type(data).__name__))
        except Exception as exc:
            _warn("%s._repr_mimebundle_ raised %s: %s (skipped)" % (kind, type(exc).__name__, exc))
    for mime, name, types in _REPR_METHODS:
        if mime in bundle or (include and mime not in include) or (exclude and mime in exclude):
            continue
        method = _repr_method(obj, name)
        if method is None:
            continue
        try:
            value = _bundle_value(mime, method())
        except Exception as exc:
            _warn("%s.%s raised %s: %s (skipped)" % (kind, name, type(exc).__name__, exc))
            continue
        if value is None:
            continue
        if not isinstance(value, types):
            _warn("%s.%s returned %s (ignored)" % (kind, name, type(value).__name__))
            continue
        bundle[mime] = value
    if "text/plain" not in bundle:
        bundle["text/plain"] = _safe_repr(obj)
        bundle.plain_is_repr = True
    return bundle


def _safe_repr(obj):
    try:
        return repr(obj)
    except Exception as exc:
        kind = type(obj).__name__
        _warn("repr() of %s raised %s: %s" % (kind, type(exc).__name__, exc))
        return "<%s object at %#x>" % (kind, id(obj))


def _bounded_bundle(bundle, kind):
    for mime, value in list(bundle.items()):
        if isinstance(value, str) and mime.startswith("image/") and len(value) > _IMAGE_CAP:
            _warn(
                "%s: %s output of %s dropped: images over %s are not sent"
                % (kind, mime, _mb(len(value) * 3 // 4), _mb(_IMAGE_CAP * 3 // 4))
            )
            del bundle[mime]
        elif isinstance(value, str) and len(value) > _BUNDLE_VALUE_CAP:
            half = _BUNDLE_VALUE_CAP // 2
            bundle[mime] = "%s\n… [%d characters omitted] …\n%s" % (
                value[:half],
                len(value) - 2 * half,
                value[-half:],
            )
        elif mime == "application/json":
            try:
                size = len(json.dumps(value, allow_nan=False))
            except (TypeError, ValueError, RecursionError) as exc:
                _warn("%s: %s data is not JSON (%s); dropped" % (kind, mime, type(exc).__name__))
                del bundle[mime]
                continue
            if size > _BUNDLE_VALUE_CAP:
                _warn("%s: %s data of %s dropped (too large)" % (kind, mime, _mb(size)))
                del bundle[mime]
    return bundle


def _json_fits(value):
    """True if value encodes as strict JSON of a reasonable size (display() of a dict or list)."""
    try:
        return len(json.dumps(value, allow_nan=False)) <= _IMPLICIT_JSON_CAP
    except (TypeError, ValueError, RecursionError):
        return False


def _special_bundle(obj):
    """Bundles for objects whose own repr methods do not suit a terminal: matplotlib figures (no
    PNG repr) and plotly figures (megabytes of HTML and JSON)."""
    modules = sys.modules
    figure = modules.get("matplotlib.figure")
    if figure is not None and isinstance(obj, figure.Figure):
        return _figure_bundle(obj)
    if "plotly" in modules and _is_plotly_figure(obj):
        return _plotly_bundle(obj)
    return None


# ---- matplotlib ------------------------------------------------------------

os.environ.setdefault("MPLBACKEND", "Agg")  # figures render off-screen (the host sets it too)
_NON_INTERACTIVE_BACKENDS = frozenset(("agg", "cairo", "pdf", "pgf", "ps", "svg", "template"))
_shown_figures = {}  # id → figure shown by display() or as a result in the running cell


def _figure_bundle(fig):
    """A figure as PNG (at its own size and dpi) with its repr as text. An empty figure is text
    only, as in IPython."""
    _shown_figures[id(fig)] = fig
    bundle = _Bundle()
    if fig.axes or fig.lines or fig.images or fig.texts or fig.patches:
        try:
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            bundle["image/png"] = _b64(buf.getbuffer())
        except Exception as exc:
            _warn("the figure could not be drawn: %s: %s" % (type(exc).__name__, _safe_str(exc)))
    bundle["text/plain"] = _safe_repr(fig)
    return bundle


def _non_interactive(pyplot):
    try:
        return str(pyplot.get_backend()).lower() in _NON_INTERACTIVE_BACKENDS
    except Exception:
        return False


def _flush_figures(explicit=False):
    """Emits every open pyplot figure as a PNG display and closes it: after every cell, and where
    plt.show() is called (explicit). After the cell, a figure the cell already showed (display(),
    or as its result) is closed without being shown again."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    try:
        managers = sys.modules["matplotlib._pylab_helpers"].Gcf.get_all_fig_managers()
    except Exception:
        return
    if not managers or not _non_interactive(pyplot):
        return
    for manager in managers:
        fig = manager.canvas.figure
        try:
            if explicit or id(fig) not in _shown_figures:
                _publish_display(_figure_bundle(fig))
        finally:
            pyplot.close(fig)


def _after_cell_figures():
    try:
        _flush_figures()
    finally:
        _shown_figures.clear()


def _patch_pyplot(pyplot):
    """plt.show() shows the open figures at that point of the cell's output (with a
    non-interactive backend; an interactive one keeps its own show)."""
    original = getattr(pyplot, "show", None)
    if original is None or getattr(original, "_omp_show", False):
        return

    def show(*args, **kwargs):
        if not _non_interactive(pyplot):
            return original(*args, **kwargs)
        _flush_figures(explicit=True)
        return None

    show._omp_show = True
    show.__wrapped__ = original
    show.__doc__ = original.__doc__
    pyplot.show = show


class _PatchOnLoad(object):
    """Wraps a module's loader to run a patch after the module has executed."""

    def __init__(self, loader, patch):
        self._loader = loader
        self._patch = patch

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            self._patch(module)
        except Exception as exc:
            _diag("could not patch %s: %r" % (module.__name__, exc))

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _PyplotImportHook(object):
    """A meta path finder that answers for matplotlib.pyplot only: it lets the usual finders find
    it and patches plt.show() once it is loaded. Costs nothing until a cell imports pyplot."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "matplotlib.pyplot":
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchOnLoad(spec.loader, _patch_pyplot)
                return spec
        return None


# ---- plotly ----------------------------------------------------------------


def _is_plotly_figure(obj):
    module = getattr(type(obj), "__module__", "") or ""
    return module.split(".", 1)[0] == "plotly" and hasattr(obj, "to_image") and hasattr(obj, "data")


def _plotly_bundle(fig):
    """A static PNG when kaleido is installed, and always a short summary: a plotly figure's own
    HTML and JSON run to megabytes and show nothing in a terminal."""
    import importlib.util

    bundle = _Bundle()
    summary = _plotly_summary(fig)
    if importlib.util.find_spec("kaleido") is not None:
        try:
            bundle["image/png"] = _bundle_value("image/png", fig.to_image(format="png"))
        except Exception as exc:
            summary += " (no static image: %s: %s)" % (type(exc).__name__, _safe_str(exc))
    else:
        summary += " (install kaleido for a static image)"
    bundle["text/plain"] = summary
    return bundle


def _plotly_summary(fig):
    try:
        traces = list(fig.data)
    except Exception:
        traces = []
    parts = []
    for trace in traces[:6]:
        text = str(getattr(trace, "type", None) or type(trace).__name__.lower())
        name = getattr(trace, "name", None)
        if name:
            text += " %r" % (name,)
        for axis in ("x", "y", "values", "z"):
            try:
                n = len(getattr(trace, axis))
            except Exception:
                continue
            text += " (%d points)" % n
            break
        parts.append(text)
    if len(traces) > 6:
        parts.append("%d more" % (len(traces) - 6))
    summary = "Plotly figure: %d trace%s" % (len(traces), "" if len(traces) == 1 else "s")
    if parts:
        summary += ": " + ", ".join(parts)
    try:
        title = fig.layout.title.text
    except Exception:
        title = None
    if title:
        summary += "; title %r" % (str(title),)
    return summary


# ---- display() ---------------------------------------------------------------


class DisplayHandle(object):
    """A display that later output can replace: display(obj, display_id=True) returns one."""

    def __init__(self, display_id=None):
        if display_id is None:
            import uuid

            display_id = uuid.uuid4().hex
        self.display_id = display_id

    def __repr__(self):
        return "<DisplayHandle display_id=%s>" % self.display_id

    def display(self, obj, **kwargs):
        display(obj, display_id=self.display_id, **kwargs)

    def update(self, obj, **kwargs):
        update_display(obj, display_id=self.display_id, **kwargs)


def display(*objs, **kwargs):
    """Shows each object under the running cell, as Jupyter's display() does: display(obj, ...,
    raw=False, include=None, exclude=None, display_id=None, update=False). With a display_id
    (True for a new one) it returns a DisplayHandle; update=True replaces that display."""
    raw = kwargs.get("raw", False)
    include = kwargs.get("include")
    exclude = kwargs.get("exclude")
    display_id = kwargs.get("display_id")
    transient = kwargs.get("transient")
    if display_id is None and isinstance(transient, dict):
        display_id = transient.get("display_id")
    update = bool(kwargs.get("update", False))
    if display_id is True:
        display_id = DisplayHandle().display_id
    if update and display_id is None:
        raise TypeError("display(update=True) needs a display_id")
    if display_id is not None:
        display_id = str(display_id)
    for obj in objs:
        if raw:
            if not isinstance(obj, dict):
                raise TypeError("display(raw=True) takes MIME bundles (dicts), got %s" % type(obj).__name__)
            bundle = _Bundle((str(k), _bundle_value(str(k), v, False)) for k, v in obj.items())
            bundle = _bounded_bundle(bundle, "raw bundle")
        else:
            bundle = _format_bundle(obj, include, exclude)
            if (
                isinstance(obj, (dict, list))
                and "application/json" not in bundle
                and (not include or "application/json" in include)
                and (not exclude or "application/json" not in exclude)
                and _json_fits(obj)
            ):
                bundle["application/json"] = obj
        if bundle:
            _publish_display(bundle, display_id=display_id, update=update)
    return DisplayHandle(display_id) if display_id is not None and not update else None


def update_display(obj, **kwargs):
    """Replaces the display that has this display_id: update_display(obj, display_id=...)."""
    if kwargs.get("display_id") is None:
        raise TypeError("update_display() needs a display_id")
    kwargs["update"] = True
    display(obj, **kwargs)


# %%capture collects display bundles here instead of sending them (innermost capture last).
_display_captures = []


def _publish_display(bundle, kind="display", display_id=None, update=False):
    if _display_captures:
        _display_captures[-1].append(bundle)
        return
    frame = {"type": kind, "id": _current_id, "bundle": bundle}
    if display_id is not None:
        frame["displayId"] = display_id
        if update:
            frame["update"] = True
    if getattr(bundle, "plain_is_repr", False) and ("text/html" in bundle or "text/markdown" in bundle):
        frame["plainIsRepr"] = True  # only where it can change what the host shows
    _drain()
    _send(frame)


# ---------------------------------------------------------------------------
# Tracebacks: the user's frames with their source, none of the runner's.
# ---------------------------------------------------------------------------


_xmode = "Context"  # %xmode: Plain and Context show frames with source, Verbose adds locals


def _cell_filename(count):
    return "<cell In[%d]>" % count


def _register_source(filename, code):
    import linecache

    lines = [line + "\n" for line in code.split("\n")]
    linecache.cache[filename] = (len(code), None, lines, filename)


def _is_cell_frame(frame_summary):
    return frame_summary.filename.startswith("<cell In[") or frame_summary.filename.startswith("<omp-")


def _clean_stack(te, seen):
    import traceback

    if te is None or id(te) in seen:
        return
    seen.add(id(te))
    frames = [f for f in te.stack if os.path.dirname(os.path.abspath(f.filename)) != _RUNNER_DIR]
    first_cell = next((i for i, f in enumerate(frames) if _is_cell_frame(f)), 0)
    te.stack = traceback.StackSummary.from_list(frames[first_cell:])
    _clean_stack(te.__cause__, seen)
    _clean_stack(te.__context__, seen)


def _format_traceback(exc_type, exc, tb):
    import traceback

    if exc_type.__name__ == "UsageError":
        return ["UsageError: %s" % _safe_str(exc)]  # IPython shows a misused magic without frames
    if _xmode == "Minimal":
        return [line.rstrip("\n") for line in traceback.format_exception_only(exc_type, exc)]

    te = traceback.TracebackException(exc_type, exc, tb, capture_locals=_xmode == "Verbose")
    _clean_stack(te, set())
    lines = []
    for chunk in te.format():
        chunk = chunk.replace('File "<cell In[', "Cell In[").replace(']>", line ', "], line ")
        lines.extend(chunk.rstrip("\n").split("\n"))
    return lines


# ---------------------------------------------------------------------------
# Execution.
# ---------------------------------------------------------------------------

_user_module = type(sys)("__main__")
_user_ns = _user_module.__dict__
_user_ns["__builtins__"] = builtins
sys.modules["_omp_runner"] = sys.modules[__name__]  # when run directly as __main__, before __main__ becomes the user's module
sys.modules["__main__"] = _user_module

_exec_count = 0
_In = [""]  # cell sources by execution count, as IPython's In
_Out = {}  # results by execution count, as IPython's Out
_user_ns["In"] = _In
_user_ns["Out"] = _Out
_prelude = ""  # the init request's code, run again by %reset
_hidden_names = set(_user_ns)  # names that are not the user's (%who, %reset); grows at init
_CO_COROUTINE = 0x80
_TOP_LEVEL_AWAIT = 0x2000  # ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, without importing ast at start-up
_loop = None


def _event_loop():
    global _loop
    import asyncio

    if _loop is None or _loop.is_closed():
        # Adopt a loop user code already made current (asyncio.ensure_future in a sync cell).
        current = getattr(getattr(asyncio.get_event_loop_policy(), "_local", None), "_loop", None)
        usable = current is not None and not current.is_closed() and not current.is_running()
        _loop = current if usable else asyncio.new_event_loop()
    # Current for sync cells too (asyncio.ensure_future, get_event_loop); asyncio.run() unsets it.
    asyncio.set_event_loop(_loop)
    return _loop


def _run_async(coro):
    """Runs a top-level-await cell on the kernel's persistent event loop."""
    global _in_cell
    import asyncio

    loop = _event_loop()
    task = loop.create_task(coro)
    try:
        return loop.run_until_complete(task)
    except KeyboardInterrupt as exc:
        if task.done():
            raise
        # The interrupt hit the event loop, not the cell: report it where the cell was awaiting,
        # then cancel the cell's task and let it unwind.
        exc = exc.with_traceback(_await_traceback(coro))
        task.cancel()
        _in_cell = False  # no second interrupt while the task unwinds
        try:
            loop.run_until_complete(asyncio.wait([task], timeout=1.0))
        except BaseException:
            pass
        finally:
            _in_cell = True
        if task.done() and not task.cancelled() and task.exception() is None:
            return task.result()  # the cell caught the cancellation and finished
        raise exc


def _await_traceback(coro):
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


def _run_code(code_obj):
    value = eval(code_obj, _user_ns)
    if code_obj.co_flags & _CO_COROUTINE:
        value = _run_async(value)
    return value


def _semicolon_after(code, node):
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


def _publish_result(value, count):
    ns = _user_ns
    ns["___"] = ns.get("__", "")
    ns["__"] = ns.get("_", "")
    ns["_"] = value
    if count:
        ns["_%d" % count] = value
        _Out[count] = value
    _publish_display(_format_bundle(value), "result")


_NO_VALUE = object()


def _normalize(code):
    # compile() reads \r\n and \r as newlines; normalising first keeps line numbers, the
    # registered source and the ';' check in agreement.
    return code.replace("\r\n", "\n").replace("\r", "\n")


def _run_source(code, filename, want_value=True, register=True):
    """Runs code in the user namespace; returns the value of a last bare expression (not followed
    by ';'), or _NO_VALUE. IPython-style magics are rewritten first."""
    import ast

    code = _normalize(code)
    if register:
        _register_source(filename, code)
    source = _transform(code)
    flags = _TOP_LEVEL_AWAIT
    tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST | flags, True)
    last = None
    if want_value and tree.body and isinstance(tree.body[-1], ast.Expr):
        if not _semicolon_after(code, tree.body[-1]):
            last = ast.Expression(tree.body.pop().value)
    if tree.body:
        _run_code(compile(tree, filename, "exec", flags, True))
    if last is None:
        return _NO_VALUE
    return _run_code(compile(last, filename, "eval", flags, True))


def _execute(code, filename, count, want_result):
    value = _run_source(code, filename, want_result)
    if value is not _NO_VALUE and value is not None:
        _publish_result(value, count)


_magics = None


def _magics_module():
    """magics.py, loaded from beside this file the first time a cell needs it."""
    global _magics
    if _magics is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location("_omp_magics", os.path.join(_RUNNER_DIR, "magics.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules["_omp_magics"] = module
        spec.loader.exec_module(module)
        module.install(sys.modules["_omp_runner"])
        _magics = module
    return _magics


def _transform(code):
    """IPython syntax (%magic, %%cell, !cmd, obj?) → Python. Plain code is returned untouched
    without loading the transformer."""
    if "%" not in code and "!" not in code and "?" not in code:
        return code
    return _magics_module().transform(code)


def _record_input(code):
    # IPython's names: _i, _ii, _iii are the three previous inputs, _i00 and _iN the current.
    ns = _user_ns
    _In.append(code)
    ns["_iii"], ns["_ii"], ns["_i"] = ns.get("_ii", ""), ns.get("_i", ""), ns.get("_i00", "")
    ns["_i00"] = ns["_i%d" % _exec_count] = code


def _finish_init(code):
    """After the init request: its code is the prelude, and what exists now is not the user's."""
    global _prelude
    _prelude = code
    _hidden_names.update(_user_ns)
    import warnings  # loaded at interpreter start-up already

    # getpass imported in a cell warns that it cannot hide input: the front end hides it.
    warnings.filterwarnings("ignore", message="Can not control echo on the terminal")


def _apply_context(request):
    cwd = request.get("cwd")
    if cwd:
        os.chdir(cwd)
        if cwd not in sys.path:
            sys.path.insert(0, cwd)
    env = request.get("env")
    if isinstance(env, dict):
        for key, value in env.items():
            if value is None:
                os.environ.pop(str(key), None)
            else:
                os.environ[str(key)] = str(value)


def _send_error(exc_type, exc, tb):
    _drain()
    _send(
        {
            "type": "error",
            "id": _current_id,
            "ename": exc_type.__name__,
            "evalue": _safe_str(exc),
            "traceback": _format_traceback(exc_type, exc, tb),
        }
    )


def _safe_str(exc):
    try:
        return str(exc)
    except Exception:
        return "<unprintable %s>" % type(exc).__name__


def _run_cell(request):
    global _exec_count, _current_id, _in_cell, _allow_stdin, _deferred_interrupt
    code = request.get("code", "")
    silent = bool(request.get("silent", False))
    store = bool(request.get("storeHistory", not silent)) and not silent
    _restore_io()
    _patch_getpass()
    _drain()  # background output from threads belongs before this cell
    if "asyncio" in sys.modules:
        _event_loop()
    _current_id = request["id"]
    _allow_stdin = bool(request.get("allowStdin", False))
    if store:
        _exec_count += 1
        _record_input(code)
    filename = _cell_filename(_exec_count) if store else "<omp-internal-%s>" % _current_id
    status, cancelled = "ok", False
    try:
        try:
            _deferred_interrupt = False
            # In the cell from here: the host interrupts only after `started`, and an interrupt
            # that arrives while `started` is being written is deferred to the end of the write.
            _in_cell = True
            _send({"type": "started", "id": _current_id})
            _apply_context(request)
            try:
                _execute(code, filename, _exec_count if store else 0, not silent)
            finally:
                _after_cell_figures()  # open matplotlib figures, even after an error (as Jupyter)
        finally:
            _in_cell = False
    except KeyboardInterrupt:
        status, cancelled = "error", True
        _send_error(*sys.exc_info())
    except BaseException:
        status = "error"
        _send_error(*sys.exc_info())
    if request.get("init"):
        _finish_init(code)
    if os.getpid() != _MAIN_PID:
        # A bare os.fork() in the cell: the child must not go on serving requests.
        _flush_streams()
        os._exit(0 if status == "ok" else 1)
    _drain()
    with _cap_lock:
        finished, _current_id = _current_id, None
    _allow_stdin = False
    _send(
        {
            "type": "done",
            "id": finished,
            "status": status,
            "executionCount": _exec_count,
            "cancelled": cancelled,
        }
    )


def _protocol_error(message, request_id=None):
    _send(
        {
            "type": "error",
            "id": request_id,
            "ename": "ProtocolError",
            "evalue": message,
            "traceback": ["ProtocolError: " + message],
        }
    )


def _exit():
    _drain(limit=0.5)
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:
        pass
    _drain(limit=0.5)
    os._exit(0)


_COMPLETE_TOKEN = None


def _completions(code, before, token):
    try:
        import jedi  # noqa: F401 - optional

        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1)
        names = jedi.Interpreter(code, [_user_ns]).complete(line, column)
        prefix = token.rsplit(".", 1)[0] + "." if "." in token else ""
        return [prefix + c.name for c in names]
    except KeyboardInterrupt:
        raise
    except Exception:
        import rlcompleter

        matches = []
        completer = rlcompleter.Completer(_user_ns)
        for state in range(500):
            try:
                match = completer.complete(token, state)
            except Exception:
                break
            if match is None:
                break
            matches.append(match)
        return matches


def _complete(request):
    """Completions for the name before the cursor: jedi when it is installed, else rlcompleter
    over the user's namespace. Answered between cells only (the main thread runs them). User code
    runs here too (__dir__, properties), so an interrupt stops it like a cell."""
    global _COMPLETE_TOKEN, _in_cell, _deferred_interrupt
    request_id = request.get("id")
    code = request.get("code", "")
    cursor = request.get("cursor", len(code) if isinstance(code, str) else 0)
    if not isinstance(code, str) or not isinstance(cursor, int):
        _protocol_error("complete needs code (a string) and cursor (an integer)", request_id)
        return
    import re

    if _COMPLETE_TOKEN is None:
        _COMPLETE_TOKEN = re.compile(r"[\w.]*$")
    before = code[:cursor]
    token = _COMPLETE_TOKEN.search(before).group(0)
    matches = []
    _deferred_interrupt = False
    _in_cell = True
    try:
        matches = _completions(code, before, token)
    except KeyboardInterrupt:
        matches = []
    finally:
        _in_cell = False
    # jedi also offers case-insensitive and fuzzy matches: keep what extends the typed name.
    seen = set()
    unique = [m for m in matches if m.startswith(token) and not (m in seen or seen.add(m))]
    _send(
        {
            "type": "complete_reply",
            "id": request_id,
            "matches": unique[:200],
            "start": cursor - len(token),
            "end": cursor,
        }
    )


def _serve():
    while True:
        request = _next_request()
        if request is None:
            _exit()
        if isinstance(request, tuple):
            _protocol_error(request[1])
            continue
        kind = request.get("type", "execute")
        if kind == "exit":
            _exit()
        if kind == "input_reply":
            continue  # a reply that arrived after its cell ended
        request_id = request.get("id")
        if kind == "complete":
            _complete(request)
            continue
        if kind != "execute":
            _protocol_error("unknown request type %r" % (kind,), request_id if isinstance(request_id, str) else None)
            continue
        if not isinstance(request_id, str) or not request_id:
            _protocol_error("request needs a non-empty string id")
            continue
        if not isinstance(request.get("code", ""), str):
            _protocol_error("request %r: code must be a string" % request_id, request_id)
            _send({"type": "done", "id": request_id, "status": "error", "executionCount": _exec_count, "cancelled": False})
            continue
        try:
            _run_cell(request)
        except BaseException as exc:  # a runner bug must not take the kernel down
            _diag("internal error: %r" % (exc,))
            _current_id_cleanup()
            _send({"type": "done", "id": request_id, "status": "error", "executionCount": _exec_count, "cancelled": False})


def _current_id_cleanup():
    global _current_id, _in_cell
    _in_cell = False
    with _cap_lock:
        _current_id = None


# ---------------------------------------------------------------------------
# The host bridge: agent() and completion() in the prelude ask the host through a private
# socket (fd 3 of this process, a socketpair only the host holds the other end of). Any thread
# may call; a reader thread hands each reply to its caller.
# ---------------------------------------------------------------------------

_bridge = None  # the BridgeClient, when the host gave this kernel a bridge


def _load_sibling(name, module_name):
    """A module from beside this file (bridge.py, magics.py), loaded once."""
    module = sys.modules.get(module_name)
    if module is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location(module_name, os.path.join(_RUNNER_DIR, name))
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return module


_bridge_module = _load_sibling("bridge.py", "_omp_bridge")
BridgeError = _bridge_module.BridgeError


def _bridge_open():
    global _bridge
    if os.environ.get("OMP_BRIDGE_FD") != "3":
        return
    os.environ.pop("OMP_BRIDGE_FD", None)
    timeout = _bridge_module.DEFAULT_TIMEOUT
    try:
        timeout = float(os.environ.pop("OMP_BRIDGE_TIMEOUT", timeout))
    except ValueError:
        pass
    try:
        fd = os.dup(3)  # non-inheritable copy; fd 3 itself is closed for children
        os.close(3)
    except OSError:
        return
    _bridge = _bridge_module.BridgeClient(fd, _os_write, lambda: _current_id, timeout)
    _bridge.start()


def _bridge_call(kind, payload, timeout=None):
    """Sends one request to the host and waits for its answer (from any thread)."""
    if _bridge is None:
        raise BridgeError("the host bridge is not available in this kernel")
    return _bridge.call(kind, payload, timeout)


builtins.display = display
builtins.__omp_bridge__ = _bridge_call
builtins.BridgeError = BridgeError
_bridge_open()
builtins.update_display = update_display
sys.meta_path.insert(0, _PyplotImportHook())
builtins.input = input
sys.stdin = sys.__stdin__ = _Stdin()
signal.signal(signal.SIGINT, _on_sigint)
sys.addaudithook(_audit)
os.write = _user_os_write
if "posix" in sys.modules:
    sys.modules["posix"].write = _user_os_write
os.system = _interruptible_system
os.register_at_fork(after_in_child=_after_fork_in_child)
for _target in (_reader, _pump):
    threading.Thread(target=_target, name="omp-" + _target.__name__.strip("_"), daemon=True).start()

if __name__ == "__main__":
    _serve()
