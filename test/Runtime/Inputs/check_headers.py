#!/usr/bin/env python3
"""Checks that headers include no LLVM or MLIR header, transitively.

usage: check_headers.py INCLUDE_ROOT PATH...   (PATH: a header or a folder
of headers, relative to INCLUDE_ROOT). Every `#include "fusec/..."` is
followed; an include of "llvm/...", "mlir/..." (quoted or angled), or of a
generated .inc file, is an error naming the chain that leads to it.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def main():
    root, paths = sys.argv[1], sys.argv[2:]
    start = []
    for p in paths:
        full = os.path.join(root, p)
        if os.path.isdir(full):
            for d, _, files in os.walk(full):
                start += [os.path.relpath(os.path.join(d, f), root)
                          for f in sorted(files) if f.endswith(".h")]
        else:
            start.append(p)
    seen, errors = set(), []
    stack = [(h, [h]) for h in start]
    while stack:
        header, chain = stack.pop()
        if header in seen:
            continue
        seen.add(header)
        text = open(os.path.join(root, header)).read()
        for inc in INCLUDE.findall(text):
            if inc.startswith(("llvm/", "mlir/")) or inc.endswith(".inc"):
                errors.append(" -> ".join(chain + [inc]))
            elif inc.startswith("fusec/"):
                if not os.path.exists(os.path.join(root, inc)):
                    errors.append(" -> ".join(chain + [inc]) + " (missing)")
                else:
                    stack.append((inc, chain + [inc]))
    for e in errors:
        print("check-headers: error: " + e)
    if errors:
        return 1
    print("check-headers: %d headers, no LLVM or MLIR include" % len(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
