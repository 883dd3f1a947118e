"""Objects → MIME bundles, as IPython's display formatter makes them: `_ipython_display_` shows
itself, then `_repr_mimebundle_`, then one `_repr_*_` method per MIME type (a method may return
`(data, metadata)`), and text/plain from the pretty printer. A formatter that raises shows its
traceback and is skipped (NotImplementedError silently). Matplotlib and plotly figures get
bundles of their own (figures.py). Every bundle is bounded. No side effects on import.
"""
import json

# IPython's formatter order: the first of these an object offers is what a front end shows.
REPR_METHODS = (
    ("text/html", "_repr_html_", str),
    ("text/markdown", "_repr_markdown_", str),
    ("image/svg+xml", "_repr_svg_", str),
    ("image/png", "_repr_png_", (bytes, str)),
    ("application/pdf", "_repr_pdf_", (bytes, str)),
    ("image/jpeg", "_repr_jpeg_", (bytes, str)),
    ("text/latex", "_repr_latex_", str),
    ("application/json", "_repr_json_", (dict, list)),
    ("application/javascript", "_repr_javascript_", str),
)
BINARY_MIMES = frozenset(("image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"))
VALUE_CAP = 32 * 1024 * 1024  # characters; keeps every frame far below the host's cap
IMAGE_CAP = 16 * 1024 * 1024  # base64 characters (12 MiB of image): the host shows no larger image
IMPLICIT_JSON_CAP = 8 * 1024 * 1024  # display() of a dict or list adds its JSON up to this size


class Bundle(dict):
    """A MIME bundle with its metadata. `plain_is_repr` marks a text/plain that is only the
    object's repr (no `_repr_pretty_` of its own): the host ranks it below HTML and markdown."""

    plain_is_repr = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.metadata = {}


def b64(data):
    import base64

    return base64.b64encode(bytes(data)).decode("ascii")


def _mb(chars):
    return "%.1f MB" % (chars / 1e6)


def method_of(obj, name):
    """A display method of obj, or None: never of a class, never of an object that answers
    every attribute (a mock, a proxy: IPython's canary check)."""
    if isinstance(obj, type):
        return None
    try:
        if getattr(obj, "_ipython_canary_method_should_not_exist_", None) is not None:
            return None
        method = getattr(obj, name, None)
    except Exception:
        return None
    return method if callable(method) else None


