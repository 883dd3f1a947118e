"""Shell commands: !cmd, !!cmd and `x = !cmd` (an SList of the output's lines), %system, %sx,
%%bash, %%sh, %%script, and IPython's default aliases (%cat, %mkdir, %ll, ...; %ls is the
spec's: a sorted list)."""
import os
import re
import sys

ALIASES = {
    "cat": "cat",
    "cp": "cp",
    "ldir": "ls -F -o --color %l | grep /$",
    "lf": "ls -F -o --color %l | grep ^-",
    "lk": "ls -F -o --color %l | grep ^l",
    "ll": "ls -F -o --color",
    "lx": "ls -F -o --color %l | grep ^-..x",
    "mkdir": "mkdir",
    "mv": "mv",
    "rm": "rm",
    "rmdir": "rmdir",
    "clear": "clear",
    "more": "more",
    "less": "less",
    "man": "man",
}


class SList(list):
    """A list of output lines with IPython's helpers: .n/.nlstr, .s/.spstr, .l/.list, .p/.paths,
    .grep(), .fields(), .sort()."""

    @property
    def l(self):  # noqa: E743 - IPython's name
        return list(self)

    list = l

    @property
    def n(self):
        return "\n".join(self)

    nlstr = n

    @property
    def s(self):
        return " ".join(self)

    spstr = s

    @property
    def p(self):
        return [p for p in (_path(line) for line in self) if p is not None]

    paths = p

    def grep(self, pattern, prune=False, field=None):
        """The lines that match (a regex, case-insensitive, or a function); prune=True keeps the
        others; field=N matches that whitespace-separated field only."""
        match = pattern if callable(pattern) else (lambda text: re.search(pattern, text, re.IGNORECASE))

        def target(line):
            if field is None:
                return line
            parts = line.split()
            try:
                return parts[field]
            except IndexError:
                return ""

        return SList(line for line in self if bool(match(target(line))) != bool(prune))

    def fields(self, *indices):
        """Whitespace-separated fields: fields(0, -1) joins those of each line; no index gives
        the split lines."""
        if not indices:
            return [line.split() for line in self]
        result = SList()
        for parts in (line.split() for line in self):
            picked = []
            for index in indices:
                try:
                    picked.append(parts[index])
                except IndexError:
                    pass
            if picked:
                result.append(" ".join(picked))
        return result

    def sort(self, field=None, nums=False):
        """A sorted copy, by the whole line or one field; nums=True sorts by the digits in it."""
        keyed = [[SList([line]).fields(field) if field is not None else line, line] for line in self]
        if nums:
            for pair in keyed:
                digits = "".join(ch for ch in "".join(pair[0]) if ch.isdigit())
                pair[0] = int(digits) if digits else 0
        keyed.sort()
        return SList(pair[1] for pair in keyed)


def _path(line):
    import pathlib

    return pathlib.Path(line) if os.path.exists(line) else None


def register(reg):
    api = reg.api
    from . import UsageError

    def popen(args, shell, **kwargs):
        kwargs.setdefault("stdin", api.private_import("subprocess").DEVNULL)
        return api.spawn(args, shell, **kwargs)

    def run(cmd):
        """Runs cmd in a shell; its output goes where sys.stdout goes (%%capture takes it)."""
        subprocess = api.private_import("subprocess")
        if _redirected():
            proc = popen(cmd, True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            _copy(proc, api)
        else:
            proc = popen(cmd, True)
        code = api.wait(proc)
        api.user_ns["_exit_code"] = code
        return code

    @reg.line_magic("system")
    def system(cmd, frame):
        """!cmd: runs a shell command; its exit code is in _exit_code."""
        if cmd.rstrip().endswith("&"):
            raise OSError("Background processes not supported.")
        run(cmd)

    @reg.line_magic("sx")
    def sx(cmd, frame):
        """!!cmd and x = !cmd: the command's output (stdout and stderr) as an SList of lines."""
        subprocess = api.private_import("subprocess")
        proc = popen(cmd, True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        chunks = []
        try:
            for chunk in iter(lambda: proc.stdout.read1(1 << 16), b""):
                chunks.append(chunk)
        except KeyboardInterrupt:
            api.stop(proc)
            raise
        api.user_ns["_exit_code"] = api.wait(proc)
        return SList(b"".join(chunks).decode("utf-8", "replace").splitlines())

    def script(shell_cmd, line, body):
        args = _split(line)
        opts = {"--bg": False, "--no-raise-error": False}
        names = {}
        while args and args[0].startswith("--"):
            flag = args.pop(0)
            if flag in ("--out", "--err", "--proc") and args:
                names[flag] = args.pop(0)
            elif flag in opts:
                opts[flag] = True
            else:
                raise UsageError("unrecognized option %s" % flag)
        argv = _split(shell_cmd) + args if shell_cmd else args
        if not argv:
            raise UsageError("%%script needs a command, e.g. %%script bash")
        subprocess = api.private_import("subprocess")
        capture = {"--out": "stdout", "--err": "stderr"}
        pipes = {key: subprocess.PIPE for flag, key in capture.items() if flag in names or _redirected()}
        proc = popen(argv, False, stdin=subprocess.PIPE, **pipes)
        out, err = proc.communicate(body.encode("utf-8"))
        code = proc.returncode
        for flag, text in (("--out", out), ("--err", err)):
            if text is None:
                continue
            text = text.decode("utf-8", "replace")
            if flag in names:
                api.user_ns[names[flag]] = text
            else:
                (sys.stdout if flag == "--out" else sys.stderr).write(text)
        if code and not opts["--no-raise-error"]:
            raise subprocess.CalledProcessError(code, " ".join(argv))

    @reg.cell_magic("script")
    def script_magic(line, body, body_line, frame):
        """%%script [--out NAME] [--err NAME] [--no-raise-error] command: runs the cell's body
        with the command (bash, python3, ...)."""
        script("", line, body)

    for name in ("bash", "sh", "perl", "ruby", "python", "python2", "python3", "pypy"):
        reg.cell_magic(name)(_script_for(script, name))
    for name, command in ALIASES.items():
        reg.line_magic(name)(_alias(run, command))


def _script_for(script, name):
    def magic(line, body, body_line, frame):
        script(name, line, body)

    magic.__doc__ = "%%%%%s: runs the cell's body with %s (the options of %%%%script)." % (name, name)
    return magic


def _alias(run, command):
    def magic(arg, frame):
        cmd = command.replace("%l", arg) if "%l" in command else (command + " " + arg).strip()
        run(cmd)

    magic.__doc__ = "Alias for the shell command `%s`." % command
    return magic


def _split(text):
    import shlex

    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _redirected():
    """True when sys.stdout is not the kernel's own stream (a %%capture, a redirect_stdout)."""
    return sys.stdout is not sys.__stdout__


def _copy(proc, api):
    try:
        for chunk in iter(lambda: proc.stdout.read1(1 << 16), b""):
            sys.stdout.write(chunk.decode("utf-8", "replace"))
    except KeyboardInterrupt:
        api.stop(proc)
        raise
