"""Rich output in a real kernel (issue 15 item 4): IPython.display routed to the kernel's display,
_repr_pretty_, _ipython_display_, metadata, (data, metadata) tuples, clear_output(wait=), figures."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_process import Kernel, has_module  # noqa: E402

PNG_2x3 = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEElEQVR4nGNgYGD4z4AKAAH+AQHx3/eRAAAAAElFTkSuQmCC"


class Display(unittest.TestCase):
    def setUp(self):
        self.k = Kernel()
        self.addCleanup(self.k.close)

    def test_repr_pretty_and_ipython_display(self):
        cell = self.k.run(
            "class P:\n    def _repr_pretty_(self, p, cycle):\n        with p.group(1, '<', '>'):\n"
            "            p.text('pretty'); p.breakable(); p.pretty([1, 2])\nP()"
        )
        self.assertEqual(cell.plain, "<pretty [1, 2]>")
        shown = self.k.run("class S:\n    def _ipython_display_(self):\n        print('shown by itself')\ndisplay(S())\nS()")
        self.assertEqual(shown.stdout, "shown by itself\nshown by itself\n")
        self.assertEqual(shown.displays, [])
        self.assertIsNone(shown.result)

    def test_metadata_from_tuples_display_and_mimebundles(self):
        cell = self.k.run(
            "import base64\nclass I:\n    def _repr_png_(self):\n"
            "        return base64.b64decode(%r), {'width': 2, 'height': 3}\n"
            "display(I())\ndisplay(I(), metadata={'alt': 'dots'})\n"
            "class M:\n    def _repr_mimebundle_(self, include=None, exclude=None):\n"
            "        return {'image/png': 'x'}, {'image/png': {'width': 5}}\ndisplay(M())" % PNG_2x3
        )
        metadata = [d.get("metadata") for d in cell.displays]
        self.assertEqual(metadata[0], {"image/png": {"width": 2, "height": 3}})
        self.assertEqual(metadata[1], {"image/png": {"width": 2, "height": 3}, "alt": "dots"})
        self.assertEqual(metadata[2], {"image/png": {"width": 5}})
        self.assertEqual(cell.displays[0]["bundle"]["image/png"], PNG_2x3)

    def test_clear_output_waits_for_the_next_output(self):
        cell = self.k.run("clear_output()\nprint('a')\nclear_output(wait=True)\nprint('b')\nclear_output(wait=True)")
        kinds = [
            f["bundle"]["application/x-omp-status"]["op"] if f.get("type") == "display" else f["data"]
            for f in cell.frames
            if f.get("type") in ("display", "stdout")
        ]
        self.assertEqual(kinds, ["clear_output", "a\n", "clear_output", "b\n"])

    def test_display_ids_updates_raw_and_filters(self):
        cell = self.k.run(
            "h = display('x', display_id=True)\nh.update('y')\nupdate_display('z', display_id=h.display_id)\n"
            "display({'text/plain': 'raw'}, raw=True)\ndisplay({'a': 1})\n"
            "class E:\n    def _repr_html_(self): return '<b>e</b>'\ndisplay(E(), include=['text/html'])\ndisplay(E(), exclude=['text/html'])"
        )
        frames = cell.displays
        self.assertTrue(frames[0]["displayId"])
        self.assertEqual([f.get("update", False) for f in frames[:3]], [False, True, True])
        self.assertEqual(frames[3]["bundle"], {"text/plain": "raw"})
        self.assertEqual(frames[4]["bundle"], {"text/plain": "{'a': 1}", "application/json": {"a": 1}})
        self.assertEqual(frames[5]["bundle"], {"text/html": "<b>e</b>"})
        self.assertEqual(list(frames[6]["bundle"]), ["text/plain"])
        errors = self.k.run("display(1, update=True)")
        self.assertEqual(errors.ename, "TypeError")
        self.assertEqual(self.k.run("display([], raw=True)").ename, "TypeError")

    def test_a_formatter_that_fails_is_shown_and_skipped(self):
        cell = self.k.run(
            "class B:\n    def _repr_html_(self): raise ValueError('no html')\n"
            "    def _repr_latex_(self): return 3\n    def __repr__(self): return 'B()'\nB()"
        )
        self.assertEqual(cell.result, {"text/plain": "B()"})
        self.assertIn("ValueError: no html", cell.stderr)
        self.assertIn("omp-eval: B._repr_latex_ returned int (ignored)", cell.stderr)


@unittest.skipUnless(has_module("IPython"), "IPython is installed with Debian's python3 (the CI's)")
class IPythonDisplay(unittest.TestCase):
    def test_ipython_display_functions_and_objects_show(self):
        k = Kernel()
        self.addCleanup(k.close)
        cell = k.run(
            "from IPython.display import display, HTML, Markdown, JSON, Image, update_display, clear_output\n"
            "display(HTML('<b>h</b>'))\ndisplay(Markdown('*m*'))\ndisplay(JSON({'k': 1}))\n"
            "display(Image(url='http://x/i.png', width=20, alt='pic'))\nh = display('v', display_id='d1')\n"
            "update_display('w', display_id='d1')\nclear_output(wait=True)\nHTML('<i>r</i>')"
        )
        self.assertEqual(cell.stdout, "")
        bundles = [f["bundle"] for f in cell.displays]
        self.assertEqual(bundles[0]["text/html"], "<b>h</b>")
        self.assertEqual(bundles[1]["text/markdown"], "*m*")
        self.assertEqual(bundles[2]["application/json"], {"k": 1})
        self.assertIn('alt="pic"', bundles[3]["text/html"])
        self.assertEqual(cell.displays[5].get("update"), True)
        self.assertEqual(cell.result["text/html"], "<i>r</i>")


@unittest.skipUnless(has_module("matplotlib"), "matplotlib is installed with Debian's python3 (the CI's)")
class Figures(unittest.TestCase):
    def test_figures_show_after_the_cell_and_at_plt_show(self):
        k = Kernel()
        self.addCleanup(k.close)
        cell = k.run("import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\nprint('after')\nfig = plt.figure()\nplt.plot([3])")
        pngs = [f for f in cell.frames if f.get("type") == "display" and "image/png" in f["bundle"]]
        self.assertEqual(len(pngs), 2)
        self.assertEqual(k.run("fig").result.keys() >= {"image/png", "text/plain"}, True)
        self.assertEqual(k.run("import matplotlib.pyplot as plt\nf = plt.figure()\nf").result.keys(), {"text/plain"})


if __name__ == "__main__":
    unittest.main()
