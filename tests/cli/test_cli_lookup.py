#!/usr/bin/env python3
"""`lorekeeper get` and `lorekeeper search` as a person uses them: one entity by key or name, a table of results on
a terminal (colour only there, and never with NO_COLOR), the tools' Markdown in a pipe.
Usage: test_cli_lookup.py LOREKEEPER_BIN MIRROR_DIR
"""
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import tempfile
import termios
import unittest

BIN = sys.argv[1]
MIRROR = sys.argv[2]
TMP = tempfile.mkdtemp(prefix="lk-cli-lookup-")
DB = os.path.join(TMP, "store.db")
ENV = dict(os.environ, LOREKEEPER_EMBED="off", LOREKEEPER_DB_PATH=DB)
ENV.pop("NO_COLOR", None)
ESC = re.compile(r"\x1b\[[0-9;]*m")


def run(*args):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, timeout=60, env=ENV)


def run_on_terminal(*args, columns=100, env=None):
    """Runs with stdout on a pseudo-terminal of `columns` columns; returns (exit code, output)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    p = subprocess.Popen([BIN] + list(args), stdout=follower, stderr=subprocess.PIPE, env=env or ENV)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    p.stderr.read()
    p.stderr.close()
    p.wait(timeout=60)
    return p.returncode, out.decode("utf-8").replace("\r\n", "\n")


def setUpModule():
    r = subprocess.run([BIN, "sync", "--source", MIRROR, "--quiet"], capture_output=True, text=True, timeout=120,
                       env=ENV)
    assert r.returncode == 0, r.stderr


class Get(unittest.TestCase):
    def test_a_key_prints_that_entity(self):
        r = run("get", "srd_fireball")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("### Fireball\n"), r.stdout[:200])
        self.assertIn("key `srd_fireball`", r.stdout)
        self.assertIn("8d6", r.stdout)

    def test_a_name_prints_the_preferred_edition_and_names_the_others(self):
        r = run("get", "fireball")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("### Fireball"), 1, r.stdout)
        self.assertIn("key `srd_fireball`", r.stdout)  # SRD 5.1 before SRD 5.2 and Level Up in 5e-2014's order
        self.assertIn("Other editions: `srd-2024_fireball` (srd-2024), `a5e-ag_fireball` (a5e-ag)", r.stdout)

    def test_a_name_of_several_kinds_prints_one_of_each(self):
        r = run("get", "Shield")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("key `srd_shield` · spell", r.stdout)
        self.assertIn("· armor*", r.stdout)
        r = run("get", "Shield", "--kind", "spell")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("· armor*", r.stdout)

    def test_a_key_of_two_kinds_prints_both_unless_a_kind_is_given(self):
        # SRD 5.1's Shield spell and Shield armor share a key in the bundled data (the fixture has only the spell).
        db = os.path.join(TMP, "bundled.db")
        r = subprocess.run([BIN, "--db", db, "sync", "--source", "bundled", "--quiet"], capture_output=True, text=True,
                           timeout=300, env=ENV)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run("--db", db, "get", "srd_shield")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("key `srd_shield` · spell", r.stdout)
        self.assertIn("key `srd_shield` · armor", r.stdout)
        r = run("--db", db, "get", "srd_shield", "--kind", "armor")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("· spell*", r.stdout)

    def test_nothing_of_that_key_or_name_fails_and_suggests(self):
        r = run("get", "firebal")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        self.assertIn("No entry has the key or name 'firebal'", r.stderr)
        self.assertIn("Fireball (`", r.stderr)

    def test_json_is_the_structured_result(self):
        r = run("get", "srd_goblin", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('"key": "srd_goblin"', r.stdout)
        self.assertIn('"challenge_rating"', r.stdout)

    def test_a_missing_key_argument_is_a_usage_error(self):
        self.assertEqual(run("get").returncode, 2)


class Search(unittest.TestCase):
    def test_a_pipe_gets_the_tools_markdown(self):
        r = run("search", "--kind", "spell", "-f", "level=3")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("### Fireball", r.stdout)
        self.assertIn("`srd_fireball`", r.stdout)
        self.assertNotIn("\x1b[", r.stdout)

    def test_a_terminal_gets_a_coloured_table_fitted_to_its_width(self):
        code, out = run_on_terminal("search", "--kind", "creature", columns=72)
        self.assertEqual(code, 0, out)
        self.assertIn("\x1b[", out)
        plain = ESC.sub("", out)
        lines = plain.splitlines()
        header = next(i for i, l in enumerate(lines) if l.startswith("NAME"))
        self.assertIn("DOCUMENT", lines[header])
        rows = lines[header + 1:header + 14]
        # The facts give way to the width (cut with an ellipsis); the document and key stay whole.
        self.assertTrue(any(re.search(r"CR 17 Huge \S*\u2026 +srd-2014 +srd_adult-red-dragon$", l) for l in rows), plain)
        for line in lines:
            self.assertLessEqual(len(line), 72, line)
        code, out = run_on_terminal("search", "--kind", "creature", columns=120)
        self.assertRegex(ESC.sub("", out), r"\nAdult Red Dragon +CR 17 Huge dragon +srd-2014 +srd_adult-red-dragon\n")

    def test_no_color_and_dumb_terminals_get_no_escape_codes(self):
        for extra in ({"NO_COLOR": "1"}, {"TERM": "dumb"}):
            with self.subTest(env=extra):
                code, out = run_on_terminal("search", "--kind", "creature", env=dict(ENV, **extra))
                self.assertEqual(code, 0, out)
                self.assertNotIn("\x1b[", out)
                self.assertIn("NAME", out)

    def test_an_exact_name_on_a_terminal_prints_its_stat_block(self):
        code, out = run_on_terminal("search", "Goblin", "--kind", "creature")
        self.assertEqual(code, 0, out)
        self.assertIn("**Armor Class:**", ESC.sub("", out))

    def test_table_and_full_choose_the_form_anywhere(self):
        r = run("search", "--kind", "spell", "-f", "level=3", "--table")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\nNAME +FACTS +DOCUMENT +KEY\n")
        self.assertRegex(r.stdout, r"Fireball +3rd-level evocation +srd-2014 +srd_fireball")
        code, out = run_on_terminal("search", "--kind", "spell", "-f", "level=3", "--full")
        self.assertEqual(code, 0, out)
        self.assertIn("### Fireball", out)
        r = run("search", "x", "--table", "--json")
        self.assertEqual(r.returncode, 2)

    def test_a_table_keeps_what_the_answer_says(self):
        # The message under the first line (here: which documents' records list no environment) heads the table too.
        r = run("search", "--kind", "creature", "-f", "environment=forest", "--table")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"^Found \d+ creatures?\.\n.*list no environment.*\n\nNAME ")
        self.assertRegex(r.stdout, r"Owlbear +CR 3 Large monstrosity +srd-2014 +srd_owlbear")
        # On a terminal the message is wrapped to its width.
        code, out = run_on_terminal("search", "--kind", "creature", "-f", "environment=forest", columns=60)
        self.assertEqual(code, 0, out)
        plain = ESC.sub("", out)
        self.assertIn("list no", plain)
        for line in plain.splitlines():
            self.assertLessEqual(len(line), 60, line)

    def test_search_all_tables_name_the_kind(self):
        r = run("search", "shield", "--table")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\nNAME +KIND +FACTS +DOCUMENT +KEY\n")
        self.assertRegex(r.stdout, r"Shield +spell ")
        self.assertRegex(r.stdout, r"Shield +armor ")


class FiltersAsTyped(unittest.TestCase):
    """What a person types: values read as the parameter's type, the query never taken for a filter, an exact name
    first, and --edition."""

    def test_an_edition_value_is_text_not_a_number(self):
        # "5e-2024" parsed as JSON is the number 5e-2024, which is 0.0: "must be a string, got 0.0".
        r = run("search", "goblin", "--kind", "creature", "-f", "game_system=5e-2024", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        keys = [x["key"] for x in json.loads(r.stdout)["result"]]
        self.assertIn("srd-2024_goblin-warrior", keys)
        self.assertTrue(all(k.startswith("srd-2024_") for k in keys), keys)

    def test_a_query_after_a_filter_stays_the_query(self):
        r = run("search", "--kind", "creature", "-f", "cr=1/4", "goblin", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        structured = json.loads(r.stdout)
        self.assertEqual(structured["filters"]["search"], "goblin")
        self.assertIn("srd_goblin", [x["key"] for x in structured["result"]])

    def test_lists_numbers_and_booleans_are_read_as_their_type(self):
        r = run("search", "--kind", "spell", "-f", "documents=srd-2014,srd-2024", "-f", "level=3", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        structured = json.loads(r.stdout)
        self.assertEqual(structured["filters"]["documents"], ["srd-2014", "srd-2024"])
        self.assertEqual(structured["filters"]["level"], 3)
        r = run("search", "--kind", "spell", "-f", "level=three")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("level", r.stderr)

    def test_an_exact_name_comes_first_and_edition_chooses_the_rules(self):
        r = run("search", "fireball", "--table")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        start = next(i for i, l in enumerate(lines) if l.startswith("NAME ")) + 1
        rows = [l for l in lines[start:] if l.strip() and not l.startswith("lorekeeper get")]
        self.assertTrue(rows[0].startswith("Fireball"), r.stdout)
        r = run("search", "fireball", "--kind", "spell", "--edition", "2024", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([x["key"] for x in json.loads(r.stdout)["result"]][0], "srd-2024_fireball")
        self.assertTrue(all(x["document"]["game_system"] == "5e-2024" for x in json.loads(r.stdout)["result"]))


class Eval(unittest.TestCase):
    """`lorekeeper eval`: a row is a hit when a result's name is an expected name, in any case ("Scale mail" is
    "Scale Mail"); the tallies are grouped by category and by kind."""

    def test_names_compare_regardless_of_case_and_tallies_are_per_kind(self):
        rows = [
            {"id": "e1", "category": "exact", "kind": "spell", "tool": "search_spell",
             "args": {"search": "Fireball", "documents": ["srd-2014"]}, "expect": ["FIREBALL"]},
            {"id": "e2", "category": "exact", "kind": "creature", "tool": "search_creature",
             "args": {"search": "Goblin", "documents": ["srd-2014"]}, "expect": ["Hobgoblin"]},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "rows.jsonl")
            with open(path, "w") as f:
                f.write("\n".join(json.dumps(r) for r in rows) + "\n")
            r = run("eval", path, "--ranking", "lexical", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)["lexical"]
        ranks = {row["id"]: row["rank"] for row in report["rows"]}
        self.assertEqual(ranks, {"e1": 1, "e2": 0})
        self.assertEqual(report["by_kind"]["spell"]["mrr@10"], 1.0)
        self.assertEqual(report["by_kind"]["creature"]["mrr@10"], 0.0)
        self.assertEqual(report["metrics"]["all"]["n"], 2)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
