#!/usr/bin/env python3
"""End-to-end tests of `lorekeeper import` and `lorekeeper remove`: the real binary, real SQLite stores, the
OrcBrew fixtures (tests/fixtures/orcbrew, figures in its README), and a running `lorekeeper serve` that must see
an import made by another process. Usage: test_import_cli.py LOREKEEPER_BIN FIXTURE_MIRROR ORCBREW_FIXTURES
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

BIN, MIRROR, ORCBREW = sys.argv[1:4]
MULTI = os.path.join(ORCBREW, "multi-pack.orcbrew")
DAMAGED = os.path.join(ORCBREW, "damaged.orcbrew")
SAMPLE = os.path.join(ORCBREW, "sample.orcbrew")
SINGLE = os.path.join(ORCBREW, "single-pack.orcbrew")


def run(db, *args, embed="off", timeout=300):
    env = dict(os.environ, LOREKEEPER_LOG_LEVEL="warning", LOREKEEPER_EMBED=embed, LOREKEEPER_AUTO_SYNC="off")
    return subprocess.run([BIN, "--db", db] + list(args), capture_output=True, text=True, env=env, timeout=timeout)


def run_json(db, *args, **kw):
    p = run(db, *args, "--json", **kw)
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else None), p.stderr


def tool(db, name, args):
    p = run(db, "tool", name, json.dumps(args), "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def orcbrew_docs(db):
    return {d["document"]: d for d in tool(db, "list_documents", {"source": "orcbrew"})["result"]}


class ImportTest(unittest.TestCase):
    base = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lk-import-")
        cls.base = os.path.join(cls.tmp, "base.db")
        p = run(cls.base, "sync", "--source", MIRROR, "--quiet")
        assert p.returncode == 0, p.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def store(self):
        path = os.path.join(self.tmp, self.id().split(".")[-1] + ".db")
        shutil.copy(self.base, path)
        return path

    def test_import_counts_and_searchable_like_synced(self):
        db = self.store()
        rc, report, err = run_json(db, "import", MULTI)
        self.assertEqual(rc, 0, err)
        self.assertTrue(report["written"])
        self.assertEqual(report["entities"], 19)
        packs = {p["document_key"]: p for p in report["files"][0]["packs"]}
        self.assertEqual(packs["orcbrew-homebrew-grimoire"]["imported"],
                         {"spells": 4, "classes": 1, "subclasses": 2, "languages": 1})
        self.assertEqual(packs["orcbrew-homebrew-grimoire"]["unsupported"], {"invocations": 1})
        self.assertEqual(packs["orcbrew-beasts-of-the-mirewood"]["imported_total"], 11)
        docs = orcbrew_docs(db)
        self.assertEqual(set(docs), {"orcbrew-homebrew-grimoire", "orcbrew-beasts-of-the-mirewood"})
        self.assertEqual(docs["orcbrew-homebrew-grimoire"]["entity_count"], 8)
        self.assertEqual(docs["orcbrew-homebrew-grimoire"]["source_api"], "orcbrew")
        # Filters and documents work on imported entities exactly as on synced ones.
        spells = tool(db, "search_spell", {"class_key": "wizard", "level": 2,
                                           "documents": ["orcbrew-homebrew-grimoire"]})
        self.assertEqual([s["key"] for s in spells["result"]], ["orcbrew-homebrew-grimoire_frost-lance"])
        creatures = tool(db, "search_creature", {"cr": 3, "documents": ["orcbrew-beasts-of-the-mirewood"]})
        self.assertEqual([c["name"] for c in creatures["result"]], ["Bog Hag"])
        # Name search across everything, with a typo, finds the homebrew spell.
        found = tool(db, "search_all", {"query": "frost lanse"})
        keys = [r["key"] for group in found["result"].values() for r in group]
        self.assertIn("orcbrew-homebrew-grimoire_frost-lance", keys)
        # The synced data is untouched.
        self.assertIn("srd-2014", {d["document"] for d in tool(db, "list_documents", {})["result"]})

    def test_reimport_replaces_the_pack(self):
        db = self.store()
        self.assertEqual(run(db, "import", MULTI).returncode, 0)
        # The same pack, edited: one spell renamed and one removed.
        edited = os.path.join(self.tmp, "edited.orcbrew")
        with open(MULTI, encoding="utf-8") as f:
            text = f.read()
        self.assertIn(":frost-lance", text)
        text = text.replace(":frost-lance", ":frost-spear").replace('"Frost Lance"', '"Frost Spear"')
        with open(edited, "w", encoding="utf-8") as f:
            f.write(text)
        rc, report, err = run_json(db, "import", edited)
        self.assertEqual(rc, 0, err)
        self.assertEqual(report["replaced"], 19)
        self.assertEqual(report["entities"], 19)
        keys = {s["key"] for s in tool(db, "search_spell", {"documents": ["orcbrew-homebrew-grimoire"]})["result"]}
        self.assertIn("orcbrew-homebrew-grimoire_frost-spear", keys)
        self.assertNotIn("orcbrew-homebrew-grimoire_frost-lance", keys)
        self.assertEqual(orcbrew_docs(db)["orcbrew-homebrew-grimoire"]["entity_count"], 8)

    def test_dry_run_writes_nothing(self):
        db = self.store()
        before = tool(db, "list_documents", {})
        rc, report, err = run_json(db, "import", "--dry-run", MULTI, DAMAGED)
        self.assertEqual(rc, 0, err)
        self.assertFalse(report["written"])
        self.assertEqual(report["entities"], 19 + 8)
        self.assertEqual(tool(db, "list_documents", {}), before)
        # A dry run against a store that does not exist does not create it.
        missing = os.path.join(self.tmp, "never.db")
        self.assertEqual(run(missing, "import", "--dry-run", SAMPLE).returncode, 0)
        self.assertFalse(os.path.exists(missing))

    def test_damaged_file_imports_what_it_can_and_names_the_rest(self):
        db = self.store()
        p = run(db, "import", DAMAGED)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        for expected in ("skipped spells/broken-spell: the entry is nil",
                         "skipped spells/not-a-spell", "skipped subclasses/[1]", "skipped backgrounds:",
                         "line 15, column 4: duplicate map key :blight-bolt", "Imported 8 entities"):
            self.assertIn(expected, out)
        docs = orcbrew_docs(db)
        self.assertEqual(docs["orcbrew-cursed-tome"]["entity_count"], 7)
        self.assertNotIn("orcbrew-empty-pack", docs)
        rc, report, _ = run_json(db, "import", "--dry-run", DAMAGED)
        cursed = [p for p in report["files"][0]["packs"] if p["pack"] == "Cursed Tome"][0]
        self.assertEqual({(x["kind"], x["key"]) for x in cursed["problems"]},
                         {("spells", "broken-spell"), ("spells", "not-a-spell"), ("backgrounds", ""),
                          ("subclasses", "[1]")})
        self.assertEqual(len(cursed["warnings"]), 16)

    def test_broken_files_are_reported_and_the_others_imported(self):
        db = self.store()
        truncated = os.path.join(self.tmp, "truncated.orcbrew")
        with open(MULTI, encoding="utf-8") as f:
            text = f.read()
        with open(truncated, "w", encoding="utf-8") as f:
            f.write(text[: len(text) // 2])
        rc, report, err = run_json(db, "import", truncated, SAMPLE, os.path.join(self.tmp, "no-such.orcbrew"))
        self.assertEqual(rc, 1)
        errors = {os.path.basename(f["file"]): f.get("error", "") for f in report["files"]}
        self.assertRegex(errors["truncated.orcbrew"], r"truncated\.orcbrew: line \d+, column \d+: ")
        self.assertIn("cannot open", errors["no-such.orcbrew"])
        self.assertEqual(errors["sample.orcbrew"], "")
        self.assertIn("2 of 3 files could not be imported (see above); the others were imported", err)
        self.assertEqual(set(orcbrew_docs(db)), {"orcbrew-test-content-pack"})
        # A single file that fails imports nothing, and says so (there are no others).
        rc, _, err = run_json(db, "import", truncated)
        self.assertEqual(rc, 1)
        self.assertIn("the file could not be imported (see above); nothing was imported", err)
        self.assertNotIn("others", err)

    def test_an_import_waits_for_another_writer(self):
        db = self.store()
        self.assertEqual(run(db, "import", SAMPLE).returncode, 0)
        # Another writer holds the store for 7 s, past the 5 s after which writes used to fail: the import waits
        # its turn, says so, and then imports.
        locked = threading.Event()

        def hold():
            con = sqlite3.connect(db, isolation_level=None, timeout=30)
            con.execute("BEGIN IMMEDIATE")
            locked.set()
            time.sleep(7)
            con.execute("ROLLBACK")
            con.close()

        t = threading.Thread(target=hold)
        t.start()
        self.assertTrue(locked.wait(30))
        p = run(db, "--log-level", "info", "import", MULTI, SAMPLE)
        t.join()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("waiting for another process", p.stderr)

    def test_remove(self):
        db = self.store()
        self.assertEqual(run(db, "import", MULTI, SAMPLE).returncode, 0)
        # An unknown name changes nothing and lists what can be removed.
        p = run(db, "remove", "Homebrew Grimoire", "No Such Pack")
        self.assertEqual(p.returncode, 1)
        self.assertIn('no imported pack named "No Such Pack"; nothing was removed', p.stderr)
        self.assertIn("Beasts of the Mirewood (orcbrew-beasts-of-the-mirewood, 11 entities)", p.stderr)
        self.assertEqual(len(orcbrew_docs(db)), 3)
        # By name in any case, and by document key.
        rc, report, err = run_json(db, "remove", "homebrew GRIMOIRE", "orcbrew-test-content-pack")
        self.assertEqual(rc, 0, err)
        self.assertEqual({r["document_key"]: r["entities"] for r in report["removed"]},
                         {"orcbrew-homebrew-grimoire": 8, "orcbrew-test-content-pack": 4})
        self.assertEqual(set(orcbrew_docs(db)), {"orcbrew-beasts-of-the-mirewood"})
        found = tool(db, "search_spell", {"search": "Frost Lance"})
        self.assertNotIn("orcbrew-homebrew-grimoire_frost-lance", [s["key"] for s in found["result"]])

    def test_import_into_a_missing_store_starts_from_the_bundled_data(self):
        db = os.path.join(self.tmp, "fresh", "store.db")
        rc, report, err = run_json(db, "import", SINGLE)
        self.assertEqual(rc, 0, err)
        docs = {d["document"]: d for d in tool(db, "list_documents", {})["result"]}
        self.assertIn("orcbrew-emberfall-extras", docs)
        self.assertIn("srd-2024", docs)
        self.assertGreater(sum(d["entity_count"] for d in docs.values()), 9000)


class RunningServerTest(unittest.TestCase):
    """A server that is already running sees an import made by another process: lexically at once, and by
    meaning once its background embedder has noticed the change (SQLite's data version, polled every ~5 s)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="lk-import-serve-")
        self.db = os.path.join(self.tmp, "store.db")
        p = run(self.db, "sync", "--source", MIRROR, "--quiet")
        self.assertEqual(p.returncode, 0, p.stderr)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_server_sees_import(self):
        model_ok = run(self.db, "status", "--json", embed="auto")
        semantic = model_ok.returncode == 0 and json.loads(model_ok.stdout)["model"].get("state") == "ready"
        env = dict(os.environ, LOREKEEPER_LOG_LEVEL="warning", LOREKEEPER_AUTO_SYNC="off",
                   LOREKEEPER_EMBED="auto" if semantic else "off")
        server = subprocess.Popen([BIN, "--db", self.db, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env)
        ids = iter(range(1, 10_000))

        def call(method, params):
            i = next(ids)
            server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
            server.stdin.flush()
            reply = json.loads(server.stdout.readline())
            self.assertEqual(reply["id"], i)
            return reply["result"]

        try:
            call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "import-test", "version": "1"}})
            server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
            server.stdin.flush()

            def frost(query):
                r = call("tools/call", {"name": "search_spell", "arguments": {"search": query}})
                return [x for x in r["structuredContent"]["result"] if x["key"].startswith("orcbrew-")]

            self.assertEqual(frost("Frost Lance"), [])
            self.assertEqual(run(self.db, "import", MULTI).returncode, 0)
            self.assertEqual([x["key"] for x in frost("Frost Lance")], ["orcbrew-homebrew-grimoire_frost-lance"])
            if not semantic:
                self.skipTest("no embedding model: only the lexical half was checked")
            # Words the spell's text does not contain: only meaning can find it.
            deadline = time.time() + 120
            hits = []
            while time.time() < deadline:
                hits = frost("icy javelin that slows the target")
                if hits:
                    break
                time.sleep(1)
            self.assertTrue(hits, "the running server never found the imported spell by meaning")
            self.assertIn("meaning", hits[0]["_matched"])
        finally:
            server.stdin.close()
            server.wait(timeout=30)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
