"""The session itself: %alias_magic, %doctest_mode, %load_ext / %unload_ext / %reload_ext (with
IPython's storemagic and autoreload extensions built in: %store, %autoreload and %aimport),
%config."""
import importlib
import os
import sys


def register(reg):
    api = reg.api
    from . import UsageError

    @reg.line_magic("alias_magic")
    def alias_magic(arg, frame):
        """%alias_magic [--line] [--cell] [--params P] NEW TARGET: %NEW (and %%NEW) run %TARGET."""
        words = arg.split()
        flags = {w for w in words if w in ("--line", "--cell", "-l", "-c")}
        params = ""
        if "--params" in words or "-p" in words:
            index = words.index("--params" if "--params" in words else "-p")
            params = _unquote(words[index + 1]) if index + 1 < len(words) else ""
            del words[index : index + 2]
        names = [w for w in words if w not in flags]
        if len(names) != 2:
            raise UsageError("%alias_magic needs a new name and a target magic")
        new, target = names[0], names[1].lstrip("%")
        line = not flags or flags & {"--line", "-l"}
        cell = not flags or flags & {"--cell", "-c"}
        made = False
        if line and target in reg.line:
            reg.line[new] = _line_alias(reg, target, params)
            print("Created `%%%s` as an alias for `%%%s%s`." % (new, target, " " + params if params else ""))
            made = True
        if cell and target in reg.cell:
            reg.cell[new] = _cell_alias(reg, target, params)
            print("Created `%%%%%s` as an alias for `%%%%%s%s`." % (new, target, " " + params if params else ""))
            made = True
        if not made:
            raise UsageError("Magic `%s` not found." % target)

    @reg.line_magic("doctest_mode")
    def doctest_mode(arg, frame):
        """Toggles doctest mode: plain tracebacks (and, in IPython, classic prompts)."""
        on = not reg.state.get("doctest_mode", False)
        reg.state["doctest_mode"] = on
        if on:
            reg.state["doctest_xmode"] = api.xmode
        api.xmode = "Plain" if on else reg.state.get("doctest_xmode", "Context")
        print("Exception reporting mode: %s" % api.xmode)
        print("Doctest mode is: %s" % ("ON" if on else "OFF"))

    loaded = reg.state.setdefault("extensions", set())

    @reg.line_magic("load_ext")
    def load_ext(arg, frame):
        """Loads an IPython extension: a module with load_ipython_extension(ipython)."""
        name = arg.strip()
        if not name:
            raise UsageError("Missing module name.")
        if name in loaded:
            print("The %s extension is already loaded. To reload it, use:\n  %%reload_ext %s" % (name, name))
            return
        if name == "storemagic":
            _store(reg)
        elif name == "autoreload":
            from .autoreload import install

            install(reg)
        else:
            module = importlib.import_module(name)
            load = getattr(module, "load_ipython_extension", None)
            if load is not None:
                load(get_shell(api))
        loaded.add(name)

    @reg.line_magic("unload_ext")
    def unload_ext(arg, frame):
        """Unloads an extension (calls its unload_ipython_extension)."""
        name = arg.strip()
        if name not in loaded:
            print("The %s extension is not loaded." % name)
            return
        if name == "autoreload":
            from .autoreload import uninstall

            uninstall(reg)
        module = sys.modules.get(name)
        unload = getattr(module, "unload_ipython_extension", None)
        if unload is not None:
            unload(get_shell(api))
        loaded.discard(name)

    @reg.line_magic("reload_ext")
    def reload_ext(arg, frame):
        """Unloads, reloads and loads an extension again."""
        name = arg.strip()
        if name in loaded:
            unload_ext(name, frame)
        if name in sys.modules:
            importlib.reload(sys.modules[name])
        load_ext(name, frame)

    @reg.line_magic("config")
    def config(arg, frame):
        """IPython's traitlets configuration: omp-eval's kernel has none; its settings are the
        host's (omp-eval's config file and flags)."""
        raise UsageError(
            "%config: the omp-eval kernel has no IPython configuration; its settings are omp-eval's own "
            "(its config file and flags)"
        )


def _unquote(text):
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text


def _line_alias(reg, target, params):
    def magic(arg, frame):
        return reg.magics.magic(target, (params + " " + arg).strip(), frame)

    return magic


def _cell_alias(reg, target, params):
    def magic(line, body, body_line, frame):
        return reg.cell[target](("%s %s" % (params, line)).strip(), body, body_line, frame)

    return magic


def get_shell(api):
    import builtins

    return builtins.get_ipython()


def _store_dir():
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "omp-eval", "store")


def _store(reg):
    """%store: variables kept in files between sessions (IPython's storemagic extension)."""
    api = reg.api
    from . import parse_options

    def path(name):
        return os.path.join(_store_dir(), name)

    def stored():
        try:
            return sorted(os.listdir(_store_dir()))
        except OSError:
            return []

    @reg.line_magic("store")
    def store(arg, frame):
        """%store NAME keeps a variable; %store -r restores them all (or NAME); %store -d NAME
        forgets one; %store -z forgets all; %store lists them."""
        import pickle

        opts, rest = parse_options(arg, "rz", "d", strict="drz")
        names = rest.split()
        if opts.get("d"):
            try:
                os.remove(path(opts["d"]))
            except OSError:
                print("Error: %s doesn't exist in the store" % opts["d"])
        elif opts.get("z"):
            for name in stored():
                os.remove(path(name))
        elif opts.get("r"):
            for name in names or stored():
                try:
                    with open(path(name), "rb") as handle:
                        api.user_ns[name] = pickle.load(handle)
                except OSError:
                    print("no stored variable or alias %s" % name)
        elif not names:
            values = {}
            for name in stored():
                try:
                    with open(path(name), "rb") as handle:
                        values[name] = pickle.load(handle)
                except Exception as exc:
                    values[name] = "<unavailable: %s>" % exc
            print("Stored variables and their in-db values:")
            width = max([len(n) for n in values] + [0])
            for name in sorted(values):
                print("%-*s -> %s" % (width, name, repr(values[name])[:50]))
        else:
            os.makedirs(_store_dir(), mode=0o700, exist_ok=True)
            for name in names:
                value = api.user_ns[name]
                with open(path(name), "wb") as handle:
                    pickle.dump(value, handle)
                print("Stored '%s' (%s)" % (name, type(value).__name__))
