#!/usr/bin/env python3
"""End-to-end sync tests: the real `lorekeeper` binary against a loopback replay of the recorded Open5e API,
with injected faults. Usage: test_sync_http.py LOREKEEPER_BIN FIXTURE_MIRROR SNAPSHOT_TAR_ZST

The full-count test replays the whole recorded API (the bundled snapshot, unpacked) and checks the counts
per kind and per document against the mirror's README; the fault tests use the small fixture mirror.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

BIN, FIXTURE, SNAPSHOT = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))

# Counts from the mirror's README: v2 per endpoint, plus what only v1 has (Tome of Heroes weapons, armor and
# magic items; Level Up and Tal'Dorei magic items). The 100 /v2/items/ records that are weapons or armor of the same
# name (75 + 25) describe the same things as /v2/weapons/ and /v2/armor/ and are folded into them, not stored twice;
# SRD 5.1's Shield, an item with no armor record, is stored as armor. The 2014 Staff and Wooden staff, which link to
# Quarterstaff, stay items. Conditions, damage types, skills, abilities, alignments and creature types carry one
# description per document: each is an entity of its own (the mirror's README counts these description rows). Three
# SRD 5.1 creature records are empty stat blocks (challenge 0, no hit dice, no speed) and are skipped. v1's SRD 5.1
# rule chapters add the 13 rules no v2 record holds (and correct one v2 rule: Critical Hits). 9 v1 magic items of
# documents v2 has are no v2 record (SRD 5.1's Berserker Axe, Vault of Magic's Hellfire Armor and 7 more).
EXPECTED_KINDS = {
    "spell": 1955, "creature": 3541 - 3, "magic-item": 2319 + 546 + 1 + 29 + 9, "item": 440 - 100 - 1 + 30, "weapon": 75 + 31,
    "armor": 25 + 5 + 1, "class": 151, "species": 63, "background": 58, "feat": 91, "condition": 50, "rule": 283 + 15,
    "rule-section": 52, "ability-score": 18, "alignment": 18, "creature-type": 42, "damage-type": 26,
    "environment": 31, "item-category": 24, "item-rarity": 6, "language": 19, "size": 7, "skill": 56,
    "spell-school": 9, "weapon-property": 29,
}
EXPECTED_DOCUMENT_SPELLS = {"a5e-ag": 371, "deepm": 515, "deepmx": 64, "kp": 31, "open5e": 2,
                            "spells-that-dont-suck": 180, "srd-2014": 319, "srd-2024": 339, "toh": 91, "wz": 43}
EXPECTED_DOCUMENT_CREATURES = {"a5e-mm": 586, "bfrd": 360, "ccdx": 356, "srd-2014": 325 - 3, "srd-2024": 331,
                               "tdcs": 4, "tob": 391, "tob-2023": 408, "tob2": 383, "tob3": 397}


class Replay:
    def __init__(self, root):
        # The server ends with this process's end of its stdin, so a test that dies before its cleanup does not
        # leave it holding ctest's output open.
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "replay_server.py"), root,
                                      "--exit-with-stdin"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        self.port = int(line[1])
        self.url = "http://127.0.0.1:%d" % self.port

    def faults(self, faults):
        req = urllib.request.Request(self.url + "/__faults", data=json.dumps(faults).encode(), method="POST")
        urllib.request.urlopen(req, timeout=10).read()

    def stats(self):
        return json.loads(urllib.request.urlopen(self.url + "/__stats", timeout=10).read())

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdin.close()
        self.proc.stdout.close()


def run(db, *args, env=None, timeout=600):
    e = dict(os.environ, LOREKEEPER_HTTP_TIMEOUT_SECONDS="2", LOREKEEPER_LOG_LEVEL="warning", LOREKEEPER_EMBED="off")
    e.update(env or {})
    return subprocess.run([BIN, "--db", db] + list(args), capture_output=True, text=True, env=e, timeout=timeout)


def status(db):
    out = run(db, "status", "--json")
    return json.loads(out.stdout)


def spells_by_document(db):
    out = run(db, "documents", "--json")
    return {d["document"]: d["entity_types"] for d in json.loads(out.stdout)["result"]}


class FixtureSync(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="lk-sync-")
        self.db = os.path.join(self.tmp, "store.db")
        self.server = Replay(FIXTURE)

    def tearDown(self):
        self.server.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def sync(self, *extra, env=None):
        return run(self.db, "sync", "--source", self.server.url, "--quiet", *extra, env=env)

    def test_loopback_sync_matches_directory_sync(self):
        r = self.sync()
        self.assertEqual(r.returncode, 0, r.stderr)
        other = os.path.join(self.tmp, "dir.db")
        d = run(other, "sync", "--source", FIXTURE, "--quiet")
        self.assertEqual(d.returncode, 0, d.stderr)
        self.assertEqual(status(self.db)["store"]["per_kind"], status(other)["store"]["per_kind"])
        self.assertEqual(status(self.db)["store"]["per_document"], status(other)["store"]["per_document"])

    def test_server_errors_are_retried(self):
        self.server.faults([{"match": "v2/spells/limit=100&page=2", "kind": "status", "status": 503, "times": 2}])
        r = self.sync()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(status(self.db)["store"]["per_kind"]["spell"], 16)
        self.assertEqual(self.server.stats()["requests"]["v2/spells/limit=100&page=2.json"], 3)
        self.assertIn("retrying", r.stderr)

    def test_client_errors_are_not_retried(self):
        self.server.faults([{"match": "v2/feats/limit=100.json", "kind": "status", "status": 400}])
        r = self.sync()
        self.assertEqual(r.returncode, 1)
        self.assertEqual(self.server.stats()["requests"]["v2/feats/limit=100.json"], 1)
        self.assertIn("FAILED v2/feats", r.stderr)

    def test_a_timeout_is_retried(self):
        self.server.faults([{"match": "v2/creatures/limit=100.json", "kind": "delay", "seconds": 4, "times": 1}])
        r = self.sync()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(status(self.db)["store"]["per_kind"]["creature"], 13)

    def test_bad_pages_fail_their_endpoint_and_keep_previous_data(self):
        self.assertEqual(self.sync().returncode, 0)
        before = status(self.db)["store"]["per_kind"]
        for fault in ({"match": "v2/spells/limit=100&page=2", "kind": "truncate"},
                      {"match": "v2/spells/limit=100&page=2", "kind": "content_type", "content_type": "text/html"},
                      {"match": "v2/spells/limit=100&page=2", "kind": "missing"}):
            with self.subTest(fault=fault["kind"]):
                self.server.faults([fault])
                r = self.sync("--force")
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("FAILED v2/spells (previous data kept)", r.stderr)
                self.assertEqual(status(self.db)["store"]["per_kind"], before)
                report = status(self.db)["store"]["sources"]["open5e"]["report"]
                self.assertEqual([f["endpoint"] for f in report["failed"]], ["v2/spells"])

    def test_an_emptied_or_cut_listing_fails_unless_accepted(self):
        self.assertEqual(self.sync().returncode, 0)
        before = status(self.db)["store"]["per_kind"]
        for fault, message in (
                ({"count": 0, "next": None, "results": []}, "holds 0 records where the stored data came from 16"),
                ({"next": None}, "ended after 10 of the 16 records it announced")):
            with self.subTest(message=message):
                self.server.faults([{"match": "v2/spells/limit=100.json", "kind": "json", "set": fault}])
                r = self.sync("--force")
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("FAILED v2/spells (previous data kept): v2/spells: the listing " + message, r.stderr)
                self.assertIn("--accept-incomplete", r.stderr)
                self.assertEqual(status(self.db)["store"]["per_kind"], before)
        # Accepted explicitly, the cut listing is stored and the summary says what was accepted.
        r = self.sync("--force", "--accept-incomplete")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ACCEPTED v2/spells as it is (--accept-incomplete): the listing ended after 10", r.stderr)
        self.assertEqual(status(self.db)["store"]["per_kind"]["spell"], 10)
        report = status(self.db)["store"]["sources"]["open5e"]["report"]
        self.assertEqual([a["endpoint"] for a in report["accepted_incomplete"]], ["v2/spells"])

    def test_a_listing_that_never_ends_is_cut_off(self):
        self.assertEqual(self.sync().returncode, 0)
        before = status(self.db)["store"]["per_kind"]
        for empty in (False, True):
            with self.subTest(empty=empty):
                self.server.faults([{"match": "v2/spells/", "kind": "endless", "empty": empty}])
                start = self.server.stats()["total"]
                r = self.sync("--force")
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("runs past 3 pages" if empty else "runs past its count (20 records of 16)", r.stderr)
                self.assertEqual(status(self.db)["store"]["per_kind"], before)
                self.assertLess(self.server.stats()["total"] - start, 60)

    def test_a_404_on_a_list_the_data_came_from_keeps_it(self):
        self.assertEqual(self.sync().returncode, 0)
        before = status(self.db)["store"]["per_kind"]
        self.server.faults([{"match": "v2/weapons/limit=100.json", "kind": "missing"}])
        r = self.sync("--force")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("FAILED v2/weapons (previous data kept)", r.stderr)
        self.assertEqual(status(self.db)["store"]["per_kind"], before)
        out = run(self.db, "tool", "search_equipment", '{"search":"Longsword","type":"weapon"}', "--json")
        keys = [x["key"] for x in json.loads(out.stdout)["result"] if x["name"] == "Longsword"]
        self.assertEqual(sorted(keys), ["srd-2024_longsword", "srd_longsword"])  # no v1 copy beside them

    def test_a_failed_endpoint_is_not_retried_within_the_error_ttl(self):
        self.assertEqual(self.sync().returncode, 0)
        self.server.faults([{"match": "v2/backgrounds/", "kind": "status", "status": 500}])
        self.assertEqual(self.sync("--force", env={"LOREKEEPER_HTTP_RETRIES": "0"}).returncode, 1)
        self.server.faults([])
        first = self.server.stats()["requests"].get("v2/backgrounds/limit=100.json", 0)
        # Without --force (and with the data TTL out of the way) the endpoint's error TTL still applies.
        r = self.sync(env={"LOREKEEPER_CACHE_TTL_DAYS": "0"})
        self.assertIn("not retried", r.stderr)
        self.assertEqual(self.server.stats()["requests"].get("v2/backgrounds/limit=100.json", 0), first)
        r = self.sync("--force")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.server.stats()["requests"]["v2/backgrounds/limit=100.json"], first + 1)

    def test_fresh_data_is_not_fetched_again(self):
        self.assertEqual(self.sync().returncode, 0)
        total = self.server.stats()["total"]
        r = self.sync()
        self.assertEqual(r.returncode, 0)
        self.assertIn("fresh", r.stderr)
        self.assertEqual(self.server.stats()["total"], total)
        r = self.sync(env={"LOREKEEPER_CACHE_TTL_DAYS": "0"})
        self.assertGreater(self.server.stats()["total"], total)

    def test_killed_mid_sync_leaves_previous_data_and_recovers(self):
        self.assertEqual(self.sync().returncode, 0)
        before = status(self.db)["store"]["per_kind"]
        self.server.faults([{"match": "v2/creatures/", "kind": "delay", "seconds": 30}])
        proc = subprocess.Popen([BIN, "--db", self.db, "sync", "--source", self.server.url, "--force", "--quiet"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while self.server.stats()["requests"].get("v2/creatures/limit=100.json", 0) < 2 and time.time() < deadline:
            time.sleep(0.1)
        # The sync is inside its write transaction, waiting for creatures: kill it outright.
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        self.assertEqual(status(self.db)["store"]["per_kind"], before)
        # A search works meanwhile and afterwards; the next sync recovers cleanly.
        out = run(self.db, "search", "Fireball", "--kind", "spell", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.server.faults([])
        r = self.sync("--force")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(status(self.db)["store"]["per_kind"], before)

    def test_unreachable_source_changes_nothing(self):
        self.assertEqual(self.sync().returncode, 0)
        before = status(self.db)["store"]["per_kind"]
        self.server.close()
        r = run(self.db, "sync", "--source", self.server.url, "--force", "--quiet",
                env={"LOREKEEPER_HTTP_RETRIES": "1"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("The store was left as it was", r.stderr)
        self.assertEqual(status(self.db)["store"]["per_kind"], before)
        self.server = Replay(FIXTURE)  # for tearDown


class Serve:
    """`lorekeeper serve` over pipes."""

    def __init__(self, db, env):
        e = dict(os.environ, LOREKEEPER_LOG_LEVEL="info", LOREKEEPER_EMBED="off")
        e.update(env)
        self.proc = subprocess.Popen([BIN, "--db", db, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=e)
        self.next_id = 0
        self.call_raw("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "test", "version": "1"}})

    def call_raw(self, method, params):
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def tool(self, name, args):
        return self.call_raw("tools/call", {"name": name, "arguments": args})["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        err = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.returncode, err


class BackgroundRefresh(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="lk-bg-")
        self.db = os.path.join(self.tmp, "store.db")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.server = Replay(FIXTURE)
        self.addCleanup(self.server.close)
        self.assertEqual(run(self.db, "sync", "--source", self.server.url, "--quiet").returncode, 0)

    def test_stale_data_is_refreshed_while_answers_continue(self):
        self.server.faults([{"match": "v2/creatures/", "kind": "delay", "seconds": 3, "times": 1}])
        before = self.server.stats()["total"]
        serve = Serve(self.db, {"LOREKEEPER_OPEN5E_BASE_URL": self.server.url, "LOREKEEPER_CACHE_TTL_DAYS": "0",
                                "LOREKEEPER_AUTO_SYNC": "on"})
        deadline = time.time() + 20
        while self.server.stats()["requests"].get("v2/creatures/limit=100.json", 0) < 2 and time.time() < deadline:
            time.sleep(0.05)
        answer = serve.tool("search_spell", {"search": "Fireball"})
        self.assertEqual(sum(1 for r in answer["structuredContent"]["result"] if r["_score"] == 1.0), 3)
        self.assertIn("refreshed from", answer["structuredContent"]["message"])
        deadline = time.time() + 30
        while self.server.stats()["requests"].get("v1/armor/limit=100.json", 0) < 2 and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        answer = serve.tool("search_spell", {"search": "Fireball"})
        self.assertNotIn("message", answer["structuredContent"])
        rc, err = serve.close()
        self.assertEqual(rc, 0)
        self.assertIn("background sync done", err)
        self.assertGreater(self.server.stats()["total"], before)

    def test_auto_mode_stays_quiet_when_the_api_is_unreachable(self):
        serve = Serve(self.db, {"LOREKEEPER_OPEN5E_BASE_URL": "http://127.0.0.1:9", "LOREKEEPER_CACHE_TTL_DAYS": "0"})
        answer = serve.tool("search_spell", {"search": "Fireball"})
        self.assertEqual(sum(1 for r in answer["structuredContent"]["result"] if r["_score"] == 1.0), 3)
        time.sleep(1)
        rc, err = serve.close()
        self.assertEqual(rc, 0)
        self.assertIn("not reachable", err)

    def _message_when(self, serve, predicate, seconds=15):
        deadline = time.time() + seconds
        while True:
            answer = serve.tool("search_spell", {"search": "Fireball"})
            message = answer["structuredContent"].get("message", "")
            if predicate(message) or time.time() > deadline:
                return answer, message
            time.sleep(0.1)

    def test_answers_say_how_old_the_data_is_when_the_api_cannot_be_reached(self):
        serve = Serve(self.db, {"LOREKEEPER_OPEN5E_BASE_URL": "http://127.0.0.1:9", "LOREKEEPER_CACHE_TTL_DAYS": "0"})
        answer, message = self._message_when(serve, lambda m: "out of date" in m)
        self.assertIn("this data was synced", message)
        self.assertIn("not reachable", message)
        self.assertIn("out of date", answer["content"][0]["text"])
        self.assertEqual(sum(1 for r in answer["structuredContent"]["result"] if r["_score"] == 1.0), 3)
        rc, _ = serve.close()
        self.assertEqual(rc, 0)

    def test_answers_say_how_old_the_data_is_when_a_refresh_fails(self):
        # The documents list answers 500 every time: the refresh fails as a whole and the data stays as it was.
        self.server.faults([{"match": "v2/documents/", "kind": "status", "status": 500}])
        serve = Serve(self.db, {"LOREKEEPER_OPEN5E_BASE_URL": self.server.url, "LOREKEEPER_CACHE_TTL_DAYS": "0",
                                "LOREKEEPER_AUTO_SYNC": "on", "LOREKEEPER_HTTP_RETRIES": "0"})
        answer, message = self._message_when(serve, lambda m: "out of date" in m, seconds=30)
        self.assertIn("refreshing it failed", message)
        self.assertEqual(sum(1 for r in answer["structuredContent"]["result"] if r["_score"] == 1.0), 3)
        rc, _ = serve.close()
        self.assertEqual(rc, 0)

    def test_fresh_data_is_left_alone(self):
        total = self.server.stats()["total"]
        serve = Serve(self.db, {"LOREKEEPER_OPEN5E_BASE_URL": self.server.url, "LOREKEEPER_AUTO_SYNC": "on"})
        serve.tool("search_spell", {"search": "Wish"})
        time.sleep(0.5)
        serve.close()
        self.assertEqual(self.server.stats()["total"], total)


class FullMirrorSync(unittest.TestCase):
    """The whole recorded API over loopback: every record ingested or reported as skipped."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lk-full-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
        cls.mirror = os.path.join(cls.tmp, "mirror")
        os.makedirs(cls.mirror)
        subprocess.run(["tar", "--zstd", "-xf", SNAPSHOT, "-C", cls.mirror], check=True)
        cls.server = Replay(cls.mirror)
        cls.addClassCleanup(cls.server.close)
        cls.db = os.path.join(cls.tmp, "store.db")
        cls.result = run(cls.db, "sync", "--source", cls.server.url, "--quiet", "--json")

    def test_counts_per_kind_match_the_mirror(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        report = json.loads(self.result.stdout)
        skipped = sorted((s["endpoint"], s["key"]) for s in report["skipped"])
        self.assertEqual(skipped, [("v2/creatures", "srd_donkey"), ("v2/creatures", "srd_elf-drow"),
                                   ("v2/creatures", "srd_gnome-deep-svirfneblin")], report["skipped"])
        self.assertTrue(all("empty stat block" in s["reason"] for s in report["skipped"]), report["skipped"])
        self.assertEqual(report["failed"], [])
        self.assertEqual(report["items_merged_into_weapons_and_armor"], 100)
        self.assertEqual(status(self.db)["store"]["per_kind"], EXPECTED_KINDS)

    def test_counts_per_document_match_the_mirror(self):
        docs = spells_by_document(self.db)
        self.assertEqual({d: t["spell"] for d, t in docs.items() if "spell" in t}, EXPECTED_DOCUMENT_SPELLS)
        self.assertEqual({d: t["creature"] for d, t in docs.items() if "creature" in t}, EXPECTED_DOCUMENT_CREATURES)

    def test_fireball_in_both_srds(self):
        out = run(self.db, "tool", "search_spell", '{"search":"Fireball"}', "--json")
        keys = {r["key"]: r["document"]["key"] for r in json.loads(out.stdout)["result"]}
        self.assertEqual(keys.get("srd_fireball"), "srd-2014")
        self.assertEqual(keys.get("srd-2024_fireball"), "srd-2024")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
