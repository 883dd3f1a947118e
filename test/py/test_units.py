"""The kernel's modules in-process, one class per module: nothing here installs the kernel."""
import io
import json
import os
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "py"))
from omp_kernel import cellcode, channel, children, complete, imports, interrupts, stdin, tracebacks  # noqa: E402
from omp_kernel.display import Display, DisplayHandle  # noqa: E402
from omp_kernel.formatters import Bundle, Formatter, bound, json_fits, raw_bundle, safe_repr  # noqa: E402
from omp_kernel.magics import UsageError, parse_options  # noqa: E402
from omp_kernel.magics.expand import expand  # noqa: E402
from omp_kernel.magics.history import Macro, parse_ranges  # noqa: E402
from omp_kernel.magics.pip import requirement_names  # noqa: E402
from omp_kernel.magics.script import parse as parse_script  # noqa: E402
from omp_kernel.magics.system import SList  # noqa: E402
from omp_kernel.magics.timing import TimeitResult, format_time  # noqa: E402


class ChannelModule(unittest.TestCase):
    def test_frames_encode_strictly_and_survive_odd_values(self):
        self.assertEqual(channel.encode({"a": 1}), b'{"a": 1}\n')
        self.assertEqual(json.loads(channel.encode({"x": float("nan"), "s": {1}})), {"x": None, "s": "{1}"})
        self.assertEqual(channel.encode({"t": "\ud800"}), b'{"t": "\\ud800"}\n')
        self.assertEqual(channel.json_safe((1, "a", None, float("inf"))), [1, "a", None, None])

    def test_requests_are_parsed_and_lines_read_across_chunks(self):
        self.assertEqual(channel.parse_request(b'{"id": "a"}'), {"id": "a"})
        self.assertEqual(channel.parse_request(b"[1]"), ("error", "request must be a JSON object, got list"))
        self.assertEqual(channel.parse_request(b"{")[0], "error")
        r, w = os.pipe()
        os.write(w, b'{"a": 1}\n\n{"b"')
        os.write(w, b": 2}\nlast")
        os.close(w)
        reader = channel.LineReader(r)
        self.assertEqual([reader.readline() for _ in range(4)], [b'{"a": 1}\n', b"\n", b'{"b": 2}\n', b"last"])
        self.assertEqual(reader.readline(), b"")
        os.close(r)

    def test_a_channel_sends_reads_and_queues(self):
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        raw = [os.pipe(), os.pipe()]
        ch = channel.Channel(in_r, out_w, [w for _, w in raw], os.write, interrupts.Interrupts())
        ch.send({"type": "started", "id": "x"})  # before the key: no key, no barrier
        self.assertEqual(os.read(out_r, 100), b'\n{"type": "started", "id": "x"}\n')
        ch.set_key("k3y")
        ch.set_key("other")  # the first key stays
        ch.send({"type": "started", "id": "y"})
        self.assertEqual(os.read(out_r, 100), b'\n{"key": "k3y", "type": "started", "id": "y", "sync": 0}\n')
        ch.barrier()
        ch.send({"type": "complete_reply", "id": "z", "matches": [], "start": 0, "end": 0})
        self.assertNotIn(b"sync", os.read(out_r, 1000))
        for r, _ in raw:
            self.assertEqual(os.read(r, 100), b"\0omp-sync:k3y:f0\0\0omp-sync:k3y:r1\0")
        ch.protocol_error("bad", "x")
        self.assertIn(b"ProtocolError", os.read(out_r, 1000))
        os.write(in_w, b'\n{"id": "q"}\n')
        os.close(in_w)
        ch.queued.append({"id": "first"})
        self.assertEqual(ch.next_request(), {"id": "first"})
        self.assertEqual(ch.next_request(), {"id": "q"})
        self.assertIsNone(ch.next_request())
        ch.diag("note")
        self.assertTrue(os.read(raw[1][0], 1000).endswith(b"\0omp-eval runner: note\n"))
        for fd in (in_r, out_r, out_w) + raw[0] + raw[1]:
            os.close(fd)

    def test_a_large_frame_is_written_as_its_parts_never_copied_whole(self):
        import threading

        out_r, out_w = os.pipe()
        raw = [os.pipe(), os.pipe()]
        writes = []

        def write(fd, data):
            if fd == out_w:
                writes.append(len(data))
            return os.write(fd, data)

        ch = channel.Channel(os.open(os.devnull, os.O_RDONLY), out_w, [w for _, w in raw], write, interrupts.Interrupts())
        got = []
        reader = threading.Thread(
            target=lambda: got.append(b"".join(iter(lambda: os.read(out_r, 1 << 16), b""))), daemon=True
        )
        reader.start()
        pad = "\u00e9" * (1 << 17)  # over the size of a frame joined before its write
        ch.send({"type": "display", "id": "x", "data": {"text/plain": pad}})  # no key yet
        ch.set_key("k3y")
        ch.send({"type": "display", "id": "y", "data": {"text/plain": pad}})  # synced
        ch.send({"type": "stream_note", "pad": pad})  # keyed, not synced
        ch.send({"type": "started", "id": "z"})  # small: one write
        os.close(out_w)
        reader.join()
        lines = got[0].split(b"\n")
        self.assertEqual(lines[0], b"")
        self.assertEqual(json.loads(lines[1]), {"type": "display", "id": "x", "data": {"text/plain": pad}})
        self.assertEqual(lines[2], b"")
        self.assertEqual(
            json.loads(lines[3]), {"key": "k3y", "type": "display", "id": "y", "data": {"text/plain": pad}, "sync": 0}
        )
        self.assertEqual(json.loads(lines[5]), {"key": "k3y", "type": "stream_note", "pad": pad})
        self.assertEqual(lines[7], b'{"key": "k3y", "type": "started", "id": "z", "sync": 1}')
        # Three writes for each large frame (prefix, body, end), one for the small frame; the body
        # is written from the encoded bytes, not from a copy joined with its prefix.
        self.assertEqual(len(writes), 10)
        self.assertTrue(all(n <= 64 for n in writes[0::3][:3]))
        for fd in [r for r, _ in raw] + [w for _, w in raw] + [out_r]:
            os.close(fd)

    def test_inheritable_descriptors_are_closed_and_ours_kept(self):
        keep = os.open(os.devnull, os.O_RDONLY)  # not inheritable (PEP 446)
        leaked = os.open(os.devnull, os.O_RDONLY)
        os.set_inheritable(leaked, True)
        channel.close_inherited()
        self.assertEqual(os.fstat(keep).st_ino, os.stat(os.devnull).st_ino)
        with self.assertRaises(OSError):
            os.fstat(leaked)
        os.close(keep)


