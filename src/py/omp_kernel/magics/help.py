"""Help: obj? and %pinfo, obj?? and %pinfo2, wildcards (dict.fr*?) and %psearch, %magic? (a
magic's own help), %pdoc, %pdef, %psource, %lsmagic, %magic, %quickref. The fields and their
layout follow IPython's object inspector."""
import fnmatch
import inspect


def register(reg):
    api = reg.api
    from . import UsageError, parse_options

    def lookup(expr, frame):
        ns = dict(api.user_ns)
        if frame is not None and frame.f_locals is not frame.f_globals:
            ns.update(frame.f_locals)
        obj = ns
        for index, part in enumerate(expr.split(".")):
            try:
                obj = obj[part] if index == 0 else getattr(obj, part)
            except (KeyError, AttributeError):
                if index == 0:
                    import builtins

                    if hasattr(builtins, part):
                        obj = getattr(builtins, part)
                        continue
                return False, None
            except Exception:
                return False, None
        return True, obj

    def pinfo(arg, frame, detail):
        name = arg.strip()
        if name.startswith("%"):
            return magic_help(name)
        found, obj = lookup(name, frame)
        if not found:
            print("Object `%s` not found." % name)
            return None
        print(_fields_text(_fields(obj, name, detail)))
        return None

    def magic_help(name):
        bare = name.lstrip("%")
        fn = (reg.cell if name.startswith("%%") else reg.line).get(bare) or reg.line.get(bare) or reg.cell.get(bare)
        if fn is None:
            print("Object `%s` not found." % name)
            return None
        print(_fields_text([("Docstring", inspect.getdoc(fn) or "<no docstring>")]))
        return None

    @reg.line_magic("pinfo", expand=False)
    def pinfo1(arg, frame):
        """obj?: what obj is (signature, docstring, file, type)."""
        return pinfo(arg, frame, 0)

    @reg.line_magic("pinfo2", expand=False)
    def pinfo2(arg, frame):
        """obj??: what obj is, with its source where it can be found."""
        return pinfo(arg, frame, 1)

    @reg.line_magic("pdoc", expand=False)
    def pdoc(arg, frame):
        """The docstring of an object."""
        found, obj = lookup(arg.strip(), frame)
        if not found:
            print("Object `%s` not found." % arg.strip())
        else:
            print(inspect.getdoc(obj) or "No documentation found for %s" % arg.strip())

    @reg.line_magic("pdef", expand=False)
    def pdef(arg, frame):
        """The call signature of a callable."""
        found, obj = lookup(arg.strip(), frame)
        if not found:
            print("Object `%s` not found." % arg.strip())
            return
        try:
            print(arg.strip() + str(inspect.signature(obj)))
        except (TypeError, ValueError):
            print("No definition header found for %s" % arg.strip())

    @reg.line_magic("psource", expand=False)
    def psource(arg, frame):
        """The source code of an object."""
        found, obj = lookup(arg.strip(), frame)
        try:
            print(inspect.getsource(obj).rstrip("\n") if found else "Object `%s` not found." % arg.strip())
        except (TypeError, OSError):
            print("No source found for %s" % arg.strip())

    @reg.line_magic("psearch", expand=False)
    def psearch(arg, frame):
        """Names matching a wildcard pattern: dict.fr*? or %psearch [-i] [-a] a* (-i: any case,
        -a: names that start with an underscore too)."""
        opts, rest = parse_options(arg, "cial", "se", strict="cias:e:l")
        unsupported = [letter for letter in "les" if letter in opts]
        if unsupported:
            raise UsageError(
                "%%psearch -%s is not supported here: it searches the user's names and the builtins" % unsupported[0]
            )
        pattern = rest.split()[0] if rest.strip() else "*"
        fold = (lambda text: text.lower()) if opts.get("i") else (lambda text: text)

        def match(name, wanted):
            # (as IPython: a single leading underscore hides a name, a dunder does not)
            shown = opts.get("a") or name.startswith("__") or not name.startswith("_")
            return fnmatch.fnmatchcase(fold(name), fold(wanted)) and shown

        head, _, tail = pattern.rpartition(".")
        if head:
            found, obj = lookup(head, frame)
            names = [head + "." + n for n in dir(obj) if match(n, tail)] if found else []
        else:
            import builtins

            pool = set(api.user_ns) | set(dir(builtins))
            names = [n for n in pool if match(n, pattern)]
        for name in sorted(names):
            print(name)

    @reg.line_magic("lsmagic")
    def lsmagic(arg, frame):
        """The available magics."""
        print("Available line magics:")
        print("  ".join("%" + n for n in sorted(reg.line)))
        print()
        print("Available cell magics:")
        print("  ".join("%%" + n for n in sorted(set(reg.cell) | set(reg.front_end_cells))))

    @reg.line_magic("magic")
    def magic(arg, frame):
        """Every magic with its first line of help."""
        print("IPython's magics as omp-eval provides them (`%name?` shows one in full).\n")
        for prefix, table in (("%", reg.line), ("%%", reg.cell)):
            for name in sorted(table):
                doc = (inspect.getdoc(table[name]) or "").split("\n")[0]
                print("%s%s: %s" % (prefix, name, doc))

    @reg.line_magic("quickref")
    def quickref(arg, frame):
        """A short reference of IPython's syntax in omp-eval."""
        print(QUICKREF)


