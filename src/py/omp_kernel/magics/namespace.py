"""The user's namespace: %who, %whos, %who_ls, %reset, %xdel; how results look: %precision,
%pprint; how errors look: %xmode."""
import gc
import os
import sys


def register(reg):
    api = reg.api
    from . import UsageError, parse_options

    def matching(arg):
        types = arg.split()
        ns = api.user_ns
        return [n for n in api.user_names() if not types or type(ns[n]).__name__ in types], types

    @reg.line_magic("who_ls")
    def who_ls(arg, frame):
        """The user's variables, sorted (optionally only those of the given type names)."""
        return matching(arg)[0]

    @reg.line_magic("who")
    def who(arg, frame):
        """Lists the user's variables (optionally only those of the given type names)."""
        names, types = matching(arg)
        if not names:
            print("Interactive namespace is empty." if not types else "No variables match your requested type.")
            return None
        # IPython's layout: each name, a tab and a space; a line break after every nine names.
        for count, name in enumerate(names, 1):
            print(name + "\t", end=" ")
            if count % 9 == 0:
                print()
        print()
        return None

    @reg.line_magic("whos")
    def whos(arg, frame):
        """A table of the user's variables: name, type and a short form of the value."""
        names, types = matching(arg)
        if not names:
            print("Interactive namespace is empty." if not types else "No variables match your requested type.")
            return None
        ns = api.user_ns
        kinds = [type(ns[n]).__name__ for n in names]
        width_name = max(max(map(len, names)), len("Variable")) + 3
        width_type = max(max(map(len, kinds)), len("Type")) + 3
        print("Variable".ljust(width_name) + "Type".ljust(width_type) + " Data/Info")
        print("-" * (width_name + width_type + len("Data/Info") + 1))
        for name, kind in zip(names, kinds):
            print(name.ljust(width_name) + kind.ljust(width_type) + " " + _info(ns[name], kind))
        return None

    @reg.line_magic("reset")
    def reset(arg, frame):
        """%reset [-f] [-s] [--aggressive] [in] [out] [dhist] [array]: deletes the user's variables
        (asks first unless -f); -s keeps In, Out and the history; the targets flush only what they
        name; --aggressive also forgets the modules imported since the kernel started."""
        words = arg.split()
        aggressive = "--aggressive" in words
        opts, rest = parse_options(" ".join(w for w in words if w != "--aggressive"), "sf", strict="sf aggressive")
        targets = rest.split()
        if not opts.get("f") and not _confirmed(api, UsageError):
            print("Nothing done.")
            return None
        if aggressive and not opts.get("s") and not targets:  # (a hard reset only, as IPython)
            cull_modules()
        ns = api.user_ns
        if opts.get("s"):
            for name in api.user_names():
                del ns[name]
        elif not targets:
            hard_reset(api, reg)
        for target in targets:
            _reset_target(api, reg, target.lower())
        gc.collect()
        return None

    @reg.line_magic("xdel")
    def xdel(arg, frame):
        """Deletes a variable, and the references the kernel holds to its value (Out, _)."""
        opts, names = parse_options(arg, "n", strict="n")
        for name in names.split():
            try:
                _delete_everywhere(api, name, reg.state.get("run_namespaces", {}), by_name=bool(opts.get("n")))
            except (NameError, ValueError) as exc:
                print(type(exc).__name__ + ": " + str(exc))

    @reg.line_magic("precision")
    def precision(arg, frame):
        """%precision N shows floats with N decimals; %precision %fmt uses a format; without an
        argument the default returns. Returns the format."""
        return _set_precision(api.formatter, arg.strip())

    @reg.line_magic("pprint")
    def pprint(arg, frame):
        """Turns pretty printing of results off or on."""
        api.formatter.pprint = not api.formatter.pprint
        print("Pretty printing has been turned", ["OFF", "ON"][api.formatter.pprint])

    @reg.line_magic("xmode", expand=False)
    def xmode(arg, frame):
        """Plain, Context, Verbose or Minimal tracebacks; without an argument the next mode."""
        order = ["Plain", "Context", "Verbose", "Minimal"]
        if arg.strip() in ("--show", "--hide"):
            return None  # (IPython's: whether frames with __tracebackhide__ show; none are hidden here)
        mode = arg.strip().capitalize()
        if mode and mode not in order:
            # As IPython's: a warning (in its words), and the mode stays.
            sys.stderr.write(
                "UserWarning: Error changing user exception modes.\nUnrecognized mode in FormattedTB: "
                "<%s>\nValid modes: %s\n" % (mode, order)
            )
            return None
        if not mode:
            mode = order[(order.index(api.xmode) + 1) % len(order)]
        api.xmode = mode
        print("Exception reporting mode: %s" % mode)


def _info(value, kind):
    if kind in ("dict", "list", "tuple"):
        return "n=%d" % len(value)
    if kind == "ndarray" and type(value).__module__ == "numpy":
        return _array_info(value)
    try:
        info = str(value)
    except Exception:
        info = "<object with id %d (str() failed)>" % id(value)
    info = info.replace("\n", "\\n")
    if len(info) >= 50:
        info = info[:25] + "<...>" + info[-25:]
    return info


