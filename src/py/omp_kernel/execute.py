"""Running cells: the user namespace, execution counts, In/Out and `_`, the cell's last
expression as its result, top-level await, `from __future__` imports that carry to later cells.
No side effects on import."""
import os
import sys
import threading
import weakref

from . import cellcode, width
from .tracebacks import PRELUDE_FILENAME, cell_filename

NO_VALUE = object()
_CO_COROUTINE = 0x80
_TOP_LEVEL_AWAIT = 0x2000  # ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


class Executor(object):
    def __init__(self, k):
        self.k = k  # the kernel: its parts (capture, display, tracebacks, ...)
        self.final_value = False  # the value being shown is the cell's last
        import ast
        import linecache

        self._ast = ast
        self._linecache = linecache
        self.user_module = type(sys)("__main__")
        self.user_ns = self.user_module.__dict__
        self.count = 0
        self.In = [""]  # cell sources by execution count, as IPython's In
        self.Out = {}  # results by execution count, as IPython's Out
        # The names that are not the user's (%who, %reset), with what the kernel put there: as
        # IPython's user_ns_hidden, a name the user binds again is theirs.
        self.hidden = {}
        self.prelude = ""  # the init request's code, run again by %reset
        self.flags = _TOP_LEVEL_AWAIT  # compiler flags; `from __future__` imports add theirs
        self._unders = ["", "", ""]  # what the display hook last put in _, __, ___
        self._inputs = ["", "", "", ""]  # the current input, then _i, _ii and _iii
        self.dir_history = []  # IPython's _dh: the working directories of the session
        self._loop = None
        # Which statements of a cell show their value (IPython's ast_node_interactivity):
        # 'last_expr' (a last expression), 'all', 'last', 'none' or 'last_expr_or_assign'.
        self.interactivity = "last_expr"
        self.script_path = None  # the script the cells come from (`omp-eval run`), if any

    def install(self, builtins):
        ns = self.user_ns
        ns["__builtins__"] = builtins
        ns["In"], ns["Out"] = self.In, self.Out
        ns["_"], ns["__"], ns["___"] = self._unders  # (empty strings at the start, as IPython's)
        ns["_oh"], ns["_ih"], ns["_dh"] = self.Out, self.In, self.dir_history
        sys.modules["__main__"] = self.user_module
        self.hidden.update(ns)

    # ---- running code -------------------------------------------------------------------------

    def _carry_future(self, code_obj):
        import __future__

        for name in __future__.all_feature_names:
            flag = getattr(__future__, name).compiler_flag
            if code_obj.co_flags & flag:
                self.flags |= flag

    def event_loop(self):
        import asyncio

        if self._loop is None or self._loop.is_closed():
            # Adopt a loop user code already made current (asyncio.ensure_future in a sync cell).
            current = getattr(getattr(asyncio.get_event_loop_policy(), "_local", None), "_loop", None)
            usable = current is not None and not current.is_closed() and not current.is_running()
            self._loop = current if usable else asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)  # current for sync cells too; asyncio.run() unsets it
        return self._loop

    def _run_async(self, coro):
        """Runs a top-level-await cell on the kernel's persistent event loop."""
        import asyncio

        interrupts = self.k.interrupts
        loop = self.event_loop()
        task = loop.create_task(coro)
        try:
            return loop.run_until_complete(task)
        except KeyboardInterrupt as exc:
            if task.done():
                raise
            # The interrupt hit the event loop, not the cell: report it where the cell was
            # awaiting, then cancel the cell's task and let it unwind.
            exc = exc.with_traceback(cellcode.await_traceback(coro))
            task.cancel()
            interrupts.in_cell = False  # no second interrupt while the task unwinds
            try:
                loop.run_until_complete(asyncio.wait([task], timeout=1.0))
            except BaseException:
                pass
            finally:
                interrupts.in_cell = True
            if task.done() and not task.cancelled() and task.exception() is None:
                return task.result()  # the cell caught the cancellation and finished
            raise exc

    def _run_code(self, code_obj):
        value = eval(code_obj, self.user_ns)
        if code_obj.co_flags & _CO_COROUTINE:
            value = self._run_async(value)
        return value

    def transform(self, code):
        """IPython syntax → Python. Plain code is returned untouched without loading the
        transformer."""
        if not cellcode.maybe_ipython(code):
            return code
        from . import transform

        return transform.transform(code)

    def run_source(self, code, filename, want_value=True, register=True, show=None, first_line=None):
        """Runs code in the user namespace; returns the value of a last bare expression (not
        followed by ';'), or NO_VALUE. With `show` (a cell of the user's), the values shown are
        those IPython's ast_node_interactivity names, each given to show() as it comes, and
        NO_VALUE is returned. `first_line`: the code is a script's cell that starts there (its
        lines are numbered as in the script)."""
        ast = self._ast
        code = cellcode.normalize(code)
        if register:  # the lines as the user wrote them (the transform keeps their numbers)
            self.k.tracebacks.register_source(filename, code, self._linecache, first_line)
        # The prelude is plain Python: nothing to rewrite, and the transformer stays unloaded.
        source = code if filename == PRELUDE_FILENAME else self.transform(code)
        if first_line:
            source = "\n" * (first_line - 1) + source
        tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST | self.flags, True)
        if show is not None:
            self._run_interactive(tree, source, filename, show)
            return NO_VALUE
        last = None
        if want_value and tree.body and isinstance(tree.body[-1], ast.Expr):
            if not cellcode.semicolon_after(source, tree.body[-1]):
                last = ast.Expression(tree.body.pop().value)
        if tree.body:
            code_obj = compile(tree, filename, "exec", self.flags, True)
            if "__future__" in source:
                self._carry_future(code_obj)
            self._run_code(code_obj)
        if last is None:
            return NO_VALUE
        return self._run_code(compile(last, filename, "eval", self.flags, True))

    def _run_interactive(self, tree, source, filename, show):
        """IPython's run_ast_nodes: the statements ast_node_interactivity names run as at a
        prompt (an expression's value, or each one a loop's body evaluates, is shown); the others
        run as a script. A cell that ends with ';' shows nothing (IPython's quiet display hook)."""
        ast = self._ast
        nodes = tree.body
        mode = self.interactivity
        quiet = bool(nodes) and cellcode.semicolon_after(source, nodes[-1])
        if mode == "last_expr_or_assign":
            target = cellcode.assigned_name(ast, nodes[-1]) if nodes else None
            if target is not None:
                shown = ast.Expr(ast.Name(target, ast.Load()))
                nodes.append(ast.copy_location(shown, nodes[-1]))
                ast.fix_missing_locations(shown)
            mode = "last_expr"
        if mode == "last_expr":
            mode = "last" if nodes and isinstance(nodes[-1], ast.Expr) else "none"
        split = len(nodes) if mode == "none" else 0 if mode == "all" else max(0, len(nodes) - 1)
        # Every value goes to show(), None too (IPython's display hook looks at `_` then); a
        # quiet cell's as None.
        emit = (lambda value: show(None)) if quiet else show
        future = "__future__" in source
        if split:
            tree.body = nodes[:split]
            self._run_code(self._compile(tree, filename, "exec", future))
        for node in nodes[split:]:
            if isinstance(node, ast.Expr):
                value = self._run_code(self._compile(ast.Expression(node.value), filename, "eval", future))
                self.final_value = node is nodes[-1]
                emit(value)
                continue
            # A compound statement as at a prompt ('single'): each expression statement in it
            # (a loop's body) goes to sys.displayhook, which shows it meanwhile.
            code_obj = self._compile(ast.Interactive([node]), filename, "single", future)
            saved = sys.displayhook
            sys.displayhook = emit
            try:
                self._run_code(code_obj)
            finally:
                sys.displayhook = saved

    def _compile(self, tree, filename, mode, future):
        code_obj = compile(tree, filename, mode, self.flags, True)
        if future:  # (a later statement compiled apart is under the import too)
            self._carry_future(code_obj)
        return code_obj

    # ---- results and history ------------------------------------------------------------------

    def publish_result(self, value, count):
        """The cell's result: `_` and friends, Out, then the display (IPython's display hook).
        None shows nothing."""
        import builtins

        ns = self.user_ns
        if "_" in builtins.__dict__ and ns.get("_", self) is self._unders[0]:
            # (IPython's check_for_underscore: gettext.install() put `_` in builtins, and the
            # display hook's own `_` would hide it)
            del ns["_"]
        if value is None:
            return
        # Formatted before Out holds it, as IPython's display hook: `_i, Out` shows Out as it was.
        bundle = self.k.display.formatter.format(value)
        if value is not self.Out:
            names = ("_", "__", "___")
            keep_users = any(n in ns and ns[n] is not self._unders[i] for i, n in enumerate(names))
            self._unders = [value, self._unders[0], self._unders[1]]
            if "_" not in builtins.__dict__ and not keep_users:
                ns["_"], ns["__"], ns["___"] = self._unders
            if count:
                ns["_%d" % count] = value
                self.Out[count] = value
        if bundle:
            if self.final_value:
                # The cell's code has run, its value's formatting too: the frames after the
                # result's barrier need none of their own unless something writes (channel.py).
                self.k.channel.user_code = False
            self.k.display.publish(bundle, "result")

    def forget_results(self, value=NO_VALUE):
        """After Out is flushed: the display hook's _, __ and ___ are empty again (IPython's
        flush). With a value (%xdel's): only the ones that are that value, which become None."""
        if value is NO_VALUE:
            self._unders = ["", "", ""]
        else:
            self._unders = [None if v is value else v for v in self._unders]

    def record_input(self, code):
        # IPython's names: _i, _ii, _iii are the three previous inputs, _iN the current one. They
        # are the history's (IPython's history manager), so they outlive %reset -f.
        ns = self.user_ns
        self.In.append(code)
        self._inputs = [code] + self._inputs[:3]
        ns["_i"], ns["_ii"], ns["_iii"] = self._inputs[1:]
        ns["_i%d" % self.count] = code

    def forget_inputs(self):
        """%reset in: _i, _ii and _iii are empty, and stay so until the next input."""
        self._inputs = ["", "", "", ""]

    def finish_init(self, code):
        """After the init request: its code is the prelude, and what exists now is not the user's."""
        self.prelude = code
        self.dir_history[:] = [os.getcwd()]
        self.hidden.update(self.user_ns)
        import warnings  # loaded at interpreter start-up already

        # getpass imported in a cell warns that it cannot hide input: the front end hides it.
        warnings.filterwarnings("ignore", message="Can not control echo on the terminal")

    def rerun_prelude(self):
        """After %reset: the prelude runs again, and what the namespace holds then is the kernel's."""
        if self.prelude:
            self.run_source(self.prelude, PRELUDE_FILENAME, False)
        self.hidden.clear()
        self.hidden.update(self.user_ns)

    # ---- one cell -----------------------------------------------------------------------------

    def run_cell(self, request):
        k = self.k
        code = request.get("code", "")
        silent = bool(request.get("silent", False))
        store = bool(request.get("storeHistory", not silent)) and not silent and bool(code.strip())
        init = bool(request.get("init"))
        k.capture.restore()
        k.interrupts.restore()
        k.stdin.patch_getpass()
        k.capture.drain()  # background output from threads belongs before this cell
        k.private_import.protect_user_paths()  # files added since the last cell
        if "asyncio" in sys.modules:
            k.channel.quiet = False  # (callbacks of the user's may run)
            self.event_loop()
        cellcode.new_warning_registry()
        k.capture.cell_id = request_id = request["id"]
        k.threads_before_cell = weakref.WeakSet(threading.enumerate())
        k.stdin.allowed = bool(request.get("allowStdin", False))
        k.stdin.ends = k.stdin.allowed and request.get("stdinEnds") is True
        if store:
            in_step = len(self.In) == self.count + 1  # (after %reset, In starts again, as IPython's)
            self.count = max(self.count, (cellcode.cell_number(request) or 0) - 1) + 1
            if in_step:  # the front end's number may skip some: js cells, or the cells before a restart
                self.In.extend([""] * (self.count - len(self.In)))
            self.record_input(code)
        first_line = cellcode.script_line(request) if store and self.script_path else None
        if init:
            filename = PRELUDE_FILENAME
        elif first_line:
            # `omp-eval run`: tracebacks and warnings name the script and its line, as python's
            filename = self.script_path
        elif store:
            filename = cell_filename(cellcode.cell_number(request) or self.count)
        else:
            filename = "<omp-internal-%s>" % request_id
        status, cancelled = "ok", False
        try:
            try:
                # In the cell from here: the host interrupts only after `started`, and an
                # interrupt that arrives while `started` is being written is deferred.
                k.interrupts.start_cell()
                # `started` always has its barrier: the cell's output, written after it, must not
                # reach the host before it. Every frame of the cell's code has one too.
                k.channel.quiet, k.channel.user_code = False, True
                k.channel.send({"type": "started", "id": request_id})
                self.apply_context(request)
                try:
                    if not init and not silent:
                        k.run_hooks(k.hooks_before_cell)
                        code = cellcode.prefilter(code, self.user_ns, lambda: self.k.load_magics().reg.line)
                    if silent:
                        self.run_source(code, filename, False)
                    else:
                        count = self.count if store else 0
                        show = lambda value: self.publish_result(value, count)  # noqa: E731
                        self.run_source(code, filename, show=show, first_line=first_line)
                except Exception:
                    if not (k.call_pdb and k.stdin.allowed and not silent and not init):
                        raise
                    # %pdb: the traceback, then the debugger where the error was raised, still in
                    # the cell (Ctrl-C and input() work as in it).
                    status = "error"
                    self.send_error(*sys.exc_info())
                    k.call_pdb(sys.exc_info()[2])
                finally:
                    k.channel.user_code = self.final_value = False
                    k.after_cell()  # open matplotlib figures, even after an error (as Jupyter)
            finally:
                k.interrupts.in_cell = False
        except KeyboardInterrupt:
            status, cancelled = "error", True
            self.send_error(*sys.exc_info())
        except BaseException:
            status = "error"
            self.send_error(*sys.exc_info())
        if init:
            k.channel.quiet = False
            self.finish_init(code)
        self.finish(request_id, status, cancelled)

    def finish(self, request_id, status, cancelled):
        k = self.k
        if os.getpid() != k.capture.main_pid:
            # A bare os.fork() in the cell: the child must not go on serving requests.
            k.capture.flush_streams()
            os._exit(0 if status == "ok" else 1)
        k.capture.drain()
        k.capture.end_cell()
        k.display.clear_pending = False
        k.stdin.allowed = k.stdin.ends = False
        k.channel.send(
            {"type": "done", "id": request_id, "status": status, "executionCount": self.count, "cancelled": cancelled}
        )

    def send_error(self, exc_type, exc, tb):
        self.k.capture.drain()
        self.k.channel.send(self.k.tracebacks.frame(self.k.capture.cell_id, exc_type, exc, tb))

    def apply_context(self, request):
        cwd = request.get("cwd")
        if cwd:
            os.chdir(cwd)
            if cwd not in sys.path:
                self.k.private_import.protect(cwd)  # before its files can shadow the runner's imports
                sys.path.insert(0, cwd)
        env = request.get("env")
        if isinstance(env, dict):
            for key, value in env.items():
                if value is None:
                    os.environ.pop(str(key), None)
                else:
                    os.environ[str(key)] = str(value)
            width.front_end_sent(env)
        self.apply_script(request.get("script"))

    def apply_script(self, script):
        """`omp-eval run`: the script named as `python script.py` names it, in sys.argv and
        __file__, with its directory first on sys.path."""
        if not isinstance(script, dict):
            return
        argv = script.get("argv")
        if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
            sys.argv[:] = argv
        path = script.get("path")
        if isinstance(path, str) and path:
            self.user_ns["__file__"] = self.script_path = path
        if isinstance(path, str) and os.path.isabs(path):
            folder = os.path.dirname(path)
            self.k.private_import.protect(folder)  # before its files can shadow the runner's imports
            if folder in sys.path:
                sys.path.remove(folder)
            sys.path.insert(0, folder)
