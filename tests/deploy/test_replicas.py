#!/usr/bin/env python3
"""Past one machine: three `lorekeeper serve --http` replicas behind HAProxy, on loopback, all reading one store.

Usage: test_replicas.py LOREKEEPER_BIN FIXTURE_MIRROR

HAProxy runs docs/deploy/haproxy.cfg as shipped (addresses and token from the environment). While wrk sends MCP
tool calls through it: a sync in a separate process publishes changed data (from a loopback replay of the fixture
mirror with one spell's text changed), which every replica serves without a restart; one replica is killed
(SIGKILL) and another stopped (SIGTERM) and started again, as a rolling upgrade does; then the publishing side embeds
what changed (`lorekeeper index`) and every replica answers by meaning from the new vector, having embedded nothing
itself (LOREKEEPER_EMBED=stored). No request HAProxy could retry may fail: the only failures allowed are answers the
killed replica had begun to send (headers passed on, body not yet written) when it died, each one identified in
HAProxy's log. Needs the model installed (scripts/setup.sh), as the replicas' meaning-based search does.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

BIN, FIXTURE = sys.argv[1:3]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HAPROXY_CFG = os.path.join(ROOT, "docs", "deploy", "haproxy.cfg")
REPLAY = os.path.join(ROOT, "tests", "sync", "replay_server.py")
LOAD_LUA = os.path.join(HERE, "load.lua")
TOKEN = "replica-token-" + os.urandom(8).hex()
NEW_WORD = "Zorvathian"  # in no record of the fixture mirror until the sync publishes it
LOAD_SECONDS = 20


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


MODEL_DIR = os.environ.get("LOREKEEPER_MODEL_DIR") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lorekeeper", "models", "all-MiniLM-L6-v2")
# Shield's own text, paraphrased: found by meaning once its new vector is there.
PARAPHRASE = "a sudden invisible barrier that protects you from attacks"


def base_env(embed="auto"):
    return dict(os.environ, LOREKEEPER_EMBED=embed, LOREKEEPER_AUTO_SYNC="off", LOREKEEPER_LOG_LEVEL="info",
                LOREKEEPER_HTTP_TIMEOUT_SECONDS="5", LOREKEEPER_MODEL_DIR=MODEL_DIR)


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))


class Replica:
    """One `serve --http` process; `port` stays the same across restarts."""

    def __init__(self, db, tmp, name, front):
        self.db, self.tmp, self.name, self.front = db, tmp, name, front
        self.port = 0
        self.proc = None
        self.generation = 0

    def start(self):
        self.generation += 1
        self.log_path = os.path.join(self.tmp, "%s.%d.log" % (self.name, self.generation))
        self.log = open(self.log_path, "w")
        env = dict(base_env("stored"), LOREKEEPER_HTTP_TOKEN=TOKEN)
        self.proc = subprocess.Popen(
            [BIN, "--db", self.db, "serve", "--http", "--port", str(self.port),
             "--allowed-host", "127.0.0.1:%d" % self.front],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log, env=env)

        def listening():
            with open(self.log_path) as f:
                text = f.read()
            if self.proc.poll() is not None:
                raise AssertionError("%s exited %s: %s" % (self.name, self.proc.returncode, text))
            for word in text.split():
                if word.startswith("http://127.0.0.1:") and word.endswith("/mcp"):
                    self.port = int(word[len("http://127.0.0.1:"):-len("/mcp")])
                    return True
            return False

        wait_for(listening, 20, "%s to listen" % self.name)

    def address(self):
        return "127.0.0.1:%d" % self.port

    def stop(self, sig):
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=20)
        self.log.close()
        return code

    def logs(self):
        out = []
        for g in range(1, self.generation + 1):
            path = os.path.join(self.tmp, "%s.%d.log" % (self.name, g))
            with open(path) as f:
                out.append("--- %s (start %d)\n%s" % (self.name, g, f.read()[-3000:]))
        return "\n".join(out)


def call(url, tool, arguments, token=None):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        reply = json.loads(r.read())
    if "result" not in reply:
        raise AssertionError("%s answered %s" % (url, reply))
    return reply["result"]


def found(url, search, token=None):
    result = call(url, "search_spell", {"search": search, "limit": 5}, token=token)
    return {r["key"]: r.get("_matched", []) for r in result["structuredContent"]["result"]}


def keys_found(url, search, token=None):
    return list(found(url, search, token=token))


class ReplicasBehindHaproxy(unittest.TestCase):
    def setUp(self):
        for tool in ("haproxy", "wrk"):
            if shutil.which(tool) is None:
                self.fail("%s is not installed: scripts/test-setup.sh installs it" % tool)
        self.assertTrue(os.path.isfile(os.path.join(MODEL_DIR, "model.safetensors")),
                        "the model is not installed in %s (scripts/setup.sh)" % MODEL_DIR)
        self.tmp = tempfile.mkdtemp(prefix="lk-deploy-")
        self.procs = []
        self.db = os.path.join(self.tmp, "store.db")
        out = subprocess.run([BIN, "--db", self.db, "sync", "--source", FIXTURE, "--quiet"], env=base_env(),
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)

        # The published version of the mirror: Shield's description carries a word no record had.
        self.mirror = os.path.join(self.tmp, "mirror")
        shutil.copytree(FIXTURE, self.mirror)
        page = os.path.join(self.mirror, "v2", "spells", "limit=100.json")
        with open(page) as f:
            data = json.load(f)
        shield = next(r for r in data["results"] if r["key"] == "srd_shield")
        shield["desc"] = "A %s ward of force springs into being. " % NEW_WORD + shield["desc"]
        with open(page, "w") as f:
            json.dump(data, f)
        self.replay = subprocess.Popen([sys.executable, REPLAY, self.mirror], stdout=subprocess.PIPE, text=True)
        self.procs.append(self.replay)
        self.source = "http://127.0.0.1:%d" % int(self.replay.stdout.readline().split()[1])

        self.front = free_port()
        self.stats = free_port()
        self.replicas = [Replica(self.db, self.tmp, "r%d" % i, self.front) for i in (1, 2, 3)]
        for r in self.replicas:
            r.start()
            self.procs.append(r.proc)
        env = dict(os.environ, LOREKEEPER_LB_BIND="127.0.0.1:%d" % self.front,
                   LOREKEEPER_LB_STATS="127.0.0.1:%d" % self.stats, LOREKEEPER_HTTP_TOKEN=TOKEN)
        for i, r in enumerate(self.replicas, 1):
            env["LOREKEEPER_REPLICA_%d" % i] = r.address()
        self.haproxy_log = open(os.path.join(self.tmp, "haproxy.log"), "w")
        self.haproxy = subprocess.Popen(["haproxy", "-db", "-f", HAPROXY_CFG], env=env, stdin=subprocess.DEVNULL,
                                        stdout=self.haproxy_log, stderr=subprocess.STDOUT)
        self.procs.append(self.haproxy)
        self.url = "http://127.0.0.1:%d/mcp" % self.front
        wait_for(lambda: self.servers_up() == {"r1": "UP", "r2": "UP", "r3": "UP"}, 20, "HAProxy to see three replicas")

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
        self.replay.stdout.close()
        for r in self.replicas:
            r.log.close()
        self.haproxy_log.close()
        if os.environ.get("LOREKEEPER_TEST_KEEP"):  # the logs, for a look after the run
            print("kept %s" % self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def stats_rows(self):
        with urllib.request.urlopen("http://127.0.0.1:%d/stats;csv" % self.stats, timeout=5) as r:
            lines = r.read().decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        return [dict(zip(header, line.split(","))) for line in lines[1:] if line]

    def servers_up(self):
        try:
            rows = self.stats_rows()
        except (OSError, urllib.error.URLError):
            return {}
        return {r["svname"]: r["status"].split()[0] for r in rows
                if r["pxname"] == "lorekeeper" and r["svname"] not in ("FRONTEND", "BACKEND")}

    def diagnostics(self):
        # HAProxy logs only failed, retried and redispatched requests; those it could not complete, with their
        # termination state (docs: "session state at disconnection"), and its warnings say what happened.
        with open(os.path.join(self.tmp, "haproxy.log")) as f:
            lines = f.read().splitlines()
        unusual = [line for line in lines if " ---- " not in line][-40:]
        return "\n".join([r.logs() for r in self.replicas] + ["--- haproxy (%d lines logged)" % len(lines)] + unusual)

    def cut_by(self, server):
        """Answers from `server` that HAProxy had begun to pass on when the server closed the connection."""
        cut = 0
        with open(os.path.join(self.tmp, "haproxy.log")) as f:
            for line in f:
                fields = line.split()
                # client [date] frontend backend/server timers status bytes - - state ...
                if len(fields) > 9 and fields[3] == "lorekeeper/" + server and fields[9].startswith("SD"):
                    cut += int(fields[6]) > 0
        return cut

    def direct(self, replica, search):
        return keys_found("http://%s/mcp" % replica.address(), search, token=TOKEN)

    def vectors(self):
        out = subprocess.run([BIN, "--db", self.db, "status", "--json"], env=base_env(), capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        v = json.loads(out.stdout)["vectors"]
        return v["embedded"], v["entities"]

    def test_a_sync_reaches_every_replica_and_a_lost_replica_fails_no_request(self):
        for r in self.replicas:
            self.assertNotIn("srd_shield", self.direct(r, NEW_WORD), r.name)
        # Clients reach the replicas only through HAProxy, which adds the token; without it a replica says 401.
        with self.assertRaises(urllib.error.HTTPError) as denied:
            keys_found("http://%s/mcp" % self.replicas[0].address(), "Fireball")
        self.assertEqual(denied.exception.code, 401)
        self.assertIn("srd_fireball", keys_found(self.url, "Fireball"))

        wrk = subprocess.Popen(["wrk", "-t2", "-c8", "-d%ds" % LOAD_SECONDS, "--latency", "-s", LOAD_LUA, self.url],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.procs.append(wrk)
        output = []
        reader = threading.Thread(target=lambda: output.append(wrk.stdout.read()))
        reader.start()
        started = time.monotonic()

        def at(seconds):
            time.sleep(max(0.0, started + seconds - time.monotonic()))

        at(2)
        synced = subprocess.run([BIN, "--db", self.db, "sync", "--source", self.source, "--force", "--quiet"],
                                env=base_env(), capture_output=True, text=True, timeout=120)
        self.assertEqual(synced.returncode, 0, synced.stderr)
        published = time.monotonic()
        # Every replica serves the new text without a restart, while under load.
        for r in self.replicas:
            wait_for(lambda: "srd_shield" in self.direct(r, NEW_WORD), 10, "%s to serve the sync" % r.name)
        seen_after = time.monotonic() - published
        # The sync took the bundled vectors of every unchanged entity; Shield's new text has none yet.
        embedded, entities = self.vectors()
        self.assertEqual(embedded, entities - 1)

        at(4)
        killed = self.replicas[1]
        killed.proc.kill()
        killed.proc.wait(timeout=10)
        killed.log.close()

        at(5)
        restarted = self.replicas[2]
        self.assertEqual(restarted.stop(signal.SIGTERM), 0, restarted.logs())
        time.sleep(0.5)
        restarted.start()
        self.procs.append(restarted.proc)

        # The replicas look for changes every few seconds; with LOREKEEPER_EMBED=stored none embeds Shield.
        at(8.5)
        self.assertEqual(self.vectors(), (embedded, entities))
        indexed = subprocess.run([BIN, "--db", self.db, "index", "--quiet"], env=base_env(), capture_output=True,
                                 text=True, timeout=300)
        self.assertEqual(indexed.returncode, 0, indexed.stderr)
        self.assertEqual(self.vectors(), (entities, entities))
        for r in (self.replicas[0], restarted):
            url = "http://%s/mcp" % r.address()
            wait_for(lambda: "meaning" in found(url, PARAPHRASE, token=TOKEN).get("srd_shield", []), 10,
                     "%s to find Shield by meaning: %s" % (r.name, found(url, PARAPHRASE, token=TOKEN)))

        reader.join(timeout=LOAD_SECONDS + 30)
        self.assertEqual(wrk.wait(timeout=30), 0)
        wrk.stdout.close()
        text = "".join(output)
        result = next((line for line in text.splitlines() if line.startswith("RESULT")), None)
        self.assertIsNotNone(result, text)
        fields = dict(kv.split("=") for kv in result.split()[1:])
        diag = "\n%s\n%s" % (text, self.diagnostics())
        # The one failure HAProxy cannot retry: an answer whose headers it had already passed on when the killed
        # replica died before writing the body (logged with state SD and the bytes it got). Every failure the
        # client saw must be one of those; a refused, reset or unanswered request never is.
        cut = self.cut_by(killed.name)
        self.assertLessEqual(cut, 2, diag)
        self.assertEqual(int(fields["socket_errors"]) + int(fields["failed"]), cut, diag)
        self.assertGreater(int(fields["requests"]), 20 * LOAD_SECONDS, diag)

        wait_for(lambda: self.servers_up() == {"r1": "UP", "r2": "DOWN", "r3": "UP"}, 15,
                 "HAProxy to mark the killed replica down and the restarted one up: %s" % self.servers_up())
        self.assertIn("srd_shield", keys_found(self.url, NEW_WORD))
        self.assertIn("srd_shield", self.direct(restarted, NEW_WORD))
        for r in (self.replicas[0], restarted):
            with open(r.log_path) as f:
                self.assertNotIn("embedded", f.read(), r.name)
        rows = {r["svname"]: r for r in self.stats_rows() if r["pxname"] == "lorekeeper"}
        rss = []
        for r in (self.replicas[0], restarted):
            with open("/proc/%d/status" % r.proc.pid) as f:
                rss.append(next(line.split()[1] for line in f if line.startswith("VmRSS:")))
        print("%s; every replica served the sync %.2f s after it ended; HAProxy retried %s and redispatched %s "
              "requests; replicas resident %s kB" % (result, seen_after, rows["BACKEND"]["wretr"],
                                                      rows["BACKEND"]["wredis"], " and ".join(rss)))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
