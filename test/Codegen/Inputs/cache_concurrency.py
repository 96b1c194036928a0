#!/usr/bin/env python3
"""The kernel cache under concurrency (reliability issue): 8 fusec
processes compile overlapping sets of functions, in different orders, into
one cache directory small enough to evict while they run; then compiles are
killed mid-way (SIGKILL, at staggered moments) and the cache is used again.
Every artifact must be byte-identical to the same function compiled with no
cache at all: a corrupt or partial entry is never used.

usage: cache_concurrency.py FUSEC MODEL.mlir WORKDIR
Prints one summary line; exit status 1 on any difference.
"""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

fusec, model, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
entries = re.findall(r"^func\.func @(\w+)\(", open(model).read(), re.M)
entries = [e for e in entries if e != "calls"][:12]


def compile_cmd(entry, out, cache):
    return [fusec, model, f"--entry={entry}", "--emit=exec", "-o", out,
            f"--kernel-cache-dir={cache}", "--kernel-cache-size=48K"]


# References: no cache.
reference = {}
for e in entries:
    out = os.path.join(work, f"ref-{e}.fsx")
    subprocess.run([fusec, model, f"--entry={e}", "--emit=exec", "-o", out,
                    "--no-kernel-cache"], check=True)
    reference[e] = open(out, "rb").read()

failures = []


def check(path, entry, what):
    data = open(path, "rb").read()
    if data != reference[entry]:
        failures.append(f"{what}: {entry} differs from the cache-off compile")


# 8 concurrent processes, each compiling 8 of the functions (overlapping)
# in its own order, into one cache that evicts.
cache = os.path.join(work, "shared-cache")
rng = random.Random(7)
procs = []
for p in range(8):
    mine = rng.sample(entries, min(8, len(entries)))
    script = []
    for e in mine:
        out = os.path.join(work, f"p{p}-{e}.fsx")
        script.append((e, out))
    procs.append((script, subprocess.Popen(
        ["sh", "-c", " && ".join(
            " ".join(f"'{a}'" for a in compile_cmd(e, out, cache))
            for e, out in script)])))
for script, proc in procs:
    if proc.wait() != 0:
        failures.append(f"a concurrent compile failed (status {proc.returncode})")
        continue
    for e, out in script:
        check(out, e, "concurrent")
size = sum(os.path.getsize(os.path.join(cache, f)) for f in os.listdir(cache))

# Compiles killed at staggered moments (from an empty cache, so that they
# are compiling or storing when killed), each followed by a compile that
# uses what they left in the cache.
killed = 0
for i, delay in enumerate([0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15]):
    e = entries[i % len(entries)]
    shutil.rmtree(cache, ignore_errors=True)
    victim = subprocess.Popen(compile_cmd(e, os.path.join(work, "victim.fsx"),
                                          cache),
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if victim.poll() is None:
        victim.send_signal(signal.SIGKILL)
        killed += 1
    victim.wait()
    out = os.path.join(work, f"after-kill-{i}.fsx")
    subprocess.run(compile_cmd(e, out, cache), check=True)
    check(out, e, f"after kill {i}")

print(f"cache-concurrency: {len(entries)} functions, 8 processes, "
      f"{killed} compiles killed, cache {size // 1024}K (limit 48K) after "
      f"the concurrent phase, {len(failures)} differences")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
