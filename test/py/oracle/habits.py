"""Cases written by hand for the IPython oracle (issue 43): habits of IPython 8.5 that its test
files check in ways the harvester cannot follow (temporary files, mocks, attributes set on the
shell), typed as a user would type them. Each id names the IPython test it comes from, where one
does. Paths: `@CASEDIR@`, `@PYTHON@` and `@TESTS@` as in harvest.py."""


def _cells(*codes):
    return [{"code": code, "store": True} for code in codes]


PRINT_ARGV = "%%writefile print_argv.py\nimport sys\nprint(sys.argv[1:])\n"
XDEL_SCRIPT = (
    "%%writefile xdel_a.py\n"
    "class A(object):\n"
    "    monitor = []\n"
    "    def __del__(self):\n"
    "        self.monitor.append(1)\n"
    "a = A()\n"
)
CASES = {
    # ---- ast_node_interactivity (test_displayhook.py::test_interactivehooks_ast_modes*) ----------
    "ast_node_interactivity all": _cells(
        "get_ipython().ast_node_interactivity",
        "get_ipython().ast_node_interactivity = 'all'",
        "a = 1\na\na + 1",
        "for i in range(2): i",
        "b = 2\nb;\nb + 1",
        "c = 3\nc\nc + 1;",
        "print('no value')\nNone\nif True:\n    7\n    8\ndef f():\n    9\nf()",
        "_, __, ___",
        "Out",
        "import asyncio\nawait asyncio.sleep(0)\n10\nawait asyncio.sleep(0, 'x')",
        "get_ipython().ast_node_interactivity",
    ),
    "ast_node_interactivity last_expr_or_assign": _cells(
        "get_ipython().ast_node_interactivity = 'last_expr_or_assign'",
        "a = 1+1",
        "b = 1+8 # comment with a semicolon;",
        "c = 1+6\n#commented_out_function();",
        "d = 11",
        "d += 1",
        "(u,v) = (41+1, 43-1)",
        "e: int = 5",
        "x = 1+1;",
        "y = 1+6; # comment with a semicolon",
        "z = 1+8;\n#commented_out_function()",
        "w = q = 3",
        "k = 4\n5",
        "Out",
    ),
    "ast_node_interactivity last and none": _cells(
        "get_ipython().ast_node_interactivity = 'last'",
        "1\n2",
        "for i in range(3): i",
        "x = 5",
        "get_ipython().ast_node_interactivity = 'none'",
        "3",
        "4",
        "Out",
    ),
    "ast_node_interactivity unknown mode": _cells(
        "get_ipython().ast_node_interactivity = 'every'",
        "get_ipython().ast_node_interactivity",
    ),
    # ---- the shell object ------------------------------------------------------------------------
    "test_interactiveshell.py::test__IPYTHON__": _cells("__IPYTHON__", "import builtins\nbuiltins.__IPYTHON__"),
    "test_interactiveshell.py::test_drop_by_id": _cells(
        "ip = get_ipython()\n"
        'myvars = {"a": object(), "b": object(), "c": object()}\n'
        "ip.push(myvars, interactive=False)\n"
        "[(name in ip.user_ns, name in ip.user_ns_hidden) for name in myvars]",
        "ip.user_ns['b'] = 12\nip.drop_by_id(myvars)\n"
        "[(name in ip.user_ns, name in ip.user_ns_hidden) for name in myvars], ip.user_ns['b']",
        "%who",
        "ip.reset()",
        "'ip' in dir(), 'myvars' in dir(), 'b' in dir(), len(In), len(Out)",
        "%who",
    ),
    "test_magic.py::test_extension": _cells(
        "import sys\nsys.path.insert(0, '@TESTS@/daft_extension')",
        "%load_ext daft_extension",
        "arq",
        "%unload_ext daft_extension",
        "'arq' in dir()",
        "%who",
    ),
    # ---- %run --------------------------------------------------------------------------------------
    "test_run.py::doctest_run_option_parser": _cells(
        PRINT_ARGV,
        "%run print_argv.py",
        "%run print_argv.py print*.py",
        "%run -G print_argv.py print*.py",
    ),
    "test_run.py::doctest_run_option_parser_for_posix": _cells(
        PRINT_ARGV,
        "%run print_argv.py print\\\\*.py",
        "%run print_argv.py 'print*.py'",
        "%run print_argv.py print\\*.py",
        "%run print_argv.py nomatch*.py '~' ~/x 'a b' \"c d\" e\\ f",
    ),
    "test_run.py::test_run_py_file_attribute": _cells(
        "%%writefile file_attr.py\nimport os, sys\nt = __file__\nargv0 = sys.argv[0]\n",
        "%run file_attr.py",
        "t == os.path.join(os.getcwd(), 'file_attr.py'), argv0",
        "'__file__' in dir()",
        "%run file_attr",
        "t == os.path.join(os.getcwd(), 'file_attr.py'), argv0",
        "%run -i file_attr.py",
        "t, argv0",
        "%run -n file_attr.py",
        "t == os.path.join(os.getcwd(), 'file_attr.py')",
    ),
    "test_run.py::test_run_ipy_file_attribute": _cells(
        "%%writefile file_attr.ipy\nt = __file__\n",
        "%run file_attr.ipy",
        "t",
        "'__file__' in dir()",
    ),
    "test_run.py::missing file": _cells("%run no_such_file.py", "%run no_such_file", "%run"),
    "test_magic.py::missing %load file": _cells("%load no_such_file.py"),
    "test_magic.py::TestXdel.test_xdel": _cells(
        XDEL_SCRIPT,
        "%run xdel_a.py",
        "a",
        "monitor = A.monitor\nmonitor",
        "%xdel a",
        "import gc\ngc.collect(0)\nmonitor",
        "Out, [k for k in dir() if k.startswith('_') and k[1:].isdigit()]",
    ),
    "test_magic.py::xdel of a result": _cells(
        "x = [1, 2]",
        "x",
        "x",
        "%xdel x",
        "Out",
        "_, __, ___",
        "y = [3]",
        "y",
        "%xdel -n y",
        "Out",
    ),
    # ---- %save ---------------------------------------------------------------------------------
    "test_magic.py::%save without a range": _cells(
        "a = 1",
        "b = a + 1\n%who",
        "%save session.py",
        "print(open('session.py').read())",
        "%save -f -r session",
        "print(open('session.ipy').read())",
        "%save",
    ),
    # ---- _, __, ___ and %reset -------------------------------------------------------------------
    "test_displayhook.py::underscores at the start": _cells(
        "_, __, ___", "_i, _ii, _iii", "1", "2", "_, __, ___", "_i, _ii, _iii"
    ),
    "test_magic.py::underscores after %reset -f": _cells(
        "1",
        "2",
        "%reset -f",
        "['_' in dir(), '__' in dir(), '___' in dir(), '_i' in dir(), '_ii' in dir(), '_2' in dir()]",
        "_i, _ii, _iii",
        "3",
        "_, '__' in dir(), Out",
    ),
    "test_magic.py::%reset out and in": _cells(
        "1", "2", "%reset -f out", "_, __, ___, Out", "%reset -f in", "_i, _ii, _iii, In"
    ),
    # ---- magics that IPython runs without arguments ----------------------------------------------
    "test_magic.py::empty %time and %timeit": _cells(
        "%time", "%timeit", "%%time\n", "%%timeit -n1 -r1\n", "x = %time", "x is None"
    ),
    "test_magic.py::%xmode of an unknown mode": _cells("%xmode nope", "%xmode", "%xmode Context"),
    # ---- shell commands ----------------------------------------------------------------------------
    "test_interactiveshell.py::ExitCodeChecks": _cells(
        "!exit 0",
        "_exit_code",
        "!exit 1",
        "_exit_code",
        "!@PYTHON@ -c 'import signal, time; signal.setitimer(signal.ITIMER_REAL, 0.1); time.sleep(1)'",
        "_exit_code",
        "!kill -TERM $$",
        "_exit_code",
        "!exit 130",
        "_exit_code",
        "!exit 128",
        "_exit_code",
    ),
    # ---- display -----------------------------------------------------------------------------------
    "test_display.py::display with transient": _cells(
        "display(1, transient={'display_id': 'abc'})",
        "display(2, transient={'display_id': 'abc'}, update=True)",
        "h = display(3, display_id='def')\nh.display_id",
        "import IPython.display\nIPython.display.display(4, transient={'display_id': 'ghi'})",
        "h = display(5, display_id='jkl', update=True)\nh.display_id",
    ),
    # ---- unknown magics ----------------------------------------------------------------------------
    "test_magic.py::unknown magic": _cells(
        "%no_such_magic",
        "%%no_such_cell_magic\n1",
        "try:\n    get_ipython().run_line_magic('no_such_magic', '')\nexcept Exception as e:\n"
        "    print(type(e).__name__, e)",
    ),
}


def cases():
    return [{"id": "habits::" + name, "kind": "cells", "cells": cells} for name, cells in CASES.items()]
