"""Runs oracle cases in omp-eval's Python kernel: the real runner.py in a real interpreter, spoken
to over its NDJSON protocol as the host does (init request with the prelude, then one execute
request per cell, input requests answered), and records the same observations as ipython_side."""
import json
import os
import signal
import sys

from harvest import substitute

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from kernel_process import Kernel as Process  # noqa: E402  (test/py, beside this folder)

CELL_LIMIT = 30

# Printed by a silent cell after the case: the user's names as ipython_side describes them.
NAMESPACE_PROBE = r"""
def __omp_oracle_ns():
    import json, sys
    ip = get_ipython() if "get_ipython" in globals() or hasattr(__builtins__, "get_ipython") else None
    hidden = set(getattr(ip, "user_ns_hidden", ()) or ())
    if not hidden:
        server = sys.modules.get("_omp_runner")
        hidden = set(getattr(server, "_hidden_names", ()))
    simple = (int, float, str, bool, type(None), list, tuple, dict, set, bytes)
    out = {}
    for name, value in list(globals().items()):
        if name.startswith("_") or name in hidden or name in ("In", "Out", "get_ipython", "exit", "quit"):
            continue
        if isinstance(value, simple):
            try:
                text = repr(value)
            except Exception:
                text = "?"
            out[name] = "%s %s" % (type(value).__name__, text[:200])
        else:
            out[name] = type(value).__name__
    print("@@NS@@" + json.dumps(out))
__omp_oracle_ns()
del __omp_oracle_ns
"""


class Kernel(object):
    """One runner process in `casedir`, with the host's descriptors (test/py/kernel_process.py)."""

    def __init__(self, python, casedir):
        self.k = Process(cwd=casedir, python=python, env={"MPLBACKEND": "Agg", "PYTHONPATH": None})
        self.ids = 0

    def collect(self, request_id, interrupted=False):
        obs = {"stdout": "", "stderr": "", "results": [], "displays": [], "error": None, "prompts": []}
        try:
            for frame in self.k.frames(CELL_LIMIT):
                kind = frame.get("type")
                if kind in ("stdout", "stderr") and frame.get("id") in (request_id, None):
                    obs[kind] += frame["data"]
                elif kind == "display":
                    obs["displays"].append(
                        {
                            "data": frame["bundle"],
                            "metadata": frame.get("metadata", {}),
                            "transient": {"display_id": frame["displayId"]} if frame.get("displayId") else {},
                            "update": bool(frame.get("update")),
                        }
                    )
                elif kind == "clear_output":
                    obs["displays"].append({"clear": bool(frame.get("wait"))})
                elif kind == "result":
                    obs["results"].append({"data": frame["bundle"], "metadata": frame.get("metadata", {})})
                elif kind == "error" and frame.get("id") == request_id:
                    obs["error"] = frame.get("ename")
                elif kind == "input_request":
                    obs["prompts"].append(frame.get("prompt", ""))
                    self.k.send({"type": "input_reply", "id": request_id, "value": "y"})
                elif kind == "done" and frame.get("id") == request_id:
                    return obs
        except TimeoutError:
            if interrupted:
                raise
            os.killpg(self.k.proc.pid, signal.SIGINT)
            later = self.collect(request_id, interrupted=True)
            later["error"] = "Timeout"
            return later
        return obs

    def request(self, message):
        self.k.send(message)

    def run(self, code, store):
        self.ids += 1
        request_id = "c%d" % self.ids
        self.request({"id": request_id, "code": code, "silent": False, "storeHistory": store, "allowStdin": True})
        return self.collect(request_id)

    def is_complete(self, code):
        self.ids += 1
        request_id = "q%d" % self.ids
        self.request({"type": "is_complete", "id": request_id, "code": code})
        try:
            for frame in self.k.frames(CELL_LIMIT):
                if frame.get("type") == "is_complete_reply" and frame.get("id") == request_id:
                    return [frame.get("status"), frame.get("indent")]
                if frame.get("type") == "error" and frame.get("id") in (request_id, None):
                    return ["unsupported", None]
        except (TimeoutError, EOFError):
            return ["no reply", None]

    def namespace(self):
        self.ids += 1
        request_id = "ns%d" % self.ids
        self.request({"id": request_id, "code": NAMESPACE_PROBE, "silent": True, "storeHistory": False})
        out = self.collect(request_id)["stdout"]
        for line in out.split("\n"):
            if line.startswith("@@NS@@"):
                return json.loads(line[6:])
        return {"?": out[-300:]}

    def close(self):
        self.k.close()  # (it kills the kernel's group before the kernel's pid can be used again)


def run_case(case, casedir, python):
    kernel = Kernel(python, casedir)
    try:
        if case["kind"] == "is_complete":
            return {"reply": kernel.is_complete(case["code"])}
        cells = []
        for cell in case["cells"]:
            try:
                cells.append(kernel.run(substitute(cell["code"], casedir, python), cell.get("store", True)))
            except EOFError:
                cells.append({"stdout": "", "stderr": "", "results": [], "displays": [], "error": "KernelDied", "prompts": []})
                return {"cells": cells, "namespace": {}}
        return {"cells": cells, "namespace": kernel.namespace()}
    finally:
        kernel.close()


def is_complete_cases(cases, casedir, python):
    """The is_complete cases, asked of one kernel in turn (a query changes nothing in it)."""
    if not cases:
        return []
    kernel = Kernel(python, casedir)
    try:
        return [{"reply": kernel.is_complete(case["code"])} for case in cases]
    finally:
        kernel.close()
