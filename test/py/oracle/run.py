"""The IPython oracle: every harvested case in omp-eval's kernel and in IPython side by side.

Usage: /usr/bin/python3 test/py/oracle/run.py [--json FILE] [--only SUBSTRING]
Prints the agreement figure and every difference; with --json writes the details for the test."""
import argparse
import concurrent.futures
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare  # noqa: E402
import harvest  # noqa: E402
import omp_side  # noqa: E402

DEPARTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "departures.json")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--only")
    parser.add_argument("--workers", type=int, default=2)
    # (Internal: this script again, as the IPython side, writing its results to a file.)
    parser.add_argument("--ipython-side", nargs=2, metavar=("ROOT", "OUT"))
    args = parser.parse_args()
    python = sys.executable
    cases = harvest.harvest()
    if args.only:
        cases = [c for c in cases if args.only in c["id"]]
        if not cases:
            parser.error("--only %r names no case (case ids look like test_magic.py::test_macro)" % args.only)
    if args.ipython_side:
        root, out = args.ipython_side
        theirs = run_ipython(cases, case_dirs(root, cases), python)
        with open(out, "wb") as handle:
            pickle.dump(theirs, handle)
        return
    root = tempfile.mkdtemp(prefix="omp-oracle-")
    dirs = case_dirs(root, cases)
    for pair in dirs:
        for d in pair:
            os.makedirs(d)
    # IPython's cases run in a process of their own, beside omp-eval's: they change its environment
    # and working directory, which a kernel started meanwhile in the same process would inherit.
    theirs_file = os.path.join(root, "ipython.pickle")
    command = [python, os.path.abspath(__file__), "--ipython-side", root, theirs_file]
    if args.only:
        command += ["--only", args.only]
    try:
        ipython = subprocess.Popen(command, cwd=root, stdout=sys.stderr)  # (stdout is the report)
        try:
            with concurrent.futures.ThreadPoolExecutor(max_workers=args.workers) as pool:
                # (is_complete changes nothing in a kernel: those cases share one.)
                queries = [i for i, case in enumerate(cases) if case["kind"] == "is_complete"]
                asked = pool.submit(omp_side.is_complete_cases, [cases[i] for i in queries], root, python)
                ours = {
                    i: pool.submit(omp_side.run_case, case, dirs[i][0], python)
                    for i, case in enumerate(cases)
                    if case["kind"] != "is_complete"
                }
                ours = {i: f.result() for i, f in ours.items()}
                ours.update(zip(queries, asked.result()))
                ours = [ours[i] for i in range(len(cases))]
        finally:
            if ipython.wait() != 0:
                sys.exit("the IPython side failed (exit %s)" % ipython.returncode)
        with open(theirs_file, "rb") as handle:
            theirs = pickle.load(handle)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report(cases, ours, theirs, dirs, args.json)


def case_dirs(root, cases):
    """Each case's working directories: omp-eval's and IPython's."""
    return [(os.path.join(root, "omp", str(i)), os.path.join(root, "ipy", str(i))) for i in range(len(cases))]


def run_ipython(cases, dirs, python):
    from ipython_side import IPythonSide

    side = IPythonSide()
    results = []
    for i, case in enumerate(cases):
        if case["kind"] == "is_complete":
            status, indent = side.shell.input_transformer_manager.check_complete(case["code"])
            results.append({"reply": [status, indent]})
        else:
            results.append(side.run_case(case, dirs[i][1], python))
    return results


def report(cases, ours, theirs, dirs, json_path):
    with open(DEPARTURES, encoding="utf-8") as handle:
        departures = json.load(handle)
    rows = []
    by_source = {}
    for case, mine, other, (our_dir, their_dir) in zip(cases, ours, theirs, dirs):
        difference = compare.compare_case(case, mine, other, our_dir, their_dir)
        rows.append({"id": case["id"], "source": case["source"], "difference": difference})
        stats = by_source.setdefault(case["source"], [0, 0])
        stats[0] += difference is None
        stats[1] += 1
    agree = sum(r["difference"] is None for r in rows)
    print("IPython oracle: %d of %d cases agree (%.1f%%)" % (agree, len(rows), 100.0 * agree / len(rows)))
    for source, (ok, total) in sorted(by_source.items()):
        print("  %-32s %3d / %3d" % (source, ok, total))
    for row in rows:
        if row["difference"] is not None:
            reason = departures.get(row["id"], "NOT A LISTED DEPARTURE")
            print("- %s [%s]\n    %s" % (row["id"], reason, row["difference"]))
    if json_path:
        with open(json_path, "w", encoding="utf-8") as handle:
            json.dump({"agree": agree, "total": len(rows), "rows": rows, "departures": departures}, handle, indent=1)


if __name__ == "__main__":
    main()