class InterruptsModule(unittest.TestCase):
    def test_sigint_interrupts_only_in_a_cell_and_waits_for_a_guarded_block(self):
        state = interrupts.Interrupts()
        state.handler(2, None)  # between cells: ignored
        state.start_cell()
        with self.assertRaises(KeyboardInterrupt):
            state.handler(2, None)
        with self.assertRaises(KeyboardInterrupt):
            with state:
                state.handler(2, None)
                self.assertTrue(state.deferred)
        self.assertFalse(state.deferred)


class TracebacksModule(unittest.TestCase):
    def test_runner_and_prelude_frames_are_dropped(self):
        import linecache

        tb = tracebacks.Tracebacks(os.path.dirname(os.path.dirname(os.path.abspath(tracebacks.__file__))), __import__("importlib").import_module)
        code = "def inner():\n    raise ValueError('x')\n"
        tb.register_source("<cell In[1]>", code, linecache)
        prelude = compile("def helper(f):\n    f()\n", tracebacks.PRELUDE_FILENAME, "exec")
        ns = {}
        exec(prelude, ns)
        exec(compile(code, "<cell In[1]>", "exec"), ns)
        try:
            ns["inner"]()
        except ValueError:
            info = sys.exc_info()
        lines = tb.format(*info)
        self.assertTrue(lines[0].startswith("Traceback"))
        self.assertIn("Cell In[1], line 2, in inner", "\n".join(lines))
        try:
            ns["helper"](ns["inner"])
        except ValueError:
            lines = tb.format(*sys.exc_info())
        self.assertNotIn("omp-prelude", "\n".join(lines))
        tb.mode = "Minimal"
        self.assertEqual(tb.format(*info), ["ValueError: x"])
        self.assertEqual(tb.frame("id", UsageError, UsageError("bad"), None)["traceback"], ["UsageError: bad"])
        self.assertIs(tb.last[0], UsageError)
        self.assertEqual(tracebacks.safe_str(_Unprintable()), "<unprintable _Unprintable>")


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError()


