#!/usr/bin/env python3
"""Compares the final losses of two `fusec --train --run` logs.

  final_loss.py A.log B.log REL   passes when |a - b| <= REL * |a|, a and b
                                  the losses of the last "step N: loss X"
                                  lines, and the loss has decreased in A.
"""
import re
import sys


def losses(path):
    return [float(m.group(1)) for m in
            re.finditer(r"^step \d+: loss (\S+)", open(path).read(), re.M)]


def main():
    a, b, rel = losses(sys.argv[1]), losses(sys.argv[2]), float(sys.argv[3])
    if not a or not b:
        print("FAIL: no losses")
        return 1
    print(f"first {a[0]:.6g}, final {a[-1]:.6g} vs {b[-1]:.6g}: "
          f"relative difference {abs(a[-1] - b[-1]) / abs(a[-1]):.3g}")
    if not a[-1] < a[0]:
        print("FAIL: the loss did not decrease")
        return 1
    if not abs(a[-1] - b[-1]) <= rel * abs(a[-1]):
        print(f"FAIL: final losses differ by more than {rel}")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
