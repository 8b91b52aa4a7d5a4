#!/usr/bin/env python3
"""Stdio baseline for scripts/load-http.sh: one `lorekeeper serve` process, initialize, then tools/call
requests (the same four bodies as scripts/load-http.lua) for a fixed time with `window` requests in flight
(1: one request at a time, like one MCP host). Prints one RESULT line: throughput, p50/p99/max latency and
the replies that were errors.

  scripts/load-stdio.py BIN DB [seconds] [window]
"""

import json
import os
import subprocess
import sys
import threading
import time
from collections import deque

BODIES = [
    {"name": "search_spell", "arguments": {"search": "Fireball"}},
    {"name": "get_entity", "arguments": {"key": "srd_fireball"}},
    {"name": "search_creature", "arguments": {"type": "dragon", "cr_min": 10}},
    {"name": "search_spell", "arguments": {"level": 3, "class_key": "wizard", "limit": 10}},
]


def main():
    binary, db = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 60
    window = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    env = dict(os.environ, LOREKEEPER_EMBED="off", LOREKEEPER_AUTO_SYNC="off", LOREKEEPER_LOG_LEVEL="warning")
    proc = subprocess.Popen([binary, "--db", db, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def send(msg):
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "load", "version": "0"}}})
    json.loads(proc.stdout.readline())
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    sent_at = {}
    latencies = []
    bad = 0
    lock = threading.Condition()
    in_flight = 0
    stop_at = time.monotonic() + seconds
    next_id = 1
    done_reading = threading.Event()

    def reader():
        nonlocal bad, in_flight
        for line in proc.stdout:
            reply = json.loads(line)
            now = time.monotonic()
            with lock:
                latencies.append(now - sent_at.pop(reply["id"]))
                if "error" in reply or reply.get("result", {}).get("isError"):
                    bad += 1
                in_flight -= 1
                lock.notify()
        done_reading.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    start = time.monotonic()
    while time.monotonic() < stop_at:
        with lock:
            while in_flight >= window:
                lock.wait()
            in_flight += 1
            sent_at[next_id] = time.monotonic()
        send({"jsonrpc": "2.0", "id": next_id, "method": "tools/call", "params": BODIES[next_id % len(BODIES)]})
        next_id += 1
    with lock:
        while in_flight > 0:
            lock.wait()
    elapsed = time.monotonic() - start
    proc.stdin.close()
    proc.wait(timeout=30)
    latencies.sort()
    pct = lambda p: latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] * 1000
    print(f"RESULT requests={len(latencies)} rps={len(latencies) / elapsed:.1f} p50_ms={pct(50):.2f} "
          f"p99_ms={pct(99):.2f} max_ms={latencies[-1] * 1000:.2f} errors={bad} window={window}")


if __name__ == "__main__":
    main()