QUICKREF = """IPython syntax in omp-eval cells
  obj? obj??        what obj is; with ?? its source
  dict.fr*?         names matching a wildcard
  %magic args       a line magic; %%magic on a cell's first line makes a cell magic
  %magic?           a magic's help; %lsmagic lists them, %magic summarises them
  !cmd  x = !cmd    a shell command; with x = (or !!cmd) its output lines as an SList
  $name {expr}      Python values in magic arguments and shell commands ($$ for a $)
  _ __ ___          the last three results; Out[n], _n; In[n], _i, _ii, _iii
  ,f a b  ;f a b  /f a b   f("a", "b"), f("a b"), f(a, b)"""


def _signature(obj, name):
    try:
        return name + str(inspect.signature(obj))
    except (TypeError, ValueError):
        return None


def _source(obj):
    try:
        return inspect.getsource(obj).rstrip("\n")
    except (TypeError, OSError, IndexError):
        return None


def _file(obj):
    try:
        path = inspect.getabsfile(obj)
    except (TypeError, OSError):
        return None
    return None if path.endswith(("__main__", "<string>")) else path


_OBJECT_INIT_DOC = object.__init__.__doc__


def _fields(obj, name, detail):
    """IPython's inspector fields: (title, text) pairs, empty ones left out."""
    doc = inspect.getdoc(obj)
    doc = "<no docstring>" if doc is None else doc
    source = _source(obj) if detail else None
    if isinstance(obj, type):
        return _class_fields(obj, name, doc, source)
    fields = []
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.ismethod(obj):
        fields.append(("Signature", _signature(obj, name)))
        fields.append(("Source", source) if source else ("Docstring", doc))
        fields.append(("File", _file(obj)))
        fields.append(("Type", type(obj).__name__))
        return [(t, v) for t, v in fields if v is not None]
    fields.append(("Signature", _signature(obj, name) if callable(obj) else None))
    fields.append(("Type", type(obj).__name__))
    fields.append(("String form", _string_form(obj)))
    try:
        fields.append(("Length", str(len(obj))))
    except Exception:
        pass
    fields.append(("File", _file(type(obj)) if type(obj).__module__ not in ("builtins", "__main__") else None))
    fields.append(("Source", source) if source else ("Docstring", doc))
    return [(t, v) for t, v in fields if v is not None]


def _class_fields(cls, name, doc, source):
    init = _signature(cls, name)
    init_doc = None
    try:
        init_method = cls.__init__
    except AttributeError:
        init_method = None
    if init_method is not None:
        if init is None:
            init = _signature(init_method, name)
        init_doc = inspect.getdoc(init_method)
        if init_doc == _OBJECT_INIT_DOC or init_doc == doc:
            init_doc = None
    fields = [("Init signature", init), ("Docstring", doc)]
    fields.append(("Source", source) if source else ("Init docstring", init_doc))
    fields.append(("File", _file(cls)))
    fields.append(("Type", type(cls).__name__))
    try:
        names = [sub.__name__ for sub in type.__subclasses__(cls)]
    except TypeError:
        names = []
    fields.append(("Subclasses", ", ".join(names if len(names) < 10 else names[:10] + ["..."])))
    return [(t, v) for t, v in fields if v is not None]


def _string_form(obj):
    try:
        text = str(obj)
    except Exception as exc:
        return "<str() failed: %s>" % exc
    if len(text) > 200:
        text = text[:100] + " <...> " + text[-100:]
    return text


def _fields_text(fields):
    """IPython's layout: titles padded to the longest, multi-line values below their title."""
    width = max(len(title) for title, _ in fields)
    out = []
    for title, body in fields:
        body = body.strip("\n")
        out.append(title + ":" + " " * (width - len(title)) + ("\n" if "\n" in body else " ") + body)
    return "\n".join(out)
