"""Files, directories and the environment: %cd, %pwd, %ls, %pushd, %popd, %dirs, %dhist,
%bookmark, %env, %set_env, %load, %run, %%writefile (%%file), %pip, %matplotlib."""
import os
import re
import sys

_SECRET = ("key", "token", "secret")


def register(reg):
    api = reg.api
    from . import UsageError, parse_options, value_of

    dh = api.dir_history
    stack = reg.state.setdefault("dir_stack", [])
    marks = reg.state.setdefault("bookmarks", {})

    def change_to(target, quiet):
        try:
            os.chdir(os.path.expanduser(target))
        except OSError as exc:
            print(exc)  # IPython prints the error and the cell goes on, and where it still is
            if not quiet and dh:
                print(dh[-1])
            return False
        cwd = os.getcwd()
        dh.append(cwd)
        if not quiet:
            print(cwd)
        api.status("cd", path=cwd)
        return True

    @reg.line_magic("cd")
    def cd(arg, frame):
        """%cd [-q] [dir | - | -N | --pattern | -b bookmark]: changes the working directory (home
        without an argument) and prints it; the history is in _dh."""
        arg = arg.strip()
        opts = {}
        if re.match(r"^-\d+$", arg):
            index = int(arg[1:])
            if index >= len(dh):
                print("The requested directory does not exist in history.")
                return None
            target = dh[index]
        elif arg.startswith("--"):
            found = [d for d in reversed(dh) if arg[2:] in os.path.basename(d) and os.path.isdir(d)]
            if not found:
                print("No matching entry in directory history")
                return None
            target = found[0]
        else:
            opts, target = parse_options(arg, "qb", strict="qb")
            target = _unquote(target)
        if target == "-":
            if len(dh) < 2:
                raise UsageError("%cd -: No previous directory to change to.")
            target = dh[-2]
        elif target and (opts.get("b") or not os.path.isdir(os.path.expanduser(target))) and target in marks:
            print("(bookmark:%s) -> %s" % (target, marks[target]))
            target = marks[target]
        elif opts.get("b"):
            raise UsageError("Bookmark '%s' not found.  Use '%%bookmark -l' to see your bookmarks." % target)
        change_to(target or os.path.expanduser("~"), bool(opts.get("q")))
        return None

    @reg.line_magic("pwd")
    def pwd(arg, frame):
        """The working directory."""
        return os.getcwd()

    @reg.line_magic("ls")
    def ls(arg, frame):
        """The sorted names in a directory (the working directory by default), as a list."""
        return sorted(os.listdir(os.path.expanduser(_unquote(arg.strip())) if arg.strip() else "."))

    @reg.line_magic("pushd")
    def pushd(arg, frame):
        """Puts the working directory on the stack and changes to another one."""
        cwd = os.getcwd()
        if change_to(_unquote(arg.strip()) or os.path.expanduser("~"), False):
            stack.insert(0, cwd)
        return stack

    @reg.line_magic("popd")
    def popd(arg, frame):
        """Changes back to the directory on top of the stack."""
        if not stack:
            raise UsageError("%popd on empty stack")
        top = stack.pop(0)
        change_to(top, True)
        print("popd -> %s" % top)

    @reg.line_magic("dirs")
    def dirs(arg, frame):
        """The directory stack."""
        return stack

    @reg.line_magic("dhist")
    def dhist(arg, frame):
        """The directory history (the last N entries with %dhist N)."""
        print("Directory history (kept in _dh)")
        start = max(0, len(dh) - int(arg)) if arg.strip().isdigit() else 0
        for index in range(start, len(dh)):
            print("%d: %s" % (index, dh[index]))

    @reg.line_magic("bookmark")
    def bookmark(arg, frame):
        """%bookmark NAME [DIR] marks a directory for %cd -b NAME; -l lists, -d NAME deletes,
        -r removes all."""
        opts, rest = parse_options(arg, "lr", "d", strict="drl")
        if opts.get("d"):
            if opts["d"] not in marks:
                raise UsageError("Can't delete bookmark '%s'" % opts["d"])
            del marks[opts["d"]]
        elif opts.get("r"):
            marks.clear()
        elif opts.get("l"):
            width = max([len(k) for k in marks] + [0])
            print("Current bookmarks:")
            for name in sorted(marks):
                print(name.ljust(width), "->", marks[name])
        elif rest:
            parts = rest.split(None, 1)
            marks[parts[0]] = os.path.abspath(os.path.expanduser(parts[1])) if len(parts) > 1 else os.getcwd()
        else:
            raise UsageError("%bookmark: You must specify the bookmark name")

    @reg.line_magic("env")
    def env(arg, frame):
        """%env lists the environment (secrets hidden), %env KEY reads one, %env KEY=VALUE or
        %env KEY VALUE sets one."""
        if arg.strip():
            bits = arg.split("=" if "=" in arg else " ")
            if len(bits) == 1:
                key = arg.strip()
                if key not in os.environ:
                    raise UsageError("Environment does not have key: %s" % key)
                return os.environ[key]
            return set_env(arg, frame)
        shown = dict(os.environ)
        for key in shown:
            if any(word in key.lower() for word in _SECRET):
                shown[key] = "<hidden>"
        return shown

    @reg.line_magic("set_env")
    def set_env(arg, frame):
        """%set_env KEY VALUE or %set_env KEY=VALUE."""
        bits = arg.split("=" if "=" in arg else " ", 1)
        if not arg.strip() or len(bits) < 2:
            raise UsageError("usage is 'set_env var=val'")
        key, value = bits[0].strip(), bits[1].strip()
        if re.match(r".*\s.*", key):
            raise UsageError("refusing to set env var with whitespace: '%s'" % value)
        os.environ[key] = value
        print("env: %s=%s" % (key, value))

    @reg.line_magic("load")
    def load(arg, frame):
        """%load FILE | RANGES | NAME: in a notebook, the file (or those inputs of the history, or a
        string or macro of that name) becomes the next cell's input (as IPython); where the cell
        cannot be edited (the eval tool, `run`), it runs as a cell."""
        opts, target = parse_options(arg, "yn", "rs", strict="yns:r:")
        path = os.path.expanduser(_unquote(target.strip()))
        if not path:
            raise UsageError("%load needs a file name")
        try:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
        except OSError as exc:
            try:  # not a file: inputs of the history (`%load 12`), or a string or a macro
                source = api.find_user_code(target.strip())
            except (ValueError, TypeError):
                raise UsageError("could not load %s: %s" % (path, exc.strerror or exc)) from None
        if api.stdin_allowed:
            api.status("set_next_input", text="# %%load %s\n%s" % (arg.strip(), source), replace=True)
            return None
        return value_of(api.run_source(api.transform(source), os.path.abspath(path) if os.path.isfile(path) else None), api)

    @reg.line_magic("run")
    def run(arg, frame):
        """%run [-i] [-e] FILE [ARGS]: runs a script as __main__ and takes the names it defined (-i:
        in the notebook's namespace, seeing its names; -e: a sys.exit() is not shown); an error in
        it is shown and the cell goes on (as IPython). A .ipynb or .ipy file runs its cells in the
        notebook's namespace, magics too; its first error is the cell's. %run -m MODULE [ARGS]
        runs a module. As IPython's: -t times it (-N N: N times), -p profiles it (with %prun's
        -s, -l, -r, -D, -T), -d runs it under pdb (-b LINE: a breakpoint there)."""
        return _run(api, UsageError, arg)

    def writefile(line, body, body_line, frame):
        # As IPython's argument parser reads it: words, quotes kept (a quoted name keeps its spaces).
        import shlex

        lexer = shlex.shlex(line, posix=False)
        lexer.whitespace_split, lexer.commenters = True, ""
        try:
            words = list(lexer)
        except ValueError as exc:
            raise UsageError("%%%%writefile: %s" % exc) from None
        opts = {"a": any(w in ("-a", "--append") for w in words)}
        names = [w for w in words if not w.startswith("-")]
        wrong = [w for w in words if w.startswith("-") and w not in ("-a", "--append")] + names[1:]
        if wrong:
            raise UsageError("unrecognized arguments: %s" % " ".join(wrong))
        if not names:
            raise UsageError("the following arguments are required: filename")
        path = names[0]
        if re.match(r"^('.*')|(\".*\")$", path):
            path = path[1:-1]
        path = os.path.expanduser(path)
        if os.path.exists(path):
            print(("Appending to %s" if opts.get("a") else "Overwriting %s") % path)
        else:
            print("Writing %s" % path)
        with open(path, "a" if opts.get("a") else "w", encoding="utf-8") as handle:
            handle.write(body)

    writefile.__doc__ = "%%writefile [-a] FILE: writes (-a: appends) the cell's body to FILE."
    reg.cell_magic("writefile")(writefile)
    reg.cell_magic("file")(writefile)

    @reg.line_magic("pip")
    def pip(arg, frame):
        """pip in the kernel's Python; modules of the installed packages are unloaded."""
        from .pip import pip as run_pip

        run_pip(api, arg)

    @reg.line_magic("matplotlib")
    def matplotlib(arg, frame):
        """Figures are shown after every cell already: nothing to set up."""
        return None


