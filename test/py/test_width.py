"""width.py: the notebook's width told to pandas (a stand-in module with pandas' option calls)."""
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "py"))
from omp_kernel import width  # noqa: E402


def fake_pandas(start=80):
    options = {"display.width": start}
    module = types.ModuleType("pandas")
    module.get_option = options.__getitem__
    module.set_option = options.__setitem__
    return module, options


class WidthTest(unittest.TestCase):
    def setUp(self):
        width._state.update(columns=None, told=None)
        self.saved = sys.modules.get("pandas")

    def tearDown(self):
        if self.saved is None:
            sys.modules.pop("pandas", None)
        else:
            sys.modules["pandas"] = self.saved
        width._state.update(columns=None, told=None)

    def test_columns_from(self):
        self.assertEqual(width.columns_from(" 120 "), 120)
        for bad in ("", "0", "-3", "wide", "1.5"):
            self.assertIsNone(width.columns_from(bad))

    def test_no_width_sent_tells_nothing(self):
        pandas, options = fake_pandas()
        width.tell_pandas(pandas)
        width.front_end_sent({"OTHER": "1"})
        width.tell_pandas(pandas)
        self.assertEqual(options["display.width"], 80)

    def test_width_sent_before_and_after_import(self):
        width.front_end_sent({"COLUMNS": "120"})  # pandas not imported yet
        pandas, options = fake_pandas()
        width.tell_pandas(pandas)  # as it loads
        self.assertEqual(options["display.width"], 120)
        sys.modules["pandas"] = pandas
        width.front_end_sent({"COLUMNS": "90"})  # resized
        self.assertEqual(options["display.width"], 90)

    def test_the_users_width_is_kept(self):
        pandas, options = fake_pandas()
        sys.modules["pandas"] = pandas
        width.front_end_sent({"COLUMNS": "120"})
        options["display.width"] = 100  # the user's choice
        width.front_end_sent({"COLUMNS": "140"})
        self.assertEqual(options["display.width"], 100)

    def test_not_pandas_after_all(self):
        width.front_end_sent({"COLUMNS": "120"})
        width.tell_pandas(types.ModuleType("pandas"))  # no options: nothing happens


if __name__ == "__main__":
    unittest.main()
