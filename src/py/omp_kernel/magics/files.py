"""Files, directories and the environment: %cd, %pwd, %ls, %pushd, %popd, %dirs, %dhist,
%bookmark, %env, %set_env, %load, %%writefile (%%file), %pip, %matplotlib (%run: runscript.py)."""
import os
import re

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
        except OSError:
            # Not a file: inputs of the history (`%load 12`), or a string or a macro; else
            # IPython's ValueError ("... was not found in history, as a file, url, nor in the
            # user namespace.").
            source = api.find_user_code(target.strip())
        if api.stdin_allowed:
            api.status("set_next_input", text="# %%load %s\n%s" % (arg.strip(), source), replace=True)
            return None
        return value_of(api.run_source(api.transform(source), os.path.abspath(path) if os.path.isfile(path) else None), api)

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
