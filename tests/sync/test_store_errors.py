#!/usr/bin/env python3
"""A broken disk or store, through the real binary: damaged and foreign stores give errors and non-zero exits and
are never written, the suggested recovery works, a failed sync leaves no store behind, a full disk and a
read-only filesystem say so and lose nothing, and a writer waits for another instead of failing.

Usage: test_store_errors.py LOREKEEPER_BIN FIXTURE_MIRROR
The full-disk and read-only tests mount a small tmpfs and are skipped where mounting is not permitted.
"""
import glob
import hashlib
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

BIN, FIXTURE = sys.argv[1:3]


def run(db, *args, env=None, timeout=300):
    e = dict(os.environ, LOREKEEPER_LOG_LEVEL="info", LOREKEEPER_EMBED="off", LOREKEEPER_HTTP_RETRIES="0")
    e.update(env or {})
    return subprocess.run([BIN, "--db", db] + list(args), capture_output=True, text=True, env=e, timeout=timeout)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def per_kind(db):
    out = run(db, "status", "--json")
    return json.loads(out.stdout)["store"]["per_kind"]


def mcp_call(db, tool, args):
    """One tools/call through `serve` over stdio; returns the result object."""
    msgs = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}}]
    e = dict(os.environ, LOREKEEPER_EMBED="off", LOREKEEPER_AUTO_SYNC="off")
    p = subprocess.run([BIN, "--db", db, "serve"], input="".join(json.dumps(m) + "\n" for m in msgs),
                       capture_output=True, text=True, env=e, timeout=60)
    replies = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    return [r for r in replies if r.get("id") == 1][0]["result"]


