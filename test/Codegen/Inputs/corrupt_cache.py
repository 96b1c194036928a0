#!/usr/bin/env python3
"""Damages a kernel cache directory as a crash or a disk error would: the
first entry (by name) is truncated to half its size, and the first entry of
another kernel group (its name starts with another key: a group's PTX is
<key>.ptx and its CUBIN <key>-cubin.ptx) has one byte of its payload
flipped."""
import os
import sys

d = sys.argv[1]
entries = sorted(f for f in os.listdir(d) if f.endswith(".ptx"))
assert len(entries) >= 2, entries
first = os.path.join(d, entries[0])
with open(first, "r+b") as f:
    f.truncate(os.path.getsize(first) // 2)
key = lambda name: name.split("-")[0].split(".")[0]
second = os.path.join(
    d, next(e for e in entries if key(e) != key(entries[0])))
with open(second, "r+b") as f:
    f.seek(os.path.getsize(second) - 10)
    byte = f.read(1)
    f.seek(-1, os.SEEK_CUR)
    f.write(bytes([byte[0] ^ 0x20]))
