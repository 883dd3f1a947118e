"""IPython's autoreload extension, built in (`%load_ext autoreload`): before each cell, the modules
whose source file changed since the last check are reloaded, and the functions and classes that
earlier cells took from them take the new code (so objects made before see the new methods).
%autoreload 0|off, 1|explicit (the modules %aimport named), 2|all, 3|complete (as 2 here); with
no argument (or `now`), it reloads what changed at once. %aimport [MODULE, -MODULE]."""
import importlib
import os
import sys

# The kernel's own modules are never reloaded: it would lose its state.
_OWN = ("omp_kernel", "_omp", "__main__", "builtins")
_MODES = {"0": 0, "off": 0, "1": 1, "explicit": 1, "2": 2, "all": 2, "3": 3, "complete": 3}


def install(reg):
    api = reg.api
    from . import UsageError

    state = reg.state.setdefault("autoreload", {"mode": 0, "explicit": set(), "skip": set(), "mtimes": {}})

    def source(module):
        try:
            path = getattr(module, "__file__", None)
        except Exception:
            return None  # (a module object whose attributes raise: not one to reload)
        return path if isinstance(path, str) and path.endswith(".py") else None

    def changed(name, module):
        path = source(module)
        if path is None:
            return False
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return False
        old = state["mtimes"].get(name)
        state["mtimes"][name] = mtime
        return old is not None and mtime > old

    def check(force=False):
        mode = state["mode"]
        if mode == 0 and not force:
            return
        for name, module in list(sys.modules.items()):
            if module is None or name in state["skip"] or name.split(".")[0] in _OWN:
                continue
            if mode == 1 and not force and name not in state["explicit"]:
                continue
            if changed(name, module):
                _reload(module, api)

    def seen():
        """After a cell: the modules it imported are the base line their changes count from."""
        for name, module in list(sys.modules.items()):
            if module is not None and name not in state["mtimes"] and source(module) is not None:
                changed(name, module)

    api.before_cell.append(check)
    api.after_cell.append(seen)
    state["hooks"] = (check, seen)

    @reg.line_magic("autoreload")
    def autoreload(arg, frame):
        """%autoreload [0|1|2|3|off|explicit|all|complete|now]: which modules are reloaded before
        each cell when their source changed (none, those %aimport named, all); no argument: now."""
        words = [w for w in arg.split() if not w.startswith("-")]  # (IPython's -p/-l/--hide-errors)
        if not words or words[0] == "now":
            check(force=True)
            return
        if words[0] not in _MODES:
            raise UsageError("%%autoreload: unknown mode %r (0, 1, 2, 3, off, explicit, all, complete or now)" % words[0])
        state["mode"] = _MODES[words[0]]
        for name, module in list(sys.modules.items()):  # (what is loaded now is the base line)
            if module is not None:
                changed(name, module)

    @reg.line_magic("aimport")
    def aimport(arg, frame):
        """%aimport [MODULE[, MODULE…]] [-MODULE]: MODULE is reloaded when it changes (in mode 1)
        and imported into the namespace; -MODULE never is; with no argument, lists both."""
        names = [n.strip() for n in arg.replace(",", " ").split() if n.strip()]
        if not names:
            print("Modules to reload:\n%s\n\nModules to skip:\n%s" % (
                " ".join(sorted(state["explicit"])), " ".join(sorted(state["skip"]))))
            return
        for name in names:
            if name.startswith("-"):
                state["skip"].add(name[1:])
                state["explicit"].discard(name[1:])
                continue
            module = importlib.import_module(name)
            state["explicit"].add(name)
            state["skip"].discard(name)
            changed(name, module)
            api.user_ns[name.split(".")[0]] = sys.modules[name.split(".")[0]]


# (module name, attribute) → weak references to every version of a function or class the module
# had under that name: each takes the new code, as objects made from any earlier version exist.
_VERSIONS = {}


def _reload(module, api):
    """Reloads `module`; its functions and classes of every earlier version take the new code. A
    module that fails to load again keeps what it had."""
    import weakref

    name = module.__name__
    old = dict(module.__dict__)
    for key, value in old.items():
        if getattr(value, "__module__", None) == name and callable(value):
            try:
                versions = _VERSIONS.setdefault((name, key), [])
                if not any(ref() is value for ref in versions):
                    versions.append(weakref.ref(value))
            except TypeError:
                pass  # (not weakly referable)
    try:
        importlib.reload(module)
    except BaseException:
        module.__dict__.clear()
        module.__dict__.update(old)
        sys.stderr.write("[autoreload of %s failed:]\n" % name)
        api.show_traceback()
        return
    for key, new in list(module.__dict__.items()):
        versions = _VERSIONS.get((name, key), [])
        for ref in versions:
            value = ref()
            if value is not None and value is not new:
                try:
                    _update(value, new)
                except Exception:
                    pass
        versions[:] = [ref for ref in versions if ref() is not None]


def _update(old, new):
    """The old object takes the new one's code: a function its code and defaults, a class its
    methods and properties (as IPython's superreload)."""
    import types

    if isinstance(old, types.FunctionType) and isinstance(new, types.FunctionType):
        for attr in ("__code__", "__defaults__", "__kwdefaults__", "__doc__", "__dict__"):
            try:
                setattr(old, attr, getattr(new, attr))
            except (AttributeError, TypeError, ValueError):
                pass
    elif isinstance(old, type) and isinstance(new, type) and old.__name__ == new.__name__:
        for key, value in list(new.__dict__.items()):
            if key in ("__dict__", "__weakref__", "__module__", "__qualname__"):
                continue
            current = old.__dict__.get(key)
            if isinstance(current, types.FunctionType) and isinstance(value, types.FunctionType):
                _update(current, value)
                continue
            try:
                setattr(old, key, value)
            except (AttributeError, TypeError):
                pass


def uninstall(reg):
    """%unload_ext autoreload: nothing is reloaded any more."""
    check, seen = reg.state.get("autoreload", {}).pop("hooks", (None, None))
    api = reg.api
    for hooks, hook in ((api.before_cell, check), (api.after_cell, seen)):
        if hook in hooks:
            hooks.remove(hook)
