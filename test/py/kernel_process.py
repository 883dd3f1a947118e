"""A real kernel for the Python tests: src/py/runner.py in a subprocess, spoken to over its NDJSON
protocol as the host does. When the tests run under coverage, the kernel does too (its data joins
the report through `coverage combine`)."""
import codecs
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUNNER = os.path.join(ROOT, "src", "py", "runner.py")
PRELUDE = os.path.join(ROOT, "src", "py", "prelude.py")
LIMIT = 60  # seconds any one wait may take on a loaded machine


KEY = "0123456789abcdef0123456789abcdef"


def _compile_kernel_package():
    """Writes checked-hash pycs of the kernel package into its __pycache__ (git-ignored), once per
    test process, as the host does in its cache: runner.py loads a module from one only when it
    matches the source's hash, so a stale one is never used. Without them every kernel the tests
    start (hundreds, in the IPython oracle) compiles the whole package anew."""
    import py_compile

    mode = py_compile.PycInvalidationMode.CHECKED_HASH
    for folder, dirs, files in os.walk(os.path.join(ROOT, "src", "py", "omp_kernel")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                try:
                    py_compile.compile(os.path.join(folder, name), doraise=True, invalidation_mode=mode)
                except (py_compile.PyCompileError, OSError):
                    pass  # (the kernel compiles it from source then)


_compile_kernel_package()

# Moves the descriptors named in argv[1] ([[from, to], ...]) to their numbers, then execs argv[2:].
PLACE_DESCRIPTORS = """
import fcntl, json, os, sys
moves = json.loads(sys.argv[1])
high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100) for fd, _ in moves]
for fd, _ in moves:
    os.close(fd)
for copy, (_, target) in zip(high, moves):
    os.dup2(copy, target, inheritable=True)
    os.close(copy)
os.execv(sys.argv[2], sys.argv[2:])
"""
MARK = b"\0omp-sync:" + KEY.encode() + b":"


class Kernel(object):
    """One kernel process, with the host's descriptors (src/eval/launch/spawn.ts): fd 1 and fd 2
    raw output, fd 3 frames, fd 4 requests, fd 5 the bridge (`bridge=True`: see `bridge_end`).
    Its three output pipes are merged at the runner's barriers as the host merges them
    (src/eval/kernel/rawDemux.ts): `frames()` yields frames and raw output in order."""

    def __init__(self, cwd=None, env=None, bridge=False, prelude=True, python=None):
        self.cwd = cwd or tempfile.mkdtemp(prefix="omp-kernel-test-")
        environ = dict(os.environ)
        for name, value in (env or {}).items():
            if value is None:
                environ.pop(name, None)  # (None: not in the kernel's environment)
            else:
                environ[name] = value
        environ["MPLBACKEND"] = "Agg"
        frames_r, frames_w = os.pipe()
        requests_r, requests_w = os.pipe()
        self.bridge_end = None
        kernel_end = None
        if bridge:
            kernel_end, self.bridge_end = socket.socketpair()
            environ["OMP_BRIDGE_FD"] = "5"
        python = python or sys.executable
        command = [python, "-u", RUNNER]
        if "coverage" in sys.modules:
            # The kernel changes its cwd: its data file and source are given as absolute paths.
            environ["COVERAGE_FILE"] = os.path.join(ROOT, ".coverage")
            command = [python, "-m", "coverage", "run", "--parallel-mode", "--rcfile", os.path.join(ROOT, ".coveragerc")]
            command += ["--source", os.path.join(ROOT, "src", "py"), RUNNER]
        moves = [(frames_w, 3), (requests_r, 4)] + ([(kernel_end.fileno(), 5)] if bridge else [])
        # The descriptors are put in place by a small trampoline after exec, not by preexec_fn:
        # with pass_fds=(3, 4) and preexec_fn, a test process with several threads (the oracle's)
        # fails now and then, since fds 3 and 4 of the parent may be anything or nothing at fork.
        self.proc = subprocess.Popen(
            [python, "-c", PLACE_DESCRIPTORS, json.dumps(moves)] + command,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environ,
            pass_fds=tuple(fd for fd, _ in moves),
            start_new_session=True,
        )
        for fd in (frames_w, requests_r):
            os.close(fd)
        if kernel_end is not None:
            kernel_end.close()
        self._requests = requests_w
        self._frames = frames_r
        self._pipes = {frames_r: "frames", self.proc.stdout.fileno(): "stdout", self.proc.stderr.fileno(): "stderr"}
        self._merge = Merge()
        self._owner = None
        self.stderr_seen = ""
        self.ids = 0
        self.noise = []
        code = ""
        if prelude:
            with open(PRELUDE, encoding="utf-8") as handle:
                code = handle.read()
        self.run(code, silent=True, store=False, init=True, cwd=self.cwd, frameKey=KEY)

    def send(self, message):
        data = message if isinstance(message, (bytes, str)) else json.dumps(message)
        if isinstance(data, str):
            data = data.encode("utf-8")
        os.write(self._requests, data.rstrip(b"\n") + b"\n")

    def frames(self, timeout=LIMIT):
        """Frames and raw output (as stdout/stderr frames of the cell that owned it), in order."""
        deadline = time.monotonic() + timeout
        while True:
            while self._merge.out:
                item = self._merge.out.pop(0)
                if item[0] == "frame":
                    frame = item[1]
                    if frame.get("type") == "started":
                        self._owner = frame["id"]
                    elif frame.get("type") == "done":
                        self._owner = None
                    yield frame
                else:
                    if item[0] == "stderr":
                        self.stderr_seen = (self.stderr_seen + item[1])[-4000:]
                    yield {"type": item[0], "id": self._owner, "data": item[1]}
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no frame within %s s" % timeout)
            if not self._pipes:
                raise EOFError("the kernel exited (%s): %s" % (self._end(), self.stderr_seen))
            ready, _, _ = select.select(list(self._pipes), [], [], remaining)
            for fd in ready:
                chunk = os.read(fd, 1 << 16)
                name = self._pipes[fd]
                if not chunk:
                    del self._pipes[fd]
                    if fd == self._frames:
                        os.close(fd)
                    if name != "frames":
                        self._merge.end(name)
                elif name == "frames":
                    self._merge.frame_bytes(chunk, self.noise)
                else:
                    self._merge.raw(name, chunk)

    def until(self, predicate, timeout=LIMIT):
        """Frames up to and including the first that satisfies predicate."""
        seen = []
        for frame in self.frames(timeout):
            seen.append(frame)
            if predicate(frame):
                return seen
        return seen

    def run(self, code, silent=False, store=True, allow_stdin=False, answers=(), **extra):
        """Runs a cell: a dict of its frames by kind, its stdout and stderr text, result, error."""
        self.ids += 1
        request_id = "c%d" % self.ids
        request = {"id": request_id, "code": code, "silent": silent, "storeHistory": store}
        if allow_stdin:
            request["allowStdin"] = True
        request.update(extra)
        self.send(request)
        answers = list(answers)
        frames = []
        for frame in self.frames():
            if frame.get("id") != request_id and frame.get("type") in ("stdout", "stderr"):
                continue  # background output
            frames.append(frame)
            if frame.get("type") == "input_request" and answers:
                self.send({"type": "input_reply", "id": request_id, "value": answers.pop(0)})
            if frame.get("type") == "done" and frame.get("id") == request_id:
                break
        return Cell(frames)

    def request(self, message, reply_type):
        self.send(message)
        frames = self.until(lambda f: f.get("type") in (reply_type, "error") and f.get("id") in (message.get("id"), None))
        return frames[-1]

    def close(self):
        """Asks the kernel to exit, then kills what is left of its group. The group is killed while
        the kernel is a zombie, not yet reaped: its pid (the group's id) cannot be another
        kernel's yet, as it could once reaped (tests start kernels from several threads)."""
        pid = self.proc.pid
        if self.proc.returncode is None:
            try:
                self.send({"type": "exit"})
            except OSError:
                pass
            deadline = time.monotonic() + LIMIT
            while not self._exited_unreaped(pid) and time.monotonic() < deadline:
                time.sleep(0.01)
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass  # the group is empty
        self.proc.wait()
        for fd, name in list(self._pipes.items()) + [(self._requests, "requests")]:
            if name in ("frames", "requests"):
                os.close(fd)  # (the frames pipe is closed already if it ended)
        self.proc.stdout.close()
        self.proc.stderr.close()
        self._pipes = {}
        if self.bridge_end is not None:
            self.bridge_end.close()

    def _end(self):
        """How the process ended: its exit code or signal (read without reaping it, so that
        close() can still kill what is left of its group)."""
        deadline = time.monotonic() + LIMIT
        while time.monotonic() < deadline:
            try:
                info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return "ended"
            if info is not None:
                if info.si_code == os.CLD_EXITED:
                    return "exit code %d" % info.si_status
                return "signal %d" % info.si_status
            time.sleep(0.01)
        return "still running"

    @staticmethod
    def _exited_unreaped(pid):
        try:
            return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True


class Merge(object):
    """The host's merge of the three pipes (rawDemux.ts), small: text and markers per raw stream,
    frames in order, each barrier passed once every part of it has come."""

    def __init__(self):
        self.out = []  # ("frame", dict) or (stream, text), in order
        self._bytes = {"stdout": b"", "stderr": b""}
        self._items = {"stdout": [], "stderr": []}
        self._waiting = {"stdout": None, "stderr": None}  # (n, with_frame) a stream waits at
        self._ended = {"stdout": False, "stderr": False}
        self._frames = []
        self._lines = b""
        self._completed = -1
        self._decoders = {s: codecs.getincrementaldecoder("utf-8")("replace") for s in ("stdout", "stderr")}

    def frame_bytes(self, chunk, noise):
        self._lines += chunk
        *lines, self._lines = self._lines.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            try:
                frame = json.loads(line)
            except ValueError:
                noise.append(line)
                continue
            if not isinstance(frame, dict) or frame.pop("key", None) != KEY:
                noise.append(line)
                continue
            self._frames.append(frame)
        self._flow()

    def raw(self, stream, chunk):
        data = self._bytes[stream] + chunk
        items = self._items[stream]
        while True:
            at = data.find(MARK)
            end = data.find(b"\0", at + len(MARK)) if at >= 0 else -1
            if end < 0:
                break
            if at:
                items.append(data[:at])
            body = data[at + len(MARK) : end].decode("latin-1")
            items.append((int(body[1:]), body[0] == "f"))
            data = data[end + 1 :]
        if at >= 0:
            keep = len(data) - at  # a marker whose end has not come yet
        else:
            keep = next((k for k in range(min(len(MARK) - 1, len(data)), 0, -1) if MARK.startswith(data[-k:])), 0)
        cut = len(data) - keep
        if cut:
            items.append(data[:cut])
        self._bytes[stream] = data[cut:]
        self._flow()

    def end(self, stream):
        self._ended[stream] = True
        if self._bytes[stream]:
            self._items[stream].append(self._bytes[stream])
            self._bytes[stream] = b""
        self._flow()

    def _flow(self):
        while True:
            moved = False
            while self._frames and self._frames[0].get("sync", -1) <= self._completed:
                self.out.append(("frame", self._frames.pop(0)))
                moved = True
            for stream in ("stdout", "stderr"):
                items = self._items[stream]
                while items and self._waiting[stream] is None:
                    item = items.pop(0)
                    moved = True
                    if isinstance(item, bytes):
                        text = self._decoders[stream].decode(item)
                        if text:
                            self.out.append((stream, text))
                    elif item[0] > self._completed:
                        self._waiting[stream] = item
            if not moved and not self._complete_lowest():
                return

    def _complete_lowest(self):
        waiting = [w for w in self._waiting.values() if w is not None]
        head = self._frames[0].get("sync") if self._frames else None
        numbers = [w[0] for w in waiting] + ([head] if head is not None and head > self._completed else [])
        if not numbers:
            return False
        n = min(numbers)
        with_frame = any(w[0] == n and w[1] for w in waiting) or head == n
        raw_ready = all(self._ended[s] or (self._waiting[s] is not None and self._waiting[s][0] >= n) for s in self._waiting)
        if not raw_ready or (with_frame and (head is None or head < n)):
            return False
        self._completed = n
        for s, w in self._waiting.items():
            if w is not None and w[0] <= n:
                self._waiting[s] = None
        return True


class Cell(object):
    def __init__(self, frames):
        self.frames = frames
        self.stdout = "".join(f["data"] for f in frames if f.get("type") == "stdout")
        self.stderr = "".join(f["data"] for f in frames if f.get("type") == "stderr")
        results = [f for f in frames if f.get("type") == "result"]
        self.result = results[-1]["bundle"] if results else None
        self.plain = self.result.get("text/plain") if self.result else None
        errors = [f for f in frames if f.get("type") == "error"]
        self.error = errors[-1] if errors else None
        self.displays = [f for f in frames if f.get("type") == "display" and "application/x-omp-status" not in f["bundle"]]
        self.statuses = [f["bundle"]["application/x-omp-status"] for f in frames if f.get("type") == "display" and "application/x-omp-status" in f["bundle"]]
        self.done = frames[-1] if frames else None
        self.prompts = [f["prompt"] for f in frames if f.get("type") == "input_request"]

    @property
    def ename(self):
        return self.error["ename"] if self.error else None


def has_module(name):
    import importlib.util

    return importlib.util.find_spec(name) is not None
