"""The plain-text layout of results, in-process: IPython's forms and line breaking."""
import collections
import os
import re
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "py"))
from omp_kernel.pretty import Call, Printer, Raw, pretty  # noqa: E402


class Plain(object):
    pass


class WithRepr(object):
    def __repr__(self):
        return "first\nsecond"


def f(x, y=2):
    return x


def addresses(text):
    return re.sub(r"0x[0-9a-f]+", "0x", text)


class Layout(unittest.TestCase):
    def test_short_containers_stay_on_one_line(self):
        self.assertEqual(pretty([1, (2,), {3: "a"}, {4}]), "[1, (2,), {3: 'a'}, {4}]")
        self.assertEqual(pretty(frozenset()), "frozenset()")
        self.assertEqual(pretty(set()), "set()")

    def test_long_containers_break_at_their_outermost_group(self):
        self.assertEqual(pretty(list(range(30))), "[0,\n 1,\n 2,\n 3,\n 4,\n 5,\n 6,\n 7,\n 8,\n 9,\n 10,\n 11,\n 12,\n 13,\n 14,\n 15,\n 16,\n 17,\n 18,\n 19,\n 20,\n 21,\n 22,\n 23,\n 24,\n 25,\n 26,\n 27,\n 28,\n 29]")
        nested = {"key": ["x" * 30, "y" * 30], "other": 1}
        self.assertEqual(pretty(nested), "{'key': ['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'],\n 'other': 1}")

    def test_sets_are_sorted_and_sequences_are_cut_at_max_seq_length(self):
        self.assertEqual(pretty({3, 1, 2}), "{1, 2, 3}")
        self.assertEqual(pretty(list(range(5)), max_seq_length=2), "[0, 1, ...]")

    def test_cycles(self):
        loop = [1]
        loop.append(loop)
        self.assertEqual(pretty(loop), "[1, [...]]")
        d = {}
        d["me"] = d
        self.assertEqual(pretty(d), "{'me': {...}}")

    def test_objects_classes_functions_exceptions(self):
        self.assertRegex(pretty(Plain()), r"^<__main__\.Plain at 0x[0-9a-f]+>$|^<test_pretty\.Plain at 0x[0-9a-f]+>$")
        self.assertEqual(pretty(WithRepr()), "first\nsecond")
        self.assertIn(pretty(Plain), ("__main__.Plain", "test_pretty.Plain"))
        self.assertEqual(pretty(int), "int")
        self.assertIn(pretty(f), ("<function __main__.f(x, y=2)>", "<function test_pretty.f(x, y=2)>"))
        self.assertEqual(pretty(len), "<function len(obj, /)>")
        self.assertEqual(pretty(ValueError("bad", 2)), "ValueError('bad', 2)")
        self.assertEqual(pretty(types.SimpleNamespace(a=1)), "namespace(a=1)")
        self.assertEqual(pretty(re.compile(r"\s+", re.I)), "re.compile(r'\\s+', re.IGNORECASE|re.UNICODE)")
        self.assertEqual(pretty(re.compile("a")), "re.compile(r'a', re.UNICODE)")
        self.assertEqual(pretty(range(3)), "range(0, 3)")
        self.assertTrue(pretty(super(WithRepr, WithRepr())).startswith("<super: "))

    def test_collections(self):
        self.assertEqual(pretty(collections.OrderedDict(a=1)), "OrderedDict([('a', 1)])")
        self.assertEqual(pretty(collections.OrderedDict()), "OrderedDict()")
        self.assertEqual(pretty(collections.defaultdict(list, {"a": [1]})), "defaultdict(list, {'a': [1]})")
        self.assertEqual(pretty(collections.deque([1], maxlen=3)), "deque([1], maxlen=3)")
        self.assertEqual(pretty(collections.Counter("aab")), "Counter({'a': 2, 'b': 1})")
        self.assertEqual(pretty(collections.Counter()), "Counter()")
        self.assertEqual(pretty(collections.UserList([1])), "UserList([1])")
        self.assertTrue(pretty(os.environ).startswith("environ{"))

    def test_float_format_and_verbose(self):
        self.assertEqual(pretty(3.14159, float_format="%.2f"), "3.14")
        obj = Plain()
        obj.size = 3
        self.assertIn("size=3", addresses(pretty(obj, verbose=True)))


class Api(unittest.TestCase):
    """The printer API a _repr_pretty_ method uses."""

    def test_repr_pretty_with_groups_indent_and_breaks(self):
        class Tree(object):
            def _repr_pretty_(self, p, cycle):
                with p.group(2, "Tree(", ")"):
                    p.text("a")
                    p.break_()
                    with p.indent(2):
                        p.pretty(Raw("b"))
                    p.breakable()
                    p.pretty(Call("node", 1, key="v" * 80))

        self.assertEqual(pretty(Tree()), "Tree(a\n  b\n  node(1,\n       key='%s'))" % ("v" * 80))

    def test_a_printer_can_be_driven_directly(self):
        import io

        out = io.StringIO()
        printer = Printer(out, max_width=10)
        printer.begin_group(1, "[")
        for i in range(6):
            if i:
                printer.text(",")
                printer.breakable()
            printer.text(str(i))
        printer.end_group(1, "]")
        printer.flush()
        self.assertEqual(out.getvalue(), "[0,\n 1,\n 2,\n 3,\n 4,\n 5]")


if __name__ == "__main__":
    unittest.main()
