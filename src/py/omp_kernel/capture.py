"""Output. fd 1 and fd 2 are the host's pipes: what Python, C code, child processes and forked
children write there reaches the host as written, and nothing waits in this process that could
die with it. `sys.stdout` is a block-buffered stream on fd 1 (a pump thread flushes it every
20 ms), line-buffered at the start of each cell and again once output went quiet, so that a line
printed just before C code that holds the GIL is on its way already. `sys.stderr` is unbuffered.

The host reads the two pipes and the frame pipe separately; the channel's barriers put them in
order again. A run of stderr writes begins with a barrier (stdout written before it goes first)
and the next stdout write ends it with another (what follows goes after). A frame that must come
after the output before it is sent with its own barrier (channel.SYNCED). Importing this module
has no side effects; `Capture.install()` sets up the streams and the pump.
"""
import io
import os
import sys
import threading

BUSY_WRITES = 64  # stdout writes per pump tick above which it is block-buffered

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


class _StdoutRaw(io.FileIO):
    """fd 1 under sys.stdout's buffer: each write (one per flush) tells the capture first."""

    capture = None

    def write(self, data):
        self.capture.before_stdout()
        return io.FileIO.write(self, data)


class _Stderr(io.TextIOWrapper):
    """Unbuffered; each write is ordered after the stdout written before it."""

    capture = None

    def write(self, text):
        self.capture.before_stderr()
        n = super().write(text)
        self.flush()  # write_through skips the text layer only; the byte buffer still holds it
        return n


