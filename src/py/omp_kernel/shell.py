"""get_ipython(): the part of IPython's InteractiveShell that scripts use, over the kernel's API,
so that `jupyter nbconvert --to script` output (get_ipython().run_line_magic(...)) runs."""
import sys

# IPython's ast_node_interactivity values: which statements of a cell show their value.
INTERACTIVITY = ("all", "last", "last_expr", "none", "last_expr_or_assign")


class TraitError(Exception):
    """A shell setting given a value it does not take (traitlets' name, as IPython's)."""


class Shell(object):
    """What get_ipython() returns in an omp-eval kernel."""

    _instance = None

    def __init__(self, api, magics):
        self._api = api
        self._magics = magics

    @classmethod
    def instance(cls, api, magics):
        if cls._instance is None:
            cls._instance = cls(api, magics)
        return cls._instance

    def __repr__(self):
        return "<omp-eval kernel shell>"

    @property
    def user_ns(self):
        return self._api.user_ns

    @property
    def user_global_ns(self):
        return self._api.user_ns

    @property
    def user_ns_hidden(self):
        return self._api.hidden_names

    @property
    def execution_count(self):
        return self._api.execution_count + 1

    @property
    def ast_node_interactivity(self):
        """Which statements show their value: 'last_expr' (the default: a last expression),
        'all', 'last' (the last statement, a loop's values too), 'none', or
        'last_expr_or_assign' (also the value a last `x = ...` assigns)."""
        return self._api.interactivity

    @ast_node_interactivity.setter
    def ast_node_interactivity(self, value):
        if value not in INTERACTIVITY:
            raise TraitError(
                "The 'ast_node_interactivity' trait of an InteractiveShell instance expected any of %s, "
                "not the %s %r." % (list(INTERACTIVITY), type(value).__name__, value)
            )
        self._api.interactivity = value

    def reset(self, new_session=True, aggressive=False):
        """Clears the user's namespace as %reset -f does (aggressive: and forgets the modules
        imported since the start, as --aggressive); new_session also starts the input history
        again (In). The execution count goes on: it is the number the notebook shows."""
        from .magics.namespace import cull_modules, flush_inputs, hard_reset

        if aggressive:
            cull_modules()
        hard_reset(self._api, self._magics.reg)
        if new_session:
            flush_inputs(self._api)
            del self._api.In[1:]

    def drop_by_id(self, variables):
        """Removes each name of a dict from the user's namespace if it still holds that very
        object (an extension takes back what it pushed; a name the user rebound stays)."""
        ns = self._api.user_ns
        for name, obj in variables.items():
            if name in ns and ns[name] is obj:
                del ns[name]
                self._api.hidden_names.pop(name, None)

    def run_line_magic(self, magic_name, line, _stack_depth=1):
        return self._magics.magic(magic_name, line, frame=sys._getframe(_stack_depth))

    def run_cell_magic(self, magic_name, line, cell):
        return self._magics.cell_magic(magic_name, line, cell, 1, frame=sys._getframe(1))

    def magic(self, arg_s):
        name, _, rest = arg_s.lstrip("%").partition(" ")
        return self._magics.magic(name, rest, frame=sys._getframe(1))

    def system(self, cmd):
        return self._magics.system(cmd, frame=sys._getframe(1))

    system_piped = system_raw = system

    def getoutput(self, cmd, split=True, depth=0):
        out = self._magics.getoutput(cmd, frame=sys._getframe(depth + 1))
        return out if split else out.n

    def ex(self, cmd):
        """Runs code in the user namespace."""
        exec(cmd, self._api.user_ns)

    def ev(self, expr):
        """The value of an expression in the user namespace."""
        return eval(expr, self._api.user_ns)

    def push(self, variables, interactive=True):
        """Adds variables (a dict, or names from the caller's frame) to the user namespace."""
        if isinstance(variables, str):
            frame = sys._getframe(1)
            variables = {name: eval(name, frame.f_globals, frame.f_locals) for name in variables.replace(",", " ").split()}
        self._api.user_ns.update(variables)
        hidden = self._api.hidden_names
        if interactive:  # (as IPython's: pushed names are the user's)
            for name in variables:
                hidden.pop(name, None)
        else:
            hidden.update(variables)

    def run_cell(self, raw_cell, store_history=False, silent=False, shell_futures=True):
        """Runs code as part of the current cell (its result is shown)."""
        value = self._api.run_source(raw_cell, want_value=not silent, register=False)
        if value is not self._api.NO_VALUE and value is not None:
            self._api.display(value)
        return value if value is not self._api.NO_VALUE else None

    def register_magic_function(self, func, magic_kind="line", magic_name=None):
        self._magics.register_function(func, magic_kind, magic_name)

    def find_line_magic(self, name):
        return self._magics.reg.line.get(name)

    def find_cell_magic(self, name):
        return self._magics.reg.cell.get(name)

    def find_magic(self, name, magic_kind="line"):
        return (self._magics.reg.cell if magic_kind == "cell" else self._magics.reg.line).get(name)

    def set_next_input(self, text, replace=False):
        self._api.status("set_next_input", text=str(text), replace=bool(replace))

    def ask_yes_no(self, prompt, default=None, interrupt=None):
        if not self._api.stdin_allowed:
            from .stdin import StdinNotImplementedError

            raise StdinNotImplementedError("this cell was run without stdin")
        answers = {"y": True, "yes": True, "n": False, "no": False}
        while True:
            try:
                answer = self._api.ask(prompt + " ").strip().lower() or (default or "")
            except EOFError:  # the input ended (omp-eval run): the default, as IPython's ask_yes_no
                if default in answers:
                    print()
                    return answers[default]
                raise
            if answer in answers:
                return answers[answer]

    def showtraceback(self, exc_tuple=None, *args, **kwargs):
        self._api.show_traceback(exc_tuple)

    @property
    def display_formatter(self):
        return _DisplayFormatter(self._api.formatter)


class PlainTextFormatter(object):
    """get_ipython().display_formatter.formatters["text/plain"]: results' plain text."""

    def __init__(self, formatter):
        self._formatter = formatter

    def __call__(self, obj):
        return self._formatter.plain(obj)

    @property
    def float_format(self):
        return self._formatter.float_format

    @property
    def pprint(self):
        return self._formatter.pprint

    @pprint.setter
    def pprint(self, value):
        self._formatter.pprint = bool(value)


class _DisplayFormatter(object):
    """get_ipython().display_formatter: format(obj) gives (bundle, metadata) as IPython's does."""

    def __init__(self, formatter):
        self._formatter = formatter
        self.formatters = {"text/plain": PlainTextFormatter(formatter)}

    def format(self, obj, include=None, exclude=None):
        bundle = self._formatter.format(obj, include, exclude)
        if bundle is None:
            return {}, {}
        return dict(bundle), dict(bundle.metadata)
