"""Queries the host makes between cells: dictionary keys in completions (against IPython's own
completer where IPython is installed), the `variables` request, and the front end's cell number
in tracebacks."""
import os
import re
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "py"))
from kernel_process import Kernel  # noqa: E402
from omp_kernel import complete, variables  # noqa: E402

NAMESPACE = {"d": {"alpha": 1, "alpine": 2, "beta": 3, 5: 0, b"by": 1, "it's": 4}, "n": 1}
CASES = ['d["al', 'd["', "d[", "d['al", 'x = d["al', 'd[b"b', 'd["it', "d['it", 'print(d["be']


def full(code):
    matches, start = complete.completions(code, len(code), dict(NAMESPACE))
    return sorted(code[:start] + m for m in matches)


class KeyCompletion(unittest.TestCase):
    def test_keys_inside_a_string_with_the_closing_quote_and_bracket(self):
        self.assertEqual(full('d["al'), ['d["alpha"]', 'd["alpine"]'])
        self.assertEqual(full("d['it"), ["d['it\\'s']"])
        self.assertEqual(full('d[b"b'), ['d[b"by"]'])
        self.assertEqual(full("d["), ['d["it\'s"]', "d['alpha']", "d['alpine']", "d['beta']", "d[b'by']"])

    def test_what_follows_the_cursor_is_not_typed_again(self):
        code = 'd["al"]'
        self.assertEqual(complete.completions(code, 5, dict(NAMESPACE)), (["alpha", "alpine"], 3))
        self.assertEqual(complete.completions('d["al]', 5, dict(NAMESPACE))[0], ['alpha"', 'alpine"'])

    def test_not_a_key_when_no_string_is_open_or_the_value_has_no_keys(self):
        self.assertIsNone(complete.key_completions("d[al", 4, NAMESPACE))
        self.assertIsNone(complete.key_completions('n["a', 4, NAMESPACE))
        self.assertIsNone(complete.key_completions('missing["a', 10, NAMESPACE))

    def test_agrees_with_ipythons_completer(self):
        try:
            from IPython.core.interactiveshell import InteractiveShell
        except ImportError:
            self.skipTest("IPython is not installed in this Python")
        shell = InteractiveShell.instance()
        shell.user_ns.update(NAMESPACE)
        for code in CASES:
            self.assertEqual(full(code), sorted(shell.complete(code)[1]), code)


