"""Matplotlib and plotly figures as images. Nothing here imports matplotlib or plotly: they are
looked up in sys.modules, so only cells that already use them pay for them. After every cell the
open pyplot figures are shown as PNGs and closed; plt.show() shows them where it is called.
No side effects on import; the server patches pyplot as it is loaded (patching_finder)."""
import io
import sys

from .formatters import Bundle, b64, mime_value, safe_repr

NON_INTERACTIVE_BACKENDS = frozenset(("agg", "cairo", "pdf", "pgf", "ps", "svg", "template"))


def _safe_str(exc):
    try:
        return str(exc)
    except Exception:
        return "<unprintable %s>" % type(exc).__name__


class Figures(object):
    def __init__(self, publish, warn, diag):
        self._publish = publish  # publish(bundle): a display under the running cell
        self._warn = warn
        self._diag = diag
        self._shown = {}  # id → figure shown by display() or as a result in the running cell

    def bundle(self, obj):
        """A bundle of its own for a figure (or None for anything else)."""
        modules = sys.modules
        figure = modules.get("matplotlib.figure")
        if figure is not None and isinstance(obj, figure.Figure):
            return self.figure_bundle(obj)
        if "plotly" in modules and _is_plotly_figure(obj):
            return self.plotly_bundle(obj)
        return None

    def figure_bundle(self, fig):
        """A figure as PNG (at its own size and dpi) with its repr as text. An empty figure is
        text only, as in IPython."""
        self._shown[id(fig)] = fig
        bundle = Bundle()
        if fig.axes or fig.lines or fig.images or fig.texts or fig.patches:
            try:
                buf = io.BytesIO()
                fig.savefig(buf, format="png")
                bundle["image/png"] = b64(buf.getbuffer())
            except Exception as exc:
                self._warn("the figure could not be drawn: %s: %s" % (type(exc).__name__, _safe_str(exc)))
        bundle["text/plain"] = safe_repr(fig, self._warn)
        return bundle

    def flush(self, explicit=False):
        """Emits every open pyplot figure as a PNG display and closes it: after every cell, and
        where plt.show() is called (explicit). After the cell, a figure the cell already showed
        (display(), or as its result) is closed without being shown again."""
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is None:
            return
        try:
            managers = sys.modules["matplotlib._pylab_helpers"].Gcf.get_all_fig_managers()
        except Exception:
            return
        if not managers or not _non_interactive(pyplot):
            return
        for manager in managers:
            fig = manager.canvas.figure
            try:
                if explicit or id(fig) not in self._shown:
                    self._publish(self.figure_bundle(fig))
            finally:
                pyplot.close(fig)

    def after_cell(self):
        try:
            self.flush()
        finally:
            self._shown.clear()

    def patch_pyplot(self, pyplot):
        """plt.show() shows the open figures at that point of the cell's output (with a
        non-interactive backend; an interactive one keeps its own show)."""
        original = getattr(pyplot, "show", None)
        if original is None or getattr(original, "_omp_show", False):
            return
        flush = self.flush

        def show(*args, **kwargs):
            if not _non_interactive(pyplot):
                return original(*args, **kwargs)
            flush(explicit=True)
            return None

        show._omp_show = True
        show.__wrapped__ = original
        show.__doc__ = original.__doc__
        pyplot.show = show

    def plotly_bundle(self, fig):
        """A static PNG when kaleido is installed, and always a short summary: a plotly figure's
        own HTML and JSON run to megabytes and show nothing in a terminal."""
        import importlib.util

        bundle = Bundle()
        summary = plotly_summary(fig)
        if importlib.util.find_spec("kaleido") is not None:
            try:
                bundle["image/png"] = mime_value("image/png", fig.to_image(format="png"))
            except Exception as exc:
                summary += " (no static image: %s: %s)" % (type(exc).__name__, _safe_str(exc))
        else:
            summary += " (install kaleido for a static image)"
        bundle["text/plain"] = summary
        return bundle


def _non_interactive(pyplot):
    try:
        return str(pyplot.get_backend()).lower() in NON_INTERACTIVE_BACKENDS
    except Exception:
        return False


def _is_plotly_figure(obj):
    module = getattr(type(obj), "__module__", "") or ""
    return module.split(".", 1)[0] == "plotly" and hasattr(obj, "to_image") and hasattr(obj, "data")


def plotly_summary(fig):
    try:
        traces = list(fig.data)
    except Exception:
        traces = []
    parts = []
    for trace in traces[:6]:
        text = str(getattr(trace, "type", None) or type(trace).__name__.lower())
        name = getattr(trace, "name", None)
        if name:
            text += " %r" % (name,)
        for axis in ("x", "y", "values", "z"):
            try:
                n = len(getattr(trace, axis))
            except Exception:
                continue
            text += " (%d points)" % n
            break
        parts.append(text)
    if len(traces) > 6:
        parts.append("%d more" % (len(traces) - 6))
    summary = "Plotly figure: %d trace%s" % (len(traces), "" if len(traces) == 1 else "s")
    if parts:
        summary += ": " + ", ".join(parts)
    try:
        title = fig.layout.title.text
    except Exception:
        title = None
    if title:
        summary += "; title %r" % (str(title),)
    return summary
