"""Compares what a user sees in the two kernels, after normalising what legitimately varies
between two runs (the case's directory, memory addresses, durations, display ids, colours)."""
import re

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_DURATION = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?\s?(?:ns|\u00b5s|us|ms|s|min|h)\b")
_TIMEIT_LOOPS = re.compile(r"\d[\d,]* loops? each")
_TIMEIT_RUNS = re.compile(r"of \d+ runs?")


def text(value, casedir):
    if not isinstance(value, str):
        return value
    value = _ANSI.sub("", value).replace("\r\n", "\n")
    if casedir:
        value = value.replace(casedir, "<DIR>")
    value = _ADDRESS.sub("0x<addr>", value)
    value = _DURATION.sub("<t>", value)
    value = _TIMEIT_LOOPS.sub("<n> loops each", value)
    value = _TIMEIT_RUNS.sub("of <n> runs", value)
    return "\n".join(line.rstrip() for line in value.split("\n")).strip("\n")


def bundle(data, casedir):
    return {mime: text(value, casedir) if isinstance(value, str) else value for mime, value in data.items()}


def output(out, casedir):
    if "clear" in out:
        return {"clear": out["clear"]}
    return {
        "data": bundle(out["data"], casedir),
        "metadata": out.get("metadata") or {},
        "display_id": bool((out.get("transient") or {}).get("display_id")),
        "update": bool(out.get("update")),
    }


def cell(obs, casedir):
    result = obs.get("result")
    return {
        "stdout": text(obs["stdout"], casedir),
        "stderr": text(obs["stderr"], casedir),
        "result": None if result is None else {"data": bundle(result["data"], casedir), "metadata": result.get("metadata") or {}},
        "displays": [output(o, casedir) for o in obs["displays"]],
        "error": obs["error"],
        "prompts": [text(p, casedir).strip() for p in obs["prompts"]],
    }


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
        for key in ("error", "stdout", "stderr", "result", "displays", "prompts"):
            if a[key] != b[key]:
                return "cell %d %s: omp %s | IPython %s" % (index + 1, key, _short(a[key]), _short(b[key]))
    if len(ours["cells"]) != len(theirs["cells"]):
        return "omp ran %d cells, IPython %d" % (len(ours["cells"]), len(theirs["cells"]))
    if ours["namespace"] != theirs["namespace"]:
        mine, other = ours["namespace"], theirs["namespace"]
        keys = sorted(k for k in set(mine) | set(other) if mine.get(k) != other.get(k))
        return "namespace: omp %s | IPython %s" % (
            _short({k: mine.get(k) for k in keys}),
            _short({k: other.get(k) for k in keys}),
        )
    return None


def _short(value, limit=300):
    text_ = repr(value)
    return text_ if len(text_) <= limit else text_[:limit] + "…"