class MagicAndPathCompletion(unittest.TestCase):
    """Magic names after `%`, paths in a magic's or a command's argument and in a string: through
    the kernel's complete request, and the same as IPython's completer where it is installed."""

    @classmethod
    def setUpClass(cls):
        import tempfile

        cls.dir = tempfile.mkdtemp(prefix="omp-complete-")
        os.mkdir(os.path.join(cls.dir, "datadir"))
        for name in ("data.csv", "dance.py"):
            open(os.path.join(cls.dir, name), "w").close()
        os.mkdir(os.path.join(cls.dir, "my dir"))
        open(os.path.join(cls.dir, "my dir", "a b.py"), "w").close()
        cls.kernel = Kernel()
        cls.kernel.run("d = {'alpha': 1}")

    @classmethod
    def tearDownClass(cls):
        cls.kernel.close()

    def cases(self):
        base = self.dir + "/da"
        every = [base + "nce.py", base + "ta.csv", base + "tadir/"]
        return {
            "%ti": ["%time", "%%time", "%timeit", "%%timeit"],
            "%%ti": ["%%time", "%%timeit"],
            "!ls " + base: every,
            "x = !ls -l " + base: every,
            "%cd " + base: [base + "tadir/"],
            "%run " + base: [base + "nce.py", base + "tadir/"],
            'open("' + base: every,
            # A space in a command's argument is escaped, as a shell reads it; in a string it is not.
            "!ls " + self.dir + "/my": [self.dir + "/my\\ dir/"],
            "!ls " + self.dir + "/my\\ dir/a": [self.dir + "/my\\ dir/a\\ b.py"],
            'open("' + self.dir + "/my": [self.dir + "/my dir/"],
        }

    def complete(self, code):
        reply = self.kernel.request({"type": "complete", "id": "q", "code": code, "cursor": len(code)}, "complete_reply")
        return reply["matches"], reply["start"]

    def test_magics_and_paths(self):
        for code, expected in self.cases().items():
            matches, start = self.complete(code)
            self.assertEqual(matches, expected, code)
            typed = re.search(r'(?:\\.|[^\s\\"])*$', code).group(0)
            self.assertEqual(start, len(code) - len(typed), code)

    def test_ordinary_code_still_completes_names(self):
        # f-string expressions, escaped quotes, `!=` and `%` inside brackets, `$name` in a command,
        # a magic's argument that no file matches: names, not paths or magics.
        ns = {"os": os, "x": "s", "b": 1, "variable": 2}
        magics = lambda: (["xdel", "time"], ["time"], {"time"})  # noqa: E731
        for code, name in [
            ('f"{os.pa', "os.path"),
            ("print(f'{x.up", "x.upper"),
            ("print('it\\'s', x.up", "x.upper"),
            ("if (x\n    != b", "b"),
            ("y = (x\n    %b", "b"),
            ("!echo $variab", "variable"),
            ("%xdel variab", "variable"),
        ]:
            with self.subTest(code=code):
                cwd = os.getcwd()
                os.chdir(self.dir)
                try:
                    matches = complete.completions(code, len(code), ns, magics)[0]
                finally:
                    os.chdir(cwd)
                self.assertTrue(any(m.split(".")[-1].startswith(name.split(".")[-1]) for m in matches), matches)
                self.assertFalse(any("/" in m or m.startswith("%") for m in matches), matches)

    def test_cd_and_ls_take_a_path_as_tab_wrote_it(self):
        k = Kernel()
        self.addCleanup(k.close)
        self.assertEqual(k.run("%ls " + self.dir + "/my\\ dir").plain, "['a b.py']")
        k.run("%cd -q " + self.dir + "/my\\ dir")
        self.assertEqual(k.run("import os; os.getcwd()").plain, repr(os.path.join(self.dir, "my dir")))
        k.run('%cd -q "' + self.dir + '"')
        self.assertEqual(k.run("os.getcwd()").plain, repr(self.dir))

    def test_a_directory_of_many_files_still_offers_its_directories(self):
        import tempfile

        folder = tempfile.mkdtemp(prefix="omp-many-")
        for n in range(250):
            open(os.path.join(folder, "a%d.txt" % n), "w").close()
        os.mkdir(os.path.join(folder, "zdir"))
        code = "%cd " + folder + "/"
        self.assertEqual(self.complete(code)[0], [folder + "/zdir/"])

    def test_names_in_a_magic_whose_argument_is_code_and_keys_still(self):
        self.assertTrue(any(m.startswith("d.keys") for m in self.complete("%timeit d.ke")[0]))
        self.assertEqual(self.complete('d["al')[0], ['alpha"]'])

    def test_agrees_with_ipythons_completer(self):
        try:
            from IPython.core.interactiveshell import InteractiveShell
        except ImportError:
            self.skipTest("IPython is not installed in this Python")
        shell = InteractiveShell.instance()
        for code, expected in self.cases().items():
            if code.startswith("%run"):
                continue  # (IPython's lists .py files only by a relative name)
            if "\\ " in code:
                continue  # (IPython's splitter stops at the backslash: nothing past an escaped space)
            if "\\ " in expected[0] and expected[0].endswith("/"):
                # (IPython asks isdir() of the escaped name, `my\ dir`, and so leaves its `/` off)
                expected = [expected[0][:-1]]
            self.assertEqual(shell.complete("", code, len(code))[1], expected, code)


