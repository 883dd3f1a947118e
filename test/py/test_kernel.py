"""The kernel end to end (server, channel, capture, execute, stdin, tracebacks): a real runner in a
subprocess, spoken to over its protocol."""
import json
import os
import re
import signal
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_process import Kernel  # noqa: E402


class KernelTestCase(unittest.TestCase):
    kernel_options = {}

    def setUp(self):
        self.k = Kernel(**self.kernel_options)
        self.addCleanup(self.k.close)


class Protocol(KernelTestCase):
    def test_malformed_requests_get_protocol_errors_and_the_kernel_serves_on(self):
        for line in ("not json", "[1, 2]", '{"type": "launch"}', '{"code": "1"}'):
            self.k.send(line)
        self.k.send({"id": "bad", "code": 42})
        frames = self.k.until(lambda f: f.get("type") == "done" and f.get("id") == "bad")
        errors = [f["evalue"] for f in frames if f.get("type") == "error"]
        self.assertEqual(len(errors), 5)
        self.assertIn("unknown request type 'launch'", errors)
        self.assertEqual(self.k.run("6 * 7").plain, "42")

    def test_is_complete_answers_with_ipythons_statuses(self):
        cases = {"a = 1": ("complete", None), "for a in range(5):": ("incomplete", "    "), ")(": ("invalid", None)}
        for i, (code, (status, indent)) in enumerate(cases.items()):
            reply = self.k.request({"type": "is_complete", "id": "q%d" % i, "code": code}, "is_complete_reply")
            self.assertEqual(reply.get("status"), status, code)
            self.assertEqual(reply.get("indent"), indent, code)
        error = self.k.request({"type": "is_complete", "id": "q9", "code": 3}, "is_complete_reply")
        self.assertEqual(error["ename"], "ProtocolError")

    def test_complete_names_from_the_namespace(self):
        self.k.run("alpha_value = 1\nalpha_other = 2")
        reply = self.k.request({"type": "complete", "id": "x", "code": "alpha_", "cursor": 6}, "complete_reply")
        self.assertEqual(sorted(reply["matches"]), ["alpha_other", "alpha_value"])
        self.assertEqual((reply["start"], reply["end"]), (0, 6))
        bad = self.k.request({"type": "complete", "id": "y", "code": "x", "cursor": "no"}, "complete_reply")
        self.assertEqual(bad["ename"], "ProtocolError")


