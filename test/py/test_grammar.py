"""The Python side must run on Python 3.8: its files parse with the 3.8 grammar."""
import ast
import pathlib
import unittest

SRC = pathlib.Path(__file__).resolve().parents[2] / "src" / "py"


class Python38Grammar(unittest.TestCase):
    def test_files_parse_as_python_3_8(self):
        files = sorted(SRC.rglob("*.py"))
        names = [str(f.relative_to(SRC)) for f in files]
        self.assertIn("runner.py", names)
        self.assertIn("omp_kernel/server.py", names)
        self.assertIn("omp_kernel/magics/__init__.py", names)
        for path in files:
            with self.subTest(path=str(path.relative_to(SRC))):
                ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 8))

    def test_a_newer_construct_is_rejected(self):
        # Guards the guard: feature_version really checks the grammar here (on every Python).
        with self.assertRaises(SyntaxError):
            ast.parse("match x:\n    case 1:\n        pass\n", feature_version=(3, 8))


if __name__ == "__main__":
    unittest.main()