# Python 3.12 tokenizes with the parser's tokenizer: two of IPython's examples read differently.
OLD_TOKENIZER = sys.version_info < (3, 12)


class CompleteModule(unittest.TestCase):
    def test_is_complete_agrees_with_ipythons_examples(self):
        # The examples of IPython's own test_inputtransformer2.py, with its expected answers.
        cases = [
            ("a = 1", ("complete", None)),
            ("for a in range(5):", ("incomplete", 4)),
            ("for a in range(5):\n    if a > 0:", ("incomplete", 8)),
            ("raise = 2", ("invalid", None)),
            ("a = [1,\n2,", ("incomplete", 0)),
            ("(\n))", ("incomplete", 0) if OLD_TOKENIZER else ("invalid", None)),
            ("\\\r\n", ("incomplete", 0)),
            ("a = '''\n   hi", ("incomplete", 3)),
            ("def a():\n x=1\n global x", ("invalid", None)),
            ("a \\ ", ("invalid", None) if OLD_TOKENIZER else ("incomplete", 0)),
            ("1\\\n+2", ("complete", None)),
            ('def foo():\n    """', ("incomplete", 4)),
            ("async with example:\n    pass", ("incomplete", 4)),
            ("async with example:\n    pass\n    ", ("complete", None)),
            (")(", ("invalid", None)),
            ("())(", ("invalid", None)),
            ("%%time\nx = 1", ("incomplete", 0)),
            ("%%time\nx = 1\n", ("incomplete", 0)),
            ("%%time\nx = 1\n\n", ("complete", None)),
            ("if x:\n    %ls", ("incomplete", 4)),
            ("", ("complete", None)),
            # (an unindent that matches no outer level: IPython 8.5's check_complete says invalid)
            ("if 1:\n        x\n    y\n", ("invalid", None)),
            ("class A:\n        def f(self):\n                    x = 1\n                            return 2\n\n     s = 1", ("invalid", None)),
        ]
        for code, expected in cases:
            with self.subTest(code=code):
                self.assertEqual(complete.is_complete(code, __import__("importlib").import_module), expected)

    def test_completions_extend_the_typed_name(self):
        ns = {"alpha_one": 1, "alpha_two": 2, "beta": 3}
        self.assertEqual(complete.completions("x = alph", 8, ns), (["alpha_one", "alpha_two"], 4))
        matches, start = complete.completions("beta.real", 9, ns)
        self.assertEqual((matches, start), (["beta.real"], 0))


class ImportsModule(unittest.TestCase):
    def test_private_imports_ignore_a_shadowing_file_and_patch_on_load(self):
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "colorsys.py"), "w") as handle:
            handle.write("SHADOW = True\n")
        private = imports.PrivateImports([p for p in sys.path if p and p != folder])
        sys.path.insert(0, folder)
        sys.modules.pop("colorsys", None)
        private.install()
        try:
            real = private("colorsys")
            self.assertFalse(hasattr(real, "SHADOW"))
            sys.modules.pop("colorsys", None)
            import colorsys  # the user's import still finds their file

            self.assertTrue(colorsys.SHADOW)
            self.assertFalse(hasattr(private("colorsys"), "SHADOW"))
        finally:
            sys.meta_path.remove(private)
            sys.path.remove(folder)
            sys.modules.pop("colorsys", None)
        patched = []
        finder = imports.patching_finder({"sched": lambda m: patched.append(m.__name__)}, print)
        sys.modules.pop("sched", None)
        sys.meta_path.insert(0, finder)
        try:
            import sched  # noqa: F401
        finally:
            sys.meta_path.remove(finder)
        self.assertEqual(patched, ["sched"])
        self.assertTrue(imports.startup_paths() is not None)


class RunnerImports(unittest.TestCase):
    def test_every_stdlib_module_the_runner_imports_is_protected_from_shadowing(self):
        import ast
        import re

        package = os.path.dirname(os.path.abspath(imports.__file__))
        stdlib = set(getattr(sys, "stdlib_module_names", ())) or None
        used = set()
        for folder, _, files in os.walk(package):
            for name in files:
                if not name.endswith(".py"):
                    continue
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    source = handle.read()
                for node in ast.walk(ast.parse(source)):
                    if isinstance(node, ast.Import):
                        used.update(alias.name.split(".")[0] for alias in node.names)
                    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                        used.add(node.module.split(".")[0])
                used.update(re.findall(r'_import\("(\w+)"\)', source))
        used &= stdlib if stdlib is not None else used - {"jedi", "numpy"}  # (3.8, 3.9: no stdlib list)
        used -= {"sys", "builtins", "os"}  # loaded by the interpreter before any file is looked for
        self.assertEqual(sorted(used - imports.RUNNER_STDLIB), [])


