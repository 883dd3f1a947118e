"""Jupyter baseline for `npm run bench`: the same workloads through jupyter_client + ipykernel.

Prints one JSON object: medians in milliseconds. Run with an interpreter that has both
(Debian: python3-jupyter-client, python3-ipykernel).
"""
import json
import statistics
import sys
import time

from jupyter_client.manager import start_new_kernel


def run(kc, code):
    """Executes code and waits for the kernel to go idle again (what a notebook client does)."""
    msg_id = kc.execute(code, store_history=False)
    while True:
        msg = kc.get_iopub_msg(timeout=600)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        for _ in range(20):
            run(kc, "1+1")
        times = []
        for _ in range(rounds):
            t = time.perf_counter()
            run(kc, "1+1")
            times.append((time.perf_counter() - t) * 1000)
        loop = "for i in range(%d):\n    print('%s', i)" % (lines, "x" * 42)
        out = []
        for _ in range(3):
            t = time.perf_counter()
            run(kc, loop)
            out.append((time.perf_counter() - t) * 1000)
        print(json.dumps({"roundTripMs": statistics.median(times), "printLinesMs": statistics.median(out)}))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
