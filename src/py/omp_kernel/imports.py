"""The runner's own imports never come from the user's working directory.

A file named like a stdlib module in the cwd (traceback.py, ast.py, subprocess.py) must neither
stop the kernel nor silence its error text. What the runner needs on every cell is imported at
start, before the cwd joins sys.path; what it imports later goes through `private_import`, which
searches only the paths Python started with (so the modules those modules import are found
there too). Importing this module has no side effects; `PrivateImports.install()` adds the finder.
"""
import importlib
import importlib.machinery
import os
import sys
import threading

# The stdlib modules the runner imports after start-up (and what they import). A file of the
# same name in a directory the user put on sys.path (the cwd) would be imported instead: those
# are imported from the start-up paths first (a test keeps this list in step with the code).
RUNNER_STDLIB = frozenset(
    """__future__ abc ast asyncio atexit base64 bdb bisect builtins cProfile codecs codeop collections
    concurrent contextlib contextvars copy copyreg datetime difflib dis enum errno faulthandler fcntl
    fnmatch functools gc genericpath glob hashlib heapq importlib inspect io json keyword linecache
    locale math numbers opcode operator pathlib pdb pickle platform posixpath pprint pstats queue random
    re reprlib resource rlcompleter runpy select selectors shlex shutil signal socket stat string
    struct subprocess tempfile termios textwrap threading time timeit token tokenize traceback types
    typing uuid warnings weakref zlib""".split()
)


class PrivateImports(object):
    """A meta path finder that, while the runner imports, looks only in the start-up paths."""

    def __init__(self, paths):
        self._paths = [p for p in paths if p]
        self._local = threading.local()

    def install(self):
        sys.meta_path.insert(0, self)
        self._seen = {}  # folder on sys.path -> its mtime when last checked

    def protect(self, folder):
        """Imports, from the start-up paths, every runner module that a file in `folder` would
        shadow (once `folder` is on sys.path). Cheap when nothing in the folder changed."""
        try:
            mtime = os.stat(folder).st_mtime_ns
        except OSError:
            return
        if self._seen.get(folder) == mtime:
            return
        self._seen[folder] = mtime
        try:
            names = os.listdir(folder)
        except OSError:
            return
        stems = {n[:-3] for n in names if n.endswith(".py")} | {n for n in names if "." not in n}
        for name in sorted(stems & RUNNER_STDLIB):
            if name not in sys.modules:
                try:
                    self(name)
                except Exception:
                    pass  # a module this Python lacks (resource on some platforms)

    def protect_user_paths(self):
        """protect() for every folder on sys.path that Python did not start with."""
        for folder in sys.path:
            if folder and folder not in self._paths:
                self.protect(folder)

    def find_spec(self, fullname, path=None, target=None):
        if not getattr(self._local, "active", 0) or path is not None:
            return None  # user imports, and submodules (found through their package's path)
        return importlib.machinery.PathFinder.find_spec(fullname, self._paths)

    def __call__(self, name):
        """The module `name`, imported from the start-up paths if not imported yet."""
        module = sys.modules.get(name)
        if module is not None and _from_paths(module, self._paths):
            return module
        self._local.active = getattr(self._local, "active", 0) + 1
        try:
            if module is not None:
                # The user's module of that name took the place: load the real one beside it.
                spec = importlib.machinery.PathFinder.find_spec(name, self._paths)
                if spec is not None:
                    from importlib import util

                    real = util.module_from_spec(spec)
                    spec.loader.exec_module(real)
                    return real
            return importlib.import_module(name)
        finally:
            self._local.active -= 1


def _from_paths(module, paths):
    filename = getattr(module, "__file__", None)
    if filename is None:
        return True  # built in
    return any(filename.startswith(p.rstrip("/") + "/") for p in paths)


def startup_paths():
    """sys.path as Python set it up, without the script's directory."""
    return list(sys.path[1:]) if sys.path else []


class _PatchOnLoad(object):
    """Wraps a module's loader to run a patch after the module has executed."""

    def __init__(self, loader, patch, diag):
        self._loader = loader
        self._patch = patch
        self._diag = diag

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            self._patch(module)
        except Exception as exc:
            self._diag("could not patch %s: %r" % (module.__name__, exc))

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _PatchingFinder(object):
    """A meta path finder that answers for the named modules only: it lets the usual finders
    find them and patches each once it is loaded. Costs nothing until a cell imports one."""

    def __init__(self, patches, diag):
        self.patches = patches
        self._diag = diag

    def find_spec(self, fullname, path=None, target=None):
        patch = self.patches.get(fullname)
        if patch is None:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchOnLoad(spec.loader, patch, self._diag)
                return spec
        return None


def patching_finder(patches, diag):
    """A finder that patches the named modules as they are loaded."""
    return _PatchingFinder(patches, diag)