class FormattersModule(unittest.TestCase):
    def setUp(self):
        self.warnings, self.errors = [], []
        self.formatter = Formatter(self.warnings.append, lambda: self.errors.append(sys.exc_info()[0].__name__))

    def test_bundles_with_metadata_and_filters(self):
        class Rich(object):
            def _repr_html_(self):
                return "<b>x</b>", {"isolated": True}

            def _repr_png_(self):
                return b"\x89PNG"

            def _repr_json_(self):
                return "not json"

        bundle = self.formatter.format(Rich())
        self.assertEqual(bundle["text/html"], "<b>x</b>")
        self.assertEqual(bundle.metadata, {"text/html": {"isolated": True}})
        self.assertEqual(bundle["image/png"], "iVBORw==")
        self.assertTrue(bundle.plain_is_repr)
        self.assertEqual(self.warnings, ["Rich._repr_json_ returned str (ignored)"])
        self.assertEqual(list(self.formatter.format(Rich(), include=["image/png"])), ["image/png"])
        self.assertNotIn("text/html", self.formatter.format(Rich(), exclude=["text/html"]))

    def test_mimebundle_errors_and_mocks(self):
        class Bundler(object):
            def _repr_mimebundle_(self, include=None, exclude=None):
                return ["not", "a dict"]

        class Raises(object):
            def _repr_html_(self):
                raise ValueError()

            def _repr_markdown_(self):
                raise NotImplementedError

        class Answers(object):
            def __getattr__(self, name):
                return lambda *a, **k: name

        self.formatter.format(Bundler())
        self.assertIn("returned list, not a dict", self.warnings[-1])
        self.assertEqual(list(self.formatter.format(Raises())), ["text/plain"])
        self.assertEqual(self.errors, ["ValueError"])
        self.assertEqual(list(self.formatter.format(Answers())), ["text/plain"])
        self.assertEqual(list(self.formatter.format(int)), ["text/plain"])  # a class's repr methods are not its own
        self.formatter.pprint = False
        self.assertEqual(self.formatter.plain([1] * 40), repr([1] * 40))

    def test_bounds_raw_bundles_and_json(self):
        warnings = []
        big = Bundle({"image/png": "x" * (17 * 1024 * 1024), "text/plain": "y" * (33 * 1024 * 1024), "application/json": {1: float("nan")}})
        bounded = bound(big, "Thing", warnings.append)
        self.assertNotIn("image/png", bounded)
        self.assertIn("characters omitted", bounded["text/plain"])
        self.assertNotIn("application/json", bounded)
        self.assertEqual(len(warnings), 2)
        self.assertEqual(raw_bundle({"image/png": b"\x00"}, {"m": 1}, print)["image/png"], "AA==")
        with self.assertRaises(TypeError):
            raw_bundle([1], None, print)
        self.assertTrue(json_fits({"a": [1]}))
        self.assertFalse(json_fits({"a": float("nan")}))
        self.assertTrue(safe_repr(_BadRepr(), warnings.append).startswith("<_BadRepr object at"))
        self.assertEqual(self.formatter.display_bundle({"k": 1})["application/json"], {"k": 1})


class _BadRepr(object):
    def __repr__(self):
        raise RuntimeError("no")


class DisplayModule(unittest.TestCase):
    def test_display_publishes_captures_and_routes_ipython(self):
        sent = []
        display = Display(Formatter(print, print), sent.append, lambda: None, lambda: "cell", print)
        DisplayHandle._display = display
        handle = display.display("x", display_id=True)
        handle.update("y")
        handle.display("z")
        self.assertEqual([f.get("update", False) for f in sent], [False, True, False])
        outputs = []
        display.captures.append(outputs)
        display.display(1)
        display.captures.pop()
        self.assertEqual(outputs, [{"text/plain": "1"}])
        display.publish_data({"text/plain": "p"}, {"text/plain": {}}, transient={"display_id": "d"})
        self.assertEqual(sent[-1]["displayId"], "d")
        display.status("log", message="m")
        self.assertEqual(sent[-1]["bundle"], {"application/x-omp-status": {"message": "m", "op": "log"}})
        module = types.ModuleType("IPython.core.display_functions")
        display.route_ipython(module)
        self.assertEqual(module.display.__name__, "display")
        self.assertIn("DisplayHandle display_id=", repr(DisplayHandle()))
        with self.assertRaises(TypeError):
            display.update_display("x")


