"""Runs oracle cases in an IPython InteractiveShell set up as ipykernel sets it up, and records
what a notebook user sees: stdout and stderr (at the file-descriptor level, so child processes
count), the cell's result bundle, display bundles, the error's type, input prompts, and the
namespace afterwards. Needs IPython (Debian's /usr/bin/python3 has it)."""
import builtins
import io
import os
import re
import signal
import sys
import tempfile
import warnings

from IPython.core.displayhook import DisplayHook
from IPython.core.displaypub import DisplayPublisher
from IPython.core.interactiveshell import InteractiveShell

from harvest import substitute

CELL_LIMIT = 30  # seconds before a cell is interrupted
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class RecordingPublisher(DisplayPublisher):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outputs = []

    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
        self.outputs.append(
            {"data": dict(data), "metadata": dict(metadata or {}), "transient": transient or {}, "update": bool(update)}
        )

    def clear_output(self, wait=False):
        self.outputs.append({"clear": bool(wait)})


class RecordingHook(DisplayHook):
    """ipykernel's display hook shape: each result's format data is recorded, nothing printed (a
    cell shows several with ast_node_interactivity = 'all')."""

    results = []

    def start_displayhook(self):
        pass

    def write_output_prompt(self):
        pass

    def write_format_data(self, format_dict, md_dict=None):
        RecordingHook.results.append({"data": dict(format_dict), "metadata": dict(md_dict or {})})

    def finish_displayhook(self):
        sys.stdout.flush()
        sys.stderr.flush()


class Interrupt(KeyboardInterrupt):
    pass


def _alarm(signum, frame):
    raise Interrupt()


class IPythonSide(object):
    def __init__(self):
        self.shell = InteractiveShell.instance()
        self.shell.display_pub = RecordingPublisher(shell=self.shell)
        self.shell.displayhook = RecordingHook(shell=self.shell, cache_size=1000)
        self.shell.display_trap.hook = self.shell.displayhook
        self.shell._showtraceback = self._record_traceback
        self.shell.set_hook("show_in_pager", self._pager)
        self.prompts = []
        self.error = None
        builtins.input = self._input
        os.environ.setdefault("MPLBACKEND", "Agg")  # as the host sets it for a kernel
        self.environ = dict(os.environ)  # each case starts with it, as a fresh kernel does
        signal.signal(signal.SIGALRM, _alarm)
        # A kernel's cells read stdin from /dev/null (commands such as `more` see no terminal).
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)

    def _record_traceback(self, etype, evalue, stb):
        # A traceback shown while the cell goes on (a formatter's error, %tb) is output; the
        # cell's own error is its result. Which one it was is settled after the cell.
        last = _ANSI.sub("", stb[-1] if isinstance(stb, list) and stb else str(stb)).strip().split("\n")[-1]
        if last.endswith(":"):
            last = last[:-1]  # an exception without a message
        self.shown.append("Traceback (most recent call last):\n%s\n" % last)
        self.error = etype.__name__ if etype is not None else "Error"

    def _pager(self, shell, data, start=0, screen_lines=0, pager_cmd=None):
        text = data.get("text/plain", "") if isinstance(data, dict) else data
        print(text)

    def _input(self, prompt=""):
        self.prompts.append(str(prompt))
        return "y"

    def run_case(self, case, casedir, python):
        shell = self.shell
        os.environ.clear()
        os.environ.update(self.environ)
        os.chdir(casedir)  # first: the reset takes the cwd as the start of _dh
        shell.reset(new_session=True)
        shell.execution_count = 1
        shell.ast_node_interactivity = "last_expr"  # (a case may change these)
        shell.InteractiveTB.set_mode("Context")
        shell.displayhook.flush()  # _, __, ___ are '' as in a fresh IPython (the reset dropped them)
        shell.history_manager.reset(new_session=True)
        hm = shell.history_manager  # (its _i, _ii, _iii outlive the reset: a fresh IPython's are empty)
        hm._i = hm._ii = hm._iii = hm._i00 = ""
        shell.history_manager.output_hist_reprs.clear()
        shell.compile.reset_compiler_flags()  # `from __future__` of an earlier case
        for module in list(sys.modules.values()):  # each case sees its warnings, as a fresh kernel does
            registry = getattr(module, "__warningregistry__", None)
            if isinstance(registry, dict):
                registry.clear()
        warnings._filters_mutated()
        cells = []
        for cell in case["cells"]:
            code = substitute(cell["code"], casedir, python)
            cells.append(self.run_cell(code, cell.get("store", True)))
        return {"cells": cells, "namespace": self.namespace()}

    def run_cell(self, code, store):
        self.prompts = []
        self.shown = []
        self.error = None
        RecordingHook.results = []
        self.shell.display_pub.outputs = []
        with _FdCapture() as capture:
            signal.alarm(CELL_LIMIT)
            try:
                result = self.shell.run_cell(code, store_history=store)
            except BaseException as exc:  # the shell lets some escape (SystemExit in a magic)
                result = None
                self.error = type(exc).__name__
            finally:
                signal.alarm(0)
        error = None
        if result is not None:
            exc = result.error_before_exec or result.error_in_exec
            if exc is not None:
                error = type(exc).__name__
                self.shown = self.shown[:-1]  # the cell's own error
        elif self.error is not None:
            error = self.error
        stderr = capture.stderr + "".join(self.shown)
        if error == "UsageError":
            # IPython prints a usage error on stderr; a kernel shows it as the cell's error.
            stderr = "\n".join(line for line in stderr.split("\n") if not line.startswith("UsageError: "))
        return {
            "stdout": capture.stdout,
            "stderr": stderr,
            "results": list(RecordingHook.results),
            "displays": list(self.shell.display_pub.outputs),
            "error": error,
            "prompts": list(self.prompts),
        }

    def namespace(self):
        hidden = self.shell.user_ns_hidden
        return describe_namespace(
            {k: v for k, v in self.shell.user_ns.items() if not k.startswith("_") and k not in hidden}
        )


_SIMPLE = (int, float, str, bool, type(None), list, tuple, dict, set, bytes)


def describe_namespace(names):
    out = {}
    for name, value in names.items():
        if isinstance(value, _SIMPLE):
            try:
                text = repr(value)
            except Exception:
                text = "?"
            out[name] = "%s %s" % (type(value).__name__, text[:200])
        else:
            out[name] = type(value).__name__
    return out


class _FdCapture(object):
    """fd 1 and fd 2 into temporary files for the duration of a cell."""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.saved = (os.dup(1), os.dup(2), sys.stdout, sys.stderr)
        self.files = (tempfile.TemporaryFile(), tempfile.TemporaryFile())
        os.dup2(self.files[0].fileno(), 1)
        os.dup2(self.files[1].fileno(), 2)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", write_through=True)
        return self

    def __exit__(self, *exc):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        os.close(self.saved[0])
        os.close(self.saved[1])
        sys.stdout, sys.stderr = self.saved[2], self.saved[3]
        texts = []
        for handle in self.files:
            handle.seek(0)
            texts.append(handle.read().decode("utf-8", "replace"))
            handle.close()
        self.stdout, self.stderr = texts
        return False
