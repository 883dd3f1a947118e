"""The kernel: its parts wired together, and the request loop.

`install()` does all the patching that makes a cell's process a kernel (private protocol
descriptors, the output streams, builtins, SIGINT, os.write/os.system, sys.stdin, the import hooks);
importing this module does none of it. `serve()` answers requests until the host says exit or
closes the channel. Stdlib only, Python 3.8 grammar.
"""
import builtins
import os
import sys

from . import fdguard, width
from .bridge import DEFAULT_TIMEOUT, BridgeClient, BridgeError
from .capture import Capture
from .channel import Channel, execute_problem, open_private_fds, valid_id
from .display import Display, DisplayHandle
from .execute import Executor
from .formatters import Formatter
from .imports import PrivateImports, patching_finder, startup_paths
from .interrupts import Interrupts
from .stdin import Stdin, StdinNotImplementedError
from .tracebacks import Tracebacks

RUNNER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The modules loaded before any cell ran: what %reset --aggressive keeps.
MODULES_AT_START = frozenset(sys.modules)


class Kernel(object):
    def __init__(self, paths):
        self.private_import = PrivateImports(paths)
        self.interrupts = Interrupts()
        self._write = os.write  # the runner's own writes bypass the user-facing wrapper
        self.channel = None
        self.capture = None
        self.bridge = None
        self.threads_before_cell = ()  # the threads alive when the running cell started
        self.magics = None
        self._children = self._figures = self._api = None
        # Called before and after each cell of the user's (an extension's: autoreload)
        self.hooks_before_cell, self.hooks_after_cell = [], []
        self.call_pdb = None  # %pdb on: the post-mortem debugger run after a cell's error

    def install(self):
        """Makes this process a kernel. Called once, before the cwd joins sys.path."""
        requests, frames, raw, bridge = open_private_fds()
        self.channel = Channel(requests, frames, raw, self._write, self.interrupts)
        _enable_faulthandler(self.channel.raw_err)
        self.capture = Capture(self.channel, self.interrupts, self._write)
        self.capture.in_cell = lambda: self.interrupts.in_cell
        self.capture.install()
        self.channel.fork_sink = lambda text: self.capture.stderr.write(text)
        self.tracebacks = Tracebacks(RUNNER_DIR, self.private_import)
        self.stdin = Stdin(self.channel, self.capture.drain, lambda: self.capture.cell_id)
        formatter = Formatter(self.warn, self.show_traceback, self._figure_bundle)
        self.display = Display(formatter, self.channel.send, self.capture.drain, lambda: self.capture.cell_id, self.warn)
        self.capture.before_output = self.display.before_output
        DisplayHandle._display = self.display
        self.executor = Executor(self)
        self._install_builtins()
        self.executor.install(builtins)
        self.private_import.install()
        sys.meta_path.insert(0, patching_finder(self._import_patches(), self.channel.diag))
        self.interrupts.install()
        sys.addaudithook(self.capture.audit)
        os.write = self.capture.user_write
        if "posix" in sys.modules:
            sys.modules["posix"].write = self.capture.user_write
        os.system = self._system
        os._exit, os.abort = self.capture.flushing_exits()
        os.register_at_fork(after_in_child=self.capture.after_fork_in_child)
        self._open_bridge(bridge)
        fdguard.protect(self.private_fds(), self.channel.diag)

    # ---- parts loaded on first use (start-up imports only what serving a cell needs) -------------

    @property
    def children(self):
        if self._children is None:
            from .children import Children

            self._children = Children(self.capture.flush_streams, self.interrupts, self.private_import)
        return self._children

    @property
    def figures(self):
        if self._figures is None:
            from .figures import Figures

            self._figures = Figures(lambda bundle: self.display.publish(bundle), self.warn, self.channel.diag)
        return self._figures

    @property
    def api(self):
        if self._api is None:
            from .api import KernelAPI

            self._api = KernelAPI(self)
        return self._api

    def _system(self, command):
        """os.system that Ctrl-C can stop (C's system() ignores SIGINT in the caller)."""
        return self.children.system(command)

    def _figure_bundle(self, obj):
        """A figure's own bundle (matplotlib, plotly), or None; only looked at once they are loaded."""
        if "matplotlib.figure" in sys.modules or "plotly" in sys.modules:
            return self.figures.bundle(obj)
        return None

    def _patch_pyplot(self, pyplot):
        self.figures.patch_pyplot(pyplot)

    def private_fds(self):
        fds = set(self.channel.fds)
        if self.bridge is not None:
            fds.add(self.bridge.fd)
        return fds

    def _install_builtins(self):
        display, stdin = self.display, self.stdin

        def input(prompt=""):  # noqa: A001 - replaces the builtin on purpose
            return stdin.ask(prompt)

        def get_ipython():
            """The kernel's IPython-like shell (run_line_magic, run_cell_magic, system, ...)."""
            return self.shell()

        builtins.display = display.display
        builtins.update_display = display.update_display
        builtins.clear_output = display.clear_output
        builtins.input = input
        builtins.get_ipython = get_ipython
        builtins.__IPYTHON__ = True  # (as IPython's: code may ask whether it runs in one)
        builtins.BridgeError = BridgeError
        builtins.StdinNotImplementedError = StdinNotImplementedError
        builtins.__omp_bridge__ = self.bridge_call
        for name in ("magic", "cell_magic", "system", "getoutput", "show_usage"):
            setattr(builtins, "__omp_%s__" % name, self._lazy_magics(name))
        sys.stdin = sys.__stdin__ = stdin.stream()

    def _lazy_magics(self, name):
        """A helper the transformed code calls; loads the magics on first use."""

        def helper(*args):
            return getattr(self.load_magics(), name)(*args, frame=sys._getframe(1))

        helper.__name__ = "__omp_%s__" % name
        return helper

    def magic_names(self):
        """The line and cell magics' names, and those whose argument is code (for completion)."""
        registry = self.load_magics().reg
        code = set(registry.no_expand) | {"time", "timeit", "prun"}
        return list(registry.line), list(registry.cell) + list(registry.front_end_cells), code

    def load_magics(self):
        if self.magics is None:
            from .magics import Magics

            self.magics = Magics(self.api)
        return self.magics

    def shell(self):
        from .shell import Shell

        return Shell.instance(self.api, self.load_magics())

    def _import_patches(self):
        """Modules patched as they are loaded: IPython's display functions are routed to ours."""
        return {
            "IPython.core.display_functions": self.display.route_ipython,
            "matplotlib.pyplot": self._patch_pyplot,
            "getpass": lambda module: setattr(module, "getpass", self.stdin.getpass),
            "pandas": width.tell_pandas,  # the notebook's width (width.py)
        }

    def after_cell(self):
        if self._figures is not None or "matplotlib.pyplot" in sys.modules:
            self.channel.quiet = False
            self.figures.after_cell()
        self.run_hooks(self.hooks_after_cell)

    def run_hooks(self, hooks):
        """An extension's hooks: one that fails is said, and the cell (and the next) goes on."""
        if hooks:
            self.channel.quiet = False  # (code of the user's: what it writes is ordered)
        for hook in list(hooks):
            try:
                hook()
            except Exception:
                self.capture.stderr.write("[a hook of an extension failed:]\n")
                self.show_traceback()

    def warn(self, text):
        self.capture.stderr.write("omp-eval: %s\n" % text)

    def show_traceback(self, exc_info=None):
        """A traceback as output (the cell goes on): a formatter's error, %tb, a script's error in
        %run. It is then the last error, as in IPython (what %tb and %debug look at)."""
        exc_type, exc, tb = exc_info or sys.exc_info()
        self.tracebacks.last = (exc_type, exc, tb)
        lines = self.tracebacks.format(exc_type, exc, tb)
        if lines and not lines[0].startswith("Traceback") and exc_type.__name__ != "UsageError":
            lines.insert(0, "Traceback (most recent call last):")
        self.capture.stderr.write("\n".join(lines) + "\n")

    # ---- the bridge ------------------------------------------------------------------------------

    def _open_bridge(self, fd):
        timeout = DEFAULT_TIMEOUT
        try:
            timeout = float(os.environ.pop("OMP_BRIDGE_TIMEOUT", timeout))
        except ValueError:
            pass
        if fd is None:
            return
        self.bridge = BridgeClient(fd, self._write, self._bridge_cell, timeout)
        self.bridge.start()

    def _bridge_cell(self):
        """The cell a bridge call belongs to: the running cell, unless the calling thread was
        already running when that cell started (a thread of an earlier cell): then none, so the
        call does not hold the running cell's timeout."""
        import threading

        thread = threading.current_thread()
        if thread is not threading.main_thread() and thread in self.threads_before_cell:
            return None
        return self.capture.cell_id

    def bridge_call(self, kind, payload, timeout=None):
        """One request to the host, answered from any thread."""
        if self.bridge is None:
            raise BridgeError("the host bridge is not available in this kernel")
        return self.bridge.call(kind, payload, timeout)

    # ---- requests ------------------------------------------------------------------------------

    def serve(self):
        while True:
            request = self.channel.next_request()
            if request is None:
                self.exit()
            if isinstance(request, tuple):
                self.channel.protocol_error(request[1])
                continue
            kind = request.get("type", "execute")
            if kind != "execute":
                self.channel.quiet = False  # (completions and variables may run code of the user's)
            handler = self._handlers().get(kind)
            if handler is None:
                request_id = request.get("id")
                self.channel.protocol_error("unknown request type %r" % (kind,), request_id if valid_id(request_id) else None)
                continue
            handler(request)

    def _handlers(self):
        return {
            "exit": lambda request: self.exit(),
            "input_reply": lambda request: None,  # a reply that arrived after its cell ended
            "complete": self._query("complete"),
            "is_complete": self._query("is_complete"),
            "variables": self._query("variables"),
            "execute": self.execute,
        }

    def _query(self, name):
        """A handler of queries.py, loaded at the first query."""

        def handle(request):
            from . import queries

            getattr(queries, name)(self, request)

        return handle

    def execute(self, request):
        request_id = request.get("id")
        if not valid_id(request_id):
            self.channel.protocol_error("request needs an id (a string of 1 to 1024 characters)")
            return
        problem = execute_problem(request)
        if problem is not None:
            self.channel.protocol_error("request %r: %s" % (request_id, problem), request_id)
            self._done_after_error(request_id)
            return
        if request.get("init"):
            self.channel.set_key(request.get("frameKey"))  # the first init request only
        try:
            self.executor.run_cell(request)
        except BaseException as exc:  # a runner bug must not take the kernel down
            self.channel.diag("internal error: %r" % (exc,))
            self.interrupts.in_cell = False
            self.capture.end_cell()
            self._done_after_error(request_id)

    def _done_after_error(self, request_id):
        count = self.executor.count
        self.channel.send({"type": "done", "id": request_id, "status": "error", "executionCount": count, "cancelled": False})

    def exit(self):
        self.capture.drain(limit=0.5)
        _save_coverage()  # before atexit, where coverage stops without saving
        try:
            import atexit

            atexit._run_exitfuncs()
        except BaseException:
            pass
        self.capture.drain(limit=0.5)
        os._exit(0)


def _save_coverage():
    """When the kernel runs under coverage (the project's own tests), its data is saved before
    os._exit, which skips the interpreter's ending."""
    coverage = sys.modules.get("coverage")
    current = getattr(getattr(coverage, "Coverage", None), "current", None)
    measuring = current() if current is not None else None
    if measuring is not None:
        measuring.stop()
        measuring.save()


def _enable_faulthandler(fd):
    try:
        import faulthandler

        faulthandler.enable(file=fd, all_threads=False)
    except Exception:  # pragma: no cover - faulthandler is optional
        pass


def install():
    """Makes this process a kernel and returns it (runner.py calls serve() on it)."""
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == RUNNER_DIR:
        del sys.path[0]  # never import siblings of the cached runner file as user modules
    os.environ.setdefault("MPLBACKEND", "Agg")  # figures render off-screen (the host sets it too)
    kernel = Kernel(startup_paths_now())
    kernel.install()
    return kernel


def startup_paths_now():
    return [p for p in sys.path if p and os.path.abspath(p) != RUNNER_DIR] or startup_paths()
