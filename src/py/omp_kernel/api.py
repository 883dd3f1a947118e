"""What the magics (and get_ipython()) may use of the kernel: one explicit object, so the kernel's
parts can change without breaking a magic at run time. No side effects on import."""
import sys

from .execute import NO_VALUE
from .tracebacks import cell_filename


class KernelAPI(object):
    NO_VALUE = NO_VALUE

    def __init__(self, kernel):
        self._k = kernel

    # ---- the user's namespace and history -------------------------------------------------------

    @property
    def user_ns(self):
        return self._k.executor.user_ns

    @property
    def hidden_names(self):
        """Names in the namespace that are not the user's (the prelude's, In, Out, ...), with the
        object each held when the kernel hid it (IPython's user_ns_hidden)."""
        return self._k.executor.hidden

    @property
    def In(self):
        return self._k.executor.In

    @property
    def Out(self):
        return self._k.executor.Out

    @property
    def execution_count(self):
        return self._k.executor.count

    @property
    def dir_history(self):
        """The directories %cd went to (IPython's _dh)."""
        return self._k.executor.dir_history

    def user_names(self):
        """The user's variables, sorted (what %who lists)."""
        from .variables import user_names

        return user_names(self.user_ns, self.hidden_names)

    def reset_underscores(self, value=NO_VALUE):
        """_, __ and ___ empty (IPython's display hook flushed); with a value, the ones that are
        that value become None (%xdel)."""
        self._k.executor.forget_results(value)

    def reset_inputs(self):
        self._k.executor.forget_inputs()

    @property
    def interactivity(self):
        """Which statements of a cell show their value (IPython's ast_node_interactivity)."""
        return self._k.executor.interactivity

    @interactivity.setter
    def interactivity(self, mode):
        self._k.executor.interactivity = mode

    def rerun_prelude(self):
        self._k.executor.rerun_prelude()

    # ---- running code ----------------------------------------------------------------------------

    @property
    def before_cell(self):
        """Functions called before each cell the user runs (an extension's, as IPython's
        pre_run_cell event)."""
        return self._k.hooks_before_cell

    @property
    def after_cell(self):
        """Functions called after each cell (as IPython's post_execute event)."""
        return self._k.hooks_after_cell

    def cell_filename(self):
        return cell_filename(self._k.executor.count)

    def run_source(self, code, filename=None, want_value=True, register=True):
        """Runs code in the user namespace; returns a last bare expression's value or NO_VALUE."""
        return self._k.executor.run_source(code, filename or self.cell_filename(), want_value, register)

    def transform(self, code):
        """IPython syntax → Python."""
        return self._k.executor.transform(code)

    # ---- output ----------------------------------------------------------------------------------

    def publish(self, bundle):
        self._k.display.publish(bundle)

    def status(self, op, **data):
        self._k.display.status(op, **data)

    def display(self, *objs, **kwargs):
        return self._k.display.display(*objs, **kwargs)

    def push_capture(self, outputs):
        """Display bundles go to `outputs` (a list) until pop_capture()."""
        self._k.display.captures.append(outputs)

    def pop_capture(self):
        self._k.display.captures.pop()

    @property
    def formatter(self):
        """The result formatter: float_format (%precision), pprint (%pprint)."""
        return self._k.display.formatter

    def show_traceback(self, exc_info=None):
        """Writes the traceback of an exception (the one being handled by default) to stderr."""
        self._k.show_traceback(exc_info or sys.exc_info())

    @property
    def last_error(self):
        """(type, value, traceback) of the last error in a cell, or None."""
        return self._k.tracebacks.last

    @property
    def call_pdb(self):
        """%pdb: whether the debugger opens after an error in a cell."""
        return self._k.call_pdb is not None

    @call_pdb.setter
    def call_pdb(self, on):
        def post_mortem(tb):
            from .magics.debug import from_the_cell

            self._k.private_import("pdb").post_mortem(from_the_cell(tb))

        self._k.call_pdb = post_mortem if on else None

    @property
    def xmode(self):
        return self._k.tracebacks.mode

    @xmode.setter
    def xmode(self, mode):
        self._k.tracebacks.mode = mode

    # ---- child processes and the user ---------------------------------------------------------

    def spawn(self, args, shell, **kwargs):
        """A child process in a process group of its own (Ctrl-C stops the group)."""
        return self._k.children.spawn(args, shell, **kwargs)

    def wait(self, proc):
        return self._k.children.wait(proc)

    def stop(self, proc):
        self._k.children.stop(proc)

    @property
    def stdin_allowed(self):
        return self._k.stdin.allowed and self._k.capture.cell_id is not None

    def ask(self, prompt):
        """input() through the front end (the caller checks stdin_allowed first)."""
        return self._k.stdin.ask(prompt)

    def private_import(self, name):
        """A stdlib module, never one of the user's files of that name."""
        return self._k.private_import(name)
