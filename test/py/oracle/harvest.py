"""Harvests cases for the IPython oracle from IPython's own test files.

Each case is what a user would type into cells, taken from the tests' own inputs:

- "cells": the cells one test function runs through the shell (`run_cell`, `run_line_magic`,
  `run_cell_magic`, `magic`, `ex`, `system`, `getoutput`, and `user_ns[name] = literal`), in
  order; the `In [n]:` transcripts in docstrings; every input of the input-transformer tests;
  the display classes the display and formatter tests define, shown with display() and as a
  result; the display objects the display tests build.
- "is_complete": the inputs of the `check_complete` tests, answered by the kernel's is_complete.

Only arguments that evaluate without running the test are used (literals, names bound to literals,
string operations, dedent, os.path.join). Paths: `@CASEDIR@` is the directory a case runs in,
`@PYTHON@` the interpreter, `@TESTS@` IPython's test directory. Runs under any Python 3.8+.
"""
import ast
import json
import os
import sys
import textwrap

TESTS_DIR = "/usr/lib/python3/dist-packages/IPython/core/tests"
FILES = (
    "test_inputtransformer2.py",
    "test_inputtransformer2_line.py",
    "test_magic.py",
    "test_displayhook.py",
    "test_interactiveshell.py",
    "test_formatters.py",
    "test_display.py",
)
SHELL_NAMES = {"ip", "_ip", "shell", "get_ipython"}
DISPLAY_METHODS = {
    "_repr_html_", "_repr_markdown_", "_repr_svg_", "_repr_png_", "_repr_jpeg_", "_repr_json_",
    "_repr_latex_", "_repr_pdf_", "_repr_pretty_", "_repr_mimebundle_", "_ipython_display_",
    "__repr__", "__getattr__", "_repr_javascript_",
}


class Unknown(Exception):
    """An expression that cannot be evaluated without running the test."""


class Evaluator(object):
    """Evaluates the small language of test arguments: literals and string operations."""

    def __init__(self, env):
        self.env = env

    def __call__(self, node):
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            raise Unknown(type(node).__name__)
        return method(node)

    def eval_Constant(self, node):
        return node.value

    def eval_Tuple(self, node):
        return tuple(self(e) for e in node.elts)

    def eval_List(self, node):
        return [self(e) for e in node.elts]

    def eval_Set(self, node):
        return {self(e) for e in node.elts}

    def eval_Dict(self, node):
        if any(k is None for k in node.keys):
            raise Unknown("**")
        return {self(k): self(v) for k, v in zip(node.keys, node.values)}

    def eval_Name(self, node):
        if node.id in self.env:
            return self.env[node.id]
        raise Unknown(node.id)

    def eval_UnaryOp(self, node):
        value = self(node.operand)
        if isinstance(node.op, ast.USub):
            return -value
        raise Unknown("unary")

    def eval_BinOp(self, node):
        left, right = self(node.left), self(node.right)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Mod) and isinstance(left, str):
            return left % right
        if isinstance(node.op, ast.Mult):
            return left * right
        raise Unknown("binop")

    def eval_JoinedStr(self, node):
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.conversion != -1 or value.format_spec is not None:
                    raise Unknown("format spec")
                parts.append(str(self(value.value)))
            else:
                parts.append(self(value))
        return "".join(parts)

    def eval_Attribute(self, node):
        dotted = _dotted(node)
        if dotted == "sys.executable":
            return "@PYTHON@"
        raise Unknown(dotted)

    def eval_Call(self, node):
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise Unknown("*args")
        func = node.func
        name = _dotted(func)
        args = [self(a) for a in node.args]
        kwargs = {k.arg: self(k.value) for k in node.keywords if k.arg}
        if name in ("dedent", "textwrap.dedent"):
            return textwrap.dedent(*args)
        if name in ("os.path.join", "join"):
            return os.path.join(*args)
        if name == "os.path.dirname" and args == ["@FILE@"]:
            return "@TESTS@"
        if name in ("shlex.quote",):
            import shlex

            return shlex.quote(*args)
        if name in ("str", "repr", "list", "tuple", "dict"):
            return {"str": str, "repr": repr, "list": list, "tuple": tuple, "dict": dict}[name](*args, **kwargs)
        if isinstance(func, ast.Attribute):
            target = self(func.value)
            if isinstance(target, str) and func.attr in ("splitlines", "join", "strip", "format", "replace", "lstrip", "rstrip"):
                return getattr(target, func.attr)(*args, **kwargs)
        raise Unknown(name)


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return "?"


