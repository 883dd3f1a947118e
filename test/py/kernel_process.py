"""A real kernel for the Python tests: src/py/runner.py in a subprocess, spoken to over its NDJSON
protocol as the host does. When the tests run under coverage, the kernel does too (its data joins
the report through `coverage combine`)."""
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUNNER = os.path.join(ROOT, "src", "py", "runner.py")
PRELUDE = os.path.join(ROOT, "src", "py", "prelude.py")
LIMIT = 60  # seconds any one wait may take on a loaded machine


class Kernel(object):
    """One kernel process. `run()` executes a cell and returns its frames; `bridge=True` gives it
    the host bridge as a socket pair (see `bridge_end`)."""

    def __init__(self, cwd=None, env=None, bridge=False, prelude=True):
        self.cwd = cwd or tempfile.mkdtemp(prefix="omp-kernel-test-")
        environ = dict(os.environ)
        environ.update(env or {})
        environ["MPLBACKEND"] = "Agg"
        pass_fds = ()
        self.bridge_end = None
        if bridge:
            kernel_end, self.bridge_end = socket.socketpair()
            os.set_inheritable(kernel_end.fileno(), True)
            environ["OMP_BRIDGE_FD"] = "3"
            pass_fds = (3,)  # the child's fd 3, made from kernel_end before the others are closed
        command = [sys.executable, "-u", RUNNER]
        if "coverage" in sys.modules:
            # The kernel changes its cwd: its data file and source are given as absolute paths.
            environ["COVERAGE_FILE"] = os.path.join(ROOT, ".coverage")
            command = [sys.executable, "-m", "coverage", "run", "--parallel-mode", "--rcfile", os.path.join(ROOT, ".coveragerc")]
            command += ["--source", os.path.join(ROOT, "src", "py"), RUNNER]
        preexec = None
        if bridge:
            fd = kernel_end.fileno()

            def preexec():
                os.dup2(fd, 3)

        self.proc = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environ,
            pass_fds=pass_fds,
            preexec_fn=preexec,
            start_new_session=True,
        )
        if bridge:
            kernel_end.close()
        self.buf = b""
        self.ids = 0
        self.noise = []
        code = ""
        if prelude:
            with open(PRELUDE, encoding="utf-8") as handle:
                code = handle.read()
        self.run(code, silent=True, store=False, init=True, cwd=self.cwd)

    def send(self, message):
        data = message if isinstance(message, (bytes, str)) else json.dumps(message)
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.proc.stdin.write(data.rstrip(b"\n") + b"\n")
        self.proc.stdin.flush()

    def frames(self, timeout=LIMIT):
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                try:
                    yield json.loads(line)
                except ValueError:
                    self.noise.append(line)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no frame within %s s" % timeout)
            ready, _, _ = select.select([self.proc.stdout], [], [], remaining)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise EOFError("the kernel exited: %s" % self.stderr_text())
                self.buf += chunk

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

    def stderr_text(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.stderr.read().decode("utf-8", "replace")[-4000:]
        except (OSError, ValueError):
            return ""

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send({"type": "exit"})
                self.proc.wait(timeout=LIMIT)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        if self.bridge_end is not None:
            self.bridge_end.close()


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
