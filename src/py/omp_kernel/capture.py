"""Output capture. fd 1 and fd 2 are pipes that one reader thread forwards as stdout/stderr frames
of the running cell (or with id null between cells: background output), so output from Python,
C code and child processes arrives in the order it was written.

stdout is block-buffered (flushed by a pump thread every 20 ms and before every frame); stderr
is unbuffered, and a write to it waits until the reader has taken stdout's pipe before and its
own pipe after, so the two streams keep their relative order. Importing this module has no side
effects; `Capture.install()` moves the descriptors and starts the threads.
"""
import codecs
import io
import os
import select
import sys
import threading
import time

FRAME_CAP = 1 << 19  # characters per stdout/stderr frame
WINDOW = 0.01  # seconds output may wait to be coalesced with more

# Children, C functions and os.write reach fd 1/2 directly: what Python buffered is flushed first,
# so a cell's output keeps the order in which it was written.
FLUSH_EVENTS = frozenset(
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


class _Stderr(io.TextIOWrapper):
    """Unbuffered, and flushes stdout first, so both reach the host in the order written."""

    capture = None

    def write(self, text):
        capture = self.capture
        capture.stdout.flush()
        capture.sync(capture.out_r)
        n = super().write(text)
        self.flush()  # write_through skips the text layer only; the byte buffer still holds it
        capture.sync(capture.err_r)
        return n


class Capture(object):
    def __init__(self, send, guard, write):
        self._send = send
        self._guard = guard  # defers KeyboardInterrupt while frames are written
        self._write = write  # os.write as it was at start
        self._dup2 = os.dup2  # (the cell-facing os functions refuse the private descriptors)
        self.lock = threading.Lock()
        self.cell_id = None  # the running cell's id; None between cells
        self.in_cell = lambda: False
        self.before_output = None  # called before a cell's output is sent (a waiting clear_output)
        self._pending = []  # [stream name, text] segments not yet sent
        self._pending_size = 0
        self.main_pid = os.getpid()
        self.stdout = self.stderr = None
        self.out_r = self.out_w = self.err_r = self.err_w = None

    # ---- set-up -------------------------------------------------------------------------------

    def install(self):
        import fcntl
        import termios

        self._ioctl = fcntl.ioctl
        self._fionread = termios.FIONREAD
        self.out_r, self.out_w = os.pipe()
        self.err_r, self.err_w = os.pipe()
        os.dup2(self.out_w, 1)
        os.dup2(self.err_w, 2)
        # out_w/err_w stay open: each cell restores fd 1/2 from them if user code moved them.
        self.install_streams(False)
        for target, name in ((self.read_loop, "omp-reader"), (self.pump, "omp-pump")):
            threading.Thread(target=target, name=name, daemon=True).start()

    @property
    def fds(self):
        return frozenset((self.out_r, self.out_w, self.err_r, self.err_w))

    def install_streams(self, stdout_write_through):
        """(Re)creates sys.stdout/sys.stderr on fd 1/2. A forked child, which has no pump thread,
        writes through. A plain TextIOWrapper for stdout: any subclass costs print() a third more."""
        self.stdout = _make_stream(1, io.TextIOWrapper, stdout_write_through)
        self.stderr = _make_stream(2, _Stderr, True)
        self.stderr.capture = self
        sys.stdout = sys.__stdout__ = self.stdout
        sys.stderr = sys.__stderr__ = self.stderr

    def restore(self):
        """Undoes what a previous cell did to the output channels: closed or moved fd 1/2, closed
        sys.stdout/sys.stderr."""
        for fd, keep in ((1, self.out_w), (2, self.err_w)):
            try:
                same = os.path.sameopenfile(fd, keep)
            except OSError:
                same = False
            if not same:
                self._dup2(keep, fd)
        if self.stdout.closed or self.stderr.closed:
            self.install_streams(False)
        if getattr(sys.stdout, "closed", True):
            sys.stdout = self.stdout
        if getattr(sys.stderr, "closed", True):
            sys.stderr = self.stderr

    def after_fork_in_child(self):
        self.install_streams(True)

    # ---- forwarding ---------------------------------------------------------------------------

    def _emit_pending(self, keep_partial=False):
        """Sends pending output as frames. Caller holds the lock."""
        segments = self._pending
        tail = None
        if keep_partial and segments:
            name, text = segments[-1]
            cut = text.rfind("\n") + 1
            if 0 < cut < len(text) and len(text) - cut < FRAME_CAP:
                segments[-1] = [name, text[:cut]]
                tail = [name, text[cut:]]
        self._pending = [tail] if tail else []
        self._pending_size = len(tail[1]) if tail else 0
        if segments and self.cell_id is not None and self.before_output is not None:
            self.before_output()
        for name, text in segments:
            for start in range(0, len(text), FRAME_CAP):
                self._send({"type": name, "id": self.cell_id, "data": text[start : start + FRAME_CAP]})

    def _append(self, name, text):
        if not text:
            return
        if self._pending and self._pending[-1][0] == name:
            self._pending[-1][1] += text
        else:
            self._pending.append([name, text])
        self._pending_size += len(text)

    def read_loop(self):
        fds = {self.out_r: "stdout", self.err_r: "stderr"}
        decoders = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in fds}
        order = [self.out_r, self.err_r]
        deadline = None
        while order:
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                ready, _, _ = select.select(order, [], [], timeout)
            except (OSError, ValueError):
                return
            with self.lock:
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
                    self._append(fds[fd], decoders[fd].decode(data))
                if self._pending_size and deadline is None:
                    deadline = time.monotonic() + WINDOW
                if self._pending_size >= FRAME_CAP:
                    self._emit_pending(keep_partial=True)
                elif deadline is not None and (not ready or time.monotonic() >= deadline):
                    self._emit_pending()
                if not self._pending_size:
                    deadline = None

    def unread(self, fd):
        """Bytes waiting in a pipe."""
        return int.from_bytes(self._ioctl(fd, self._fionread, b"\0\0\0\0"), sys.byteorder)

    def sync(self, pipe_r, limit=0.5):
        """Waits until the reader thread has taken what is in a capture pipe."""
        if os.getpid() != self.main_pid:
            return
        give_up = time.monotonic() + limit
        while True:
            with self.lock:
                if self.unread(pipe_r) == 0:
                    return
            if time.monotonic() > give_up:
                return
            time.sleep(0.0001)

    def flush_streams(self):
        for stream in (self.stdout, self.stderr):
            try:
                stream.flush()
            except Exception:
                pass

    def drain(self, limit=1.0):
        """Forwards everything written to fd 1/2 so far, before the caller's next frame."""
        self.flush_streams()
        if os.getpid() != self.main_pid:
            return  # the reader thread lives in the kernel process only
        give_up = time.monotonic() + limit
        with self._guard:
            while True:
                with self.lock:
                    empty = self.unread(self.out_r) == 0 and self.unread(self.err_r) == 0
                    if empty or time.monotonic() > give_up:
                        self._emit_pending()
                        return
                time.sleep(0.0002)

    def end_cell(self):
        """The cell's id is gone once its output was sent; returns it."""
        with self.lock:
            finished, self.cell_id = self.cell_id, None
        return finished

    def pump(self):
        """Flushes the block-buffered streams so partial output streams while a cell runs."""
        while True:
            time.sleep(0.02 if self.in_cell() else 0.1)
            self.flush_streams()

    # ---- hooks for user code ------------------------------------------------------------------

    def audit(self, event, args):
        if event in FLUSH_EVENTS:
            self.flush_streams()

    def user_write(self, fd, data):
        """os.write for user code: output to fd 1/2 keeps its order with print()."""
        if fd != 1 and fd != 2:
            return self._write(fd, data)
        self.flush_streams()
        if fd == 1:
            return self._write(fd, data)
        self.sync(self.out_r)
        n = self._write(fd, data)
        self.sync(self.err_r)
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
