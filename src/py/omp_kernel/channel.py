"""The protocol channel: frames out, requests in, and the ordering markers in the raw output, all on
private descriptors.

The host starts the runner with fd 0 /dev/null, fd 1 and fd 2 pipes it reads as the raw output,
fd 3 for frames, fd 4 for requests and fd 5 for the bridge (src/eval/launch/spawn.ts). At install
fds 3-5 move to private, non-inheritable descriptors, fds 1 and 2 are copied to private ones (the
markers and faulthandler write there even when a cell moved fd 1 or 2), and every other
inheritable descriptor the process was given is closed: cells and their children hold none of
the host's. Every frame carries the kernel's key (sent in the init request), so a line a cell
writes to the frame pipe is not taken for a frame. Importing this module has no side effects.
"""
import json
import os
import threading

FRAMES_FD, REQUESTS_FD, BRIDGE_FD = 3, 4, 5
# Frames the host must see after the raw output written before them (src/eval/protocol/markers.ts).
SYNCED = frozenset(("started", "display", "result", "error", "input_request", "done"))


def json_safe(value):
    """A copy of value that json can encode strictly (NaN and infinities become None)."""
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return repr(value)


def encode_body(frame):
    """One frame as JSON, UTF-8 (lone surrogates escaped), with no newline."""
    try:
        text = json.dumps(frame, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = json.dumps(json_safe(frame), ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(json.loads(text)).encode("ascii")


def encode(frame):
    """One frame as a line of JSON, UTF-8 (lone surrogates escaped)."""
    return encode_body(frame) + b"\n"


# A frame longer than this is written as its parts (prefix, body, suffix), never copied into one
# string of bytes: each copy of a display of megabytes cost more than its JSON encoding.
JOIN_LIMIT = 1 << 16


class LineReader(object):
    """Reads lines from a descriptor; data already read survives a KeyboardInterrupt."""

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


class Channel(object):
    """Frames to the host and requests from it. `send` may be called from any thread; a frame
    is never cut by an interrupt (the write runs under `guard`, which defers KeyboardInterrupt).

    Barriers: `send` of a frame in SYNCED first writes the marker `NUL omp-sync:<key>:f<n> NUL`
    to both raw streams and then the frame with `sync: n`; `barrier()` writes `r<n>` markers
    alone. The host keeps the three pipes in this order.

    A frame in SYNCED goes without a barrier when the raw streams are `quiet`: nothing that the
    frame must follow can have been written to them since the last barrier (and `started`, which
    the cell's output must follow, always has one: execute.py). A barrier makes them quiet when no
    cell's code is running (`user_code` False: a child process or C code may write to fd 1 between
    any two of a cell's frames); a write through sys.stdout, sys.stderr or os.write (capture.py), and
    anything else that runs code of the user's (a hook, a request about the namespace), makes them
    not. What a background thread or process writes straight to fd 1 or 2 is in no fixed order
    with the kernel's frames either way. A `1+1` cell is then three frames and two barriers
    (`started`'s, and the result's once the value is computed), not three."""

    def __init__(self, requests_fd, frames_fd, raw_fds, write, guard):
        self._in = LineReader(requests_fd)
        self._out = frames_fd
        self.raw_fds = tuple(raw_fds)  # private copies of fd 1 and fd 2
        self._write = write  # os.write as it was at start (user code may replace os.write)
        self._guard = guard
        self._lock = threading.Lock()
        self._main_pid = os.getpid()
        self._prefix = b"\n"  # every frame starts a line: a partial line a cell wrote cannot swallow it
        self._mark = None  # b"\0omp-sync:<key>:" once the key is known
        self._next_barrier = 0
        self.quiet = False  # nothing to order was written to fd 1 or 2 since the last barrier
        # True while a cell's code runs, False between (the executor says); None (not told, as
        # before the first cell): every frame in SYNCED has its barrier
        self.user_code = None
        self.after_barrier = None  # told after every barrier (capture's stderr run ends there)
        self.fork_sink = None  # where a forked child's error frames go (its stderr)
        self.queued = []  # requests that arrived while a cell waited for input
        self.fds = frozenset((requests_fd, frames_fd) + self.raw_fds)

    @property
    def raw_err(self):
        return self.raw_fds[1]

    def set_key(self, key):
        """The kernel's key, from the init request: on every frame and marker from now on."""
        if self._mark is not None or not isinstance(key, str) or not key.isalnum() or len(key) > 64:
            return
        self._prefix = b'\n{"key": "' + key.encode("ascii") + b'", '
        self._mark = b"\0omp-sync:" + key.encode("ascii") + b":"

    def send(self, frame):
        if os.getpid() != self._main_pid:
            if self.fork_sink is not None and frame.get("type") == "error":
                self.fork_sink("\n".join(frame.get("traceback", [])) + "\n")
            return  # a forked child owns no protocol channel
        body = memoryview(encode_body(frame))  # b"{...}"
        synced = self._mark is not None and frame.get("type") in SYNCED and not self.quiet
        with self._guard:
            with self._lock:
                # The key's prefix replaces the body's "{"; a sync number goes before its "}".
                parts = [self._prefix, body[1:] if self._mark is not None else body]
                if synced:
                    parts[1] = parts[1][:-1]
                    parts.append(b', "sync": %d}\n' % self._barrier(b"f"))
                else:
                    parts.append(b"\n")
                if len(body) <= JOIN_LIMIT:
                    self._write_all(self._out, b"".join(parts))
                else:
                    for part in parts:
                        self._write_all(self._out, part)
        if synced and self.after_barrier is not None:
            self.after_barrier()

    def barrier(self):
        """A barrier of the raw streams alone: what fd 1 and fd 2 carried before it reaches the host
        before what either carries after it."""
        if self._mark is None or os.getpid() != self._main_pid:
            return
        with self._guard:
            with self._lock:
                self._barrier(b"r")

    def _barrier(self, kind):
        n = self._next_barrier
        self._next_barrier += 1
        # (before the markers: a write while they are written unsets it)
        self.quiet = self.user_code is False
        mark = self._mark + kind + str(n).encode("ascii") + b"\0"
        for fd in self.raw_fds:
            try:
                self._write_all(fd, mark)
            except OSError:
                pass  # the host stopped reading this stream: it waits for nothing there
        return n

    def _write_all(self, fd, data):
        view = memoryview(data)
        while view:
            view = view[self._write(fd, view) :]

    def diag(self, message):
        """A line on the kernel's stderr: runner diagnostics and fatal errors only."""
        self.quiet = False
        try:
            self._write(self.raw_err, ("omp-eval runner: %s\n" % message).encode("utf-8", "replace"))
        except OSError:
            pass

    def readline(self):
        return self._in.readline()

    def next_request(self):
        """The next request: a dict, an ('error', message) tuple, or None at EOF."""
        if self.queued:
            return self.queued.pop(0)
        line = b"\n"
        while not line.strip():
            line = self._in.readline()
            if not line:
                return None
        return parse_request(line)

    def protocol_error(self, message, request_id=None):
        self.send(
            {
                "type": "error",
                "id": request_id,
                "ename": "ProtocolError",
                "evalue": message,
                "traceback": ["ProtocolError: " + message],
            }
        )


def parse_request(line):
    try:
        request = json.loads(line)
    except ValueError as exc:
        return ("error", "request is not valid JSON: %s" % exc)
    if not isinstance(request, dict):
        return ("error", "request must be a JSON object, got %s" % type(request).__name__)
    return request


# What a request's fields are, as src/eval/schemas/protocol.json (the one description) says; the
# schema-driven test (test/integration/protocol-schema.test.ts) holds both runners to it.
MAX_ID_CHARS = 1024
EXECUTE_FIELDS = (
    ("silent", "a boolean"),
    ("storeHistory", "a boolean"),
    ("allowStdin", "a boolean"),
    ("stdinEnds", "a boolean"),
    ("init", "a boolean"),
    ("cwd", "a string"),
    ("frameKey", "a string"),
    ("cellNumber", "an integer"),
    ("scriptLine", "an integer"),
    ("env", "an object of strings or null"),
    ("script", "an object with argv (strings) and path (a string)"),
)


def valid_id(value):
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_CHARS


def _fits(rule, value):
    if rule == "a boolean":
        return isinstance(value, bool)
    if rule == "a string":
        return isinstance(value, str)
    if rule == "an integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if rule.startswith("an object of"):
        return isinstance(value, dict) and all(v is None or isinstance(v, str) for v in value.values())
    argv = value.get("argv") if isinstance(value, dict) else None
    return (
        isinstance(argv, list)
        and all(isinstance(a, str) for a in argv)
        and isinstance(value.get("path", ""), str)
        and set(value) <= {"argv", "path"}
    )


def execute_problem(request):
    """What is wrong with an execute request's fields besides its id, or None."""
    if not isinstance(request.get("code"), str):
        return "code must be a string"
    for name, rule in EXECUTE_FIELDS:
        if name in request and not _fits(rule, request[name]):
            return "%s must be %s" % (name, rule)
    return None


def open_private_fds():
    """Takes the host's descriptors (see the module's doc): returns (requests, frames, (raw stdout,
    raw stderr), bridge or None), all private and non-inheritable. fd 0 becomes /dev/null."""
    requests, frames = os.dup(REQUESTS_FD), os.dup(FRAMES_FD)
    raw = (os.dup(1), os.dup(2))
    bridge = None
    if os.environ.pop("OMP_BRIDGE_FD", None) == str(BRIDGE_FD):
        try:
            bridge = os.dup(BRIDGE_FD)
        except OSError:
            pass
    close_inherited()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return requests, frames, raw, bridge


def close_inherited():
    """Closes every inheritable descriptor from 3 up: the host's originals of the channels (copied
    already) and whatever the host itself inherited without close-on-exec. What Python opens is
    never inheritable (PEP 446), so nothing of the interpreter's own is touched."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd")]
    except (OSError, ValueError):
        fds = range(3, min(os.sysconf("SC_OPEN_MAX"), 4096))
    for fd in fds:
        if fd < 3:
            continue
        try:
            if os.get_inheritable(fd):
                os.close(fd)
        except OSError:
            pass  # the listing's own descriptor, closed already