def mime_value(mime, value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        if mime in BINARY_MIMES:
            return b64(value)
        return bytes(value).decode("utf-8", "replace")
    return value


class Formatter(object):
    def __init__(self, warn, show_error, special=lambda obj: None):
        self._warn = warn  # one line on stderr
        self._show_error = show_error  # shows the traceback of the exception being handled
        self._special = special  # figures and plotly: a bundle of their own, or None
        self.float_format = "%r"  # %precision
        self.pprint = True  # %pprint

    def plain(self, obj):
        if not self.pprint:
            return repr(obj)
        from . import pretty

        return pretty.pretty(obj, float_format=self.float_format)

    def format(self, obj, include=None, exclude=None):
        """The bundle of obj, or None when obj displayed itself (`_ipython_display_`)."""
        kind = type(obj).__name__
        bundle = self._special(obj)
        if bundle is None:
            shown = method_of(obj, "_ipython_display_")
            if shown is not None:
                try:
                    shown()
                    return None
                except NotImplementedError:
                    pass
                except Exception:
                    self._show_error()  # then shown the usual way, as IPython does
            bundle = self._repr_bundle(obj, include, exclude)
        wanted = [m for m in bundle if (not include or m in include) and not (exclude and m in exclude)]
        for mime in list(bundle):
            if mime not in wanted:
                del bundle[mime]
                bundle.metadata.pop(mime, None)
        return bound(bundle, kind, self._warn)

    def _call(self, method, *args, **kwargs):
        try:
            return method(*args, **kwargs)
        except NotImplementedError:
            return None
        except Exception:
            self._show_error()
            return None

    def _repr_bundle(self, obj, include, exclude):
        bundle = Bundle()
        method = method_of(obj, "_repr_mimebundle_")
        if method is not None:
            self._add_mimebundle(bundle, obj, self._call(method, include=include, exclude=exclude))
        for mime, name, types in REPR_METHODS:
            if mime in bundle or (include and mime not in include) or (exclude and mime in exclude):
                continue
            method = method_of(obj, name)
            if method is None:
                continue
            value = self._call(method)
            if isinstance(value, tuple) and len(value) == 2:
                value, metadata = value
                if isinstance(metadata, dict) and metadata:
                    bundle.metadata[mime] = metadata
            if value is None:
                continue
            value = mime_value(mime, value)
            if not isinstance(value, types):
                self._warn("%s.%s returned %s (ignored)" % (type(obj).__name__, name, type(value).__name__))
                continue
            bundle[mime] = value
        if "text/plain" not in bundle and (not include or "text/plain" in include):
            text = self._call(self.plain, obj)
            if text is not None:
                bundle["text/plain"] = text
                bundle.plain_is_repr = not _has_own_pretty(obj)
        return bundle

    def _add_mimebundle(self, bundle, obj, data):
        metadata = None
        if isinstance(data, tuple) and len(data) == 2:
            data, metadata = data
        if data is None:
            return
        if not isinstance(data, dict):
            self._warn("%s._repr_mimebundle_ returned %s, not a dict (ignored)" % (type(obj).__name__, type(data).__name__))
            return
        for mime, value in data.items():
            bundle[str(mime)] = mime_value(str(mime), value)
        if isinstance(metadata, dict):
            bundle.metadata.update({str(k): v for k, v in metadata.items()})

    def display_bundle(self, obj, include=None, exclude=None):
        """What display(obj) shows: the bundle, plus JSON for a dict or list that fits."""
        bundle = self.format(obj, include, exclude)
        if (
            bundle is not None
            and isinstance(obj, (dict, list))
            and "application/json" not in bundle
            and (not include or "application/json" in include)
            and (not exclude or "application/json" not in exclude)
            and json_fits(obj)
        ):
            bundle["application/json"] = obj
        return bundle


def raw_bundle(data, metadata, warn):
    """display(bundle, raw=True): the dict is the bundle."""
    if not isinstance(data, dict):
        raise TypeError("display(raw=True) takes MIME bundles (dicts), got %s" % type(data).__name__)
    bundle = Bundle((str(k), mime_value(str(k), v)) for k, v in data.items())
    if isinstance(metadata, dict):
        bundle.metadata.update(metadata)
    return bound(bundle, "raw bundle", warn)


def bound(bundle, kind, warn):
    """Drops images over the cap and JSON that is too big or not JSON; cuts long text."""
    for mime, value in list(bundle.items()):
        if isinstance(value, str) and mime.startswith("image/") and len(value) > IMAGE_CAP:
            warn(
                "%s: %s output of %s dropped: images over %s are not sent"
                % (kind, mime, _mb(len(value) * 3 // 4), _mb(IMAGE_CAP * 3 // 4))
            )
            del bundle[mime]
        elif isinstance(value, str) and len(value) > VALUE_CAP:
            half = VALUE_CAP // 2
            bundle[mime] = "%s\n… [%d characters omitted] …\n%s" % (value[:half], len(value) - 2 * half, value[-half:])
        elif mime == "application/json":
            try:
                size = len(json.dumps(value, allow_nan=False))
            except (TypeError, ValueError, RecursionError) as exc:
                warn("%s: %s data is not JSON (%s); dropped" % (kind, mime, type(exc).__name__))
                del bundle[mime]
                continue
            if size > VALUE_CAP:
                warn("%s: %s data of %s dropped (too large)" % (kind, mime, _mb(size)))
                del bundle[mime]
    return bundle


def json_fits(value):
    """True if value encodes as strict JSON of a reasonable size (display() of a dict or list)."""
    try:
        return len(json.dumps(value, allow_nan=False)) <= IMPLICIT_JSON_CAP
    except (TypeError, ValueError, RecursionError):
        return False


def safe_repr(obj, warn):
    try:
        return repr(obj)
    except Exception as exc:
        kind = type(obj).__name__
        warn("repr() of %s raised %s: %s" % (kind, type(exc).__name__, exc))
        return "<%s object at %#x>" % (kind, id(obj))


def _has_own_pretty(obj):
    """True when obj's class writes its own plain text (`_repr_pretty_`), not only a repr."""
    try:
        cls = getattr(obj, "__class__", None) or type(obj)
        return any("_repr_pretty_" in vars(base) for base in getattr(cls, "__mro__", (cls,)))
    except Exception:
        return False
