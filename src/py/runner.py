"""omp-eval Python kernel: the script the host runs (`python -u runner.py`).

It checks the interpreter and loads the kernel package (omp_kernel, beside it). Compiling the
package anew on every start would cost more than the rest of the start-up, so its modules load
from bytecode, but only from bytecode the host wrote and checked: `__pycache__/<name>.<tag>.pyc`
files bound to their source by its hash (hash-based pycs that Python checks against the
source), whose bytes the host compared with its record while this interpreter started: the
package is loaded only once the host's first request came (see _await_first_request). Nothing
here writes bytecode into the cache, and PYTHONPYCACHEPREFIX does not apply to the kernel's
modules. Stdlib only, Python 3.8 grammar.
"""
import sys

# Python put this file's directory (the runner cache's entry) first on sys.path: a module planted
# there (a json.py beside runner.py) would be imported before the standard library's, and it
# would run in every later kernel. Nothing is imported from it by name; the package is loaded
# from its own path below.
_HERE = sys.path.pop(0) if sys.argv[0] and sys.path else None

if sys.version_info < (3, 8):
    sys.stderr.write("omp-eval: Python 3.8 or newer is required (this is %d.%d)\n" % sys.version_info[:2])
    sys.exit(78)


def _kernel_loader(here):
    """Imports under `here` (this file's directory) go through KernelLoader; others are not affected."""
    import importlib.machinery
    import importlib.util
    import marshal
    import os

    here = os.path.realpath(here)
    tag = sys.implementation.cache_tag
    checked_hash = 0b11  # a hash-based pyc that is checked against its source

    class KernelLoader(importlib.machinery.SourceFileLoader):
        def get_code(self, fullname):
            path = self.get_filename(fullname)
            source = self.get_data(path)
            if tag:
                head, name = os.path.split(path)
                pyc = os.path.join(head, "__pycache__", "%s.%s.pyc" % (name.rpartition(".")[0], tag))
                try:
                    with open(pyc, "rb") as f:
                        data = f.read()
                except OSError:
                    data = b""
                if (
                    data[:4] == importlib.util.MAGIC_NUMBER
                    and int.from_bytes(data[4:8], "little") == checked_hash
                    and data[8:16] == importlib.util.source_hash(source)
                ):
                    try:
                        return marshal.loads(data[16:])
                    except (ValueError, EOFError, TypeError):
                        pass
            return compile(source, path, "exec", dont_inherit=True)

    details = (KernelLoader, importlib.machinery.SOURCE_SUFFIXES)

    def inside(path):
        real = os.path.realpath(path or ".")
        return real == here or real.startswith(here + os.sep)

    def hook(path):
        if inside(path):
            return importlib.machinery.FileFinder(path, details)
        raise ImportError("not the kernel's directory")

    sys.path_hooks.insert(0, hook)
    for path in [p for p in sys.path_importer_cache if inside(p)]:
        del sys.path_importer_cache[path]
    return KernelLoader


# Standard modules the kernel imports before it is ready (json brings re and enum) and that its
# first cell imports (ast, linecache): imported while the interpreter waits for the first request.
# A kernel spawned early (`run`, `tool`, `mcp`) waits for as long as the host takes to load, 100 ms
# and more; these imports then no longer wait for the request. Only the standard library's: the
# package is not read before the request (the host is still checking its bytecode).
_WAITING_IMPORTS = ("json", "threading", "weakref", "signal", "faulthandler", "ast", "linecache")


def _await_first_request(fd=4):
    """The host checks the package's bytecode while this interpreter starts, and sends its first
    request (or closes the requests pipe) once that is done: nothing of the package is read before.
    Meanwhile the modules above are imported, one at a time, until the request is there."""
    import os
    import select

    # (OMP_EVAL_PERF_OFF=preimport, src/eval/perfOff.ts: imported after the request, as they were)
    off = os.environ.get("OMP_EVAL_PERF_OFF", "").replace(",", " ").split()
    try:
        for name in () if "preimport" in off else _WAITING_IMPORTS:
            if select.select([fd], [], [], 0)[0]:
                return
            try:
                __import__(name)
            except ImportError:
                pass  # (the kernel says what is missing when it needs it)
        select.select([fd], [], [])
    except (OSError, ValueError):
        pass  # not the host's layout (fd 4 is not open): nothing to wait for


def _load_package(here, loader):
    """Loads the kernel package from `here` by its path (not through sys.path, which does not hold
    `here`): its absolute imports find the standard library, never files beside it."""
    import importlib.util
    import os

    init = os.path.join(here, "omp_kernel", "__init__.py")
    spec = importlib.util.spec_from_file_location(
        "omp_kernel", init, loader=loader("omp_kernel", init), submodule_search_locations=[os.path.dirname(init)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["omp_kernel"] = module
    spec.loader.exec_module(module)


def _main():
    import os

    _await_first_request()
    here = os.path.dirname(os.path.abspath(__file__))
    _load_package(here, _kernel_loader(here))
    from omp_kernel import server

    server.install().serve()


if __name__ == "__main__":
    _main()