class Execution(KernelTestCase):
    def test_result_error_and_counts(self):
        self.assertEqual(self.k.run("x = 5\nx").plain, "5")
        cell = self.k.run("1/0")
        self.assertEqual(cell.ename, "ZeroDivisionError")
        self.assertTrue(any("Cell In[2], line 1" in line for line in cell.error["traceback"]))
        self.assertFalse(any("omp_kernel" in line for line in cell.error["traceback"]))
        self.assertEqual(cell.done["status"], "error")
        empty = self.k.run("   \n")
        self.assertEqual(empty.done["executionCount"], 2)  # an empty cell takes no count
        self.assertEqual(self.k.run("In[1], Out[1], _1").plain, "('x = 5\\nx', 5, 5)")

    def test_system_exit_shows_as_ipython_shows_it_and_tb_has_the_frames(self):
        cell = self.k.run("def leave():\n    raise SystemExit(3)\nleave()")
        plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in cell.error["traceback"]]
        self.assertEqual(plain, ["An exception has occurred, use %tb to see the full traceback.", "", "SystemExit: 3"])
        self.assertEqual(cell.error["exitCode"], 3)
        self.assertIn("in leave", self.k.run("%tb").stderr)
        lines = self.k.run('raise SystemExit("one\\ntwo")').error["traceback"]
        self.assertEqual([re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines][2:], ["SystemExit: one", "two"])

    def test_underscore_stays_the_users_and_future_imports_carry(self):
        self.k.run("_ = 42")
        self.k.run("1 + 1")
        self.assertEqual(self.k.run("print(_)").stdout, "42\n")
        self.k.run("from __future__ import barry_as_FLUFL")
        self.assertEqual(self.k.run("1 <> 2").plain, "True")

    def test_a_result_is_shown_before_out_holds_it_as_ipythons_display_hook(self):
        self.k.run("1")
        self.assertEqual(self.k.run("2, Out").plain, "(2, {1: 1})")  # (IPython: Out[2]: (2, {1: 1}))
        self.assertEqual(self.k.run("Out[2][0]").plain, "2")

    def test_semicolon_hides_the_result_and_await_runs(self):
        self.assertIsNone(self.k.run("1 + 1;").result)
        self.assertEqual(self.k.run("import asyncio\nawait asyncio.sleep(0)\n3").plain, "3")

    def test_prelude_frames_never_show_in_tracebacks(self):
        cell = self.k.run('agent("x")')
        self.assertEqual(cell.ename, "BridgeError")
        self.assertFalse(any("omp-prelude" in line or "omp-internal-init" in line for line in cell.error["traceback"]))

    def test_a_traceback_of_a_line_that_is_not_python_prints_no_syntax_warning(self):
        # Python 3.11+ parses a shown line to place its carets; `1in` is a SyntaxWarning there.
        cell = self.k.run("%notebook /tmp/omp-1in2/nb.ipynb")
        self.assertEqual(cell.error["evalue"], "History is empty, cannot export")
        self.assertEqual(cell.stderr, "")

    def test_the_prelude_runs_without_loading_the_magic_transformer(self):
        # The prelude is plain Python: rewriting it cost a start-up more than the runner's imports.
        self.assertEqual(self.k.run("import sys; 'omp_kernel.transform' in sys.modules").plain, "False")
        self.assertEqual(self.k.run("%who_ls").plain, "['sys']")
        self.assertEqual(self.k.run("import sys; 'omp_kernel.transform' in sys.modules").plain, "True")

    def test_an_interrupted_shell_command_shows_no_frames_of_subprocess(self):
        # `ready` comes from the command once it runs: the interrupt meets the wait, not the start.
        self.k.send({"id": "sh", "code": "!sleep 0.5; echo ready; sleep 30", "storeHistory": True})
        self.k.until(lambda f: f.get("type") == "stdout" and "ready" in f["data"])
        os.kill(self.k.proc.pid, signal.SIGINT)
        frames = self.k.until(lambda f: f.get("type") == "done" and f.get("id") == "sh")
        traceback = [f for f in frames if f.get("type") == "error"][0]["traceback"]
        self.assertEqual(traceback[-1], "KeyboardInterrupt")
        self.assertFalse(any("subprocess.py" in line for line in traceback), traceback)

    def test_a_pasted_session_and_an_indented_cell_run(self):
        self.assertEqual(self.k.run(">>> a = 2\n>>> a * 3").plain, "6")
        self.assertEqual(self.k.run("In [1]: b = 4\n   ...: b").plain, "4")
        self.assertEqual(self.k.run("In[1]").plain, "'>>> a = 2\\n>>> a * 3'")
        self.assertEqual(self.k.run("    c = 1\n    c + 1").plain, "2")

    def test_interrupt_stops_a_cell(self):
        self.k.send({"id": "loop", "code": "print('ready', flush=True)\nwhile True: pass", "storeHistory": True})
        self.k.until(lambda f: f.get("type") == "stdout" and "ready" in f["data"])
        os.kill(self.k.proc.pid, signal.SIGINT)
        frames = self.k.until(lambda f: f.get("type") == "done")
        self.assertTrue(frames[-1]["cancelled"])
        self.assertEqual(self.k.run("1").plain, "1")