def _unquote(text):
    """A path argument as IPython's string-mode options read it: shell words (quotes, a space
    escaped with a backslash, as Tab writes it) joined by spaces."""
    import shlex

    try:
        return " ".join(shlex.split(text))
    except ValueError:  # (an unclosed quote: the text as it is, less a pair of quotes)
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            return text[1:-1]
        return text


# IPython's getopt string for %run: every option it takes is read, whichever are used.
RUN_OPTIONS = "nidtN:b:pD:l:rs:T:em:G"


def _run(api, UsageError, arg):
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
    opts, rest = parse_options(arg, "nidtprGe", "NbDlsTm", strict=RUN_OPTIONS)
    argv = shlex.split(rest) + module_args
    saved_argv, saved_main = sys.argv, sys.modules.get("__main__")
    if "m" in opts:
        import runpy

        sys.argv = [opts["m"]] + argv

        def run_module():
            try:
                return runpy.run_module(opts["m"], run_name="__main__", alter_sys=True)
            except SystemExit as exc:  # (as a script's: a status of 0 says nothing)
                if exc.code not in (None, 0) and "e" not in opts:
                    _show_exit(api, exc)
                return None

        try:
            result = _run_as_asked(api, UsageError, opts, run_module, None)
        finally:
            sys.argv, sys.modules["__main__"] = saved_argv, saved_main
        if isinstance(result, dict):
            _merge(api, result)
        return result if "p" in opts and "r" in opts else None
    if not argv:
        raise UsageError("%run needs a file name (or -m module)")
    path = os.path.expanduser(argv[0])
    if not os.path.exists(path) and os.path.exists(path + ".py"):
        path += ".py"
    if not os.path.isfile(path):
        raise UsageError("File %r not found." % argv[0])
    # (as IPython's and `python script.py`: the script's folder comes first on sys.path meanwhile)
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    try:
        if path.lower().endswith((".ipynb", ".ipy")):
            _run_cells(api, UsageError, path)
            return None
        return _run_script(api, UsageError, path, argv, opts, saved_argv, saved_main)
    finally:
        if folder in sys.path:
            sys.path.remove(folder)


