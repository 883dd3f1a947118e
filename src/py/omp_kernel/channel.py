"""The protocol channel: requests in, frames out, on private descriptors.

At install the host's fd 0 and fd 1 are copied to private, non-inheritable descriptors; fd 0
becomes /dev/null and fd 1 and fd 2 become capture pipes (capture.py), so user code, C
extensions and child processes can neither read requests nor write into the frame stream.
Importing this module has no side effects.
"""
import json
import os
import threading


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


def encode(frame):
    """One frame as a line of JSON, UTF-8 (lone surrogates escaped)."""
    try:
        text = json.dumps(frame, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = json.dumps(json_safe(frame), ensure_ascii=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(json.loads(text)).encode("ascii") + b"\n"


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
    is never cut by an interrupt (the write runs under `guard`, which defers KeyboardInterrupt)."""

    def __init__(self, proto_in, proto_out, diag_fd, write, guard, trace=False):
        self._in = LineReader(proto_in)
        self._out = proto_out
        self._diag_fd = diag_fd
        self._write = write  # os.write as it was at start (user code may replace os.write)
        self._guard = guard
        self._lock = threading.Lock()
        self._trace = trace
        self._main_pid = os.getpid()
        self.fork_sink = None  # where a forked child's error frames go (its stderr)
        self.queued = []  # requests that arrived while a cell waited for input
        self.fds = frozenset((proto_in, proto_out, diag_fd))

    def send(self, frame):
        if os.getpid() != self._main_pid:
            if self.fork_sink is not None and frame.get("type") == "error":
                self.fork_sink("\n".join(frame.get("traceback", [])) + "\n")
            return  # a forked child owns no protocol channel
        data = encode(frame)
        with self._guard:
            with self._lock:
                view = memoryview(data)
                while view:
                    view = view[self._write(self._out, view) :]
        if self._trace:
            self.diag("-> " + data[:2000].decode("utf-8", "replace").rstrip("\n"))

    def diag(self, message):
        """A line on the host's stderr: runner diagnostics and fatal errors only."""
        try:
            self._write(self._diag_fd, ("omp-eval runner: %s\n" % message).encode("utf-8", "replace"))
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
        if self._trace:
            self.diag("<- " + line[:2000].decode("utf-8", "replace").rstrip("\n"))
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


def open_private_fds():
    """Moves the host's pipes to private descriptors: (proto_in, proto_out, diag). fd 0 becomes
    /dev/null; fd 1 and fd 2 are left for the capture pipes."""
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    diag = os.dup(2)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return proto_in, proto_out, diag
