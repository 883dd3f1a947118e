"""The kernel's side of the host bridge: agent() and completion() ask the host through a private
socket. Any thread may call; one reader thread hands each reply to its caller.

Stdlib only, Python 3.8 grammar. Importing this module has no side effects.
"""
import json
import os
import threading

DEFAULT_TIMEOUT = 1800.0  # seconds a call waits for its reply before it fails (never for ever)
MAX_CALL_BYTES = 16 * 1024 * 1024  # the host reads no longer line (protocol/bridge.ts says the same)


class BridgeError(RuntimeError):
    """The host could not answer a bridge call (not configured, failed, cancelled, or no reply)."""


class ReplyLines(object):
    """Splits the reply stream into lines, however replies are split or joined across reads."""

    def __init__(self):
        self._buf = bytearray()

    def feed(self, chunk):
        """Takes the bytes of one read; returns every complete line they finished, in order."""
        self._buf += chunk
        lines = []
        start = 0
        while True:
            end = self._buf.find(b"\n", start)
            if end < 0:
                break
            lines.append(bytes(self._buf[start:end]))
            start = end + 1
        if start:
            del self._buf[:start]
        return lines

    @property
    def pending(self):
        """Bytes of an incomplete last line."""
        return len(self._buf)


class BridgeClient(object):
    """Calls over one bridge socket: `call()` from any thread, replies read by `serve()`."""

    def __init__(self, fd, write, current_cell=lambda: None, default_timeout=DEFAULT_TIMEOUT):
        self.fd = fd
        self._write = write  # the runner's own os.write (user code may replace os.write)
        self._current_cell = current_cell
        self.default_timeout = default_timeout
        self._lock = threading.Lock()
        self._waiting = {}  # call id -> [threading.Event, reply]
        self._next_id = 0
        self.closed = None  # why the bridge is gone, once it is

    def start(self):
        thread = threading.Thread(target=self.serve, name="omp-bridge", daemon=True)
        thread.start()
        return thread

    def serve(self):
        """Reads replies until the host closes the socket. Every complete line is delivered as soon
        as its read returns: the next read happens only once nothing complete is buffered."""
        lines = ReplyLines()
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except OSError as exc:
                self.fail_all("the bridge failed: %s" % (exc.strerror or exc))
                return
            if not chunk:
                self.fail_all("the host closed the bridge")
                return
            for line in lines.feed(chunk):
                self.deliver(line)

    def deliver(self, line):
        try:
            reply = json.loads(line)
            waiting = self._waiting.get(reply.get("id"))
        except (ValueError, AttributeError, TypeError):
            return  # not a reply: the host never sends such lines
        if waiting is not None:
            waiting[1] = reply
            waiting[0].set()

    def fail_all(self, message):
        self.closed = message
        for waiting in list(self._waiting.values()):
            waiting[1] = {"ok": False, "error": message}
            waiting[0].set()

    def call(self, kind, payload, timeout=None):
        """Sends one request and waits for its reply, at most `timeout` seconds (the default when
        None). Raises BridgeError when the host answers with an error or not at all."""
        if self.closed:
            raise BridgeError(self.closed)
        limit = self.default_timeout if timeout is None else timeout
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0 < limit < float("inf"):
            raise ValueError("timeout must be a positive number of seconds, got %r" % (timeout,))
        with self._lock:
            self._next_id += 1
            call = self._next_id
        request = {"id": call, "kind": kind, "cell": self._current_cell(), "payload": payload}
        data = (json.dumps(request) + "\n").encode("utf-8")
        if len(data) > MAX_CALL_BYTES:
            raise BridgeError(
                "the %s() call is %d bytes of JSON; a bridge call may be at most %d bytes (16 MiB)"
                % (kind, len(data), MAX_CALL_BYTES)
            )
        waiting = [threading.Event(), None]
        self._waiting[call] = waiting
        if self.closed:  # closed between the check above and now: no reply can come
            self._waiting.pop(call, None)
            raise BridgeError(self.closed)
        answered = False
        try:
            self._send(data)
            if not self._wait(waiting[0], limit):
                raise BridgeError(
                    "no answer from the host to %s() within %g s; the call was abandoned "
                    "(pass timeout= to wait longer)" % (kind, limit)
                )
            answered = True
        except OSError as exc:
            raise BridgeError("the bridge failed: %s" % (exc.strerror or exc)) from None
        finally:
            self._waiting.pop(call, None)
            if not answered and not waiting[0].is_set():
                self._abandon(call)
        reply = waiting[1]
        if not reply.get("ok"):
            raise BridgeError(str(reply.get("error", "the host could not answer")))
        return reply.get("value")

    def _send(self, data):
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[self._write(self.fd, view) :]

    def _abandon(self, call):
        """Tells the host this call is given up (timeout, Ctrl-C), so it stops the command."""
        try:
            self._send(('{"cancel": %d}\n' % call).encode("ascii"))
        except OSError:
            pass

    @staticmethod
    def _wait(event, limit):
        """Waits in short steps, so Ctrl-C reaches a waiting main thread."""
        import time

        give_up = time.monotonic() + limit
        while not event.wait(min(0.1, max(0.0, give_up - time.monotonic()))):
            if time.monotonic() >= give_up:
                return event.is_set()
        return True
