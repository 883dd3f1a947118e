"""Compares what a user sees in the two kernels, after normalising what legitimately varies
between two runs (the case's directory, memory addresses, durations, display ids, colours)."""
import re

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_DURATION = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?\s?(?:ns|\u00b5s|us|ms|s|min|h)\b")
_TIMEIT_LOOPS = re.compile(r"\d[\d,]* loops? each")
_TIMEIT_RUNS = re.compile(r"of \d+ runs?")
# Timing-dependent: %timeit says so only when one run happened to be much slower.
_SLOWEST = re.compile(r"The slowest run took [\d.]+ times longer than the fastest\. This could mean that an intermediate result is being cached\.\n?")
_RANDOM_HEX = re.compile(r"\b[0-9a-f]{32}\b")
_TMP_NAME = re.compile(r"tmp-ipython-\w+")
# What a cell is called in warnings and help: IPython's and ipykernel's names, and ours.
_CELL_NAME = re.compile(r"<ipython-input-\d+-[0-9a-f]+>|<cell In\[\d+\]>|<omp-internal-[\w-]+>")
# A traceback shown as output (not the cell's error): only its last line is compared, since
# the frames shown differ by design (IPython's verbose format, ours without runner frames).
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):\n(?:.*\n)*?(?=[A-Za-z_][\w.]*: |[A-Za-z_][\w.]*\n|[A-Za-z_][\w.]*$)")
# A chained exception shown as output: only the last exception of the chain is compared.
_CHAIN = re.compile(
    r"Traceback: [^\n]*\n\n(?:The above exception was the direct cause of the following exception:|"
    r"During handling of the above exception, another exception occurred:)\n\n?"
)
# A warning IPython raises from its own code (%xmode of an unknown mode) names its file and line
# and shows that line; omp-eval's kernel says the same words without a location in IPython.
_IPYTHON_WARNING = re.compile(r"(?m)^/\S*/IPython/\S+\.py:\d+: (\w+Warning: [^\n]*(?:\n(?!  )[^\n]*)*)\n  [^\n]*$")
STATUS_MIME = "application/x-omp-status"


def text(value, casedir):
    if not isinstance(value, str):
        return value
    value = _ANSI.sub("", value).replace("\r\n", "\n")
    value = _IPYTHON_WARNING.sub(r"\1", value)
    if casedir:
        value = value.replace(casedir, "<DIR>")
    value = _ADDRESS.sub("0x<addr>", value)
    value = _SLOWEST.sub("", value)
    value = _RANDOM_HEX.sub("<hex>", value)
    value = _TMP_NAME.sub("tmp-ipython-<rand>", value)
    value = _CELL_NAME.sub("<cell>", value)
    value = _TRACEBACK.sub("Traceback: ", value + ("\n" if not value.endswith("\n") else ""))
    value = _CHAIN.sub("", value)
    value = _DURATION.sub("<t>", value)
    value = _TIMEIT_LOOPS.sub("<n> loops each", value)
    value = _TIMEIT_RUNS.sub("of <n> runs", value)
    return "\n".join(line.rstrip() for line in value.split("\n")).strip("\n")


def bundle(data, casedir):
    return {mime: text(value, casedir) if isinstance(value, str) else value for mime, value in data.items()}


def output(out, casedir):
    if "clear" in out:
        return {"clear": out["clear"]}
    status = out["data"].get(STATUS_MIME)
    if isinstance(status, dict) and status.get("op") == "clear_output":
        return {"clear": bool(status.get("wait"))}
    return {
        "data": bundle(out["data"], casedir),
        "metadata": out.get("metadata") or {},
        "display_id": bool((out.get("transient") or {}).get("display_id")),
        "update": bool(out.get("update")),
    }


def cell(obs, casedir):
    return {
        "stdout": text(obs["stdout"], casedir),
        "stderr": text(obs["stderr"], casedir),
        # (Several with ast_node_interactivity = 'all'.)
        "results": [{"data": bundle(r["data"], casedir), "metadata": r.get("metadata") or {}} for r in obs["results"]],
        # Status events are omp-eval's status line (timing, cd), not output.
        "displays": [output(o, casedir) for o in obs["displays"] if not _status_only(o)],
        "error": obs["error"],
        "prompts": [text(p, casedir).strip() for p in obs["prompts"]],
    }


def _status_only(out):
    data = out.get("data") or {}
    status = data.get(STATUS_MIME)
    return set(data) == {STATUS_MIME} and not (isinstance(status, dict) and status.get("op") == "clear_output")


def namespace(ns, casedir):
    return {k: text(v, casedir) for k, v in ns.items()}


def is_complete_of(reply):
    status, indent = reply
    if isinstance(indent, str):
        indent = len(indent)
    return [status, indent if status == "incomplete" else None]


def compare_case(case, ours, theirs, our_dir, their_dir):
    """None when the user sees the same in both; otherwise a short description of the first
    difference (which cell, which observation, both values)."""
    if case["kind"] == "is_complete":
        a, b = is_complete_of(ours["reply"]), is_complete_of(theirs["reply"])
        return None if a == b else "is_complete: omp %r, IPython %r" % (a, b)
    for index, (mine, other) in enumerate(zip(ours["cells"], theirs["cells"])):
        a, b = cell(mine, our_dir), cell(other, their_dir)
        for key in ("error", "stdout", "stderr", "results", "displays", "prompts"):
            if a[key] != b[key]:
                mine, other = _around_difference(repr(a[key]), repr(b[key]))
                return "cell %d %s: omp %s | IPython %s" % (index + 1, key, mine, other)
    if len(ours["cells"]) != len(theirs["cells"]):
        return "omp ran %d cells, IPython %d" % (len(ours["cells"]), len(theirs["cells"]))
    mine, other = namespace(ours["namespace"], our_dir), namespace(theirs["namespace"], their_dir)
    if mine != other:
        keys = sorted(k for k in set(mine) | set(other) if mine.get(k) != other.get(k))
        return "namespace: omp %s | IPython %s" % (
            _short({k: mine.get(k) for k in keys}),
            _short({k: other.get(k) for k in keys}),
        )
    return None


def _around_difference(a, b, context=150):
    """Both texts cut around where they first differ."""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, at - context)
    cut = lambda t: ("…" if start else "") + t[start : at + context] + ("…" if len(t) > at + context else "")  # noqa: E731
    return cut(a), cut(b)


def _short(value, limit=300):
    text_ = repr(value)
    return text_ if len(text_) <= limit else text_[:limit] + "…"