def _shell_receiver(node):
    """True if node is the shell: ip, _ip, self.shell, get_ipython()."""
    if isinstance(node, ast.Name):
        return node.id in SHELL_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in ("shell",)
    if isinstance(node, ast.Call):
        return _dotted(node.func) == "get_ipython"
    return False


def _cell_of_call(call, ev):
    """The cell a shell call runs, or None when the call is not one."""
    if not isinstance(call.func, ast.Attribute) or not _shell_receiver(call.func.value):
        return None
    method = call.func.attr
    args = [ev(a) for a in call.args]
    kwargs = {k.arg: k.value for k in call.keywords}
    store = False
    if "store_history" in kwargs:
        store = bool(ev(kwargs["store_history"]))
    elif method == "run_cell" and len(args) > 1:
        store = bool(args[1])
    if method == "run_cell" and args:
        return {"code": args[0], "store": store}
    if method in ("ex", "ev") and args:
        return {"code": args[0], "store": False}
    if method == "run_line_magic" and len(args) >= 2:
        return {"code": "%%%s %s" % (args[0], args[1]), "store": False}
    if method == "magic" and args:
        return {"code": "%" + args[0].lstrip("%"), "store": False}
    if method == "run_cell_magic" and len(args) >= 3:
        return {"code": "%%%%%s %s\n%s" % (args[0], args[1], args[2]), "store": False}
    if method in ("system", "system_raw", "system_piped") and args:
        return {"code": "!" + args[0], "store": False}
    if method == "getoutput" and args:
        return {"code": "_ = !" + args[0], "store": False}
    return None


class FunctionHarvester(object):
    """The cells one test function runs, in order, following its statements."""

    def __init__(self, module_env):
        self.env = dict(module_env)
        self.cells = []
        self.skipped = 0

    def run(self, body):
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt):
        ev = Evaluator(self.env)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(stmt, ast.Assign):
            self.assignment(stmt, ev)
            return
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self.with_item(item, ev)
            self.run(stmt.body)
            return
        elif isinstance(stmt, ast.Try):
            self.run(stmt.body)
            self.run(stmt.finalbody)
            return
        elif isinstance(stmt, ast.If):
            self.run(stmt.body)
            return
        elif isinstance(stmt, ast.For):
            self.loop(stmt, ev)
            return
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                self.call(node, ev)

    def call(self, node, ev):
        try:
            cell = _cell_of_call(node, ev)
        except (Unknown, TypeError, ValueError):
            if isinstance(node.func, ast.Attribute) and _shell_receiver(node.func.value):
                self.skipped += 1
            return
        if cell is not None and isinstance(cell["code"], str):
            self.cells.append(cell)

    def assignment(self, stmt, ev):
        target = stmt.targets[0]
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Attribute)
            and target.value.attr == "user_ns"
            and _shell_receiver(target.value.value)
        ):
            try:
                key = ev(target.slice if not isinstance(target.slice, ast.Index) else target.slice.value)
                value = ev(stmt.value)
                self.cells.append({"code": "%s = %r" % (key, value), "store": False})
            except Unknown:
                self.skipped += 1
            return
        try:
            value = ev(stmt.value)
        except (Unknown, TypeError, ValueError):
            for node in ast.walk(stmt.value):
                if isinstance(node, ast.Call):
                    self.call(node, ev)
            for name in _names(target):
                self.env.pop(name, None)
            return
        if isinstance(target, ast.Name):
            self.env[target.id] = value

    def with_item(self, item, ev):
        name = _dotted(item.context_expr.func) if isinstance(item.context_expr, ast.Call) else ""
        if item.optional_vars is not None and isinstance(item.optional_vars, ast.Name):
            if name in ("TemporaryDirectory", "TemporaryWorkingDirectory", "tempfile.TemporaryDirectory"):
                self.env[item.optional_vars.id] = "@CASEDIR@"

    def loop(self, stmt, ev):
        try:
            values = list(ev(stmt.iter))
        except (Unknown, TypeError):
            self.run(stmt.body)
            return
        if not isinstance(stmt.target, ast.Name):
            return
        for value in values[:10]:
            self.env[stmt.target.id] = value
            self.run(stmt.body)