class MagicHelpers(unittest.TestCase):
    def test_expansion(self):
        frame = types.SimpleNamespace(f_locals={"loc": "L"}, f_globals={})
        ns = {"x": 5, "s": "a b"}
        self.assertEqual(expand("echo $x {x*2} {s!r} $$x {{x}} $loc", frame, ns), "echo 5 10 'a b' $x {x} L")
        self.assertEqual(expand("echo '$x'", frame, ns), "echo '$x'")
        self.assertEqual(expand("echo $x $HOME", frame, ns), "echo $x $HOME")
        self.assertEqual(expand("awk '{print $1}'", None, ns), "awk '{print $1}'")

    def test_options_ranges_and_requirements(self):
        self.assertEqual(parse_options("-n1 -r 13 -q stmt", "q", "nr"), ({"n": "1", "r": "13", "q": True}, "stmt"))
        with self.assertRaises(UsageError):
            parse_options("-n", "", "n")
        self.assertEqual(parse_ranges("1-3 5 7:9", 10), [1, 2, 3, 5, 7, 8])
        self.assertEqual(str(Macro("a\n\n")), "a\n")
        self.assertEqual(repr(Macro("b")), "IPython.macro.Macro('b\\n')")
        self.assertEqual(requirement_names(["-r", "req.txt", "pandas>=1", "pkg[extra]", "dist/x-1.0-py3.whl", "-q"]), ["pandas", "pkg", "x"])
        self.assertEqual(parse_script("python3 --out o --bg", UsageError), ({"bg": True, "no-raise-error": False, "out": "o", "err": None, "proc": None}, ["python3"]))
        with self.assertRaises(UsageError):
            parse_script("--nope", UsageError)

    def test_slist_and_times(self):
        lines = SList(["b 2", "a 10"])
        self.assertEqual((lines.n, lines.s, lines.l), ("b 2\na 10", "b 2 a 10", ["b 2", "a 10"]))
        self.assertEqual(lines.grep("A"), ["a 10"])
        self.assertEqual(lines.grep("a", prune=True), ["b 2"])
        self.assertEqual(lines.grep(lambda t: t == "10", field=1), ["a 10"])
        self.assertEqual(lines.fields(1), ["2", "10"])
        self.assertEqual(lines.fields(), [["b", "2"], ["a", "10"]])
        self.assertEqual(lines.sort(1, nums=True), ["b 2", "a 10"])
        self.assertEqual(lines.sort(), ["a 10", "b 2"])
        self.assertEqual([format_time(t) for t in (0, 2e-9, 3.5e-6, 0.25, 75.0, 3700.0)], ["0 ns", "2 ns", "3.5 \u00b5s", "250 ms", "1min 15s", "1h 1min 40s"])
        result = TimeitResult(10, 2, 1e-6, 2e-6, [1e-5, 2e-5])
        self.assertEqual(str(result), "1.5 \u00b5s \u00b1 500 ns per loop (mean \u00b1 std. dev. of 2 runs, 10 loops each)")


class CellCodeModule(unittest.TestCase):
    def test_helpers(self):
        import ast

        self.assertEqual(cellcode.normalize("a\r\nb\rc"), "a\nb\nc")
        for code, quiet in (("1 + 1;", True), ("1 + 1  # ;", False), ("1 + 1;\n# x", True), ("(1 +\n 1) ;", True)):
            tree = ast.parse(code)
            self.assertEqual(cellcode.semicolon_after(code, tree.body[-1]), quiet, code)
        self.assertFalse(cellcode.maybe_ipython("x = 1\nprint(x)"))
        for code in ("%pwd", "  x = 1", ">>> 1", ",f a", "x?"):
            self.assertTrue(cellcode.maybe_ipython(code), code)


