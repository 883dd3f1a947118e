"""The debugger: %debug, IPython's post-mortem of the last error (pdb, whose prompts are answered
as input() is: on the prompt line in the notebook), or a statement run under it; %pdb, the same
after every error in a cell that can ask for input."""
import sys


def register(reg):
    api = reg.api
    from . import UsageError

    @reg.line_magic("debug", expand=False)
    def debug(arg, frame):
        """%debug: pdb in the frame where the last error was raised (`up` walks to the cell's code).
        %debug STATEMENT: runs the statement under pdb, in the user's namespace."""
        pdb = api.private_import("pdb")  # (the standard library's, whatever the working directory holds)
        statement = arg.strip()
        if statement.startswith("-"):
            raise UsageError("%%debug takes a statement or nothing (not %s)" % statement.split()[0])
        if statement:
            ns = api.user_ns
            pdb.Pdb().run(statement, ns, ns)
            return
        last = api.last_error
        if last is None:
            sys.stderr.write("No traceback has been produced, nothing to debug.\n")
            return
        pdb.post_mortem(from_the_cell(last[2]))

    @reg.line_magic("pdb")
    def pdb_magic(arg, frame):
        """%pdb [on|off]: the debugger after every error in a cell (without an argument: toggles)."""
        word = arg.strip().lower()
        if word not in ("", "on", "off", "1", "0"):
            raise UsageError("%%pdb takes on, off, 1 or 0 (not %s)" % arg.strip())
        on = not api.call_pdb if not word else word in ("on", "1")
        api.call_pdb = on
        print("Automatic pdb calling has been turned %s" % ("ON" if on else "OFF"))


def from_the_cell(tb):
    """The traceback from the first frame of a cell's code on: the kernel's own frames above it
    are not the user's to step into (as IPython's debugger hides its own)."""
    from ..tracebacks import is_cell_frame

    first = tb
    while first is not None and not is_cell_frame(first.tb_frame.f_code.co_filename):
        first = first.tb_next
    return first or tb
