#!/usr/bin/env python3
"""The description sets stay what they claim: no query shares a content word with its answers (their names, the
names inside their records, the rare words of their text), checked by scripts/describe_check.py over the store the
bundled snapshot builds; and the check rejects a query that names its answer.
Usage: test_describe_sets.py LOREKEEPER_BIN SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BIN = sys.argv[1]
SOURCE = sys.argv[2]
TMP = tempfile.mkdtemp(prefix="lk-describe-")
DB = os.path.join(TMP, "store.db")
CHECK = os.path.join(SOURCE, "scripts", "describe_check.py")
SETS = [os.path.join(SOURCE, "tests", "eval", name) for name in ("describe.jsonl", "describe-heldout.jsonl")]


def setUpModule():
    r = subprocess.run([BIN, "--db", DB, "sync", "--source", "bundled", "--quiet"], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, LOREKEEPER_EMBED="off"))
    assert r.returncode == 0, r.stderr


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def check(*paths):
    return subprocess.run([sys.executable, CHECK, "--db", DB] + list(paths), capture_output=True, text=True,
                          timeout=300)


class DescribeSets(unittest.TestCase):
    def test_no_query_shares_a_content_word_with_its_answers(self):
        r = check(*SETS)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("160 of 160 rows", r.stderr)

    def test_a_query_that_names_its_answer_or_a_rare_word_of_it_fails(self):
        rows = [
            # a word of the name, in another form
            {"id": "x1", "kind": "spell", "args": {"search": "a ball of flame that explodes"}, "expect": ["Fireball"],
             "note": "srd_fireball"},
            # the name of an action inside the record
            {"id": "x2", "kind": "creature", "args": {"search": "big red lizard with a fire breath weapon"},
             "expect": ["Adult Red Dragon"], "note": "srd_adult-red-dragon"},
            # a word of the name of another expected answer
            {"id": "x3", "kind": "spell", "args": {"search": "close wounds with a touch"}, "expect": ["Cure Wounds"],
             "note": "srd_healing-word"},
            # a plural of a word of the name
            {"id": "x4", "kind": "creature", "args": {"search": "a fiend made of bones"}, "expect": ["Bone Devil"],
             "note": "srd_bone-devil"},
            # search_all's query, and an expected name in another case
            {"id": "x5", "kind": "spell", "args": {"query": "the fireball spell"}, "expect": ["FIREBALL"]},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "rows.jsonl")
            with open(path, "w") as f:
                f.write("\n".join(json.dumps(r) for r in rows) + "\n")
            r = check(path)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for row_id, shared in (("x1", "fireball"), ("x2", "breath"), ("x3", "wound"), ("x4", "bone"),
                               ("x5", "fireball")):
            self.assertRegex(r.stdout, rf"(?s){row_id}: .*shares \S+ ~ {shared}", r.stdout)
        self.assertIn("0 of 5 rows", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