def _array_info(array):
    """A numpy array as IPython's %whos shows one: its shape, size, dtype and bytes."""
    shape = str(array.shape).replace(",", "").replace(" ", "x")[1:-1]
    size = array.size
    nbytes = size * array.itemsize
    info = "%s: %s elems, type `%s`, %s bytes" % (shape, size, array.dtype, nbytes)
    if nbytes < 100000:
        return info
    if nbytes < 1024 * 1024:
        return info + " (%s kb)" % (nbytes / 1024.0)
    return info + " (%s Mb)" % (nbytes / 1024.0 / 1024.0)


def cull_modules():
    """IPython's %reset --aggressive: the modules imported since the start go from sys.modules, so
    that the next import reads them again. The standard library's stay (the kernel itself uses
    linecache, ast and others loaded after the start: a second copy would split their state), and
    so do multiprocessing's and the kernel's own."""
    from ..server import MODULES_AT_START as kept

    stdlib = os.path.realpath(os.path.dirname(os.__file__)) + os.sep
    print("culling sys module...")
    for name in set(sys.modules) - kept:
        path = getattr(sys.modules.get(name), "__file__", None)
        if not path or os.path.realpath(path).startswith(stdlib):
            continue
        if not name.startswith(("multiprocessing", "omp_kernel", "_omp")):
            del sys.modules[name]


def _confirmed(api, UsageError):
    """IPython asks before a reset; a cell that cannot ask (no stdin) must say -f."""
    if not api.stdin_allowed:
        raise UsageError(
            "%reset asks before deleting, and this cell cannot ask (it was run without stdin): use %reset -f"
        )
    answer = ""
    while answer not in ("y", "yes", "n", "no"):
        try:
            answer = api.ask("Once deleted, variables cannot be recovered. Proceed (y/[n])? ").strip().lower() or "n"
        except EOFError:  # the input ended (omp-eval run): no, the default, as IPython
            print()
            answer = "n"
    return answer in ("y", "yes")


def hard_reset(api, reg):
    """%reset -f: the user's names, Out and the scripts' namespaces that %run kept go; the
    prelude runs again."""
    reg.state.get("run_namespaces", {}).clear()
    ns = api.user_ns
    keep = {"__builtins__", "__name__", "__doc__", "__package__", "__loader__", "__spec__"}
    for name in list(ns):
        if name not in keep:
            del ns[name]
    # (The input history stays, as IPython's %reset keeps it: `%reset in` flushes it.)
    api.Out.clear()
    api.reset_underscores()
    dh = api.dir_history
    import os

    dh[:] = [os.getcwd()]
    # (As IPython's: _, __, ___ and _i, _ii, _iii come back with the next result and input.)
    ns.update({"In": api.In, "Out": api.Out, "_ih": api.In, "_oh": api.Out, "_dh": dh})
    api.rerun_prelude()


def _reset_target(api, reg, target):
    ns = api.user_ns
    if target == "out":
        print("Flushing output cache (%d entries)" % len(api.Out))
        for count in list(api.Out):
            ns.pop("_%d" % count, None)
        api.Out.clear()
        ns.update({"_": "", "__": "", "___": ""})
        api.reset_underscores()
    elif target == "in":
        print("Flushing input history")
        flush_inputs(api)
    elif target == "array":
        try:
            import numpy
        except ImportError:
            print("reset array only works if Numpy is available.")
            return
        for name, value in list(ns.items()):
            if isinstance(value, numpy.ndarray):
                del ns[name]
    elif target == "dhist":
        print("Flushing directory history")
        del api.dir_history[:]
    else:
        print("Don't know how to reset ", end=" ")
        print(target + ", please run `%reset?` for details")


def flush_inputs(api):
    """%reset in: In keeps its length (%save and %macro count on it), every input empty."""
    ns = api.user_ns
    for count in range(1, api.execution_count + 1):
        ns.pop("_i%d" % count, None)
    ns.update({"_i": "", "_ii": "", "_iii": ""})
    api.reset_inputs()
    api.In[:] = [""] * (api.execution_count + 1)


def _delete_everywhere(api, name, run_namespaces, by_name=False):
    """IPython's del_var: the name, or every reference to its value, from the user's namespace,
    the namespaces of the scripts %run ran, Out and _, __, ___."""
    ns = api.user_ns
    if name in ("__builtin__", "__builtins__"):
        raise ValueError("Refusing to delete %s" % name)
    if by_name:
        for names in [ns] + list(run_namespaces.values()):
            names.pop(name, None)  # (as IPython's: a name that is nowhere is no error)
        return
    try:
        value = ns[name]
    except KeyError:
        raise NameError("name '%s' is not defined" % name) from None
    for names in [ns] + list(run_namespaces.values()):
        for key in [k for k, v in names.items() if v is value]:
            del names[key]
    for count in [c for c, v in api.Out.items() if v is value]:
        del api.Out[count]
    api.reset_underscores(value)


def _set_precision(formatter, spec):
    if not spec:
        formatter.float_format = "%r"
        digits = 8
    elif "%" in spec:
        try:
            spec % 3.14159
        except Exception:
            raise ValueError("Precision must be int or format string, not %r" % spec) from None
        formatter.float_format = spec
        digits = 2
    else:
        try:
            digits = int(spec)
            assert digits >= 0
        except (ValueError, AssertionError):
            raise ValueError("Precision must be int or format string, not %r" % spec) from None
        formatter.float_format = "%%.%if" % digits
    import sys

    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.set_printoptions(precision=digits)
    return formatter.float_format
