"""%%capture [--no-stdout] [--no-stderr] [--no-display] [NAME]: runs the body as a cell with its
stdout, stderr (shell commands' too), displays and result kept in NAME, a CapturedIO, instead of
shown. NAME is bound even when the body raises."""
import io
import sys


class RichOutput(object):
    """One captured display (or the body's result): .data, .metadata, shown again by display()."""

    def __init__(self, data, metadata=None):
        self.data = dict(data)
        self.metadata = dict(metadata or {})

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.data, self.metadata

    def __getitem__(self, mime):
        return self.data[mime]  # the bundle as a dict, as omp-eval's %%capture offered it first


class CapturedIO(object):
    """What %%capture keeps: .stdout, .stderr (text) and .outputs (RichOutput each); show() (or
    calling it) writes and displays them again; str() is the stdout."""

    def __init__(self, stdout, stderr, outputs, api):
        self._stdout = stdout
        self._stderr = stderr
        self._outputs = outputs
        self._api = api

    @property
    def stdout(self):
        return self._stdout

    @property
    def stderr(self):
        return self._stderr

    @property
    def outputs(self):
        return [RichOutput(bundle, getattr(bundle, "metadata", None)) for bundle in self._outputs]

    def __str__(self):
        return self._stdout

    def show(self):
        sys.stdout.write(self._stdout)
        sys.stderr.write(self._stderr)
        for bundle in self._outputs:
            self._api.publish(bundle)

    __call__ = show


def register(reg):
    api = reg.api
    from . import UsageError

    @reg.cell_magic("capture")
    def capture(line, body, body_line, frame):
        """%%capture [--no-stdout] [--no-stderr] [--no-display] [NAME]."""
        args = line.split()
        flags = {a for a in args if a.startswith("-")}
        names = [a for a in args if not a.startswith("-")]
        wrong = sorted(flags - {"--no-stdout", "--no-stderr", "--no-display"}) + names[1:]
        if wrong:
            raise UsageError("unrecognized arguments: %s" % " ".join(wrong))  # (IPython's argparse)
        out, err, outputs = io.StringIO(), io.StringIO(), []
        saved = sys.stdout, sys.stderr
        if "--no-stdout" not in flags:
            sys.stdout = out
        if "--no-stderr" not in flags:
            sys.stderr = err
        if "--no-display" not in flags:
            api.push_capture(outputs)
        try:
            value = api.run_source("\n" * (body_line - 1) + body, want_value=True, register=False)
            if value is not api.NO_VALUE and value is not None and "--no-display" not in flags:
                bundle = api.formatter.format(value)
                if bundle:
                    outputs.append(bundle)
        finally:
            sys.stdout, sys.stderr = saved
            if "--no-display" not in flags:
                api.pop_capture()
            if names:
                api.user_ns[names[0]] = CapturedIO(out.getvalue(), err.getvalue(), outputs, api)
