"""input(), getpass() and sys.stdin in a cell: the front end asks the user (an input_request frame
answered by an input_reply request), when the cell was run with stdin allowed.
Importing this module has no side effects."""
import io
import json
import sys


class StdinNotImplementedError(RuntimeError):
    """Raised by input() in a cell that was run without stdin (the name Jupyter uses)."""


class Stdin(object):
    def __init__(self, channel, drain, cell_id):
        self._channel = channel
        self._drain = drain
        self._cell_id = cell_id  # the running cell's id, or None
        self.allowed = False

    def ask(self, prompt="", password=False):
        request_id = self._cell_id()
        if not self.allowed or request_id is None:
            raise StdinNotImplementedError(
                "input() is not available: this cell was run without stdin. Pass the data in the code instead."
            )
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
        return self._stdin.ask("", password=password) + "\n"

    def read(self, size=-1):
        return self.readline()

    def fileno(self):
        return 0
