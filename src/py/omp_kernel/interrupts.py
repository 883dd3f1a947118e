"""Ctrl-C: SIGINT raises KeyboardInterrupt only while user code runs, and never in the middle of
writing a frame (that would corrupt the stream): there it is deferred to the end of the write.
Importing this module has no side effects; `Interrupts.install()` sets the handler."""
import signal
import threading


class Interrupts(object):
    def __init__(self):
        self.in_cell = False  # user code runs: SIGINT interrupts it
        self.deferred = False  # a SIGINT arrived inside a guarded block
        self._depth = 0

    def handler(self, signum, frame):
        if not self.in_cell:
            return  # between requests a stray interrupt is ignored
        if self._depth:
            self.deferred = True
            return
        raise KeyboardInterrupt

    def install(self):
        signal.signal(signal.SIGINT, self.handler)

    def restore(self):
        """Puts the handler back if a cell replaced it."""
        if signal.getsignal(signal.SIGINT) != self.handler:
            signal.signal(signal.SIGINT, self.handler)

    def start_cell(self):
        self.deferred = False
        self.in_cell = True

    def __enter__(self):
        """`with interrupts:` defers KeyboardInterrupt on the main thread until the block ends."""
        if threading.current_thread() is threading.main_thread():
            self._depth += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        if threading.current_thread() is not threading.main_thread():
            return False
        self._depth -= 1
        if self._depth == 0 and self.deferred and self.in_cell and exc_type is None:
            self.deferred = False
            raise KeyboardInterrupt
        return False
