"""The magic transformer: what it rewrites, and everything it must leave alone."""
import ast
import pathlib
import sys
import sysconfig
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "src" / "py"))
from omp_kernel.transform import ipython_form, transform  # noqa: E402


class Rewrites(unittest.TestCase):
    cases = [
        ("%pwd", "__omp_magic__('pwd', '')"),
        ("%cd  /tmp ", "__omp_magic__('cd', ' /tmp')"),
        ("!ls -la", "__omp_system__('ls -la')"),
        ("files = !ls *.py", "files = __omp_getoutput__('ls *.py')"),
        ("!!ls", "__omp_getoutput__('ls')"),
        ("a, *rest = !ls", "a, *rest = __omp_getoutput__('ls')"),
        ("a, b = %who_ls", "a, b = __omp_magic__('who_ls', '')"),
        ("x.y = %pwd", "x.y = __omp_magic__('pwd', '')"),
        ("obj?", "__omp_magic__('pinfo', 'obj')"),
        ("np.array??", "__omp_magic__('pinfo2', 'np.array')"),
        ("?len", "__omp_magic__('pinfo', 'len')"),
        ("%reset?", "__omp_magic__('pinfo', '%reset')"),
        ("a = b + c?", "__omp_magic__('pinfo', 'c')"),
        ("dict.fr*?", "__omp_magic__('psearch', 'dict.fr*')"),
        ("π.is_integ*?", "__omp_magic__('psearch', 'π.is_integ*')"),
        ("?", "__omp_show_usage__()"),
        (",f 1 2 3", 'f("1", "2", "3")'),
        (";f 1 2 3", 'f("1 2 3")'),
        ("/f 1 2 3", "f(1, 2, 3)"),
        ("!echo \"it's\" '$HOME'", "__omp_system__('echo \"it\\'s\" \\'$HOME\\'')"),
    ]

    def test_line_forms(self):
        for source, expected in self.cases:
            with self.subTest(source=source):
                self.assertEqual(transform(source), expected)

    def test_indented_magics_keep_their_block(self):
        self.assertEqual(
            transform("if x:\n    !echo hi\nelse:\n    y = %pwd"),
            "if x:\n    __omp_system__('echo hi')\nelse:\n    y = __omp_magic__('pwd', '')",
        )

    def test_cell_magic_owns_the_rest_of_the_cell_and_keeps_line_count(self):
        source = "\n%%time -v\nx = 1\n\ny = %pwd\n"
        out = transform(source)
        self.assertEqual(out.count("\n"), source.count("\n"))
        self.assertEqual(out.split("\n")[1], "__omp_cell_magic__('time', '-v', 'x = 1\\n\\ny = %pwd\\n', 3)")

    def test_backslash_continuation_of_a_magic(self):
        out = transform("!echo one \\\n  two\nz = 1")
        self.assertEqual(out, "__omp_system__('echo one    two')\n\nz = 1")

    def test_output_is_valid_python_with_the_same_line_numbers(self):
        source = "a = 1\n%time b = 2\n!true\nc = 3"
        out = transform(source)
        tree = ast.parse(out)
        self.assertEqual([node.lineno for node in tree.body], [1, 2, 3, 4])


class IPythonSpelling(unittest.TestCase):
    """ipython_form (In as IPython keeps it, %history -t) against IPython's own transformer."""

    def test_every_rewrite_reads_as_ipython_translates_it(self):
        try:
            from IPython.core.inputtransformer2 import TransformerManager
        except ImportError:
            self.fail("IPython is the oracle here: run the Python tests with Debian's /usr/bin/python3")
        manager = TransformerManager()
        # (Autocall, `,f 1 2`, is IPython's prefilter's, not its transformer's.)
        sources = [source for source, _ in Rewrites.cases if source[0] not in ",;/"] + [
            "if x:\n    !echo hi\nelse:\n    y = %pwd",
            "%%bash\necho b",
            "%%timeit -n1\nx = 1\ny = 2",
            "a = 1\n%who\nb = 2",
            "def f():\n    %cd /tmp\n    return 1",
        ]
        for source in sources:
            with self.subTest(source=source):
                self.assertEqual(ipython_form(source).rstrip("\n"), manager.transform_cell(source).rstrip("\n"))


class LeavesAlone(unittest.TestCase):
    untouched = [
        "x = 10 % 3",
        "print('%d items' % n)",
        "a != b",
        "if a != b:\n    pass",
        "s = '''\n%pwd\n!ls\n'''",
        's = """\n  %cd /\n"""',
        "# %who\n# !rm -rf /",
        "x = (1,\n     % 2)",
        "y = 1 \\\n    % 2",
        "z = f'{a!r}'",
        "d = {'k': 1}\n[i for i in d if i]",
        "x = 1  # is this right?",
        "q = 'what?'",
        "a = b if c else d",
        "print(a !=b)",
        "value = data['%x']",
    ]

    def test_plain_python_is_returned_as_is(self):
        for source in self.untouched:
            with self.subTest(source=source):
                self.assertIs(transform(source), source)

    def test_standard_library_sources_come_back_unchanged(self):
        root = pathlib.Path(sysconfig.get_paths()["stdlib"])
        files = sorted(root.rglob("*.py"))[:3000]
        self.assertGreater(len(files), 100)
        for path in files:
            source = path.read_text(encoding="utf-8", errors="replace")
            with self.subTest(file=path.name):
                self.assertEqual(transform(source), source)


if __name__ == "__main__":
    unittest.main()
