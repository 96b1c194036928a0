#!/usr/bin/env python3
"""Checks `fusec MODEL --max-batch --memory-limit=L` against compiling.

  check_max_batch.py FUSEC MODEL LIMIT WORKDIR

The reported maximum N must compile to an artifact within the limit
(`--batch=N --emit=exec --memory-limit=L`, whose check is the runtime's
checkMemoryLimit on the serialized plan, not the search) and N + 1 must be
refused by that check. Prints "max-batch: N checked" or the mismatch.
"""
import os
import re
import subprocess
import sys


def main():
    fusec, model, limit, work = sys.argv[1:5]
    r = subprocess.run([fusec, model, "--max-batch", f"--memory-limit={limit}"],
                       capture_output=True, text=True)
    m = re.search(r"^max batch: (\d+) ", r.stdout, re.M)
    if r.returncode or not m:
        print(f"FAIL: --max-batch: {r.stdout}{r.stderr}")
        return 1
    n = int(m.group(1))
    os.makedirs(work, exist_ok=True)

    def compiles(batch):
        return subprocess.run(
            [fusec, model, f"--batch={batch}", "--emit=exec",
             f"--memory-limit={limit}", "-o",
             os.path.join(work, f"b{batch}.fsx")],
            capture_output=True, text=True)
    fit, misfit = compiles(n), compiles(n + 1)
    if fit.returncode:
        print(f"FAIL: batch {n} does not compile within {limit}: {fit.stderr}")
        return 1
    if misfit.returncode != 1 or "needs" not in misfit.stderr:
        print(f"FAIL: batch {n + 1} was not refused: {misfit.stderr}")
        return 1
    print(f"max-batch: {n} checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