class Capture(object):
    def __init__(self, channel, guard, write):
        self._channel = channel
        self._guard = guard  # defers KeyboardInterrupt while frames are written
        self._write = write  # os.write as it was at start
        self._dup2 = os.dup2  # (the cell-facing os functions refuse the private descriptors)
        self._raw_out, self._raw_err = channel.raw_fds
        self.lock = threading.Lock()
        self.cell_id = None  # the running cell's id; None between cells
        self.in_cell = lambda: False
        self.before_output = None  # called before a cell's output is written (a waiting clear_output)
        self.main_pid = os.getpid()
        self.stdout = self.stderr = None
        self.stdout_writes = 0  # writes to fd 1 by sys.stdout so far (the pump watches the rate)
        self._tick_writes = 0  # stdout_writes at the pump's last tick
        self._busy = threading.Event()  # wakes the pump early: a burst of line-buffered writes
        self._line_buffered = True
        self._stderr_run = False  # stderr was written since the last barrier

    # ---- set-up -------------------------------------------------------------------------------

    def install(self):
        self._channel.after_barrier = self._barrier_passed
        self.install_streams(False)
        threading.Thread(target=self.pump, name="omp-pump", daemon=True).start()

    def install_streams(self, forked):
        """(Re)creates sys.stdout/sys.stderr on fd 1/2. A forked child, which has no pump thread
        and no channel, gets plain write-through streams. A plain TextIOWrapper for stdout: any
        subclass costs print() a third more."""
        if forked:
            raw = io.FileIO(1, "wb", closefd=False)
        else:
            raw = _StdoutRaw(1, "wb", closefd=False)
            raw.capture = self
        self.stdout = io.TextIOWrapper(
            io.BufferedWriter(raw, 1 << 16),
            encoding="utf-8",
            errors="backslashreplace",
            write_through=forked,
            line_buffering=True,
        )
        self._line_buffered = True
        self.stderr = _make_stream(2, io.TextIOWrapper if forked else _Stderr)
        self.stderr.capture = self
        sys.stdout = sys.__stdout__ = self.stdout
        sys.stderr = sys.__stderr__ = self.stderr

    def restore(self):
        """Undoes what a previous cell did to the output channels (closed or moved fd 1/2, closed
        sys.stdout/sys.stderr); each cell starts line-buffered."""
        for fd, keep in ((1, self._raw_out), (2, self._raw_err)):
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
        self._buffer_lines(True)

    def after_fork_in_child(self):
        self.install_streams(True)

    # ---- ordering -----------------------------------------------------------------------------

    def before_stdout(self):
        """sys.stdout is about to write to fd 1 (its buffer's lock is held)."""
        self.stdout_writes += 1
        if self._line_buffered and self.stdout_writes - self._tick_writes > BUSY_WRITES:
            # A print loop: block-buffered now, not at the tick (a tick of line-buffered writes
            # was a thousand writes of a line each, and as many reads for the host).
            self._busy.set()
        self.order_stdout()

    def order_stdout(self):
        """A write to fd 1 follows: a run of stderr before it ends, a waiting clear happens."""
        if os.getpid() != self.main_pid:
            return
        if self._stderr_run:
            self.end_stderr_run()
        if self.cell_id is not None and self.before_output is not None:
            self.before_output()
        self._channel.quiet = False  # (last: the barriers and frames above make it quiet)

    def before_stderr(self):
        """A write to fd 2 follows: stdout written before it must reach the host first."""
        if os.getpid() != self.main_pid:
            return
        self.stdout.flush()  # (before taking our lock: the flush takes the buffer's, then ours)
        if self.cell_id is not None and self.before_output is not None:
            self.before_output()
        with self.lock:
            if not self._stderr_run:
                self._channel.barrier()
                self._stderr_run = True
            self._channel.quiet = False

    def end_stderr_run(self):
        with self.lock:
            if self._stderr_run:
                self._stderr_run = False
                self._channel.barrier()

    def _barrier_passed(self):
        self._stderr_run = False  # a frame's barrier orders both streams as well

    # ---- flushing -----------------------------------------------------------------------------

    def flush_streams(self):
        for stream in (self.stdout, self.stderr):
            try:
                stream.flush()
            except Exception:
                pass

    def flushing_exits(self):
        """os._exit and os.abort for cells: what sys.stdout and sys.stderr hold is written first,
        as under `python -u` it would have been already (the last lines before such an end are
        the ones that say why)."""
        real_exit, real_abort = os._exit, os.abort

        def _exit(status):
            self.flush_streams()
            real_exit(status)

        def abort():
            self.flush_streams()
            real_abort()

        _exit.__doc__, abort.__doc__ = real_exit.__doc__, real_abort.__doc__
        return _exit, abort

    def drain(self, limit=None):
        """Writes out what Python buffered, before the caller's next frame (whose barrier orders
        it after this output)."""
        self.flush_streams()

    def end_cell(self):
        """The cell's id is gone once its output was written; returns it."""
        with self.lock:
            finished, self.cell_id = self.cell_id, None
        return finished

    def pump(self):
        """Flushes stdout so partial output streams while a cell runs. Output that comes fast is
        block-buffered; once it went quiet for a tick, stdout is line-buffered again."""
        while True:
            self._busy.wait(0.02 if self.in_cell() else 0.1)
            self.tick()

    def tick(self):
        """One pump tick: what stdout holds goes out; the buffering follows the rate of writes."""
        self._busy.clear()
        self.flush_streams()
        writes, self._tick_writes = self.stdout_writes - self._tick_writes, self.stdout_writes
        if self._line_buffered and writes > BUSY_WRITES:
            self._buffer_lines(False)
        elif not self._line_buffered and writes == 0:
            self._buffer_lines(True)

    def _buffer_lines(self, on):
        if self._line_buffered == on:
            return
        try:
            self.stdout.reconfigure(line_buffering=on)
            self._line_buffered = on
        except (ValueError, RuntimeError):
            pass  # closed, or busy in another thread: next tick

    # ---- hooks for user code ------------------------------------------------------------------

    def audit(self, event, args):
        if event in FLUSH_EVENTS:
            self.flush_streams()
            if self._stderr_run:
                self.end_stderr_run()  # the child's stdout goes after the stderr before it

    def user_write(self, fd, data):
        """os.write for user code: output to fd 1/2 keeps its order with print()."""
        if (fd != 1 and fd != 2) or os.getpid() != self.main_pid:
            return self._write(fd, data)
        if fd == 1:
            self.stdout.flush()
            self.order_stdout()
        else:
            self.before_stderr()
        return self._write(fd, data)


def _make_stream(fd, cls):
    raw = io.FileIO(fd, "wb", closefd=False)
    return cls(
        io.BufferedWriter(raw, 1 << 16),
        encoding="utf-8",
        errors="backslashreplace",
        write_through=True,
        line_buffering=True,
    )