class ChildrenModule(unittest.TestCase):
    def test_wait_status_is_what_os_system_returns(self):
        self.assertEqual(children.wait_status(3), 3 << 8)
        self.assertEqual(children.wait_status(-9), 9)
        kids = children.Children(lambda: None, interrupts.Interrupts(), __import__("importlib").import_module)
        self.assertEqual(kids.system("exit 2"), 2 << 8)

    def test_ctrl_c_while_the_command_starts_stops_its_group(self):
        # SIGINT that lands while Popen is still returning (the command already runs): the command
        # and what it started are stopped, as for Ctrl-C during the wait; none is left running.
        import signal
        import subprocess
        import time

        state = interrupts.Interrupts()
        state.start_cell()
        started = []

        class InterruptedPopen(subprocess.Popen):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                started.append(self)
                state.handler(signal.SIGINT, None)  # the signal, as the process is made

        fake = types.SimpleNamespace(Popen=InterruptedPopen, TimeoutExpired=subprocess.TimeoutExpired)
        kids = children.Children(lambda: None, state, lambda name: fake if name == "subprocess" else None)
        with self.assertRaises(KeyboardInterrupt):
            kids.spawn("sleep 30.019 & sleep 30.019", True)
        (proc,) = started
        self.assertIsNotNone(proc.returncode)  # stopped and reaped
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break  # the whole group is gone
            time.sleep(0.01)
        else:
            self.fail("the command's group still runs")


class StdinModule(unittest.TestCase):
    def test_input_asks_through_the_channel_and_queues_other_requests(self):
        sent = []
        replies = [b'{"id": "other"}\n', b"junk\n", b'{"type": "input_reply", "value": 5}\n']
        fake = types.SimpleNamespace(send=sent.append, readline=lambda: replies.pop(0), queued=[])
        asker = stdin.Stdin(fake, lambda: None, lambda: "cell")
        with self.assertRaises(stdin.StdinNotImplementedError):
            asker.input("x")
        asker.allowed = True
        self.assertEqual(asker.input("name? "), "5")
        self.assertEqual(sent, [{"type": "input_request", "id": "cell", "prompt": "name? ", "password": False}])
        self.assertEqual(fake.queued, [{"id": "other"}])
        replies.append(b"")
        with self.assertRaises(EOFError):
            asker.getpass()

    def _stream_of(self, answers, ends=True):
        """sys.stdin of a cell whose front end answers `answers` (lines with their \\n), then eof."""
        replies = [('{"type": "input_reply", "value": %s}\n' % json.dumps(a)).encode() for a in answers]
        eof = b'{"type": "input_reply", "value": "", "eof": true}\n'  # and again, once it ended
        fake = types.SimpleNamespace(send=lambda frame: None, readline=lambda: replies.pop(0) if replies else eof, queued=[])
        asker = stdin.Stdin(fake, lambda: None, lambda: "cell")
        asker.allowed, asker.ends = True, ends
        return asker, asker.stream()

    def test_a_stream_that_ends_reads_as_python_reads_a_pipe(self):
        asker, stream = self._stream_of(["abcdef\n", "xyz\n", "more\n", "last"])
        self.assertEqual(stream.read(3), "abc")
        self.assertEqual(stream.readline(), "def\n")
        self.assertEqual(asker.input(), "xyz")  # input() drops the line's \n
        self.assertEqual(list(stream), ["more\n", "last"])  # the last line had no \n
        self.assertEqual(stream.read(), "")
        with self.assertRaises(EOFError) as raised:
            asker.input("more? ")
        self.assertEqual(str(raised.exception), "EOF when reading a line")

    def test_a_person_ending_the_input_raises_a_bare_eoferror_as_at_a_terminal(self):
        # (python3 and ipython3 in a terminal: `input()`, Ctrl-D -> `EOFError` with no message)
        asker, stream = self._stream_of([], ends=False)
        with self.assertRaises(EOFError) as raised:
            asker.input("name? ")
        self.assertEqual(raised.exception.args, ())
        self.assertEqual(stream.readline(), "")

    def test_a_piece_of_several_lines_answers_several_reads_and_prompts_go_to_stdout(self):
        sent = []
        replies = [b'{"type": "input_reply", "value": "bob\\nline2\\nl3\\n"}\n']
        fake = types.SimpleNamespace(send=sent.append, readline=lambda: replies.pop(0), queued=[])
        asker = stdin.Stdin(fake, lambda: None, lambda: "cell")
        asker.allowed = asker.ends = True
        stream = asker.stream()
        out = io.StringIO()
        real, sys.stdout = sys.stdout, out
        try:
            self.assertEqual(stream.read(2), "bo")
            self.assertEqual(asker.input("name? "), "b")  # the rest of the line read(2) began
            self.assertEqual(stream.readline(2), "li")
            self.assertEqual(stream.readline(), "ne2\n")
            self.assertEqual(asker.input("again? "), "l3")
        finally:
            sys.stdout = real
        self.assertEqual(out.getvalue(), "name? again? ")  # written by the kernel, as python does
        self.assertEqual(len(sent), 1)  # one request for the three lines
        self.assertEqual(sent[0]["prompt"], "")

    def test_only_the_cells_main_thread_reads_stdin(self):
        import threading

        asker, _ = self._stream_of(["a\n"])
        errors = []

        def read():
            try:
                asker.input()
            except stdin.StdinNotImplementedError as exc:
                errors.append(str(exc))

        thread = threading.Thread(target=read)
        thread.start()
        thread.join()
        self.assertEqual(len(errors), 1)
        self.assertIn("main thread", errors[0])
        self.assertEqual(asker.input(), "a")

    def test_read_reads_to_the_end_only_when_the_input_ends(self):
        _, stream = self._stream_of(["a\n", "b\n"])
        self.assertEqual(stream.read(), "a\nb\n")
        _, person = self._stream_of(["typed"], ends=False)  # a person's answer: one, no \n
        self.assertEqual(person.read(), "typed\n")


