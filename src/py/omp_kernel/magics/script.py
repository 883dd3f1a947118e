"""%%script and the cell magics named after interpreters (%%bash, %%sh, %%python3, ...): the
cell's body goes to the command's stdin. Options as IPython's: --out NAME / --err NAME keep a
stream in a variable, --no-raise-error, and --bg, which runs the command in the background (on an
event loop thread of its own) with --out, --err and --proc bound to awaitable proxies."""
import sys
import threading

INTERPRETERS = ("bash", "sh", "perl", "ruby", "python", "python2", "python3", "pypy")


class _AsyncIOProxy(object):
    """An object living on the background loop, usable from a cell: its coroutine methods
    return awaitables of the caller's loop (`await output.read()`)."""

    def __init__(self, target, loop):
        self._target = target
        self._loop = loop

    def __repr__(self):
        return "<_AsyncIOProxy(%r)>" % (self._target,)

    def __getattr__(self, name):
        import asyncio
        import inspect

        value = getattr(self._target, name)
        if not inspect.iscoroutinefunction(value):
            return value

        def call(*args, **kwargs):
            future = asyncio.run_coroutine_threadsafe(value(*args, **kwargs), self._loop)
            return asyncio.wrap_future(future)

        return call


class _Background(object):
    """The event loop thread background scripts run on (made on first use)."""

    loop = None

    @classmethod
    def get(cls):
        import asyncio

        if cls.loop is None:
            cls.loop = asyncio.new_event_loop()
            threading.Thread(target=cls.loop.run_forever, name="omp-scripts", daemon=True).start()
        return cls.loop


def parse(line, UsageError):
    """(options, argv): --flags anywhere on the line (as argparse takes them), the rest the
    command."""
    import shlex

    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    opts = {"bg": False, "no-raise-error": False, "out": None, "err": None, "proc": None}
    argv = []
    while words:
        word = words.pop(0)
        name = word[2:]
        if word.startswith("--") and name in opts:
            if opts[name] is False:
                opts[name] = True
            elif not words:
                raise UsageError("%%script: --%s needs a name" % name)
            else:
                opts[name] = words.pop(0)
        elif word.startswith("--"):
            raise UsageError("%%script: unrecognized option %s" % word)
        else:
            argv.append(word)
    return opts, argv


def register(reg):
    api = reg.api
    from . import UsageError

    def run(command, line, body):
        opts, argv = parse(line, UsageError)
        argv = ([command] if command else []) + argv
        if not argv:
            raise UsageError("%%script needs a command, e.g. %%script bash")
        if opts["bg"]:
            return background(argv, opts, body)
        subprocess = api.private_import("subprocess")
        redirected = sys.stdout is not sys.__stdout__
        pipes = {}
        if opts["out"] or redirected:
            pipes["stdout"] = subprocess.PIPE
        if opts["err"] or redirected:
            pipes["stderr"] = subprocess.PIPE
        proc = api.spawn(argv, False, stdin=subprocess.PIPE, **pipes)
        try:
            out, err = proc.communicate(body.encode("utf-8"))
        except KeyboardInterrupt:
            api.stop(proc)
            raise
        for name, data, stream in ((opts["out"], out, sys.stdout), (opts["err"], err, sys.stderr)):
            if data is None:
                continue
            text = data.decode("utf-8", "replace")
            if name:
                api.user_ns[name] = text
            else:
                stream.write(text)
        if proc.returncode and not opts["no-raise-error"]:
            raise subprocess.CalledProcessError(proc.returncode, " ".join(argv))

    def background(argv, opts, body):
        import asyncio

        loop = _Background.get()

        async def start():
            pipe = asyncio.subprocess.PIPE
            return await asyncio.create_subprocess_exec(*argv, stdin=pipe, stdout=pipe, stderr=pipe)

        proc = asyncio.run_coroutine_threadsafe(start(), loop).result()
        ns = api.user_ns
        if opts["out"]:
            ns[opts["out"]] = _AsyncIOProxy(proc.stdout, loop)
        if opts["err"]:
            ns[opts["err"]] = _AsyncIOProxy(proc.stderr, loop)
        if opts["proc"]:
            proxy = _AsyncIOProxy(proc, loop)
            proxy.stdout = _AsyncIOProxy(proc.stdout, loop)
            proxy.stderr = _AsyncIOProxy(proc.stderr, loop)
            ns[opts["proc"]] = proxy
        unread = [s for s, name in ((proc.stdout, opts["out"]), (proc.stderr, opts["err"])) if not name]

        async def feed():
            proc.stdin.write(body.encode("utf-8"))
            await proc.stdin.drain()
            proc.stdin.close()
            for stream in unread if not opts["proc"] else []:
                await stream.read()  # what no one keeps is dropped, as in IPython
            await proc.wait()

        asyncio.run_coroutine_threadsafe(feed(), loop)

    @reg.cell_magic("script")
    def script(line, body, body_line, frame):
        """%%script [--bg] [--out NAME] [--err NAME] [--proc NAME] [--no-raise-error] COMMAND:
        runs the cell's body with the command (bash, python3, ...)."""
        run("", line, body)

    for name in INTERPRETERS:
        reg.cell_magic(name)(_for(run, name))


def _for(run, name):
    def magic(line, body, body_line, frame):
        run(name, line, body)

    magic.__doc__ = "%%%%%s: runs the cell's body with %s (the options of %%%%script)." % (name, name)
    return magic