class Output(KernelTestCase):
    def test_every_kind_of_output_arrives_in_its_cell(self):
        cell = self.k.run(
            "import os, sys, subprocess\nprint('a')\nsys.stderr.write('b\\n')\nos.write(1, b'c\\n')\n"
            "subprocess.run(['echo', 'd'])\nos.system('echo e')"
        )
        self.assertEqual(cell.stdout, "a\nc\nd\ne\n")
        self.assertEqual(cell.stderr, "b\n")

    def test_closed_streams_come_back_and_a_fork_child_does_not_serve(self):
        self.k.run("import sys\nsys.stdout.close()")
        self.assertEqual(self.k.run("print('back')").stdout, "back\n")
        cell = self.k.run("import os\npid = os.fork()\nif pid == 0:\n    print('child')\nelse:\n    os.waitpid(pid, 0)\n    print('parent')")
        self.assertIn("parent\n", cell.stdout)
        self.assertEqual(self.k.run("2").plain, "2")


class Stdin(KernelTestCase):
    def test_input_asks_the_host_and_getpass_hides(self):
        cell = self.k.run("a = input('name? ')\nimport getpass\nb = getpass.getpass()\n(a, b)", allow_stdin=True, answers=["ann", "pw"])
        self.assertEqual(cell.plain, "('ann', 'pw')")
        self.assertEqual(cell.prompts, ["name? ", "Password: "])
        password = [f["password"] for f in cell.frames if f.get("type") == "input_request"]
        self.assertEqual(password, [False, True])

    def test_without_stdin_input_says_so(self):
        cell = self.k.run("input()")
        self.assertEqual(cell.ename, "StdinNotImplementedError")


class Channel(KernelTestCase):
    def test_cells_cannot_reach_the_frame_channel(self):
        cell = self.k.run(
            "import os, sys\nrefused = []\nfor fd in sorted(int(n) for n in os.listdir('/proc/self/fd')):\n"
            "    try:\n        os.write(fd, b'')\n    except OSError as e:\n"
            "        refused += [fd] if \"kernel's own channel\" in str(e) else []\n"
            "len(refused) >= 4, any(hasattr(m, '_PROTO_OUT') for m in list(sys.modules.values()))"
        )
        self.assertEqual(cell.plain, "(True, False)")  # requests, frames, the raw copies
        forged = self.k.run("import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'{\"type\": \"done\", \"id\": \"c3\", \"status\": \"ok\", \"executionCount\": 9, \"cancelled\": false}\\n')\n    except OSError:\n        pass\nprint('still here')")
        self.assertEqual(forged.stdout, "still here\n")
        self.assertEqual(forged.done["executionCount"], 2)  # the real done, not the forged one

    def test_a_frame_written_past_the_guard_has_no_key_and_is_not_taken(self):
        # io.FileIO on a guessed number gets past the guard: the line reaches the frame pipe, but
        # without the kernel's key (and after a newline, so it cannot swallow the next frame).
        code = (
            "import io, os\nline = b'{\"type\": \"done\", \"id\": \"c2\", \"status\": \"ok\", \"executionCount\": 9, \"cancelled\": false}\\n{\"partial'\n"
            "for fd in range(3, 64):\n    try:\n        io.FileIO(fd, 'wb', closefd=False).write(line)\n    except OSError:\n        pass\n"
            "print('after')"
        )
        cell = self.k.run(code)
        self.assertTrue(cell.stdout.endswith("after\n"))  # (the line went to the raw copies too)
        self.assertEqual(cell.done["executionCount"], 1)
        self.assertTrue(any(b"executionCount\": 9" in line for line in self.k.noise))
        self.assertEqual(self.k.run("'next'").plain, "'next'")

    def test_child_processes_inherit_none_of_the_private_descriptors(self):
        cell = self.k.run("fds = !ls /proc/self/fd\nsorted(int(fd) for fd in fds)")
        self.assertEqual(cell.plain, "[0, 1, 2, 3]")  # stdin, stdout, stderr, and ls's own directory

    def test_closerange_is_a_clear_error_in_the_cell_and_the_kernel_lives(self):
        cell = self.k.run("import os\nos.closerange(3, 4096)")
        self.assertEqual(cell.ename, "OSError")
        self.assertIn("os.closerange(3, 4096) would close descriptors the kernel needs", cell.error["evalue"])
        self.assertEqual(self.k.run("'alive'").plain, "'alive'")
        cell = self.k.run("import os\nos.closerange(200, 4096)\nos.close(0)\n'fine'")
        self.assertEqual(cell.plain, "'fine'")


