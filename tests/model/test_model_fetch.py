#!/usr/bin/env python3
"""`lorekeeper model fetch` against a loopback HTTP server that serves the installed model's files (as the Hugging
Face repository would), with damaged variants; what status and serve say when the model is missing or corrupt;
and that `eval` and a starting serve never measure or answer with a half-ready meaning index.
Usage: test_model_fetch.py LOREKEEPER_BIN FIXTURE_MIRROR

Needs the model installed by scripts/setup.sh (LOREKEEPER_MODEL_DIR or the XDG cache).
"""
import functools
import glob
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

BIN, MIRROR = sys.argv[1:3]
INSTALLED = os.environ.get("LOREKEEPER_MODEL_DIR") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lorekeeper/models/all-MiniLM-L6-v2")
FILES = ("config.json", "vocab.txt", "model.safetensors")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Site:
    """A loopback server for a directory."""

    def __init__(self, root):
        handler = functools.partial(Quiet, directory=root)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def lk(*args, model_dir, db=None, stdin=None, extra_env=None):
    env = dict(os.environ, LOREKEEPER_MODEL_DIR=model_dir, LOREKEEPER_LOG_LEVEL="warning",
               LOREKEEPER_AUTO_SYNC="off", **(extra_env or {}))
    env.pop("LOREKEEPER_MODEL_URL", None)
    cmd = [BIN] + (["--db", db] if db else []) + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, input=stdin, timeout=300)


def digests(d):
    out = {}
    for name in FILES:
        p = os.path.join(d, name)
        out[name] = (os.path.getsize(p), os.stat(p).st_mtime_ns) if os.path.exists(p) else None
    return out


@unittest.skipUnless(all(os.path.exists(os.path.join(INSTALLED, f)) for f in FILES),
                     "the model is not installed (scripts/setup.sh)")
class ModelFetchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="lk-model-")
        self.good = os.path.join(self.tmp, "good")
        self.bad = os.path.join(self.tmp, "bad")
        os.makedirs(self.good)
        os.makedirs(self.bad)
        for name in FILES:
            os.symlink(os.path.join(INSTALLED, name), os.path.join(self.good, name))
        # The same files with one byte of the weights changed.
        for name in ("config.json", "vocab.txt"):
            os.symlink(os.path.join(INSTALLED, name), os.path.join(self.bad, name))
        with open(os.path.join(INSTALLED, "model.safetensors"), "rb") as f:
            weights = bytearray(f.read())
        weights[len(weights) // 2] ^= 0x01
        with open(os.path.join(self.bad, "model.safetensors"), "wb") as f:
            f.write(weights)
        self.site = Site(self.tmp)

    def tearDown(self):
        self.site.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_fetch_installs_a_working_model(self):
        target = os.path.join(self.tmp, "cache", "model")
        p = lk("model", "fetch", "--url", self.site.url + "/good", model_dir=target)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Installed all-MiniLM-L6-v2", p.stdout)
        self.assertEqual(sorted(os.listdir(target)), sorted(FILES))
        # The fetched model embeds exactly like the installed one.
        mine = json.loads(lk("embed", "a dragon that breathes fire", "--json", model_dir=target).stdout)
        ref = json.loads(lk("embed", "a dragon that breathes fire", "--json", model_dir=INSTALLED).stdout)
        self.assertEqual(mine[0]["ids"], ref[0]["ids"])
        self.assertEqual(mine[0]["vector"], ref[0]["vector"])
        # Again: nothing to do without --force.
        p = lk("model", "fetch", "--url", self.site.url + "/good", model_dir=target)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("already installed and valid", p.stdout)

    def test_the_url_can_come_from_the_environment(self):
        target = os.path.join(self.tmp, "env-model")
        env = dict(os.environ, LOREKEEPER_MODEL_DIR=target, LOREKEEPER_MODEL_URL=self.site.url + "/good")
        p = subprocess.run([BIN, "model", "fetch", "--quiet"], capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")

    def test_wrong_digest_is_refused_and_changes_nothing(self):
        target = os.path.join(self.tmp, "model")
        self.assertEqual(lk("model", "fetch", "--url", self.site.url + "/good", model_dir=target).returncode, 0)
        before = digests(target)
        p = lk("model", "fetch", "--force", "--url", self.site.url + "/bad", model_dir=target)
        self.assertEqual(p.returncode, 1)
        self.assertIn("model.safetensors", p.stderr)
        self.assertIn("expected 53aa5117", p.stderr)
        self.assertIn("Nothing was changed", p.stderr)
        self.assertEqual(digests(target), before)
        self.assertEqual(glob.glob(os.path.join(target, ".fetch-*")), [])
        self.assertEqual(lk("status", "--json", model_dir=target, db=os.path.join(self.tmp, "s.db")).returncode, 0)

    def test_missing_files_and_unreachable_server(self):
        target = os.path.join(self.tmp, "nothing")
        p = lk("model", "fetch", "--url", self.site.url + "/no-such-repo", model_dir=target)
        self.assertEqual(p.returncode, 1)
        self.assertIn("HTTP 404", p.stderr)
        self.assertEqual(os.listdir(target), [])
        self.site.close()
        p = lk("model", "fetch", "--url", self.site.url + "/good", model_dir=target)
        self.assertEqual(p.returncode, 1)
        self.assertIn("Couldn't connect", p.stderr)
        self.assertEqual(os.listdir(target), [])
        self.site = Site(self.tmp)


class MissingModelTest(unittest.TestCase):
    """A missing or corrupt model: status says what is wrong; serve answers lexically and says so."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lk-nomodel-")
        cls.db = os.path.join(cls.tmp, "store.db")
        p = lk("sync", "--source", MIRROR, "--quiet", model_dir=cls.tmp, db=cls.db)
        assert p.returncode == 0, p.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, model_dir, reason):
        p = lk("status", "--json", model_dir=model_dir, db=self.db)
        self.assertEqual(p.returncode, 0, p.stderr)
        model = json.loads(p.stdout)["model"]
        self.assertEqual(model["state"], "unavailable")
        self.assertIn(reason, model["error"])
        requests = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "search_creature", "arguments": {"search": "goblin"}}},
        ]
        p = lk("serve", model_dir=model_dir, db=self.db, stdin="".join(json.dumps(r) + "\n" for r in requests))
        self.assertEqual(p.returncode, 0, p.stderr)
        replies = [json.loads(line) for line in p.stdout.splitlines()]
        result = [r for r in replies if r.get("id") == 2][0]["result"]
        self.assertFalse(result.get("isError", False))
        names = [c["name"] for c in result["structuredContent"]["result"]]
        self.assertIn("Goblin", names)
        first = result["content"][0]["text"].split("\n")[0]
        self.assertIn("Meaning-based search is off", first)
        self.assertIn(reason, first)
        self.assertIn("lorekeeper model fetch", first)
        self.assertIn("answers match names and words only", first)

    def test_missing_model(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty, exist_ok=True)
        self.check(empty, "no vocabulary at")

    @unittest.skipUnless(os.path.exists(os.path.join(INSTALLED, "model.safetensors")), "model not installed")
    def test_truncated_weights(self):
        broken = os.path.join(self.tmp, "broken")
        os.makedirs(broken, exist_ok=True)
        for name in ("config.json", "vocab.txt"):
            shutil.copy(os.path.join(INSTALLED, name), broken)
        with open(os.path.join(INSTALLED, "model.safetensors"), "rb") as f:
            head = f.read(1_000_000)
        with open(os.path.join(broken, "model.safetensors"), "wb") as f:
            f.write(head)
        self.check(broken, "lies outside the file")


@unittest.skipUnless(all(os.path.exists(os.path.join(INSTALLED, f)) for f in FILES),
                     "the model is not installed (scripts/setup.sh)")
class ReadyIndexTest(unittest.TestCase):
    """eval refuses an index that does not cover the store; a starting serve's first search uses meaning."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lk-ready-")
        cls.db = os.path.join(cls.tmp, "store.db")
        # Synced with meaning-based search off, so the store takes none of the bundled vectors: no index at all.
        p = lk("sync", "--source", MIRROR, "--quiet", model_dir=INSTALLED, db=cls.db,
               extra_env={"LOREKEEPER_EMBED": "off"})
        assert p.returncode == 0, p.stderr
        cls.rows = os.path.join(cls.tmp, "rows.jsonl")
        with open(cls.rows, "w") as f:
            f.write(json.dumps({"id": "nl-creature-01", "category": "natural", "tool": "search_creature",
                                "args": {"search": "undead that drinks blood and fears sunlight"},
                                "expect": ["Vampire", "Vampire Spawn"]}) + "\n")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_eval_needs_the_whole_index_then_says_what_it_used(self):
        p = lk("eval", self.rows, "--ranking", "all", model_dir=INSTALLED, db=self.db)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertRegex(p.stderr, r"the meaning index covers 0 of \d+ entities; run `lorekeeper index` first")
        self.assertEqual(p.stdout, "")
        p = lk("eval", self.rows, "--ranking", "lexical", model_dir=INSTALLED, db=self.db)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("== lexical", p.stdout)
        p = lk("index", "--threads", "2", model_dir=INSTALLED, db=self.db)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = lk("eval", self.rows, "--ranking", "hybrid", "--json", model_dir=INSTALLED, db=self.db)
        self.assertEqual(p.returncode, 0, p.stderr)
        entities = int(re.search(r"vectors for \d+ of (\d+) entities", p.stderr).group(1))
        self.assertRegex(p.stderr, r"model sentence-transformers/all-MiniLM-L6-v2, %d vectors for %d of %d entities"
                         % (entities, entities, entities))
        self.assertEqual(json.loads(p.stdout)["hybrid"]["rows"][0]["rank"], 1)

        # A serve started on the indexed store holds its first search until the stored vectors are read.
        requests = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "search_creature",
                        "arguments": {"search": "undead that drinks blood and fears sunlight"}}},
        ]
        for _ in range(3):
            p = lk("serve", model_dir=INSTALLED, db=self.db,
                   stdin="".join(json.dumps(r) + "\n" for r in requests))
            self.assertEqual(p.returncode, 0, p.stderr)
            replies = [json.loads(line) for line in p.stdout.splitlines()]
            result = [r for r in replies if r.get("id") == 2][0]["result"]
            self.assertNotIn("being prepared", result["content"][0]["text"])
            matched = result["structuredContent"]["result"][0]["_matched"]
            self.assertIn("meaning", matched, result["structuredContent"]["result"][0])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