class FdGuardModule(unittest.TestCase):
    def test_protected_descriptors_refuse_writes_closes_and_replacement(self):
        import subprocess

        script = (
            "import os, sys\nsys.path.insert(0, %r)\nfrom omp_kernel import fdguard\nr, w = os.pipe()\n"
            "fdguard.protect([w])\nout = []\n"
            "for call in (lambda: os.write(w, b'x'), lambda: os.close(w), lambda: os.closerange(0, 99), lambda: os.dup(w),"
            " lambda: os.dup2(r, w), lambda: open(w, 'w'), lambda: os.fdopen(w)):\n"
            "    try:\n        call()\n        out.append('allowed')\n    except OSError as e:\n        out.append(e.errno)\n"
            "print(out)\n"
        ) % os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "py")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        self.assertEqual(done.stdout.strip(), str([9] * 7))


class CaptureModule(unittest.TestCase):
    def test_a_stream_writes_to_its_descriptor_without_owning_it(self):
        # capture._make_stream wraps a descriptor without owning it.
        from omp_kernel import capture

        r, w = os.pipe()
        stream = capture._make_stream(w, io.TextIOWrapper)
        stream.write("hi")
        stream.flush()
        self.assertEqual(os.read(r, 10), b"hi")
        os.close(r)
        os.close(w)

    def test_a_burst_of_lines_is_block_buffered_at_once_and_lines_again_when_quiet(self):
        # A print loop wakes the pump at once: waiting for its 20 ms tick cost the host a read
        # per line for the loop's first thousand lines.
        from omp_kernel import capture

        channel = type("Channel", (), {"raw_fds": (None, None)})()
        cap = capture.Capture(channel, None, os.write)
        r, w = os.pipe()
        raw = capture._StdoutRaw(w, "wb", closefd=False)
        raw.capture = cap
        cap.stdout = io.TextIOWrapper(io.BufferedWriter(raw, 1 << 16), encoding="utf-8", line_buffering=True)
        for i in range(capture.BUSY_WRITES):
            cap.stdout.write("%d\n" % i)
        self.assertFalse(cap._busy.is_set())
        cap.stdout.write("%d\n" % capture.BUSY_WRITES)
        self.assertTrue(cap._busy.is_set())  # the pump's wait ends now, not at the tick
        cap.tick()
        self.assertFalse(cap.stdout.line_buffering)
        writes = cap.stdout_writes
        for i in range(capture.BUSY_WRITES + 1, 1000):
            cap.stdout.write("%d\n" % i)
        self.assertEqual(cap.stdout_writes, writes)  # buffered: no write yet
        self.assertFalse(cap._busy.is_set())
        cap.tick()  # the tick writes what waits
        self.assertEqual(cap.stdout_writes, writes + 1)
        self.assertFalse(cap.stdout.line_buffering)
        cap.tick()  # a quiet tick: lines again
        self.assertTrue(cap.stdout.line_buffering)
        os.close(w)
        with os.fdopen(r, "rb") as pipe:
            self.assertEqual(pipe.read().decode().split(), [str(i) for i in range(1000)])


if __name__ == "__main__":
    unittest.main()