class Barriers(KernelTestCase):
    """A frame is ordered after the raw output before it by a barrier (markers on fd 1 and fd 2);
    one is left out only where nothing the frame must follow can have been written since the last."""

    def synced(self, cell):
        return [(f["type"], "sync" in f) for f in cell.frames if f.get("type") in ("started", "result", "done")]

    def test_a_quiet_cell_ends_without_a_barrier(self):
        self.k.run("1")
        self.assertEqual(self.synced(self.k.run("1+1")), [("started", True), ("result", True), ("done", False)])

    def test_frames_after_code_or_output_get_their_barriers(self):
        self.k.run("1")
        cell = self.k.run("x = 1")  # (no result: the code ran up to done)
        self.assertEqual(self.synced(cell), [("started", True), ("done", True)])
        cell = self.k.run("print('a')\n2")
        self.assertEqual(self.synced(cell), [("started", True), ("result", True), ("done", False)])
        self.assertEqual(cell.stdout, "a\n")
        self.k.run("get_ipython()._api.after_cell.append(lambda: print('hook'))")
        cell = self.k.run("3")
        self.assertEqual(self.synced(cell)[-1], ("done", True))
        self.assertEqual(cell.stdout, "hook\n")

    def test_a_child_writing_between_two_frames_stays_between_them(self):
        cell = self.k.run("import subprocess\ndisplay(1)\nsubprocess.run(['echo', 'child'])\ndisplay(2)\n3")
        kinds = [(f["type"], f.get("data")) for f in cell.frames if f.get("type") in ("display", "stdout")]
        self.assertEqual(kinds, [("display", None), ("stdout", "child\n"), ("display", None)])


class ShadowingFiles(unittest.TestCase):
    def test_stdlib_named_files_in_the_cwd_neither_stop_the_kernel_nor_silence_errors(self):
        cwd = tempfile.mkdtemp(prefix="omp-shadow-")
        for name in ("traceback", "ast", "linecache", "subprocess", "tokenize", "codeop", "inspect", "json", "re", "fcntl"):
            with open(os.path.join(cwd, name + ".py"), "w") as handle:
                handle.write("raise SystemExit('the %s.py of the cwd was imported')\n" % name)
        k = Kernel(cwd=cwd)
        self.addCleanup(k.close)
        cell = k.run("1/0")
        self.assertEqual(cell.ename, "ZeroDivisionError")
        self.assertTrue(cell.error["traceback"])
        self.assertEqual(k.run("!echo shell").stdout, "shell\n")
        self.assertIn("Signature", k.run("def f(x): pass\nf?").stdout)
        reply = k.request({"type": "is_complete", "id": "i", "code": "if x:"}, "is_complete_reply")
        self.assertEqual(reply["status"], "incomplete")
        self.assertEqual(k.run("x = %time 1 + 1\nx").plain, "2")


class Bridge(unittest.TestCase):
    def test_a_call_gets_its_answer_and_a_silent_host_times_out(self):
        k = Kernel(bridge=True, env={"OMP_BRIDGE_TIMEOUT": "30"})
        self.addCleanup(k.close)

        def answer():
            request = json.loads(k.bridge_end.recv(1 << 16))
            reply = {"id": request["id"], "ok": True, "value": {"output": "from host"}}
            k.bridge_end.sendall((json.dumps(reply) + "\n").encode())

        import threading

        threading.Thread(target=answer).start()
        self.assertEqual(k.run('completion("q")').plain, "'from host'")
        cell = k.run('agent("never", timeout=0.3)')
        self.assertEqual(cell.ename, "BridgeError")
        self.assertEqual(k.run("import os\n'OMP_BRIDGE_TIMEOUT' in os.environ").plain, "False")


if __name__ == "__main__":
    unittest.main()