class DamagedAndForeignStores(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="lk-store-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_a_foreign_sqlite_database_is_refused_and_never_written(self):
        db = os.path.join(self.tmp, "other.db")
        c = sqlite3.connect(db)
        c.execute("CREATE TABLE people (name TEXT)")
        c.execute("INSERT INTO people VALUES ('Ada')")
        c.commit()
        c.close()
        before = digest(db)
        r = run(db, "status")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("another program", r.stdout)
        r = run(db, "search", "fireball", "--kind", "spell")
        self.assertEqual(r.returncode, 1)
        self.assertIn("another program", r.stderr)
        result = mcp_call(db, "search_spell", {"search": "fireball"})
        self.assertTrue(result["isError"])
        self.assertIn("another program", result["content"][0]["text"])
        r = run(db, "sync", "--source", FIXTURE, "--quiet")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(digest(db), before)
        tables = sqlite3.connect(db).execute("SELECT name FROM sqlite_schema").fetchall()
        self.assertEqual(tables, [("people",)])

    def test_a_damaged_store_is_an_error_and_move_aside_rebuilds_it(self):
        db = os.path.join(self.tmp, "store.db")
        with open(db, "wb") as f:
            f.write(os.urandom(100000))
        before = digest(db)
        r = run(db, "status")
        self.assertEqual(r.returncode, 1)
        self.assertIn("--move-aside", r.stdout)
        r = run(db, "search", "fireball", "--kind", "spell")
        self.assertEqual(r.returncode, 1)
        result = mcp_call(db, "search_spell", {"search": "fireball"})
        self.assertTrue(result["isError"])
        self.assertIn("--move-aside", result["content"][0]["text"])
        r = run(db, "sync", "--source", FIXTURE, "--quiet")
        self.assertEqual(r.returncode, 1)
        self.assertIn("Nothing was changed", r.stderr)
        self.assertEqual(digest(db), before)
        # The recovery the messages suggest works.
        r = run(db, "sync", "--source", FIXTURE, "--quiet", "--move-aside")
        self.assertEqual(r.returncode, 0, r.stderr)
        moved = glob.glob(db + ".damaged-*")
        self.assertEqual(len(moved), 1, os.listdir(self.tmp))
        self.assertEqual(digest(moved[0]), before)
        self.assertEqual(per_kind(db)["spell"], 16)
        self.assertEqual(run(db, "search", "fireball", "--kind", "spell").returncode, 0)

    def test_a_failed_sync_into_a_missing_store_leaves_nothing_behind(self):
        db = os.path.join(self.tmp, "sub", "store.db")
        r = run(db, "sync", "--source", "http://127.0.0.1:9", "--quiet")
        self.assertEqual(r.returncode, 1)
        self.assertIn("No store was created", r.stderr)
        self.assertEqual(glob.glob(db + "*"), [])


class StoresThatWouldLie(unittest.TestCase):
    """A store damaged past its first page, an empty store, an interrupted first sync: none is served as data."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="lk-lie-")
        self.db = os.path.join(self.tmp, "store.db")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def damage(self):
        """Random bytes over 2,000 bytes from the start of a page in the middle of the file (its header and
        cells), as a bad disk sector or a stray write would leave them; the first page (the schema) is intact."""
        c = sqlite3.connect(self.db)
        page_size, pages = c.execute("PRAGMA page_size").fetchone()[0], c.execute("PRAGMA page_count").fetchone()[0]
        c.close()
        self.assertFalse(os.path.exists(self.db + "-wal"))
        with open(self.db, "r+b") as f:
            f.seek(page_size * (pages // 2))
            f.write(os.urandom(2000))

    def test_a_store_damaged_past_its_first_page_is_said_damaged_and_move_aside_rebuilds_it(self):
        self.assertEqual(run(self.db, "sync", "--source", FIXTURE, "--quiet").returncode, 0)
        self.damage()
        before = digest(self.db)
        r = run(self.db, "status")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("damaged", r.stdout)
        self.assertIn("--move-aside", r.stdout)
        # A serve checks the store before its first answer.
        result = mcp_call(self.db, "count_entities", {"kind": "spell"})
        self.assertTrue(result["isError"], result)
        self.assertIn("--move-aside", result["content"][0]["text"])
        # The store was synced a moment ago: the damage is found before "the store is fresh" is said.
        r = run(self.db, "sync", "--source", FIXTURE, "--quiet")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("Nothing was changed", r.stderr)
        self.assertNotIn("fresh", r.stderr)
        self.assertEqual(digest(self.db), before)
        r = run(self.db, "import", os.path.join(os.path.dirname(FIXTURE), "orcbrew", "sample.orcbrew"))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(digest(self.db), before)
        # The recovery the messages give works, with the store still "fresh".
        r = run(self.db, "sync", "--source", FIXTURE, "--quiet", "--move-aside")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Moved the unusable store", r.stderr)
        self.assertEqual(per_kind(self.db)["spell"], 16)
        self.assertEqual(len(glob.glob(self.db + ".damaged-*")), 1)

    def test_an_empty_store_says_how_to_fill_it_instead_of_finding_nothing(self):
        # A file made empty; the first command that opens it gives it the store's tables, so the second call
        # sees what an import killed before its data was committed leaves: tables and no documents.
        open(self.db, "wb").close()
        for _ in range(2):
            result = mcp_call(self.db, "search_spell", {"search": "fireball"})
            text = result["content"][0]["text"]
            self.assertIn("holds no documents", text)
            self.assertIn("lorekeeper sync --source bundled", text)
            self.assertNotIn("Nothing found", text)
        self.assertGreater(os.path.getsize(self.db), 0)
        r = run(self.db, "search", "fireball", "--kind", "spell")
        self.assertIn("holds no documents", r.stdout + r.stderr)
        # Filling it is seen by the next call.
        self.assertEqual(run(self.db, "sync", "--source", FIXTURE, "--quiet").returncode, 0)
        self.assertIn("Fireball", mcp_call(self.db, "search_spell", {"search": "fireball"})["content"][0]["text"])

    def test_a_store_path_that_is_a_dangling_link_is_an_error_not_a_build_on_every_call(self):
        target = os.path.join(self.tmp, "gone", "store.db")
        os.symlink(target, self.db)
        for _ in range(2):
            result = mcp_call(self.db, "search_spell", {"search": "fireball"})
            self.assertTrue(result["isError"], result)
            self.assertIn("is a symbolic link to " + target + ", which does not exist", result["content"][0]["text"])
        r = run(self.db, "sync", "--source", FIXTURE, "--quiet")
        self.assertEqual(r.returncode, 1)
        self.assertIn("symbolic link", r.stderr)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["store.db"], "something was built beside the link")

    def test_a_first_sync_killed_half_way_leaves_no_store_and_the_next_one_cleans_up(self):
        e = dict(os.environ, LOREKEEPER_EMBED="off")
        p = subprocess.Popen([BIN, "--db", self.db, "sync", "--source", "bundled", "--quiet"], env=e,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Killed once its private file is being written.
        deadline = time.time() + 60
        while time.time() < deadline and not glob.glob(self.db + ".sync-*"):
            time.sleep(0.02)
        time.sleep(0.5)
        p.kill()
        p.wait()
        self.assertFalse(os.path.exists(self.db), "a killed first sync left a store at the store's path")
        left = glob.glob(self.db + ".sync-*")
        self.assertTrue(left, os.listdir(self.tmp))
        # A first start (serve) finds no store and builds one; it is never served empty.
        result = mcp_call(self.db, "search_spell", {"search": "fireball"})
        self.assertIn("Fireball", result["content"][0]["text"])
        # The killed build's files are gone; a build of a process that still runs is left alone.
        self.assertEqual(glob.glob(self.db + ".sync-*"), [])
        live = "%s.sync-%d" % (self.db, os.getpid())
        open(live, "wb").close()
        os.remove(self.db)
        self.assertEqual(run(self.db, "sync", "--source", FIXTURE, "--quiet").returncode, 0)
        self.assertTrue(os.path.exists(live))
        self.assertEqual(glob.glob(self.db + ".bootstrap-*"), [])


class WritersWait(unittest.TestCase):
    def test_a_sync_waits_for_another_writer_instead_of_failing(self):
        tmp = tempfile.mkdtemp(prefix="lk-busy-")
        try:
            db = os.path.join(tmp, "store.db")
            self.assertEqual(run(db, "sync", "--source", FIXTURE, "--quiet").returncode, 0)
            # Another process's write transaction, held for longer than the old 5 s busy timeout.
            holder = sqlite3.connect(db, timeout=30, isolation_level=None, check_same_thread=False)
            holder.execute("BEGIN IMMEDIATE")
            released = threading.Event()

            def release():
                time.sleep(7)
                holder.execute("COMMIT")
                released.set()

            t = threading.Thread(target=release)
            t.start()
            r = run(db, "sync", "--source", FIXTURE, "--quiet", "--force", timeout=120)
            t.join()
            holder.close()
            self.assertTrue(released.is_set())
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("waiting for another process", r.stderr)
            self.assertEqual(per_kind(db)["spell"], 16)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class BrokenDisk(unittest.TestCase):
    """A 24 MB tmpfs: filled to the brim, or remounted read-only."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="lk-disk-")
        self.mnt = os.path.join(self.tmp, "mnt")
        os.makedirs(self.mnt)
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", self.mnt], capture_output=True)
        if m.returncode != 0:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.skipTest("cannot mount a tmpfs here: " + m.stderr.decode().strip())
        self.db = os.path.join(self.mnt, "store.db")
        r = run(self.db, "sync", "--source", FIXTURE, "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.before = per_kind(self.db)

    def tearDown(self):
        subprocess.run(["umount", self.mnt], capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fill(self, leave_bytes):
        st = os.statvfs(self.mnt)
        free = st.f_bavail * st.f_frsize
        with open(os.path.join(self.mnt, "fill"), "wb") as f:
            f.write(b"\0" * max(0, free - leave_bytes))

    def test_a_full_disk_says_so_and_loses_nothing(self):
        self.fill(4 << 20)  # room to start the sync, not to write the bundled snapshot's 9,873 entities
        r = run(self.db, "sync", "--source", "bundled", "--force", "--quiet")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("the disk is full", r.stderr)
        self.assertNotIn("internal error", r.stderr)
        self.assertNotIn("no transaction is active", r.stderr)
        self.assertFalse(os.path.exists(self.db + "-wal") and os.path.getsize(self.db + "-wal") > 0,
                         "a write-ahead log still holds the space")
        os.remove(os.path.join(self.mnt, "fill"))
        self.assertEqual(per_kind(self.db), self.before)
        # Completely full: even opening says why.
        self.fill(0)
        r = run(self.db, "status")
        self.assertEqual(r.returncode, 1)
        self.assertIn("full", r.stdout)

    def test_a_full_disk_when_the_log_is_copied_into_the_store_does_not_undo_a_reported_write(self):
        # 2,000 spells: a commit of about 7 MB into the write-ahead log, which the disk holds, and then no room to
        # copy the log into the store file (SQLite's checkpoint), nor to refresh the query statistics.
        pack = os.path.join(self.tmp, "pack.orcbrew")
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                              "make-large-orcbrew.py")
        subprocess.run([sys.executable, script, pack, "2000", "0"], check=True, capture_output=True)
        self.fill(10 << 20)
        r = run(self.db, "import", "--no-embed", pack)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Imported 2000 entities", r.stdout)
        self.assertIn("is committed and read from the store's write-ahead log", r.stdout)
        self.assertNotIn("Nothing was imported", r.stdout)
        self.assertNotIn("nothing was changed", r.stdout)
        self.assertEqual(per_kind(self.db)["spell"], self.before["spell"] + 2000)
        # With room again, a later write copies the log into the file and gives its space back.
        os.remove(os.path.join(self.mnt, "fill"))
        self.assertEqual(run(self.db, "remove", "Benchmark Compendium").returncode, 0)
        self.assertEqual(per_kind(self.db), self.before)
        self.assertFalse(os.path.exists(self.db + "-wal") and os.path.getsize(self.db + "-wal") > 0)

    def test_a_read_only_filesystem_says_so(self):
        self.assertEqual(subprocess.run(["mount", "-o", "remount,ro", self.mnt]).returncode, 0)
        r = run(self.db, "sync", "--source", FIXTURE, "--force", "--quiet")
        self.assertEqual(r.returncode, 1)
        self.assertIn("read-only", r.stderr)
        self.assertNotIn("is not a LoreKeeper store", r.stderr)
        self.assertNotIn("no endpoint could be read", r.stderr)
        r = run(os.path.join(self.mnt, "new.db"), "sync", "--source", FIXTURE, "--quiet")
        self.assertEqual(r.returncode, 1)
        self.assertIn("read-only", r.stderr)
        # Reading still works.
        self.assertEqual(per_kind(self.db), self.before)
        self.assertEqual(run(self.db, "search", "fireball", "--kind", "spell").returncode, 0)

    def downgrade(self, version, old_vector_layout):
        """The store as an older lorekeeper left it: its schema version, and (schema 6) its vectors' old layout."""
        c = sqlite3.connect(self.db)
        try:
            if old_vector_layout:
                c.executescript("""
                    CREATE TABLE old_vectors (kind TEXT NOT NULL, key TEXT NOT NULL, passage INTEGER NOT NULL,
                      model TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL,
                      PRIMARY KEY (kind, key, passage)) WITHOUT ROWID;
                    INSERT INTO old_vectors SELECT kind, key, passage, model, text_hash, vector FROM entity_vectors;
                    DROP TABLE entity_vectors;
                    ALTER TABLE old_vectors RENAME TO entity_vectors;""")
            c.execute("PRAGMA user_version = %d" % version)
            c.commit()
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            c.close()
        self.assertEqual(subprocess.run(["mount", "-o", "remount,ro", self.mnt]).returncode, 0)

    def test_an_older_store_on_read_only_media_is_read_when_its_upgrade_changes_only_the_layout(self):
        self.downgrade(6, old_vector_layout=True)
        r = run(self.db, "search", "fireball", "--kind", "spell", "--table")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Fireball", r.stdout)
        self.assertIn("read at schema 6", r.stderr)
        self.assertNotIn("cannot be used", r.stdout + r.stderr)
        self.assertEqual(per_kind(self.db), self.before)

    def test_an_older_store_on_read_only_media_that_needs_its_contents_upgraded_says_so(self):
        self.downgrade(5, old_vector_layout=True)
        r = run(self.db, "search", "fireball", "--kind", "spell", "--table")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("older than this lorekeeper", r.stdout + r.stderr)
        self.assertIn("open it once where it can be written", r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
