"""runner.py's loader for the kernel package: bytecode only when it is bound to the source (a
checked hash-based pyc), from `__pycache__` beside the source whatever PYTHONPYCACHEPREFIX says,
and never a file written. The host checks the bytes of each pyc before the kernel starts
(src/eval/launch/bytecode.ts); this is the other half."""
import importlib.util
import marshal
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "src", "py", "runner.py")
SOURCE = b'VALUE = "source"\n'


def load_runner():
    spec = importlib.util.spec_from_file_location("omp_runner_under_test", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines _kernel_loader; _main runs only as __main__
    return module


def pyc(code_source, flags, source_hash):
    body = marshal.dumps(compile(code_source, "<pkg>", "exec"))
    return importlib.util.MAGIC_NUMBER + flags.to_bytes(4, "little") + source_hash + body


class KernelLoaderTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.pkg = os.path.join(self.dir, "omp_loader_pkg")
        os.mkdir(self.pkg)
        with open(os.path.join(self.pkg, "__init__.py"), "wb") as f:
            f.write(SOURCE)
        self.hooks = list(sys.path_hooks)
        self.prefix = sys.pycache_prefix
        load_runner()._kernel_loader(self.dir)
        sys.path.insert(0, self.dir)

    def tearDown(self):
        sys.path.remove(self.dir)
        sys.path_hooks[:] = self.hooks
        sys.path_importer_cache.clear()
        sys.modules.pop("omp_loader_pkg", None)
        sys.pycache_prefix = self.prefix
        shutil.rmtree(self.dir)

    def write_pyc(self, data):
        cache = os.path.join(self.pkg, "__pycache__")
        os.makedirs(cache, exist_ok=True)
        with open(os.path.join(cache, "__init__.%s.pyc" % sys.implementation.cache_tag), "wb") as f:
            f.write(data)

    def value(self):
        import omp_loader_pkg

        return omp_loader_pkg.VALUE

    def test_reads_a_checked_pyc_bound_to_the_source(self):
        self.write_pyc(pyc('VALUE = "bytecode"\n', 0b11, importlib.util.source_hash(SOURCE)))
        self.assertEqual(self.value(), "bytecode")

    def test_ignores_a_pyc_of_other_source_an_unchecked_one_and_a_timestamp_one(self):
        for data in (
            pyc('VALUE = "bytecode"\n', 0b11, importlib.util.source_hash(b"other")),
            pyc('VALUE = "bytecode"\n', 0b01, importlib.util.source_hash(SOURCE)),
            pyc('VALUE = "bytecode"\n', 0, b"\0" * 8),
            importlib.util.MAGIC_NUMBER + b"\3\0\0\0" + importlib.util.source_hash(SOURCE) + b"junk",
        ):
            with self.subTest(data=data[:16]):
                self.write_pyc(data)
                sys.modules.pop("omp_loader_pkg", None)
                self.assertEqual(self.value(), "source")

    def test_writes_nothing_and_ignores_the_pycache_prefix(self):
        sys.pycache_prefix = os.path.join(self.dir, "prefix")
        self.assertEqual(self.value(), "source")
        self.assertEqual(sorted(os.listdir(self.pkg)), ["__init__.py"])
        self.assertFalse(os.path.exists(sys.pycache_prefix))
        sys.modules.pop("omp_loader_pkg", None)
        self.write_pyc(pyc('VALUE = "bytecode"\n', 0b11, importlib.util.source_hash(SOURCE)))
        self.assertEqual(self.value(), "bytecode")


class FirstRequestTest(unittest.TestCase):
    """The host checks the package's bytecode while the interpreter starts (spawn.ts): runner.py
    reads nothing of its package before its first request, or the end of the requests pipe
    (fd 4), comes."""

    def test_the_package_loads_only_once_the_requests_pipe_is_readable(self):
        read_end, write_end = os.pipe()
        # The pipe's read end on fd 4, as the host lays it out; nothing on stdin.
        proc = subprocess.Popen(
            ["/bin/sh", "-c", 'exec "$0" -X importtime -u "$1" 4<&0 0</dev/null', sys.executable, RUNNER],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        os.close(read_end)
        closed = threading.Event()

        def close_requests():
            if not closed.is_set():
                closed.set()
                os.close(write_end)  # the host went away: the runner goes on, reads the end, exits

        # Only a guard against a hang, should the runner not wait (select imported at start-up).
        guard = threading.Timer(60, close_requests)
        guard.start()
        try:
            first = None
            for raw in proc.stderr:
                name = raw.decode().rsplit("|", 1)[-1].strip()
                if name == "select" or name.startswith("omp_kernel"):
                    first = name
                    break
            # It waits on fd 4 (select) before any module of its package is imported.
            self.assertEqual(first, "select")
        finally:
            guard.cancel()
            close_requests()
        rest = proc.stderr.read().decode()
        self.assertEqual(proc.wait(), 0)
        self.assertIn("omp_kernel.server", rest)


if __name__ == "__main__":
    unittest.main()


# In a fresh interpreter without site (nothing imports json or ast): the runner waits for a request
# on a pipe that a signal handler writes to after `delay` seconds (none: written before the wait).
WAIT_SCRIPT = """
import importlib.util, os, signal, sys
spec = importlib.util.spec_from_file_location("omp_runner_under_test", sys.argv[1])
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)
r, w = os.pipe()
delay = float(sys.argv[2])
if delay:
    signal.signal(signal.SIGALRM, lambda *_: os.write(w, b"x"))
    signal.setitimer(signal.ITIMER_REAL, delay)
else:
    os.write(w, b"x")
before = [m for m in ("json", "ast") if m in sys.modules]
runner._await_first_request(r)
print(before, [m for m in ("json", "ast", "linecache") if m in sys.modules])
"""


class WaitingImportsTest(unittest.TestCase):
    """While the runner waits for its first request, it imports the standard modules the kernel
    and its first cell need; a request already there is not kept waiting for them."""

    def imported(self, delay):
        out = subprocess.run(
            [sys.executable, "-S", "-c", WAIT_SCRIPT, RUNNER, str(delay)],
            capture_output=True, text=True, check=True, timeout=60,
        ).stdout
        return out.strip()

    def test_imports_while_waiting(self):
        self.assertEqual(self.imported(0.3), "[] ['json', 'ast', 'linecache']")

    def test_a_request_already_there_is_served_at_once(self):
        self.assertEqual(self.imported(0), "[] []")