class Variables(unittest.TestCase):
    def test_names_types_summaries_and_shapes_as_whos(self):
        class Matrix(object):
            shape = (2, 3)

            def __str__(self):
                return "matrix"

        class Broken(object):
            def __str__(self):
                raise ValueError("no")

        ns = {"a": [1, 2], "m": Matrix(), "s": "x" * 80, "b": Broken(), "_private": 1, "hidden": 2}
        described, total = variables.list_variables(ns, {"hidden": 2}, 10)
        self.assertEqual(total, 4)
        by_name = {v["name"]: v for v in described}
        self.assertEqual(sorted(by_name), ["a", "b", "m", "s"])
        self.assertEqual(by_name["a"], {"name": "a", "type": "list", "summary": "n=2"})
        self.assertEqual(by_name["m"]["shape"], [2, 3])
        self.assertEqual(by_name["s"]["summary"], "x" * 25 + "<...>" + "x" * 25)
        self.assertIn("str() failed", by_name["b"]["summary"])
        self.assertEqual(len(variables.list_variables(ns, {}, 2)[0]), 2)

    def test_the_request_lists_the_users_names_and_leaves_no_trace(self):
        k = Kernel()
        self.addCleanup(k.close)
        k.run("import json\ndata = {'a': [1, 2, 3]}\nn = 41")
        reply = k.request({"type": "variables", "id": "v", "limit": 50}, "variables_reply")
        names = ["%s:%s:%s" % (v["name"], v["type"], v["summary"]) for v in reply["variables"]]
        self.assertEqual([names[0], names[2]], ["data:dict:n=1", "n:int:41"])
        self.assertTrue(names[1].startswith("json:module:<module 'json'"))
        self.assertEqual(k.run("_i").plain, "\"import json\\ndata = {'a': [1, 2, 3]}\\nn = 41\"")
        bad = k.request({"type": "variables", "id": "w", "limit": "all"}, "variables_reply")
        self.assertEqual(bad["ename"], "ProtocolError")

    def test_a_summary_that_never_returns_is_skipped_and_the_others_listed(self):
        # issue 42, item 9: one hanging __str__ gave up on every name
        class Hangs(object):
            def __str__(self):
                time.sleep(3600)

        class Spins(object):
            def __str__(self):
                try:
                    time.sleep(3600)
                except BaseException:  # swallows the first deadline: the next one ends it
                    pass
                time.sleep(3600)

        ns = {"a": 1, "hang": Hangs(), "m": "middle", "spin": Spins(), "z": [1]}
        described, total = variables.list_variables(ns, {}, 10, name_timeout=0.2)
        self.assertEqual(total, 5)
        by_name = {v["name"]: v for v in described}
        self.assertEqual([by_name[n]["summary"] for n in ("a", "m", "z")], ["1", "middle", "n=1"])
        for name, kind in (("hang", "Hangs"), ("spin", "Spins")):
            self.assertEqual(by_name[name]["type"], kind)
            self.assertTrue(by_name[name]["skipped"])
            self.assertEqual(by_name[name]["summary"], "<skipped: its summary took longer than 0.2 s>")
        self.assertNotIn("skipped", by_name["a"])

    def test_names_left_when_the_listing_runs_out_of_time_are_skipped_unread(self):
        class Hangs(object):
            def __str__(self):
                time.sleep(3600)

        ns = dict(("h%d" % i, Hangs()) for i in range(5))
        ns["last"] = 1
        described, _ = variables.list_variables(ns, {}, 10, name_timeout=0.2, timeout=0.3)
        self.assertEqual(len(described), 6)
        self.assertTrue(all(v["skipped"] for v in described))
        self.assertIn("ran out of time", described[-1]["summary"])

    def test_the_users_alarm_and_handler_are_put_back(self):
        seen = []
        previous = signal.signal(signal.SIGALRM, lambda *_: seen.append(1))
        self.addCleanup(signal.signal, signal.SIGALRM, previous)
        self.addCleanup(signal.setitimer, signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_REAL, 30)
        variables.list_variables({"a": 1}, {}, 10, name_timeout=0.2)
        self.assertEqual(seen, [])
        self.assertGreater(signal.getitimer(signal.ITIMER_REAL)[0], 20)
        self.assertIsNotNone(signal.getsignal(signal.SIGALRM))
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        while not seen:
            time.sleep(0.01)

    def test_the_request_takes_the_per_name_deadline(self):
        k = Kernel()
        self.addCleanup(k.close)
        k.run("import time\nclass Slow:\n    def __repr__(self):\n        time.sleep(3600)\nslow = Slow()\nok = 2")
        request = {"type": "variables", "id": "v", "limit": 50, "nameTimeoutMs": 200, "timeoutMs": 5000}
        reply = k.request(request, "variables_reply")
        listed = dict((v["name"], v) for v in reply["variables"])
        self.assertEqual(listed["ok"]["summary"], "2")
        self.assertTrue(listed["slow"]["skipped"])
        self.assertEqual(k.run("ok + 1").plain, "3")
        bad = k.request({"type": "variables", "id": "w", "nameTimeoutMs": 0.5}, "variables_reply")
        self.assertEqual(bad["ename"], "ProtocolError")


class CellNumber(unittest.TestCase):
    def test_tracebacks_name_the_front_ends_number(self):
        k = Kernel()
        self.addCleanup(k.close)
        cell = k.run("1/0", cellNumber=7)
        self.assertTrue(any("Cell In[7], line 1" in line for line in cell.error["traceback"]))
        cell = k.run("1/0")
        self.assertTrue(any("Cell In[8], line 1" in line for line in cell.error["traceback"]))

    def test_a_syntax_error_of_the_compilers_later_passes_shows_its_line_and_caret(self):
        # as python shows it for a file: the line is read from the cell's source
        k = Kernel()
        self.addCleanup(k.close)
        cell = k.run("x = 1\nreturn x", cellNumber=3)
        self.assertEqual(cell.error["ename"], "SyntaxError")
        self.assertEqual(
            cell.error["traceback"],
            ["  Cell In[3], line 2", "    return x", "    ^^^^^^^^", "SyntaxError: 'return' outside function"],
        )

    def test_out_in_and_underscore_names_follow_the_front_ends_number(self):
        # The notebook's [n] goes on after a restart and over js cells: Out[n] is what it showed.
        k = Kernel()
        self.addCleanup(k.close)
        self.assertEqual(k.run("6 * 7", cellNumber=11).done["executionCount"], 11)
        self.assertEqual(k.run("(Out[11], _11, In[11], len(In))", cellNumber=12).plain, "(42, 42, '6 * 7', 13)")
        self.assertEqual(k.run("In[5]", cellNumber=13).plain, "''")
        # never back: a lower number keeps the kernel's own count
        self.assertEqual(k.run("1", cellNumber=3).done["executionCount"], 14)


if __name__ == "__main__":
    unittest.main()