def _names(target):
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def module_env(tree):
    env = {"__file__": "@FILE@"}
    ev = Evaluator(env)
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                env[stmt.targets[0].id] = ev(stmt.value)
            except (Unknown, TypeError, ValueError):
                pass
    return env


def _functions(tree):
    """Every test function and method: (qualified name, node)."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield "%s.%s" % (node.name, item.name), item


def transcript_cells(doc):
    """The cells of an `In [n]:` transcript in a docstring."""
    cells = []
    current = None
    for line in textwrap.dedent(doc).split("\n"):
        stripped = line.strip()
        if stripped.startswith("In [") and "]:" in stripped:
            if current is not None:
                cells.append(current)
            current = [stripped.split("]:", 1)[1][1:]]
        elif current is not None and stripped.startswith("...:"):
            current.append(stripped[5:] if stripped.startswith("...: ") else stripped[4:])
        elif current is not None:
            cells.append(current)
            current = None
    if current is not None:
        cells.append(current)
    out = []
    for lines in cells:
        code = "\n".join(lines).rstrip()
        if code.strip():
            out.append({"code": code, "store": True})
    return out


def _input_of(value):
    """The input of an input-transformer case: a string, or the first element as lines."""
    if isinstance(value, tuple) and value:
        first = value[0]
        if isinstance(first, str):
            return first
        if isinstance(first, list) and all(isinstance(x, str) for x in first):
            return "".join(first)
    return None


def transformer_cases(name, tree, env):
    cases = []
    for key, value in env.items():
        code = _input_of(value)
        if code is not None:
            cases.append({"id": "%s::%s" % (name, key), "kind": "cells", "cells": [{"code": code, "store": True}]})
    ev = Evaluator(env)
    seen = set(c["cells"][0]["code"] for c in cases)
    for fname, fn in _functions(tree):
        for node in ast.walk(fn):
            if isinstance(node, ast.Tuple) and node.elts:
                try:
                    code = _input_of(ev(node))
                except (Unknown, TypeError, ValueError):
                    continue
                if code is not None and code not in seen and isinstance(node.elts[0], ast.List):
                    seen.add(code)
                    cases.append(
                        {"id": "%s::%s#%d" % (name, fname, len(cases)), "kind": "cells", "cells": [{"code": code, "store": True}]}
                    )
    return cases


def is_complete_cases(name, tree, env):
    """Inputs given to check_complete: pytest parameters and literal `cc(...)` calls."""
    codes = []
    ev = Evaluator(env)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _dotted(node.func) in ("pytest.param",) and node.args:
            try:
                codes.append(ev(node.args[0]))
            except Unknown:
                pass
        if isinstance(node, ast.Call) and _dotted(node.func) == "pytest.mark.parametrize" and len(node.args) >= 2:
            if not isinstance(node.args[1], ast.List):
                continue
            for item in node.args[1].elts:
                if isinstance(item, ast.Tuple) and item.elts:
                    try:
                        codes.append(ev(item.elts[0]))
                    except Unknown:
                        pass
    for fname, fn in _functions(tree):
        local = dict(env)
        fev = Evaluator(local)
        for stmt in ast.walk(fn):
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                try:
                    local[stmt.targets[0].id] = fev(stmt.value)
                except (Unknown, TypeError, ValueError):
                    pass
            if isinstance(stmt, ast.Call) and _dotted(stmt.func) == "cc" and stmt.args:
                try:
                    codes.append(fev(stmt.args[0]))
                except (Unknown, TypeError):
                    pass
    unique = []
    for code in codes:
        if isinstance(code, str) and code not in unique:
            unique.append(code)
    return [{"id": "%s::is_complete#%d" % (name, i), "kind": "is_complete", "code": c} for i, c in enumerate(unique)]


def display_class_cases(name, tree, source):
    """Classes with display methods: defined, shown with display(), and as a cell's result."""
    cases = []
    module_classes = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            module_classes[node.name] = ast.get_source_segment(source, node)
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        methods = {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
        methods |= {t.id for item in node.body if isinstance(item, ast.Assign) for t in item.targets if isinstance(t, ast.Name)}
        if not methods & DISPLAY_METHODS or node.decorator_list:
            continue
        init = next((i for i in node.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"), None)
        if init is not None and len(init.args.args) - len(init.args.defaults) > 1:
            continue
        bases = [_dotted(b) for b in node.bases]
        prelude = [module_classes[b] for b in bases if b in module_classes]
        class_src = textwrap.dedent(ast.get_source_segment(source, node, padded=True) or "")
        cells = [{"code": "\n\n".join(prelude + [class_src]), "store": True}]
        cells.append({"code": "display(%s())" % node.name, "store": True})
        cells.append({"code": "%s()" % node.name, "store": True})
        cases.append({"id": "%s::class %s@%d" % (name, node.name, node.lineno), "kind": "cells", "cells": cells})
    return cases


def display_object_cases(name, tree, env):
    """IPython.display objects the display tests build, shown as a cell's result and displayed."""
    cases = []
    for fname, fn in _functions(tree):
        local = dict(env)
        ev = Evaluator(local)
        for stmt in ast.walk(fn):
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                try:
                    local[stmt.targets[0].id] = ev(stmt.value)
                except (Unknown, TypeError, ValueError):
                    pass
            callee = _dotted(stmt.func) if isinstance(stmt, ast.Call) else ""
            if not callee.startswith("display.") or "(" in callee:
                continue
            try:
                args = [ev(a) for a in stmt.args]
                kwargs = {k.arg: ev(k.value) for k in stmt.keywords if k.arg}
            except (Unknown, TypeError, ValueError):
                continue
            call = "%s(%s)" % (
                _dotted(stmt.func),
                ", ".join([repr(a) for a in args] + ["%s=%r" % kv for kv in kwargs.items()]),
            )
            if callee.split(".")[-1][:1].islower():  # a function: display(), update_display()
                cells = [{"code": "from IPython import display\n%s" % call, "store": True}]
            else:  # a display object: shown with display() and as a result
                cells = [
                    {"code": "from IPython import display\nobj = %s" % call, "store": True},
                    {"code": "display.display(obj)", "store": True},
                    {"code": "obj", "store": True},
                ]
            cases.append({"id": "%s::%s#%d" % (name, fname, len(cases)), "kind": "cells", "cells": cells})
    return cases


def harvest(tests_dir=TESTS_DIR):
    cases = []
    for name in FILES:
        path = os.path.join(tests_dir, name)
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        tree = ast.parse(source)
        env = module_env(tree)
        if name.startswith("test_inputtransformer2"):
            cases.extend(transformer_cases(name, tree, env))
            cases.extend(is_complete_cases(name, tree, env))
        for fname, fn in _functions(tree):
            doc = ast.get_docstring(fn, clean=False)
            if doc and "In [" in doc:
                cells = transcript_cells(doc)
                if cells:
                    cases.append({"id": "%s::%s [transcript]" % (name, fname), "kind": "cells", "cells": cells})
            harvester = FunctionHarvester(env)
            harvester.run(fn.body)
            if harvester.cells:
                cases.append({"id": "%s::%s" % (name, fname), "kind": "cells", "cells": harvester.cells})
        if name in ("test_formatters.py", "test_display.py", "test_interactiveshell.py"):
            cases.extend(display_class_cases(name, tree, source))
        if name == "test_display.py":
            cases.extend(display_object_cases(name, tree, env))
    import habits  # (beside this file: the cases written by hand)

    cases.extend(habits.cases())
    for case in cases:
        case["source"] = case["id"].split("::", 1)[0]
    return cases


def substitute(text, casedir, python):
    return text.replace("@CASEDIR@", casedir).replace("@PYTHON@", python).replace("@TESTS@", TESTS_DIR)


if __name__ == "__main__":
    found = harvest(sys.argv[1] if len(sys.argv) > 1 else TESTS_DIR)
    json.dump(found, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
