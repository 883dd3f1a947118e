"""input(), getpass() and sys.stdin in a cell: the front end asks the user (an input_request frame
answered by an input_reply request), when the cell was run with stdin allowed. A front end whose
input ends (`omp-eval run` reading a pipe) answers `eof` at its end: input() raises EOFError, and
sys.stdin reads up to there, as with `python script.py < file`.
Importing this module has no side effects."""
import io
import json
import sys
import threading


class StdinNotImplementedError(RuntimeError):
    """Raised by input() in a cell that was run without stdin (the name Jupyter uses)."""


class Stdin(object):
    def __init__(self, channel, drain, cell_id):
        self._channel = channel
        self._drain = drain
        self._cell_id = cell_id  # the running cell's id, or None
        self.allowed = False
        # The front end's input ends (a pipe, a file): sys.stdin.read() reads until its eof answer.
        self.ends = False
        self._pending = ""  # what the front end sent beyond the line asked for

    def ask(self, prompt="", password=False):
        """One answer, without its line ending (input())."""
        value = self.ask_line(prompt, password)
        return value[:-1] if value.endswith("\n") else value

    def ask_line(self, prompt="", password=False):
        """The next line. A person's answer has no "\\n"; a stream's line keeps it (its last line may
        have none), and comes from the pieces the front end sends (whole lines, as many as it has):
        the prompt is then written here, to stdout (getpass: stderr), as python's input() does."""
        self._check_allowed()
        if not self.ends:
            return self._request(prompt, password)
        if prompt:
            stream = sys.stderr if password else sys.stdout
            stream.write(prompt)
            stream.flush()
        if "\n" not in self._pending:
            parts = [self._pending]  # (joined once: a long line comes in many pieces)
            while True:
                try:
                    piece = self._request("", password)
                except EOFError:
                    if any(parts):
                        break
                    raise
                parts.append(piece)
                if "\n" in piece:
                    break
            self._pending = "".join(parts)
        end = self._pending.find("\n") + 1 or len(self._pending)
        line, self._pending = self._pending[:end], self._pending[end:]
        return line

    def unread(self, text):
        """Input read past what the caller wanted (read(n), readline(n)): read next."""
        self._pending = text + self._pending

    def _check_allowed(self):
        if not self.allowed or self._cell_id() is None:
            raise StdinNotImplementedError(
                "stdin is not available: this cell was run without it (input(), sys.stdin). Pass the data in the code instead."
            )
        if threading.current_thread() is not threading.main_thread():
            # Its answer could reach another reader of the request channel once the cell ended.
            raise StdinNotImplementedError(
                "input() and sys.stdin work in the cell's main thread only: read the input there and pass it to the thread."
            )

    def _request(self, prompt, password):
        """One answer from the front end; EOFError at the end of its input."""
        request_id = self._cell_id()
        self._drain()
        self._channel.send({"type": "input_request", "id": request_id, "prompt": str(prompt), "password": password})
        while True:
            line = self._channel.readline()
            if not line:
                raise EOFError("the host closed the request channel")
            try:
                request = json.loads(line)
            except ValueError:
                continue
            if isinstance(request, dict) and request.get("type") == "input_reply":
                if request.get("eof") is True:
                    # Python's words for a stream that ended (`python script.py < file`); a
                    # person's Ctrl-D at a terminal's input() raises a bare EOFError, as in IPython.
                    raise EOFError("EOF when reading a line") if self.ends else EOFError()
                value = request.get("value", "")
                return value if isinstance(value, str) else str(value)
            self._channel.queued.append(request)

    def input(self, prompt=""):
        return self.ask(prompt)

    def getpass(self, prompt="Password: ", stream=None):
        """getpass.getpass in a cell: the front end asks, and hides what is typed."""
        return self.ask(prompt, password=True)

    def patch_getpass(self):
        module = sys.modules.get("getpass")
        if module is not None and module.getpass != self.getpass:
            module.getpass = self.getpass

    def stream(self):
        return _StdinStream(self)


class _StdinStream(io.TextIOBase):
    # The answers come as text decoded from UTF-8 (code that checks the encoding, as argparse and
    # click do, gets what a UTF-8 terminal's stdin says).
    encoding = "utf-8"
    errors = "replace"

    def __init__(self, stdin):
        super().__init__()
        self._stdin = stdin

    def readable(self):
        return True

    def readline(self, size=-1):
        # getpass imported in this very cell falls back to reading stdin: still hide the answer.
        caller = sys._getframe(1)
        password = caller.f_globals.get("__name__") == "getpass" or (
            caller.f_back is not None and caller.f_back.f_globals.get("__name__") == "getpass"
        )
        try:
            line = self._stdin.ask_line("", password=password)
        except EOFError:
            return ""
        if not self._stdin.ends:
            return line + "\n"  # a person's answer, whole (there is no stream to put a rest back in)
        if size is not None and 0 <= size < len(line):
            line, rest = line[:size], line[size:]
            self._stdin.unread(rest)
        return line

    def read(self, size=-1):
        if not self._stdin.ends:
            return self.readline()  # a person's answers have no end: one answer
        size = -1 if size is None else size
        parts, have = [], 0
        while size < 0 or have < size:
            line = self.readline()
            if not line:
                break
            parts.append(line)
            have += len(line)
        text = "".join(parts)
        if 0 <= size < len(text):
            text, rest = text[:size], text[size:]
            self._stdin.unread(rest)
        return text

    def fileno(self):
        return 0
