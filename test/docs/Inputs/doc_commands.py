#!/usr/bin/env python3
"""Runs the shell commands of the README's and docs' ```sh blocks that can
run here, from the repository root, so that documented commands stay true
(reliability issue).

A command (continuation lines joined) runs when it calls fusec, fusec-run,
fusec-opt, the host C++ compiler or a script of docs/ (with this Python)
on files that exist (after earlier
commands made theirs). It is skipped, with the reason counted, when it
names a placeholder file (model.mlir, a.npy), needs a GPU (--backend=gpu,
--devices), a program this machine lacks (dot), or is a build or set-up
step (tools/dev.sh, cmake). `build/bin/` becomes the tools' directory and
`/tmp/` a fresh directory. A command followed by a comment that shows an
`error:` is expected to fail; every other command must exit 0.

usage: doc_commands.py REPO_ROOT CXX FILE.md...
Prints one line per failure and a summary; exit 1 on any failure.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

root, cxx, files = sys.argv[1], sys.argv[2], sys.argv[3:]
bindir = os.path.dirname(shutil.which("fusec"))
scratch = tempfile.mkdtemp() + "/"
TOOLS = ("build/bin/fusec", "build/bin/fusec-run", "build/bin/fusec-opt",
         "fusec ", "fusec-run ", "fusec-opt ", "c++ ", "python3 docs/")


def commands(path):
    """(command, expects_error) for each command of the sh blocks: it
    expects an error when a comment right after it shows one."""
    lines = open(path).read().splitlines()
    result, block, pending = [], False, None

    def finish(text, last):
        shown = []
        for line in lines[last + 1:]:
            if not line.strip().startswith("#"):
                break
            shown.append(line)
        result.append((text, any(re.search(r"\berror:", l)
                                 for l in shown[:2])))

    for i, line in enumerate(lines):
        if line.startswith("```"):
            block = line.strip() == "```sh"
            continue
        if not block:
            continue
        text = line.strip()
        if pending is not None:
            pending += " " + text.rstrip("\\").strip()
            if not text.endswith("\\"):
                finish(pending, i)
                pending = None
            continue
        if not text or text.startswith("#"):
            continue
        if text.endswith("\\"):
            pending = text.rstrip("\\").strip()
        else:
            finish(text, i)
    return result


def skip_reason(cmd):
    words = cmd.split()
    if not any(cmd.startswith(t) for t in TOOLS):
        return "not a fusec command"
    if "--backend=gpu" in cmd or "--devices" in words:
        return "needs a GPU"
    if "| dot " in cmd and not shutil.which("dot"):
        return "needs graphviz"
    for w in words[1:]:
        for part in w.split("="):
            if re.fullmatch(r"[\w./-]+\.(mlir|npy|fsx|cu|so|onnx)", part) \
                    and not part.startswith("/tmp/") \
                    and not os.path.exists(os.path.join(root, part)):
                return "names a placeholder file"
    return None


ran, skipped, failures = 0, {}, []
for path in files:
    for cmd, expects_error in commands(path):
        why = skip_reason(cmd)
        if why:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        # /tmp/ first: the tools' own path may be under /tmp.
        run = cmd.replace("/tmp/", scratch).replace("build/bin/", bindir + "/")
        if run.startswith("c++ "):
            run = cxx + run[3:]
        elif run.startswith("python3 "):
            run = sys.executable + run[len("python3"):]
        elif run.split()[0] in ("fusec", "fusec-run", "fusec-opt"):
            run = bindir + "/" + run
        r = subprocess.run(["bash", "-o", "pipefail", "-c", run], cwd=root,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, timeout=600)
        ran += 1
        if (r.returncode != 0) != expects_error:
            failures.append(f"{os.path.basename(path)}: `{cmd}` exited "
                            f"{r.returncode}: {r.stderr.strip()[:300]}")
for f in failures:
    print("FAIL:", f)
print(f"doc-commands: {ran} ran, {sum(skipped.values())} skipped (" +
      ", ".join(f"{n} {why}" for why, n in sorted(skipped.items())) +
      f"), {len(failures)} failures")
sys.exit(1 if failures else 0)
