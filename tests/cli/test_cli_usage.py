#!/usr/bin/env python3
"""Usage errors of the command line exit 2 with a message that helps, as the README says; --help exits 0.
Usage: test_cli_usage.py LOREKEEPER_BIN
"""
import os
import subprocess
import sys
import tempfile
import unittest

BIN = sys.argv[1]


def run(*args):
    db = os.path.join(tempfile.gettempdir(), "lk-cli-usage-none.db")
    return subprocess.run([BIN, "--db", db] + list(args), capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, LOREKEEPER_EMBED="off"))


class Usage(unittest.TestCase):
    def test_an_unknown_command_names_the_commands(self):
        r = run("frobnicate")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("unknown command 'frobnicate'", r.stderr)
        for command in ("status", "sync", "search", "serve", "import"):
            self.assertIn(command, r.stderr)

    def test_an_unknown_kind_names_the_kinds(self):
        r = run("search", "fireball", "--kind", "spel")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("unknown kind 'spel'", r.stderr)
        self.assertNotIn("rule_type", r.stderr)
        for kind in ("spell", "creature", "magic-item", "condition"):
            self.assertIn(kind, r.stderr)

    def test_usage_errors_exit_2(self):
        for args in (["sync", "--page-size", "0"], ["search", "--no-such-flag"], [], ["model"],
                     ["tool"], ["--log-level"]):
            with self.subTest(args=args):
                r = run(*args)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertTrue(r.stderr.strip(), "a usage error says what is wrong")

    def test_eval_refuses_a_row_the_tools_refuse(self):
        # A misnamed tool or parameter measures nothing; counted as a miss, or as the empty answer a `none` row
        # expects, it would pass for a ranking result.
        rows = [
            '{"id": "t1", "category": "natural", "tool": "search_rules", "args": {"search": "deafened"}, '
            '"expect": ["Deafened"]}',
            '{"id": "t2", "category": "none", "tool": "search_spell", "args": {"search": "Fireball", "levle": 1}, '
            '"expect": []}',
        ]
        for row in rows:
            with self.subTest(row=row), tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "rows.jsonl")
                with open(path, "w") as f:
                    f.write(row + "\n")
                r = run("eval", path, "--ranking", "lexical")
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn("refused the call", r.stderr)
                self.assertNotIn("MRR@10", r.stdout)

    def test_help_exits_0(self):
        for args in (["--help"], ["sync", "--help"], ["serve", "--help"]):
            with self.subTest(args=args):
                r = run(*args)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("Usage", r.stdout)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
