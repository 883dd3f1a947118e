"""The whole-process timer of `npm run bench` (bench/waits.ts): spawns what it is asked to, times it
from spawn to exit (or to the answer to an MCP `eval` call), and counts the CPU of the whole process
tree, kernels included.

One request per line on stdin, one JSON answer per line on stdout. A request:
  {"argv": [...], "input": "text for stdin", "env": {...}, "mode": "exit" | "mcp"}
An answer:
  {"wallMs": spawn to exit, "firstMs": spawn to the eval answer (mcp), "initMs": to the answer to
   initialize (mcp), "cpuMs": user + system CPU of the tree, "code": exit status, "error": text}

The timer is the tree's subreaper (Linux): a kernel left behind by its parent is reparented to it,
waited for, and its CPU counted. It stays up between requests so that nothing of its own start-up
is in a figure; the harness reads the figures, not its own clock.
"""
import ctypes
import json
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
ORPHAN_WAIT_S = 10.0


def become_subreaper():
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # (not Linux: descendants that outlive their parent are not counted)


def children_cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000.0


def reap_orphans():
    """Waits for what the process left behind (reparented to us), so that its CPU is counted."""
    deadline = time.monotonic() + ORPHAN_WAIT_S
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid == 0:
            if time.monotonic() > deadline:
                return 1
            time.sleep(0.002)


def read_answer(stream, want_id):
    """Reads JSON-RPC lines until the answer to `want_id`; returns it (None at end of stream)."""
    while True:
        line = stream.readline()
        if not line:
            return None
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == want_id:
            return message


def send(stream, message):
    stream.write((json.dumps(message) + "\n").encode())
    stream.flush()


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "omp-eval-bench", "version": "1"},
    },
}


def mcp_first_result(proc, start, answer):
    """initialize, initialized, then one eval of 1+1: the times of both answers."""
    send(proc.stdin, INITIALIZE)
    init = read_answer(proc.stdout, 1)
    answer["initMs"] = (time.perf_counter() - start) * 1000.0
    if init is None or "result" not in init:
        raise RuntimeError("no answer to initialize: %r" % (init,))
    send(proc.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    call = {"name": "eval", "arguments": {"cells": [{"language": "py", "code": "1+1"}]}}
    send(proc.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    result = read_answer(proc.stdout, 2)
    answer["firstMs"] = (time.perf_counter() - start) * 1000.0
    text = ((result or {}).get("result") or {}).get("content", [{}])[0].get("text")
    if text != "2":
        raise RuntimeError("unexpected eval answer: %r" % (result,))
    proc.stdin.close()
    proc.stdout.read()


def run(request):
    env = dict(os.environ)
    env.update(request.get("env") or {})
    answer = {}
    cpu_before = children_cpu_ms()
    start = time.perf_counter()
    proc = subprocess.Popen(
        request["argv"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=request.get("cwd"),
    )
    try:
        if request.get("mode") == "mcp":
            mcp_first_result(proc, start, answer)
            err = proc.stderr.read()
            proc.wait()
        else:
            _, err = proc.communicate((request.get("input") or "").encode())
    except Exception as error:  # noqa: BLE001 (reported to the harness)
        proc.kill()
        proc.wait()
        answer["error"] = str(error)
        err = b""
    answer["wallMs"] = (time.perf_counter() - start) * 1000.0
    answer["code"] = proc.returncode
    answer["orphansLeft"] = reap_orphans()
    answer["cpuMs"] = children_cpu_ms() - cpu_before
    if proc.returncode != 0 and "error" not in answer:
        answer["error"] = err.decode(errors="replace")[-2000:]
    return answer


def main():
    become_subreaper()
    for line in sys.stdin:
        try:
            answer = run(json.loads(line))
        except Exception as error:  # noqa: BLE001
            answer = {"error": "%s: %s" % (type(error).__name__, error)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
