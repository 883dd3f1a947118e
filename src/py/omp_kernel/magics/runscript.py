"""%run: a script, a module, a notebook or an .ipy file, as IPython's %run, with its options to
time it (-t, -N), profile it (-p) or debug it (-d, -b)."""
import os
import sys


def register(reg):
    api = reg.api
    from . import UsageError

    @reg.line_magic("run")
    def run(arg, frame):
        """%run [-i] [-e] FILE [ARGS]: runs a script as __main__ and takes the names it defined (-i:
        in the notebook's namespace, seeing its names; -e: a sys.exit() is not shown); an error in
        it is shown and the cell goes on (as IPython). A .ipynb or .ipy file runs its cells in the
        notebook's namespace, magics too; its first error is the cell's. %run -m MODULE [ARGS]
        runs a module. As IPython's: -t times it (-N N: N times), -p profiles it (with %prun's
        -s, -l, -r, -D, -T), -d runs it under pdb (-b LINE: a breakpoint there)."""
        return _run(api, UsageError, arg, reg.state.setdefault("run_namespaces", {}))


# IPython's getopt string for %run: every option it takes is read, whichever are used.
RUN_OPTIONS = "nidtN:b:pD:l:rs:T:em:G"


def _run(api, UsageError, arg, namespaces):
    import shlex

    from . import parse_options

    # As IPython's: the words after `-m MODULE` are the module's arguments, options or not.
    words, module_args = shlex.split(arg), []
    for index, word in enumerate(words):
        if not word.startswith("-") or word == "-":
            break
        if word == "-m":
            arg, module_args = " ".join(shlex.quote(w) for w in words[: index + 2]), words[index + 2 :]
            break
    opts, rest = parse_options(arg, "nidtprGe", "NbDlsTm", strict=RUN_OPTIONS, multi="sl")
    argv = shlex.split(rest)
    if argv and "m" not in opts and "G" not in opts:
        # As IPython's and a shell's: the script's arguments are globbed (`\\*` is a `*`).
        argv[1:] = _shellglob(os.path.expanduser(word) for word in argv[1:])
    argv += module_args
    saved_argv, saved_main = sys.argv, sys.modules.get("__main__")
    if "m" in opts:
        import runpy

        sys.argv = [opts["m"]] + argv
        module_ns = {}

        def run_module():
            try:
                module_ns.update(runpy.run_module(opts["m"], run_name="__main__", alter_sys=True))
            except SystemExit as exc:  # (as a script's: a status of 0 says nothing)
                if exc.code not in (None, 0) and "e" not in opts:
                    _show_exit(api, exc)

        try:
            result = _run_as_asked(api, UsageError, opts, run_module, None)
        finally:
            sys.argv, sys.modules["__main__"] = saved_argv, saved_main
        # (profiled or timed too: IPython updates the namespace after every way of running it)
        if module_ns:
            _merge(api, module_ns)
        return result if "p" in opts and "r" in opts else None
    # (A missing file is IPython's plain Exception, with its words.)
    if not argv:
        raise Exception("you must provide at least a filename.")
    path = os.path.expanduser(argv[0])
    if not os.path.isfile(path) and not path.endswith(".py") and os.path.isfile(path + ".py"):
        path += ".py"
    if not os.path.isfile(path):
        raise Exception("File `%r` not found." % os.path.expanduser(argv[0]))
    # (as IPython's and `python script.py`: the script's folder comes first on sys.path meanwhile)
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    try:
        if path.lower().endswith((".ipynb", ".ipy")):
            _run_cells(api, UsageError, path)
            return None
        return _run_script(api, UsageError, path, argv, opts, saved_argv, saved_main, namespaces)
    finally:
        if folder in sys.path:
            sys.path.remove(folder)


def _run_as_asked(api, UsageError, opts, run, path):
    """Runs `run()` as %run's options say: profiled (-p, with %prun's -s, -l, -r, -D, -T), under
    the debugger (-d, stopping first at -b LINE), timed (-t, -N times), or plainly. -p's stats are
    returned (the cell's value with -r)."""
    if "p" in opts:
        from .timing import profile_call

        return profile_call(api, lambda profile: profile.runcall(run), opts)
    if "d" in opts:
        if path is None:
            raise UsageError("%run -d needs a file (not -m)")
        return _debug(api, UsageError, run, path, opts.get("b", "1"))
    if "t" in opts:
        try:
            runs = int(opts.get("N", "1"))
        except ValueError:
            raise UsageError("%%run -N needs a number of runs (not %r)" % opts["N"]) from None
        if runs < 1:
            sys.stderr.write("ERROR:root:Number of runs must be >=1\n")  # (IPython logs it so)
            return None
        return _timed(run, runs)
    return run()


def _timed(run, runs):
    """%run -t: the script `runs` times, then IPython's report of the CPU and wall time it took."""
    import time

    from .timing import _cpu

    wall, (user, system) = time.perf_counter(), _cpu()
    for _ in range(runs):
        result = run()
    after = _cpu()
    user, system = after[0] - user, after[1] - system
    print("\nIPython CPU timings (estimated):")
    if runs == 1:
        print("  User   : %10.2f s." % user)
        print("  System : %10.2f s." % system)
    else:
        print("Total runs performed:", runs)
        print("  Times  : %10s   %10s" % ("Total", "Per run"))
        print("  User   : %10.2f s, %10.2f s." % (user, user / runs))
        print("  System : %10.2f s, %10.2f s." % (system, system / runs))
    print("Wall time: %10.2f s." % (time.perf_counter() - wall))
    return result


