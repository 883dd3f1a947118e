"""Shell commands: !cmd, !!cmd and `x = !cmd` (an SList of the output's lines), %system, %sx,
and IPython's default aliases (%cat, %mkdir, %ll, ...; %ls is the spec's: a sorted list),
%alias, %unalias, %rehashx."""
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


def exit_code(returncode):
    """A command's _exit_code as IPython gives it: a signal's number negated, also where the shell
    reports it as 128 + n (`!kill -9 $$` and `!sh -c 'kill -9 $$'` are both -9)."""
    return -(returncode - 128) if returncode > 128 else returncode


def popen(api, args, shell, **kwargs):
    kwargs.setdefault("stdin", api.private_import("subprocess").DEVNULL)
    if shell:
        kwargs.setdefault("executable", os.environ.get("SHELL") or "/bin/sh")  # as IPython
    return api.spawn(args, shell, **kwargs)


def run_shell(api, cmd):
    """Runs cmd in a shell; its output goes where sys.stdout goes (%%capture takes it). Sets
    _exit_code and returns the shell's status."""
    subprocess = api.private_import("subprocess")
    if _redirected():
        proc = popen(api, cmd, True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        _copy(proc, api)
    else:
        proc = popen(api, cmd, True)
    code = api.wait(proc)
    api.user_ns["_exit_code"] = exit_code(code)
    return code


def register(reg):
    api = reg.api
    from . import UsageError

    def popen_(args, shell, **kwargs):
        return popen(api, args, shell, **kwargs)

    def run(cmd):
        return run_shell(api, cmd)

    def system(cmd, frame):
        """!cmd: runs a shell command; its exit code is in _exit_code."""
        if cmd.rstrip().endswith("&"):
            raise OSError("Background processes not supported.")
        run(cmd)

    reg.shell = system

    @reg.line_magic("sx")
    @reg.line_magic("system")  # (IPython's %system is %sx: the output as a list, not printed)
    def sx(cmd, frame):
        """!!cmd and x = !cmd: the command's output (stdout and stderr) as an SList of lines."""
        subprocess = api.private_import("subprocess")
        proc = popen_(cmd, True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        chunks = []
        try:
            for chunk in iter(lambda: proc.stdout.read1(1 << 16), b""):
                chunks.append(chunk)
        except KeyboardInterrupt:
            api.stop(proc)
            raise
        api.user_ns["_exit_code"] = exit_code(api.wait(proc))
        return SList(b"".join(chunks).decode("utf-8", "replace").splitlines())

    def define(name, command):
        reg.line_magic(name)(_alias(run, command))
        reg.aliases[name] = command

    reg.aliases = {}
    for name, command in ALIASES.items():
        define(name, command)

    @reg.line_magic("alias")
    def alias(arg, frame):
        """%alias NAME COMMAND makes %NAME run the shell command (%s, %l take the arguments);
        without arguments, the aliases."""
        parts = arg.split(None, 1)
        if not parts:
            print("Total number of aliases: %d" % len(reg.aliases))
            return sorted(reg.aliases.items())
        if len(parts) == 1:
            raise UsageError("%alias needs a name and a command")
        define(parts[0], parts[1])
        return None

    @reg.line_magic("unalias")
    def unalias(arg, frame):
        """Removes an alias."""
        name = arg.strip()
        if name not in reg.aliases:
            print("%s is not an alias" % name)
            return
        del reg.aliases[name]
        reg.line.pop(name, None)
        print("Removing alias: %s" % name)

    @reg.line_magic("rehashx")
    def rehashx(arg, frame):
        """Makes every executable on PATH an alias (%git, %make, ...), unless a magic has the name."""
        for folder in os.environ.get("PATH", "").split(os.pathsep):
            try:
                names = os.listdir(folder or ".")
            except OSError:
                continue
            for name in names:
                path = os.path.join(folder, name)
                key = name.replace(".", "")
                if key and key not in reg.line and os.access(path, os.X_OK) and not os.path.isdir(path):
                    define(key, name)


def _alias(run, command):
    def magic(arg, frame):
        if "%l" in command:
            cmd = command.replace("%l", arg)
        elif "%s" in command:
            cmd = command % tuple(arg.split()[: command.count("%s")])
        else:
            cmd = (command + " " + arg).strip()
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
