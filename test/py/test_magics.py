"""The magics with IPython's semantics (issue 15 items 1, 2, 3, 6, 8), in a real kernel."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_process import Kernel  # noqa: E402


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class MagicsTestCase(unittest.TestCase):
    def setUp(self):
        self.k = Kernel()
        self.addCleanup(self.k.close)
        self.dir = self.k.cwd

    def run_cell(self, code, **kwargs):
        return self.k.run(code, **kwargs)


class Reset(MagicsTestCase):
    def test_reset_asks_in_the_notebook_and_says_f_is_needed_in_the_tool(self):
        self.run_cell("a = 1")
        no = self.run_cell("%reset", allow_stdin=True, answers=["n"])
        self.assertEqual(no.prompts, ["Once deleted, variables cannot be recovered. Proceed (y/[n])? "])
        self.assertEqual(no.stdout, "Nothing done.\n")
        self.assertEqual(self.run_cell("a").plain, "1")
        tool = self.run_cell("%reset")
        self.assertEqual(tool.ename, "UsageError")
        self.assertIn("use %reset -f", tool.error["evalue"])
        yes = self.run_cell("%reset", allow_stdin=True, answers=["y"])
        self.assertIsNone(yes.error)
        self.assertEqual(self.run_cell("a").ename, "NameError")

    def test_reset_targets(self):
        self.run_cell("parrot = 'dead'")
        self.run_cell("parrot")
        out = self.run_cell("%reset -f out")
        self.assertEqual(out.stdout, "Flushing output cache (1 entries)\n")
        self.assertEqual(self.run_cell("len(Out), _").plain, "(0, '')")
        self.assertEqual(self.run_cell("%reset -f in").stdout, "Flushing input history\n")
        self.assertEqual(self.run_cell("_i, parrot").plain, "('', 'dead')")
        self.run_cell("%reset -sf")
        self.assertEqual(self.run_cell("parrot").ename, "NameError")
        self.assertEqual(self.run_cell("%reset -f dhist").stdout, "Flushing directory history\n")
        self.assertIn("Don't know how to reset  nothing", self.run_cell("%reset -f nothing").stdout)
        self.run_cell("%reset -f")
        # (The input history stays: twelve cells, and In[0].)
        self.assertEqual(self.run_cell("len(In), callable(agent)").plain, "(13, True)")

    def test_history_leaves_out_the_numbers_this_kernel_never_ran(self):
        # A kernel started anew at the notebook's cell 8 (a restart), and a JavaScript cell at 10.
        self.run_cell("c = 3", cellNumber=8)
        self.run_cell("for i in range(2):\n\tc += i", cellNumber=9)
        self.assertEqual(
            self.run_cell("%history -n", cellNumber=11).stdout,
            "   8: c = 3\n   9:\nfor i in range(2):\n    c += i\n  11: %history -n\n",
        )

    def test_history_t_translates_as_ipython_and_an_unknown_option_is_an_error(self):
        self.run_cell("x = !echo a")
        self.run_cell("%%bash\necho b")
        self.assertEqual(
            self.run_cell("%history -n -t").stdout,
            "   1: x = get_ipython().getoutput('echo a')\n"
            "   2: get_ipython().run_cell_magic('bash', '', 'echo b\\n')\n"
            "   3: get_ipython().run_line_magic('history', '-n -t')\n",
        )
        self.assertEqual(self.run_cell("%history -t -g getoutput").stdout, "x = get_ipython().getoutput('echo a')\n")
        # (IPython: "UsageError: unrecognized arguments: -z"; silence would read as no history)
        wrong = self.run_cell("%history -z")
        self.assertEqual(wrong.ename, "UsageError")
        self.assertEqual(wrong.error["evalue"], "unrecognized arguments: -z")

    def test_reset_keeps_the_input_history_as_ipython_does(self):
        self.run_cell("a = 1")
        self.run_cell("b = 2")
        self.run_cell("%reset -f")
        self.assertEqual(self.run_cell("In[1:3]").plain, "['a = 1', 'b = 2']")
        self.assertEqual(
            self.run_cell("%history -n").stdout.split("\n")[:5],
            ["   1: a = 1", "   2: b = 2", "   3: %reset -f", "   4: In[1:3]", "   5: %history -n"],
        )

    def test_xdel_and_who_ls(self):
        self.run_cell("x = [1]\ny = 2\nx")
        self.assertEqual(self.run_cell("%who_ls").plain, "['x', 'y']")
        self.run_cell("%xdel x")
        self.assertEqual(self.run_cell("'x' in dir(), 1 in Out").plain, "(False, False)")
        self.assertEqual(self.run_cell("%xdel nope").stdout, "NameError: name 'nope' is not defined\n")


class Namespace(MagicsTestCase):
    def test_who_whos_precision_xmode(self):
        self.assertEqual(self.run_cell("%who").stdout, "Interactive namespace is empty.\n")
        self.run_cell("alpha = 123\nbeta = 'b' * 80\ngamma = [1, 2]")
        self.assertEqual(self.run_cell("%who int").stdout, "alpha\t \n")
        self.assertEqual(self.run_cell("%who float").stdout, "No variables match your requested type.\n")
        whos = self.run_cell("%whos").stdout.split("\n")
        self.assertEqual(whos[0], "Variable   Type    Data/Info")
        self.assertEqual(whos[4], "gamma      list    n=2")
        self.assertIn("<...>", whos[3])
        self.assertEqual(self.run_cell("%precision %e\n1.5").plain, "1.500000e+00")
        self.assertEqual(self.run_cell("%precision\n1.5").plain, "1.5")
        self.assertEqual(self.run_cell("%precision x").ename, "ValueError")
        self.assertEqual(self.run_cell("%xmode").stdout, "Exception reporting mode: Verbose\n")
        # Verbose: the values of the names on each shown line, not the whole namespace of the cell.
        self.run_cell("big = list(range(1000))\ndef f(a):\n    b = a + 1\n    return b / a")
        lines = self.run_cell("f(0)").error["traceback"]
        self.assertIn("    a = 0", lines)
        self.assertIn("    b = 1", lines)
        self.assertIn("    f = <function f at", "\n".join(lines))
        self.assertFalse([line for line in lines if "big" in line or "In =" in line])
        self.assertEqual(self.run_cell("%xmode plain").stdout, "Exception reporting mode: Plain\n")
        # (IPython 8 warns, and the mode stays)
        nope = self.run_cell("%xmode nope")
        self.assertEqual((nope.ename, nope.stdout), (None, ""))
        self.assertTrue(nope.stderr.startswith("UserWarning: Error changing user exception modes.\n"))
        self.assertEqual(self.run_cell("%xmode").stdout, "Exception reporting mode: Context\n")
        self.assertEqual(self.run_cell("%nope_magic").ename, "UsageError")
        self.assertEqual(self.run_cell("%%nope_magic\nx").ename, "UsageError")

    def test_an_unknown_magic_is_a_usage_error_and_a_name_error(self):
        cell = self.run_cell(
            "for code in ('%nope_magic', '%%nope_magic\\nx', '%%time_it\\nx', '%%pwd\\nx'):\n"
            "    try:\n"
            "        get_ipython().run_cell(code)\n"
            "    except NameError as e:\n"
            "        print(type(e).__name__, isinstance(e, UsageError), e, sep=' | ')"
        )
        self.assertEqual(
            cell.stdout.split("\n"),
            [
                "UsageError | True | Line magic function `%nope_magic` not found.",
                "UsageError | True | Cell magic `%%nope_magic` not found.",
                "UsageError | True | Cell magic `%%time_it` not found.",
                "UsageError | True | Cell magic `%%pwd` not found (But line magic `%pwd` exists, did you mean that instead?).",
                "",
            ],
        )
        # A misused magic is a UsageError alone; an empty cell magic's body is one (IPython's words).
        self.assertEqual(self.run_cell("try:\n    %reset -z\nexcept NameError:\n    pass").ename, "UsageError")
        empty = self.run_cell("%%time\n")
        self.assertEqual(
            empty.error["evalue"], "%%time is a cell magic, but the cell body is empty. Did you mean the line magic %time (single %)?"
        )

    def test_a_hidden_name_bound_again_is_the_users(self):
        # (IPython's user_ns_hidden: the prelude's `log` hidden, the user's `log` listed)
        self.assertEqual(self.run_cell("%who").stdout, "Interactive namespace is empty.\n")
        self.run_cell("log = []\nIn = In")
        self.assertEqual(self.run_cell("%who_ls").plain, "['log']")
        reply = self.k.request({"type": "variables", "id": "v1", "limit": 10}, "variables_reply")
        self.assertEqual([v["name"] for v in reply["variables"]], ["log"])
        self.run_cell("%reset -f")
        self.assertEqual(self.run_cell("%who_ls").plain, "[]")

    def test_whos_shows_numpy_arrays_as_ipythons_does(self):
        # IPython is the oracle (Debian's python3-numpy and ipython3, which CI installs).
        import subprocess

        code = "import numpy as np\na = np.zeros((3, 4))\nb = np.arange(50000)\nc = np.float64(3)"
        script = (
            "from IPython.core.interactiveshell import InteractiveShell\n"
            "ip = InteractiveShell.instance()\nip.run_cell(%r)\nip.run_line_magic('whos', '')\n" % code
        )
        ipython = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        self.run_cell(code)
        self.assertIn("3x4: 12 elems, type `float64`, 96 bytes", ipython.stdout)
        self.assertEqual(self.run_cell("%whos").stdout, ipython.stdout)


class Help(MagicsTestCase):
    def test_magic_help_shows_help_and_runs_nothing(self):
        self.run_cell("a = 1")
        help_ = self.run_cell("%reset?")
        self.assertIn("Docstring:", help_.stdout)
        self.assertIn("%reset", help_.stdout)
        self.assertEqual(self.run_cell("a").plain, "1")
        self.assertIn("Docstring:", self.run_cell("%%bash?").stdout)
        self.assertEqual(self.run_cell("%nope?").stdout, "Object `%nope` not found.\n")

    def test_help_on_a_class_defined_in_a_cell_and_in_expressions(self):
        self.run_cell('class Kls:\n    "kdoc"\n    def __init__(self, a): pass')
        out = self.run_cell("Kls?").stdout
        self.assertIn("Init signature: Kls(a)", out)
        self.assertIn("Docstring:      kdoc", out)
        self.assertIsNone(self.run_cell("Kls??").error)
        self.assertIn("Signature", self.run_cell("a = b + len?").stdout)
        self.assertEqual(self.run_cell("dict.fr*?").stdout, "dict.fromkeys\n")
        self.assertEqual(self.run_cell("π = 3.14;\nπ.is_integ*?").stdout, "π.is_integer\n")
        self.assertIn("obj?", self.run_cell("?").stdout)
        self.assertIn("def f", self.run_cell("def f():\n    pass\nf??").stdout)
        for magic in ("%pdoc len", "%pdef len", "%psource Kls", "%magic", "%lsmagic", "%quickref"):
            self.assertIsNone(self.run_cell(magic).error, magic)


class Expansion(MagicsTestCase):
    def test_writefile_expands_its_line_and_keeps_quotes(self):
        self.run_cell("filename = 'file1'")
        self.assertEqual(self.run_cell("%%writefile $filename\nline1\nline2").stdout, "Writing file1\n")
        self.assertEqual(read(os.path.join(self.dir, "file1")), "line1\nline2\n")
        self.assertEqual(self.run_cell("%%file ./'q'\nx").stdout, "Writing ./'q'\n")
        self.assertEqual(self.run_cell("%%writefile -a file1\nline3").stdout, "Appending to file1\n")

    def test_shell_expansion_forms(self):
        self.run_cell("x = 'v'\nn = 3")
        self.assertEqual(self.run_cell("!echo {x!r} {x!s} {{n}} $n").stdout, "v v {n} 3\n")
        self.assertEqual(self.run_cell("%set_env Q=$$n\n%env Q").plain, "'$n'")
        # All or nothing: a name that is not Python's leaves the whole line to the shell.
        self.assertEqual(self.run_cell("!echo $UNDEFINED_NAME_X {x}").stdout, "{x}\n")
        self.assertEqual(self.run_cell("def f():\n    local = 'in f'\n    r = !echo {local}\n    return r\nf()").plain, "['in f']")


class Shell(MagicsTestCase):
    def test_system_is_sx_as_in_ipython_and_bang_prints(self):
        self.assertEqual(self.run_cell("%system echo hi").plain, "['hi']")
        bang = self.run_cell("!echo hi")
        self.assertEqual((bang.stdout, bang.plain), ("hi\n", None))

    def test_sx_forms_and_slist(self):
        self.assertEqual(self.run_cell("!!echo a").plain, "['a']")
        self.assertEqual(self.run_cell("first, *rest = !printf 'x\\ny\\nz\\n'\n(first, rest)").plain, "('x', ['y', 'z'])")
        lines = "s = !printf 'b 2\\na 10\\nc 1\\n'\n"
        cell = self.run_cell(lines + "(s.sort(1, nums=True), s.list, s.nlstr, s.spstr, s.grep('a'), s.fields(0))")
        self.assertEqual(
            cell.plain,
            "(['c 1', 'b 2', 'a 10'],\n ['b 2', 'a 10', 'c 1'],\n 'b 2\\na 10\\nc 1',\n 'b 2 a 10 c 1',\n ['a 10'],\n ['b', 'a', 'c'])",
        )
        self.assertEqual(self.run_cell("open('p', 'w').close()\nq = !echo p\nq.paths").plain, "[PosixPath('p')]")
        self.assertEqual(self.run_cell("!exit 3\n_exit_code").plain, "3")

    def test_bash_out_and_err_and_script(self):
        cell = self.run_cell("%%bash --out o --err e\necho out\necho err >&2")
        self.assertEqual((cell.stdout, cell.stderr), ("", ""))
        self.assertEqual(self.run_cell("o, e").plain, "('out\\n', 'err\\n')")
        self.assertEqual(self.run_cell("%%script python3\nprint(6 * 7)").stdout, "42\n")
        self.assertEqual(self.run_cell("%%bash\nexit 2").ename, "CalledProcessError")
        self.assertIsNone(self.run_cell("%%bash --no-raise-error\nexit 2").error)
        self.run_cell("%%script --bg --out bg python3\nprint('later')")
        self.assertEqual(self.run_cell("await bg.read()").plain, "b'later\\n'")

    def test_aliases(self):
        self.run_cell("%alias myecho echo %s-%s")
        self.assertEqual(self.run_cell("%myecho a b").stdout, "a-b\n")
        self.assertEqual(self.run_cell("%unalias myecho").stdout, "Removing alias: myecho\n")
        self.assertIsNone(self.run_cell("%rehashx").error)
        self.assertEqual(self.run_cell("%mkdir sub\n%ls").plain, "['sub']")


class Directories(MagicsTestCase):
    def test_cd_errors_go_on_and_the_stack_works(self):
        cell = self.run_cell("%cd /missing-dir-x\nprint('after')")
        # (as IPython: the error, then the directory it is still in; -q leaves that out)
        missing = "[Errno 2] No such file or directory: '/missing-dir-x'\n"
        self.assertEqual(cell.stdout, missing + "%s\nafter\n" % os.path.realpath(self.dir))
        self.assertEqual(self.run_cell("%cd -q /missing-dir-x").stdout, missing)
        self.assertEqual(self.run_cell("%pushd /").stdout, "/\n")
        self.assertEqual(self.run_cell("%popd").stdout, "popd -> %s\n" % self.dir)
        self.assertIn("Directory history", self.run_cell("%dhist").stdout)
        self.run_cell("%bookmark here")
        self.assertEqual(self.run_cell("%cd -q /\n%cd -b here\n%pwd").plain, repr(self.dir))
        self.assertIn("here", self.run_cell("%bookmark -l").stdout)


class Environment(MagicsTestCase):
    def test_env_hides_secrets_and_set_env_forms(self):
        self.run_cell("import os\nos.environ['MY_API_KEY'] = 'abc'")
        self.assertEqual(self.run_cell("e = %env\ne['MY_API_KEY']").plain, "'<hidden>'")
        self.assertEqual(self.run_cell("%set_env A=B").stdout, "env: A=B\n")
        self.assertEqual(self.run_cell("%set_env A B C").stdout, "env: A=B C\n")
        self.assertEqual(self.run_cell("%env A").plain, "'B C'")
        self.assertEqual(self.run_cell("%set_env var A=B").ename, "UsageError")


class Debugger(MagicsTestCase):
    def test_debug_opens_pdb_where_the_last_error_was_raised_with_the_cell_as_its_oldest_frame(self):
        self.k.run("def g(a):\n    b = a + 1\n    return 1 / a")
        self.assertEqual(self.k.run("g(0)").ename, "ZeroDivisionError")
        cell = self.k.run("%debug", allow_stdin=True, answers=["p a, b", "u", "u", "q"])
        self.assertIsNone(cell.ename)
        self.assertEqual(cell.prompts, ["(Pdb) "] * 4)
        self.assertIn("-> return 1 / a", cell.stdout)
        self.assertIn("(0, 1)", cell.stdout)
        self.assertIn("-> g(0)", cell.stdout)
        self.assertIn("*** Oldest frame", cell.stdout)  # the kernel's own frames are not stepped into
        # A script's error that %run showed is the last one too (IPython's showtraceback sets it).
        script = os.path.join(self.k.cwd, "boom.py")
        with open(script, "w") as handle:
            handle.write("def h(n):\n    return n / 0\nh(7)\n")
        self.assertIn("ZeroDivisionError", self.k.run("%%run %s" % script).stderr)
        cell = self.k.run("%debug", allow_stdin=True, answers=["p n", "q"])
        self.assertIn("-> return n / 0", cell.stdout)
        self.assertIn("\n7\n", cell.stdout)

    def test_pdb_on_opens_the_debugger_after_an_error_in_a_cell_that_can_ask(self):
        self.assertEqual(self.k.run("%pdb on").stdout, "Automatic pdb calling has been turned ON\n")
        self.k.run("def g(a):\n    return 1 / a")
        cell = self.k.run("g(0)", allow_stdin=True, answers=["p a", "q"])
        self.assertEqual(cell.ename, "ZeroDivisionError")  # the cell's error, its traceback first
        self.assertEqual(cell.prompts, ["(Pdb) "] * 2)
        self.assertIn("-> return 1 / a", cell.stdout)
        self.assertIn("\n0\n", cell.stdout)
        # Where no input can be asked for (the eval tool), the error is only reported.
        self.assertEqual(self.k.run("g(0)").ename, "ZeroDivisionError")
        self.assertEqual(self.k.run("%pdb").stdout, "Automatic pdb calling has been turned OFF\n")
        self.assertEqual(self.k.run("g(0)", allow_stdin=True).prompts, [])
        self.assertEqual(self.k.run("%pdb maybe").ename, "UsageError")

    def test_quitting_a_breakpoint_ends_the_cell_without_pdbs_traceback_as_ipython(self):
        self.k.run("def h2(v):\n    w = v * 2\n    breakpoint()\n    return w")
        cell = self.k.run("h2(5)\nprint('after')", allow_stdin=True, answers=["p w", "q"])
        self.assertEqual(cell.prompts, ["(Pdb) "] * 2)
        self.assertIn("\n10\n", cell.stdout)
        self.assertNotIn("after", cell.stdout)  # the cell ends where the user quit
        self.assertEqual(cell.ename, "BdbQuit")
        self.assertEqual(cell.error["traceback"], [])
        self.assertEqual(cell.stderr, "")

    def test_debug_without_an_error_says_so_and_with_a_statement_runs_it_under_pdb(self):
        cell = self.k.run("%debug")
        self.assertIsNone(cell.ename)
        self.assertEqual(cell.stderr, "No traceback has been produced, nothing to debug.\n")
        self.k.run("x = 20")
        cell = self.k.run("%debug y = x + 1", allow_stdin=True, answers=["c"])
        self.assertEqual(cell.prompts, ["(Pdb) "])
        self.assertEqual(self.k.run("y").plain, "21")


class Timing(MagicsTestCase):
    def test_time_reports_cpu_and_timeit_takes_magics_and_locals(self):
        cell = self.run_cell("%time sum(i * i for i in range(200000))")
        self.assertRegex(cell.stdout, r"CPU times: user [\d.]+ [µm]?s, sys: [\d.]+ \w*s, total: [\d.]+ [µm]?s\n")
        self.assertNotIn("user 0 ns", cell.stdout)
        self.run_cell("got = []")
        self.run_cell("def mark(line):\n    got.append(line)\nget_ipython().register_magic_function(mark)")
        self.run_cell("%timeit -n1 -r1 %mark my line")
        self.assertEqual(self.run_cell("got").plain, "['my line']")
        inside = self.run_cell("def f():\n    x = 3\n    r = %timeit -n1 -r1 -o -q x * 2\n    return r\nf().loops")
        self.assertEqual(inside.plain, "1")
        self.assertEqual(self.run_cell("%timeit return").ename, "SyntaxError")
        bogus = self.run_cell("%timeit -bogus 1")  # as IPython's getopt says it, no frames of ast
        self.assertEqual(bogus.ename, "UsageError")
        self.assertEqual(bogus.error["traceback"], ['UsageError: option -b not recognized ( allowed: "n:r:tcp:qo" )'])
        self.assertIn("function calls", self.run_cell("%prun sum(range(10))").stdout)
        # %prun is %run -p's profiler, as in IPython: -q prints no stats, -T and -D keep them in
        # files (-D takes its file: it was a flag, and the file became the statement), paths stripped
        quiet = self.run_cell("%prun -q -T prun.txt -D prun.prof sum(range(10))")
        self.assertEqual(
            quiet.stdout,
            " \n*** Profile stats marshalled to file 'prun.prof'.\n\n*** Profile printout saved to text file 'prun.txt'.\n",
        )
        with open(os.path.join(self.dir, "prun.txt"), encoding="utf-8") as printout:
            self.assertIn("4 function calls", printout.read())
        self.assertTrue(os.path.getsize(os.path.join(self.dir, "prun.prof")) > 0)
        cut = self.run_cell("%prun -l 2 -s calls sum(range(10))").stdout
        self.assertIn("List reduced from 4 to 2 due to restriction <2>", cut)
        self.assertNotIn("/", cut)
        # several sort keys, as pstats takes them; the kernel's own functions (a print's output
        # goes through them) are not the code's: IPython counts 4 calls for a print
        keys = self.run_cell("%prun -s calls -s time print('hi')").stdout
        self.assertIn("Ordered by: call count, internal time", keys)
        self.assertIn(" 4 function calls in ", keys)
        self.assertNotIn("omp_kernel", keys)
        self.assertNotIn("capture.py", keys)
        self.assertEqual(self.run_cell("%prun -l 1 -l 2 sum(range(3))").ename, None)


class UnknownOptions(MagicsTestCase):
    def test_an_unknown_option_is_named_as_ipython_names_it_and_nothing_happens(self):
        # (Before, `%save -z s 1` wrote -z.py, `%macro -z m 1` made a macro, `%psearch -z a*`
        # printed nothing.) The messages are IPython 8's, word for word.
        self.run_cell("a = 1")
        cases = {
            "%save -z s 1": '"fra" )',
            "%macro -z m 1": '"rq" )',
            "%rerun -z": '"l:g:" )',
            "%reset -z": '"sf" aggressive)',
            "%xdel -z a": '"n" )',
            "%psearch -z a*": '"cias:e:l" )',
            "%load -z x.py": '"yns:r:" )',
            "%timeit -z 1": '"n:r:tcp:qo" )',
        }
        self.assert_usage_errors({line: "option -z not recognized ( allowed: %s" % allowed for line, allowed in cases.items()})
        self.assertEqual(self.run_cell("a").plain, "1")

    def assert_usage_errors(self, cases):
        """Each code fails with its UsageError message, and no file is made."""
        for code, message in cases.items():
            with self.subTest(code=code):
                cell = self.run_cell(code)
                self.assertEqual((cell.ename, cell.error["evalue"]), ("UsageError", message))
        self.assertEqual(os.listdir(self.dir), [])

    def test_cell_magics_and_cd_name_an_unknown_option_as_ipython(self):
        cases = {
            "%%writefile -z f.txt\nhello\n": "unrecognized arguments: -z",  # (before: wrote "-z f.txt")
            "%%capture -z\nprint(1)\n": "unrecognized arguments: -z",  # (before: ran, silently)
            "%%capture a b\nprint(1)\n": "unrecognized arguments: b",
            "%%time -z\n1\n": "Can't use statement directly after '%%time'!",
            "%cd -z /tmp": 'option -z not recognized ( allowed: "qb" )',
            "%bookmark -z": 'option -z not recognized ( allowed: "drl" )',
            "%run -z x.py": 'option -z not recognized ( allowed: "nidtN:b:pD:l:rs:T:em:G" )',
            "%run -q x.py": 'option -q not recognized ( allowed: "nidtN:b:pD:l:rs:T:em:G" )',
        }
        self.assert_usage_errors(cases)
        self.run_cell("%load_ext storemagic")
        self.assertEqual(self.run_cell("%store -y").error["evalue"], 'option -y not recognized ( allowed: "drz" )')
        self.run_cell("%%writefile --append g.txt\nhello\n")
        self.assertEqual(self.run_cell("%%writefile -a g.txt\nmore\n").stdout, "Appending to g.txt\n")
        self.run_cell("%%writefile g.txt -a\nlast\n")  # (an option after the name, as argparse takes it)
        self.assertEqual(read(os.path.join(self.dir, "g.txt")), "hello\nmore\nlast\n")
        self.run_cell("%%writefile 'a  b.txt'\nx\n")  # (a quoted name keeps its two spaces)
        self.assertTrue(os.path.isfile(os.path.join(self.dir, "a  b.txt")))
        extra = self.run_cell("%%writefile f.txt extra\nx\n")
        self.assertEqual(extra.error["evalue"], "unrecognized arguments: extra")
        self.assertEqual(sorted(os.listdir(self.dir)), ["a  b.txt", "g.txt"])
        # A long option no magic knows is named whole.
        self.assertEqual(self.run_cell("%reset --foo").error["evalue"], 'option --foo not recognized ( allowed: "sf" aggressive)')

    def test_psearch_i_and_a_and_load_n(self):
        self.assertEqual(self.run_cell("%psearch int.__ad*").stdout, "int.__add__\n")  # (dunders show)
        self.assertIn("not supported here", self.run_cell("%psearch -l").error["evalue"])
        self.run_cell("Alpha = 1; _hidden = 2")
        self.assertEqual(self.run_cell("%psearch alp*").stdout, "")
        self.assertEqual(self.run_cell("%psearch -i alp*").stdout, "Alpha\n")
        self.assertNotIn("_hidden", self.run_cell("%psearch _h*").stdout)
        self.assertEqual(self.run_cell("%psearch -a _hid*").stdout, "_hidden\n")
        with open(os.path.join(self.dir, "x.py"), "w") as handle:
            handle.write("loaded = 5\n")
        self.run_cell("%load -n x.py")  # (-n is a flag, not the file's value)
        self.assertEqual(self.run_cell("loaded").plain, "5")

    def test_reset_aggressive_forgets_modules_imported_since_the_start(self):
        with open(os.path.join(self.dir, "fresh_mod.py"), "w") as handle:
            handle.write("value = 1\n")
        self.run_cell("import fresh_mod")
        self.assertEqual(self.run_cell("%reset -f -s --aggressive").stdout, "")  # (a hard reset only)
        out = self.run_cell("%reset -f --aggressive")
        self.assertEqual(out.stdout, "culling sys module...\n")
        self.assertEqual(self.run_cell("import sys; 'fresh_mod' in sys.modules, 'json' in sys.modules").plain, "(False, True)")
        # The kernel's own standard modules stay one copy: the source of a new cell's function is found.
        source = self.run_cell("def f():\n    return 1\nimport inspect\ninspect.getsource(f)")
        self.assertEqual(source.plain, "'def f():\\n    return 1\\n'")

    def test_history_options_anywhere_and_f_never_replaces_a_file_unasked(self):
        for code in ("a = 1", "b = 2", "c = 3"):
            self.run_cell(code)
        # (-l 2 before another option: the last two, as IPython's parser reads it)
        self.assertEqual(self.run_cell("%history -l 2 -n").stdout, "   2: b = 2\n   3: c = 3\n")
        with open(os.path.join(self.dir, "h.py"), "w") as handle:
            handle.write("keep\n")
        told = self.run_cell("%history -f h.py 1")
        self.assertIn("not replaced", told.stdout)
        no = self.run_cell("%history -f h.py 1", allow_stdin=True, answers=["n"])
        self.assertEqual((no.prompts, no.stdout), (["File 'h.py' exists. Overwrite? "], "Aborting.\n"))
        self.assertEqual(read(os.path.join(self.dir, "h.py")), "keep\n")
        self.run_cell("%history -f h.py 1", allow_stdin=True, answers=["y"])
        self.assertEqual(read(os.path.join(self.dir, "h.py")), "a = 1\n")

    def test_history_that_cannot_be_translated_is_saved_as_typed(self):
        self.run_cell("x = 1")
        self.run_cell("f(1)?")
        self.run_cell("%save -f out 1-2")
        self.assertEqual(read(os.path.join(self.dir, "out.py")), "# coding: utf-8\nx = 1\nf(1)?\n")
        self.assertEqual(self.run_cell("%history -3").stdout, "")  # (a range to IPython's parser)


class Capture(MagicsTestCase):
    def test_capture_keeps_result_shell_output_and_binds_on_error(self):
        self.run_cell("%%capture cap\nprint('out')\n!echo shell\ndisplay(42)\n7 * 6")
        self.assertEqual(self.run_cell("cap.stdout").plain, "'out\\nshell\\n'")
        self.assertEqual(self.run_cell("[o.data['text/plain'] for o in cap.outputs]").plain, "['42', '42']")
        failing = self.run_cell("%%capture bad\nprint('before')\n1/0")
        self.assertEqual(failing.ename, "ZeroDivisionError")
        self.assertEqual(self.run_cell("bad.stdout").plain, "'before\\n'")


class Files(MagicsTestCase):
    def test_load_goes_to_the_next_cell_in_the_notebook_and_runs_elsewhere(self):
        with open(os.path.join(self.dir, "lib.py"), "w") as handle:
            handle.write("v = 41 + 1\nv\n")
        notebook = self.run_cell("%load lib.py", allow_stdin=True)
        self.assertEqual(notebook.statuses[0]["op"], "set_next_input")
        self.assertIn("v = 41 + 1", notebook.statuses[0]["text"])
        self.assertEqual(self.run_cell("%load lib.py").plain, "42")

    def test_run_keeps_names_when_the_script_raises(self):
        with open(os.path.join(self.dir, "boom.py"), "w") as handle:
            handle.write("import sys\nkept = sys.argv[1:]\nraise RuntimeError('boom')\n")
        cell = self.run_cell("%run boom.py one two\nprint('after')")
        self.assertIsNone(cell.error)
        self.assertIn("RuntimeError: boom", cell.stderr)
        self.assertEqual(cell.stdout, "after\n")
        self.assertEqual(self.run_cell("kept").plain, "['one', 'two']")

    def test_run_in_the_namespace_a_sys_exit_and_a_notebook(self):
        def write(name, text):
            with open(os.path.join(self.dir, name), "w") as handle:
                handle.write(text)

        write("usesa.py", "print('sees a =', a)\nmade = a + 1\n")
        write("leaves.py", "import sys\nsys.exit(2)\n")
        self.run_cell("a = 1")
        # -i: the script sees the notebook's names, and its own stay (IPython's sees a = 1)
        self.assertEqual(self.run_cell("%run -i usesa.py").stdout, "sees a = 1\n")
        self.assertEqual(self.run_cell("made").plain, "2")
        self.assertIn("NameError", self.run_cell("%run usesa.py").stderr)
        # sys.exit(n) as IPython shows it after %run; -e shows nothing
        leaves = self.run_cell("%run leaves.py")
        self.assertIsNone(leaves.error)
        self.assertEqual(
            leaves.stderr, "An exception has occurred, use %tb to see the full traceback.\n\nSystemExit: 2\n"
        )
        self.assertEqual(self.run_cell("%run -e leaves.py").stderr, "")
        # A notebook: its code cells (a magic, a null count in its JSON), not its markdown, up to
        # the first error, in the notebook's namespace
        cells = [
            {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": ["b = a * 10\n", "%cd -q ."]},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": "print('nb cell', b)"},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": "1/0"},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": "never = 1"},
        ]
        write("nb.ipynb", json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        ran = self.run_cell("%run nb.ipynb\nprint('not after an error')")
        self.assertEqual(ran.stdout, "nb cell 10\n")
        self.assertEqual(ran.ename, "ZeroDivisionError")  # (the %run cell's error, as IPython's)
        self.assertEqual(self.run_cell("(b, 'never' in dir())").plain, "(10, False)")
        # The script's folder comes first on sys.path while it runs (a sibling module imports)
        os.makedirs(os.path.join(self.dir, "sub"))
        write("sub/helper.py", "VALUE = 'sibling'\n")
        write("sub/s.py", "import helper\nprint(helper.VALUE)\n")
        self.assertEqual(self.run_cell("%run sub/s.py").stdout, "sibling\n")
        self.assertFalse(self.run_cell("import sys; any(p.endswith('sub') for p in sys.path)").plain == "True")
        write("bad.ipynb", "{not json")
        self.assertIn("is not a notebook", self.run_cell("%run bad.ipynb").error["evalue"])

    def test_run_times_profiles_and_debugs_a_script_as_ipython(self):
        with open(os.path.join(self.dir, "s.py"), "w") as handle:
            handle.write("import sys\nprint('hi', sys.argv[1:])\ntotal = sum(range(1000))\n")
        # -t: IPython's report after the script's output; -N: that many runs
        timed = self.run_cell("%run -t s.py a")
        self.assertRegex(
            timed.stdout,
            r"^hi \['a'\]\n\nIPython CPU timings \(estimated\):\n  User   : +\d+\.\d\d s\.\n"
            r"  System : +\d+\.\d\d s\.\nWall time: +\d+\.\d\d s\.\n$",
        )
        many = self.run_cell("%run -tN3 s.py")
        self.assertEqual(many.stdout.count("hi []"), 3)
        self.assertIn("Total runs performed: 3\n  Times  :      Total      Per run\n", many.stdout)
        self.assertEqual(self.run_cell("%run -t -N0 s.py").stderr, "ERROR:root:Number of runs must be >=1\n")
        self.assertEqual(self.run_cell("total").plain, "499500")
        # -p: the profile, as %prun prints it; -r: the stats are the value; -D: the stats in a file
        profiled = self.run_cell("%run -p -s cumulative -l 4 s.py")
        self.assertIn("function calls", profiled.stdout)
        self.assertIn("Ordered by: cumulative time", profiled.stdout)
        self.assertIn("due to restriction <4>", profiled.stdout)
        self.run_cell("st = %run -p -r s.py")
        self.assertEqual(self.run_cell("type(st).__name__").plain, "'Stats'")
        dumped = self.run_cell("%run -p -D s.prof s.py")
        self.assertIn("*** Profile stats marshalled to file 's.prof'.", dumped.stdout)
        self.assertTrue(os.path.getsize(os.path.join(self.dir, "s.prof")) > 0)
        # -d: pdb from the script's first line (not the kernel's), then on to the -b breakpoint
        debugged = self.run_cell("%run -d -b 3 s.py", allow_stdin=True, answers=["c", "c"])
        self.assertIn("Breakpoint 1 at %s:3\n" % os.path.join(os.path.realpath(self.dir), "s.py"), debugged.stdout)
        self.assertRegex(debugged.stdout, r"s\.py\(1\)<module>\(\)\n-> import sys\n")
        self.assertRegex(debugged.stdout, r"hi \[\]\n> .*s\.py\(3\)<module>\(\)")
        # q leaves the debugger and the script, quietly (not with pdb's BdbQuit traceback)
        quit = self.run_cell("%run -d s.py\nprint('after')", allow_stdin=True, answers=["q"])
        self.assertEqual((quit.stderr, quit.error), ("", None))
        self.assertTrue(quit.stdout.endswith("-> import sys\nafter\n"))
        self.assertEqual(self.run_cell("%run -d -b x s.py", allow_stdin=True).ename, "UsageError")
        # (where a cell cannot ask for input, as in the eval tool, it says so instead of a traceback)
        asked = self.run_cell("%run -d s.py")
        self.assertEqual(asked.ename, "UsageError")
        self.assertIn("cannot ask for input", asked.error["evalue"])
        # -m MODULE: the words after it are the module's, options too; its exit(0) says nothing
        helped = self.run_cell("%run -m json.tool -h")
        self.assertIn("usage:", helped.stdout)
        self.assertIsNone(helped.error)
        self.assertEqual(helped.stderr, "")
        # the module's names are the cell's after it, profiled or timed too (as IPython's)
        with open(os.path.join(self.dir, "pmod.py"), "w") as handle:
            handle.write("pm_total = sum(range(10))\n")
        self.run_cell("import sys; sys.path.insert(0, %r)" % self.dir)
        for way, name in (("", "plain"), ("-p", "profiled"), ("-t", "timed")):
            self.run_cell("pm_total = None")
            ran = self.run_cell("%%run %s -m pmod" % way if way else "%run -m pmod")
            self.assertIsNone(ran.error, name)
            self.assertEqual(self.run_cell("pm_total").plain, "45", name)

    def test_autoreload_takes_a_changed_module_and_old_objects_see_it(self):
        path = os.path.join(self.dir, "amod.py")

        def write(version, bump):
            with open(path, "w") as handle:
                handle.write("def f():\n    return %d\n\nclass K:\n    def m(self):\n        return %d\n" % (version, version))
            os.utime(path, (1_000_000 + bump, 1_000_000 + bump))

        self.assertIn("`%autoreload` not found", self.run_cell("%autoreload 2").error["evalue"])
        write(1, 0)
        self.run_cell("%load_ext autoreload")
        self.run_cell("%autoreload 2")
        self.run_cell("import amod\nk = amod.K()\ng = amod.f")
        write(2, 10)
        self.assertEqual(self.run_cell("(amod.f(), g(), k.m())").plain, "(2, 2, 2)")
        # Again: what was taken before the first reload takes the third version too
        write(7, 20)
        self.assertEqual(self.run_cell("(amod.f(), g(), k.m())").plain, "(7, 7, 7)")
        # A module whose attributes raise neither stops this cell nor the next
        weird = self.run_cell(
            "import sys\nclass W:\n    def __getattr__(self, name):\n        raise RuntimeError(name)\n"
            "sys.modules['weird'] = W()"
        )
        self.assertIsNone(weird.error)
        self.assertEqual(self.run_cell("del sys.modules['weird']\n1").plain, "1")
        # A module that fails to load again: said, and the cell runs
        with open(path, "w") as handle:
            handle.write("def f(:\n")
        os.utime(path, (1_000_100, 1_000_100))
        broken = self.run_cell("print('ran')")
        self.assertIn("[autoreload of amod failed:]", broken.stderr)
        self.assertEqual(broken.stdout, "ran\n")
        # Mode 0: nothing reloads; %autoreload alone reloads at once
        write(3, 200)
        self.run_cell("%autoreload 0")
        write(4, 300)
        self.assertEqual(self.run_cell("amod.f()").plain, "3")
        self.run_cell("%autoreload")
        self.assertEqual(self.run_cell("amod.f()").plain, "4")
        self.run_cell("%aimport -amod")
        self.assertEqual(self.run_cell("%aimport").stdout, "Modules to reload:\n\n\nModules to skip:\namod\n")
        # Unloaded, it reloads nothing
        self.run_cell("%aimport amod")
        self.run_cell("%autoreload 2")
        self.run_cell("%unload_ext autoreload")
        write(5, 400)
        self.assertEqual(self.run_cell("amod.f()").plain, "4")

    def test_rerun_recall_and_load_take_inputs_of_the_history_as_ipython(self):
        self.run_cell("x = 20")
        self.run_cell("y = x + 1\ny")
        cell = self.run_cell("%rerun 2")
        self.assertEqual(cell.stdout, "=== Executing: ===\ny = x + 1\ny\n=== Output: ===\n")
        self.assertEqual(cell.plain, "21")
        self.assertEqual(self.run_cell("%rerun -g x +").plain, "21")
        self.assertEqual(self.run_cell("%rerun 99").stdout, "No lines in history match specification\n")
        self.run_cell("%rerun")
        self.assertEqual(self.run_cell("%rerun -l 2").ename, "UsageError")  # (it would run itself)
        # %recall and %load put the inputs into the next cell where one can be edited
        recalled = self.run_cell("%recall 2", allow_stdin=True).statuses
        self.assertEqual(recalled, [{"op": "set_next_input", "text": "y = x + 1\ny", "replace": False}])
        self.assertEqual(self.run_cell("%rep x", allow_stdin=True).statuses[0]["text"], "20")
        loaded = self.run_cell("%load 1", allow_stdin=True).statuses
        self.assertEqual(loaded, [{"op": "set_next_input", "text": "# %load 1\nx = 20", "replace": True}])
        # ... and elsewhere %recall prints them and %load runs them.
        self.assertEqual(self.run_cell("%recall 1").stdout, "x = 20\n")
        self.assertEqual(self.run_cell("%load 2").plain, "21")
        missing = self.run_cell("%load no_such_file.py")  # (IPython's ValueError and words)
        self.assertEqual(
            (missing.ename, missing.error["evalue"]),
            ("ValueError", "'no_such_file.py' was not found in history, as a file, url, nor in the user namespace."),
        )

    def test_history_macro_save_notebook(self):
        self.run_cell("a = 10")
        self.run_cell("a += 1")
        self.run_cell("print(a)")
        self.assertIn("Macro `m` created", self.run_cell("%macro m 2-3").stdout)
        self.assertEqual(self.run_cell("m").stdout, "12\n")
        self.assertIn("1: a = 10", self.run_cell("%history -n 1").stdout)
        # -l N: the last N inputs before this one; -g PATTERN: those that match it
        self.assertEqual(self.run_cell("%history -n -l 2").stdout, "   5: m\n   6: %history -n 1\n")
        self.assertEqual(self.run_cell("%hist -g a +").stdout, "a += 1\n")
        self.run_cell("%save out.py 1-2")
        self.assertEqual(read(os.path.join(self.dir, "out.py")), "# coding: utf-8\na = 10\na += 1\n")
        self.run_cell("%notebook nb.ipynb")
        saved = json.loads(read(os.path.join(self.dir, "nb.ipynb")))
        self.assertEqual(saved["nbformat"], 4)
        # (as IPython's: each input before this one with its number, a valid nbformat 4.5 notebook)
        self.assertEqual([c["execution_count"] for c in saved["cells"]], list(range(1, 10)))
        import nbformat  # (Debian's python3-nbformat, which CI installs with jupyter-server)

        nbformat.validate(nbformat.reads(read(os.path.join(self.dir, "nb.ipynb")), as_version=4))
        self.assertEqual(self.run_cell("%macro m nothing_like_this").stdout.strip()[:30], "'nothing_like_this' was not fo")
        self.run_cell("1/0")
        self.assertIn("ZeroDivisionError", self.run_cell("%tb").stderr)

    def test_save_writes_python_as_ipython_and_asks_before_replacing_a_file(self):
        # (IPython's %save: its history translated, -r as typed into .ipy, -f replaces unasked)
        self.run_cell("x = !echo a")
        self.run_cell("%who")
        self.run_cell("%save s 1-2")
        self.assertEqual(
            read(os.path.join(self.dir, "s.py")),
            "# coding: utf-8\nx = get_ipython().getoutput('echo a')\nget_ipython().run_line_magic('who', '')\n",
        )
        self.run_cell("%save -r s 1-2")
        self.assertEqual(read(os.path.join(self.dir, "s.ipy")), "# coding: utf-8\nx = !echo a\n%who\n")
        # An existing file: a cell without stdin (the tool) is told about -f, and nothing changes.
        told = self.run_cell("%save s 1")
        self.assertEqual(told.stdout, "File `s.py` exists. Use `%save -f s 1` to force overwrite\n")
        self.assertIn("run_line_magic('who'", read(os.path.join(self.dir, "s.py")))
        no = self.run_cell("%save s 1", allow_stdin=True, answers=["n"])
        self.assertEqual(no.prompts, ["File `s.py` exists. Overwrite (y/[N])? "])
        self.assertEqual(no.stdout, "Operation cancelled.\n")
        self.assertIn("run_line_magic('who'", read(os.path.join(self.dir, "s.py")))
        self.run_cell("%save s 1", allow_stdin=True, answers=["y"])
        self.assertNotIn("who", read(os.path.join(self.dir, "s.py")))
        self.run_cell("%save -f s 2")
        self.assertIn("who", read(os.path.join(self.dir, "s.py")))
        self.assertEqual(self.run_cell("%save").error["evalue"], "Missing filename.")

    def test_ranges_leave_out_numbers_never_run_here(self):
        # The notebook's one count: 2 and 4 were JavaScript cells, this kernel never ran them.
        self.run_cell("a = 1", cellNumber=1)
        self.run_cell("b = 2", cellNumber=3)
        self.run_cell("%save -f out.py 1-4", cellNumber=5)
        self.assertEqual(read(os.path.join(self.dir, "out.py")), "# coding: utf-8\na = 1\nb = 2\n")
        self.run_cell("%macro m 1-3", cellNumber=6)
        self.assertEqual(self.run_cell("print(repr(str(m)))", cellNumber=7).stdout, "'a = 1\\nb = 2\\n'\n")
        self.run_cell("%notebook nb.ipynb", cellNumber=8)
        cells = json.loads(read(os.path.join(self.dir, "nb.ipynb")))["cells"]
        self.assertEqual([(c["execution_count"], c["source"]) for c in cells][:2], [(1, "a = 1"), (3, "b = 2")])


class GetIPython(MagicsTestCase):
    def test_an_nbconvert_script_runs(self):
        cell = self.run_cell(
            "get_ipython().run_cell_magic('writefile', 'gi.txt', 'x\\n')\n"
            "get_ipython().run_line_magic('cd', '-q /')\n"
            "get_ipython().system('echo sys')\n"
            "out = get_ipython().getoutput('echo got')\n"
            "ip = get_ipython()\n"
            "ip.user_ns['pushed'] = 1\n"
            "(out, ip.run_line_magic('pwd', ''), pushed, ip.ev('1+1'), ip.find_line_magic('cd') is not None)"
        )
        self.assertEqual(cell.stdout, "Writing gi.txt\nsys\n")
        self.assertEqual(cell.plain, "(['got'], '/', 1, 2, True)")
        self.assertEqual(self.run_cell("get_ipython().magic('who_ls')").plain, "['ip', 'out', 'pushed']")


class ShellObject(MagicsTestCase):
    def test_the_rest_of_get_ipython(self):
        cell = self.run_cell(
            "ip = get_ipython()\nwho = 'w'\nip.push('who')\nip.push({'pushed': 2}, interactive=False)\n"
            "ip.ex('made = 3')\nip.set_next_input('next')\n"
            "(repr(ip), ip.execution_count, 'pushed' in ip.user_ns_hidden, made, ip.find_magic('timeit', 'cell') is not None,"
            " ip.find_cell_magic('bash') is not None, ip.display_formatter.format(1), ip.display_formatter.formatters['text/plain'](1.5),"
            " ip.user_global_ns is ip.user_ns)"
        )
        expected = "('<omp-eval kernel shell>', 2, True, 3, True, True, ({'text/plain': '1'}, {}), '1.5', True)"
        self.assertEqual(" ".join(cell.plain.split()), expected)  # the pretty printer wraps it
        self.assertEqual(cell.statuses[0], {"op": "set_next_input", "text": "next", "replace": False})
        self.assertEqual(self.run_cell("get_ipython().run_cell('40 + 2')").displays[0]["bundle"]["text/plain"], "42")
        self.assertEqual(self.run_cell("get_ipython().ask_yes_no('ok?')", allow_stdin=True, answers=["y"]).plain, "True")
        self.assertEqual(self.run_cell("get_ipython().ask_yes_no('ok?')").ename, "StdinNotImplementedError")
        self.run_cell("def cm(line, cell):\n    return line + cell\nget_ipython().register_magic_function(cm, 'cell')")
        self.assertEqual(self.run_cell("%%cm a\nb").plain, "'ab\\n'")
        self.assertEqual(self.run_cell("f = get_ipython().display_formatter.formatters['text/plain']\nf.pprint = False\nf.pprint").plain, "False")


class Extensions(MagicsTestCase):
    def test_session_magics(self):
        self.assertEqual(self.run_cell("%doctest_mode").stdout, "Exception reporting mode: Plain\nDoctest mode is: ON\n")
        self.assertEqual(self.run_cell("%alias_magic t timeit").stdout.count("Created"), 2)
        self.assertEqual(self.run_cell("%precision 2\n3.14159").plain, "3.14")
        self.assertEqual(self.run_cell("%pprint").stdout, "Pretty printing has been turned OFF\n")
        self.assertEqual(self.run_cell("%load_ext no_such_extension_x").ename, "ModuleNotFoundError")
        self.assertEqual(self.run_cell("%config").ename, "UsageError")
        with open(os.path.join(self.dir, "ext_x.py"), "w") as handle:
            handle.write("def load_ipython_extension(ip):\n    ip.user_ns['loaded'] = True\n")
        self.run_cell("import sys; sys.path.insert(0, '.')\n%load_ext ext_x")
        self.assertEqual(self.run_cell("loaded").plain, "True")

    def test_store(self):
        store = os.path.join(self.dir, "xdg")
        self.run_cell("import os\nos.environ['XDG_DATA_HOME'] = %r" % store)
        self.run_cell("%load_ext storemagic")
        self.run_cell("kept = 42\n%store kept")
        self.run_cell("kept = 0\n%store -r kept")
        self.assertEqual(self.run_cell("kept").plain, "42")
        self.assertIn("kept", self.run_cell("%store").stdout)
        self.run_cell("%store -z")
        self.assertEqual(self.run_cell("%store").stdout, "Stored variables and their in-db values:\n")


if __name__ == "__main__":
    unittest.main()
