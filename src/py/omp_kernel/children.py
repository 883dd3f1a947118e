"""Child processes that Ctrl-C can stop with all they started: os.system, !cmd, %%bash, %pip run
their command in a process group of its own, and an interrupt stops the whole group.
Importing this module has no side effects."""
import os
import signal
import sys


class Children(object):
    def __init__(self, flush, guard, private_import):
        self._flush = flush  # flushes Python's buffered output first, to keep its order
        self._guard = guard
        self._import = private_import

    def spawn(self, args, shell, **kwargs):
        """A child in a process group of its own. Ctrl-C while it starts (the command may already
        run before Popen returns) is held until `proc` exists, then stops the group as in wait()."""
        subprocess = self._import("subprocess")
        self._flush()
        if sys.version_info >= (3, 11):
            kwargs["process_group"] = 0
        else:
            kwargs["preexec_fn"] = os.setpgrp
        proc = None
        try:
            with self._guard:
                proc = subprocess.Popen(args, shell=shell, **kwargs)
        except KeyboardInterrupt:
            if proc is not None:
                self.stop(proc)
            raise _stopped() from None
        return proc

    def wait(self, proc):
        """Waits for a child from spawn(); on Ctrl-C stops its whole group."""
        try:
            return proc.wait()
        except KeyboardInterrupt:
            self.stop(proc)
            raise _stopped() from None

    def stop(self, proc, grace=1.0):
        """SIGINT to the command's process group, up to `grace` seconds for it to end, then SIGKILL
        to whatever is left (shells run background jobs with SIGINT ignored)."""
        subprocess = self._import("subprocess")
        with self._guard:
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

    def system(self, command):
        """os.system that Ctrl-C can stop (C's system() ignores SIGINT in the caller)."""
        return wait_status(self.wait(self.spawn(command, True)))


def _stopped():
    """The KeyboardInterrupt of a stopped command, without the frames of subprocess it came
    through (IPython, too, shows only `KeyboardInterrupt` for an interrupted !cmd)."""
    return KeyboardInterrupt()


def wait_status(returncode):
    """A Popen return code as the wait status os.system returns."""
    return returncode << 8 if returncode >= 0 else -returncode
