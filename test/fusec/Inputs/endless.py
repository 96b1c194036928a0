#!/usr/bin/env python3
"""Runs a command on an endless input: a FIFO fed with the bytes of PREFIX
(a file, or '-' for none) followed by zero bytes forever. Every '{}' in the
command is replaced by the FIFO's path. Prints the command's stderr and
exits with its status; a command still running after 60 s is killed and
the status is 124 (it was reading the stream to its end).

usage: endless.py PREFIX -- COMMAND...
"""
import os
import subprocess
import sys
import tempfile
import threading

prefix, command = sys.argv[1], sys.argv[3:]
assert sys.argv[2] == "--"
directory = tempfile.mkdtemp()
fifo = os.path.join(directory, "stream")
os.mkfifo(fifo)


def feed():
    try:
        with open(fifo, "wb") as f:
            if prefix != "-":
                with open(prefix, "rb") as p:
                    f.write(p.read())
            zeros = bytes(1 << 16)
            while True:
                f.write(zeros)
    except (BrokenPipeError, OSError):
        pass


threading.Thread(target=feed, daemon=True).start()
try:
    r = subprocess.run([c.replace("{}", fifo) for c in command],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    sys.stderr.write(r.stderr)
    status = r.returncode
except subprocess.TimeoutExpired:
    status = 124
# Unblock the feeder if the command never opened the FIFO.
try:
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    os.close(fd)
except OSError:
    pass
sys.exit(status)