def _debug(api, UsageError, run, path, where):
    """%run -d: the script under pdb (the standard library's, as %debug), stopping at its first
    line, with a breakpoint at -b LINE (IPython's `[FILE:]LINE`)."""
    if not api.stdin_allowed:
        raise UsageError("%run -d needs its prompts answered, and this cell cannot ask for input (run it in the notebook)")
    pdb = api.private_import("pdb")
    file, _, line = where.rpartition(":")
    file = file or path
    if not line.isdigit() or int(line) < 1:
        raise UsageError("%%run -b needs a line number (not %r)" % where)
    debugger = pdb.Pdb()
    # (pdb's own way to begin in the script: no stop in the kernel's frames before its first line)
    debugger._wait_for_mainpyfile = True
    debugger.mainpyfile = debugger.canonic(os.path.abspath(path))
    refused = debugger.set_break(os.path.abspath(file), int(line))
    if refused:
        raise UsageError("%%run -b %s: %s" % (where, refused))
    print("Breakpoint 1 at %s:%s" % (os.path.abspath(file), line))
    print("NOTE: Enter 'c' at the (Pdb) prompt to continue execution.")
    return debugger.runcall(run)


def _run_script(api, UsageError, path, argv, opts, saved_argv, saved_main, namespaces):
    with open(path, "rb") as handle:
        code = compile(handle.read(), path, "exec", dont_inherit=True)
    name = "__main__" if "n" not in opts else os.path.splitext(os.path.basename(path))[0]
    if "i" in opts:  # (IPython's -i: the notebook's own namespace, as the script's globals)
        ns = api.user_ns
        saved = {key: ns[key] for key in ("__name__", "__file__") if key in ns}
        ns.update({"__name__": name, "__file__": path})
    else:
        # As IPython's: one namespace per script, emptied when it runs again and kept meanwhile
        # (its functions' globals), where %xdel and %reset find what it holds; __file__ is absolute.
        absolute = os.path.abspath(path)
        ns = namespaces.setdefault(absolute, {})
        ns.clear()
        ns.update({"__name__": name, "__file__": absolute, "__builtins__": __builtins__})

    quit_debugger = api.private_import("bdb").BdbQuit if "d" in opts else ()

    def run():
        try:
            exec(code, ns)
        except SystemExit as exc:
            if exc.code not in (None, 0) and "e" not in opts:
                _show_exit(api, exc)
        except quit_debugger:
            raise  # (pdb's `q`: the debugger ends the run, quietly)
        except Exception:
            api.show_traceback()  # as IPython: the script's error is shown and the cell goes on

    sys.argv = [path] + argv[1:]
    try:
        stats = _run_as_asked(api, UsageError, opts, run, path)
    finally:
        sys.argv, sys.modules["__main__"] = saved_argv, saved_main
        if "i" in opts:
            for key in ("__name__", "__file__"):
                ns.pop(key, None)
            ns.update(saved)
        else:
            _merge(api, ns)
    return stats if "p" in opts and "r" in opts else None


def _show_exit(api, exc):
    """A script's sys.exit(n) as IPython shows it after %run: the exception alone."""
    from ..tracebacks import system_exit_lines

    sys.stderr.write("\n".join(system_exit_lines(api.private_import("traceback"), exc)) + "\n")


def _run_cells(api, UsageError, path):
    """A notebook's (or an .ipy file's) code in the notebook's namespace, IPython syntax and all,
    a cell at a time; the first error stops it and is the %run cell's (as IPython's %run of one:
    its cells' values are not shown)."""
    import json

    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if path.lower().endswith(".ipy"):
        cells = [text]
    else:
        try:
            document = json.loads(text)
            cells = [
                "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                for cell in document["cells"]
                if cell.get("cell_type") == "code"
            ]
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError("%s is not a notebook (nbformat 4 JSON): %s" % (path, exc)) from None
    ns = api.user_ns
    saved = ns.get("__file__")
    ns["__file__"] = path
    try:
        # (an error ends the %run cell too, as IPython's: the notebook did not run to its end)
        for source in cells:
            if source.strip():
                api.run_source(api.transform(source), path, want_value=False)
    finally:
        if saved is None:
            ns.pop("__file__", None)
        else:
            ns["__file__"] = saved


def _shellglob(words):
    """IPython's shellglob: each word's matches, or the word itself (its glob characters
    unescaped) when nothing matches."""
    import glob

    out = []
    for word in words:
        out.extend(glob.glob(word) or [_unescape_glob(word)])
    return out


def _unescape_glob(word):
    def unescape(part):
        for char in "*[]!?":
            part = part.replace("\\" + char, char)
        return part

    return "\\".join(unescape(part) for part in word.split("\\\\"))


def _merge(api, ns):
    for key, value in ns.items():
        if not (key.startswith("__") and key.endswith("__")):
            api.user_ns[key] = value
