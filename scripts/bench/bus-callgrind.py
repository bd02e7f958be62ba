#!/usr/bin/env python3
"""Instructions a replica spends per received clear, under valgrind's callgrind (counts that stay put on a loaded
machine, where the CPU time of `ucache-bench bus` does not).

    scripts/bench/bus-callgrind.py [--bench PATH] [--held 0|1] [--rate N] [--seconds N] [--batch N] [--window-us N]
        [--keep DIR]

Starts a redis-server on a free loopback port, then twice: one subscriber process of `ucache-bench bus` (one hub,
holding the publisher's session, or none with --held 0) under callgrind, and a publisher (not under valgrind)
sending domain clears for --seconds, at --rate (default 300 a second) and at 1 a second. The subscriber's
instructions of the second run are taken from the first's and divided by the difference in clears received:
start-up, health checks and idle polling cancel out, what remains is receiving, opening, checking and applying.
The figure mixes a per-clear and a per-message cost, so it moves with how many clears the publisher's batching
window put in a message (printed as messages=): two runs with different --window-us (e.g. 50000 and 200000)
separate the two. Valgrind runs with --fair-sched=yes (the subscriber's threads take turns as on a real machine).
With --keep, both callgrind dumps are copied to DIR (busy.out, idle.out) for callgrind_annotate.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def line_starting(process: subprocess.Popen, word: str) -> str:
    while True:
        line = process.stdout.readline()
        if not line:
            sys.exit(f"error: a bus child ended before saying {word}")
        if line.startswith(word):
            return line


def run(bench: str, env: dict, options, rate: int, out: str) -> tuple:
    batching = ["--batch", str(options.batch), "--window-us", str(options.window_us)]
    subscriber = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--fair-sched=yes", "--separate-threads=no", f"--callgrind-out-file={out}", bench, "bus",
         "--role", "subscriber", "--hubs", "1", "--held", str(options.held)] + batching,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    line_starting(subscriber, "READY")
    publisher = subprocess.Popen(
        [bench, "bus", "--role", "publisher", "--rate", str(rate), "--seconds", str(options.seconds)] + batching,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
    line_starting(publisher, "READY")
    for child in (subscriber, publisher):
        child.stdin.write("GO\n")
        child.stdin.flush()
    sent = json.loads(line_starting(publisher, "RESULT")[len("RESULT "):])
    time.sleep(2)  # the last clears reach a subscriber slowed fifty times by valgrind
    subscriber.stdin.write("STOP\n")
    subscriber.stdin.flush()
    received = json.loads(line_starting(subscriber, "RESULT")[len("RESULT "):])
    subscriber.wait()
    publisher.wait()
    with open(out) as dump:
        instructions = next(int(line.split()[1]) for line in dump if line.startswith("summary:"))
    return instructions, received["applied"], sent["messages"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default=os.path.join(ROOT, ".build", "release", "ucache-bench"))
    parser.add_argument("--held", type=int, default=1)
    parser.add_argument("--rate", type=int, default=300)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--window-us", type=int, default=50_000)
    parser.add_argument("--keep", help="a directory to copy the two callgrind dumps to")
    options = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as directory:
        redis = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", directory], stdout=subprocess.DEVNULL)
        try:
            env = dict(os.environ, UCACHE_REDIS_URL=f"redis://127.0.0.1:{port}", UCACHE_REDIS_ALLOW_NO_AUTH="1",
                       UCACHE_REDIS_CHANNEL="bus-callgrind")
            time.sleep(0.5)
            busy = run(options.bench, env, options, options.rate, os.path.join(directory, "busy.out"))
            idle = run(options.bench, env, options, 1, os.path.join(directory, "idle.out"))
            if options.keep:
                os.makedirs(options.keep, exist_ok=True)
                for name in ("busy.out", "idle.out"):
                    shutil.copy(os.path.join(directory, name), os.path.join(options.keep, name))
        finally:
            redis.terminate()
            redis.wait()
    clears = busy[1] - idle[1]
    print(f"held={options.held} clears={clears} messages={busy[2]} (idle run {idle[1]} clears) "
          f"instructions_per_received_clear={(busy[0] - idle[0]) // max(1, clears)}")


if __name__ == "__main__":
    main()
