"""display(), update_display(), clear_output() and the frames they send; IPython's own display
functions are routed here when a cell imports IPython.display. No side effects on import."""
from .formatters import raw_bundle

STATUS_MIME = "application/x-omp-status"


class DisplayHandle(object):
    """A display that later output can replace: display(obj, display_id=True) returns one."""

    _display = None  # the kernel's Display, set at install

    def __init__(self, display_id=None):
        if display_id is None:
            import uuid

            display_id = uuid.uuid4().hex
        self.display_id = display_id

    def __repr__(self):
        return "<%s display_id=%s>" % (self.__class__.__name__, self.display_id)

    def display(self, obj, **kwargs):
        self._display.display(obj, display_id=self.display_id, **kwargs)

    def update(self, obj, **kwargs):
        self._display.display(obj, display_id=self.display_id, update=True, **kwargs)


class Display(object):
    def __init__(self, formatter, send, drain, cell_id, warn):
        self.formatter = formatter
        self._send = send
        self._drain = drain
        self._cell_id = cell_id
        self._warn = warn
        self.captures = []  # %%capture collects bundles here instead of sending them (innermost last)
        self.clear_pending = False  # clear_output(wait=True): clear before the next output

    def display(self, *objs, **kwargs):
        """Shows each object under the running cell, as Jupyter's display() does: display(obj, ...,
        raw=False, include=None, exclude=None, metadata=None, transient=None, display_id=None,
        update=False, clear=False). With a display_id (True for a new one) it returns a
        DisplayHandle; update=True replaces that display."""
        include, exclude = kwargs.get("include"), kwargs.get("exclude")
        metadata = kwargs.get("metadata")
        display_id = asked = kwargs.get("display_id")
        transient = kwargs.get("transient")
        if display_id is None and isinstance(transient, dict):
            display_id = transient.get("display_id")  # (no handle returned for it, as IPython's)
        update = bool(kwargs.get("update", False))
        if display_id is True:
            display_id = DisplayHandle().display_id
        if update and display_id is None:
            raise TypeError("display(update=True) needs a display_id")
        if display_id is not None:
            display_id = str(display_id)
        if kwargs.get("clear"):
            self.clear_output(wait=True)
        for obj in objs:
            if kwargs.get("raw", False):
                bundle = raw_bundle(obj, metadata, self._warn)
            else:
                bundle = self.formatter.display_bundle(obj, include, exclude)
                if bundle is None:
                    continue  # the object displayed itself
                if isinstance(metadata, dict):
                    bundle.metadata.update(metadata)
            if bundle:
                self.publish(bundle, display_id=display_id, update=update)
        return DisplayHandle(display_id) if asked else None

    def update_display(self, obj, **kwargs):
        """Replaces the display that has this display_id: update_display(obj, display_id=...)."""
        if kwargs.get("display_id") is None:
            raise TypeError("update_display() needs a display_id")
        kwargs["update"] = True
        self.display(obj, **kwargs)

    def clear_output(self, wait=False):
        """Clears the cell's output; with wait=True only once new output arrives."""
        self._drain()  # what was printed before belongs before the clear
        if wait:
            self.clear_pending = True
        else:
            self.clear_pending = False
            self._send_clear()

    def before_output(self):
        """Called before any output of the cell is sent: a waiting clear happens now."""
        if self.clear_pending:
            self.clear_pending = False
            self._send_clear()

    def _send_clear(self):
        self._send({"type": "display", "id": self._cell_id(), "bundle": {STATUS_MIME: {"op": "clear_output"}}})

    def publish_data(self, data, metadata=None, source=None, transient=None, **kwargs):
        """IPython's publish_display_data."""
        display_id = (transient or {}).get("display_id")
        self.publish(raw_bundle(data, metadata, self._warn), display_id=display_id, update=kwargs.get("update", False))

    def publish(self, bundle, kind="display", display_id=None, update=False):
        if self.captures:
            self.captures[-1].append(bundle)
            return
        frame = {"type": kind, "id": self._cell_id(), "bundle": bundle}
        if display_id is not None:
            frame["displayId"] = display_id
            if update:
                frame["update"] = True
        metadata = getattr(bundle, "metadata", None)
        if metadata:
            frame["metadata"] = metadata
        if getattr(bundle, "plain_is_repr", False) and ("text/html" in bundle or "text/markdown" in bundle):
            frame["plainIsRepr"] = True  # only where it can change what the host shows
        self._drain()
        if STATUS_MIME not in bundle:
            self.before_output()
        self._send(frame)

    def status(self, op, **data):
        """A status event (shown as a short status line, never as output)."""
        data["op"] = op
        self.publish({STATUS_MIME: data})

    def route_ipython(self, module):
        """IPython.core.display_functions, as it is loaded: its display functions become ours, so
        `from IPython.display import display, HTML` shows HTML instead of printing a repr."""
        module.display = self.display
        module.update_display = self.update_display
        module.clear_output = self.clear_output
        module.publish_display_data = self.publish_data
        if hasattr(module, "DisplayHandle"):
            module.DisplayHandle.display = DisplayHandle.display
            module.DisplayHandle.update = DisplayHandle.update
            module.DisplayHandle._display = self