def _run_as_asked(api, UsageError, opts, run, path):
    """Runs `run()` as %run's options say: profiled (-p, with %prun's -s, -l, -r, -D, -T), under
    the debugger (-d, stopping first at -b LINE), timed (-t, -N times), or plainly. -p's stats are
    returned (the cell's value with -r)."""
    if "p" in opts:
        from .timing import profile_call

        return profile_call(api, run, opts)
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


def _run_script(api, UsageError, path, argv, opts, saved_argv, saved_main):
    with open(path, "rb") as handle:
        code = compile(handle.read(), path, "exec", dont_inherit=True)
    name = "__main__" if "n" not in opts else os.path.splitext(os.path.basename(path))[0]
    if "i" in opts:  # (IPython's -i: the notebook's own namespace, as the script's globals)
        ns = api.user_ns
        saved = {key: ns[key] for key in ("__name__", "__file__") if key in ns}
        ns.update({"__name__": name, "__file__": path})
    else:
        ns = {"__name__": name, "__file__": path, "__builtins__": __builtins__}

    def run():
        try:
            exec(code, ns)
        except SystemExit as exc:
            if exc.code not in (None, 0) and "e" not in opts:
                _show_exit(api, exc)
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


def _merge(api, ns):
    for key, value in ns.items():
        if not (key.startswith("__") and key.endswith("__")):
            api.user_ns[key] = value
