#!/usr/bin/env python3
"""How lean `lorekeeper serve` is, in one run against one store (docs/PERFORMANCE.md "Lean serve"):

- initialize: spawn to the `initialize` reply, p50 and p95 over RUNS spawns;
- meaning ready: spawn to the reply of a search sent right after `initialize`, answered by meaning (`_matched`
  has "meaning" and no readiness notice); the search waits while serve loads its vectors, so this bounds when
  meaning-based search is ready;
- memory: VmRSS (and its anonymous and file-backed parts) after 20 hybrid searches;
- exit: end of input to process exit.

With --peer (a command line, e.g. "node bench/peer/node_modules/dnd-oracle/dist/server.js") the peer's spawn to
`initialize` reply is measured in the same run, alternating with lorekeeper's.

Usage: serve_lean.py BINARY STORE [--runs 20] [--peer "CMD ..."]
"""
import argparse
import json
import os
import select
import shlex
import statistics
import subprocess
import sys
import time

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
QUERIES = ["flying white steed", "stealthy hunters that attack by surprise", "a monster that turns people to stone",
           "spells that stop enemies from moving", "weapons for attacking from a distance", "undead that drain life",
           "heal allies as a bonus action", "a creature that swims in dark water", "protection from fire",
           "teleport a short distance", "summon a spirit animal", "poison breath dragon", "tiny fey trickster",
           "curse that makes the target weak", "a ring that lets you breathe underwater", "giant spider web",
           "armor for a stealthy rogue", "sword that burns with flame", "mind control enchantment",
           "ancient construct guardian"]


class Proc:
    def __init__(self, argv, env):
        self.t0 = time.perf_counter()
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  env=env)
        self.buf = b""

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def reply(self, timeout=60):
        end = time.perf_counter() + timeout
        while b"\n" not in self.buf:
            left = end - time.perf_counter()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise RuntimeError("no reply within %s s" % timeout)
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                raise RuntimeError("the server closed its output")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line), (time.perf_counter() - self.t0) * 1000

    def rss(self):
        fields = {}
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "RssAnon", "RssFile"):
                    fields[k] = int(v.split()[0]) / 1024
        return fields

    def close_and_wait(self):
        t = time.perf_counter()
        self.p.stdin.close()
        self.p.wait(timeout=30)
        return (time.perf_counter() - t) * 1000


def search(i, q):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "search_creature",
                       "arguments": {"search": q, "limit": 5, "detail": "summary"}}}


def by_meaning(answer):
    sc = answer.get("result", {}).get("structuredContent", {})
    results = sc.get("result", [])
    notice = "prepar" in sc.get("message", "") or "not ready" in sc.get("message", "")
    return not notice and any("meaning" in r.get("_matched", []) for r in results)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("store")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--peer")
    a = ap.parse_args()
    env = dict(os.environ, LOREKEEPER_DB_PATH=a.store, LOREKEEPER_LOG_LEVEL="error", LOREKEEPER_AUTO_SYNC="off")
    env.pop("LOREKEEPER_EMBED", None)
    init, ready, exits, peer_init, rss, misses = [], [], [], [], [], 0
    for run in range(a.runs):
        p = Proc([a.binary, "serve"], env)
        p.send(INIT)
        _, t = p.reply()
        init.append(t)
        p.send(search(2, QUERIES[run % len(QUERIES)]))
        answer, t = p.reply()
        if by_meaning(answer):
            ready.append(t)
        else:
            misses += 1
        if run == 0:
            for i, q in enumerate(QUERIES):
                p.send(search(10 + i, q))
                p.reply()
            rss.append(p.rss())
        exits.append(p.close_and_wait())
        if a.peer:
            q = Proc(shlex.split(a.peer), dict(os.environ))
            q.send(INIT)
            _, t = q.reply()
            peer_init.append(t)
            q.close_and_wait()
    print("lorekeeper serve, %d runs, store %s" % (a.runs, a.store))
    print("  initialize reply after spawn: p50 %.1f ms, p95 %.1f ms" % (statistics.median(init), pct(init, 95)))
    if ready:
        print("  first search answered by meaning after spawn: p50 %.0f ms, p95 %.0f ms (%d of %d by meaning)" %
              (statistics.median(ready), pct(ready, 95), len(ready), a.runs))
    else:
        print("  no first search was answered by meaning (%d runs)" % a.runs)
    r = rss[0]
    print("  memory after 20 searches: VmRSS %.0f MB (anonymous %.0f MB, file-backed %.0f MB)" %
          (r["VmRSS"], r.get("RssAnon", 0), r.get("RssFile", 0)))
    print("  end of input to exit: p50 %.0f ms, p95 %.0f ms" % (statistics.median(exits), pct(exits, 95)))
    if peer_init:
        print("peer (%s): initialize reply after spawn p50 %.1f ms; lorekeeper is %.0f times faster" %
              (a.peer, statistics.median(peer_init), statistics.median(peer_init) / statistics.median(init)))
    return 0 if misses == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
