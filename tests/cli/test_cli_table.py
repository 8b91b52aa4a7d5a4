#!/usr/bin/env python3
"""`lorekeeper roll`, `encounter`, `spells` and `odds`: the game master's arithmetic on the command line, through the real
binary, checked against odds computed here independently and against the tools' own answers.
Usage: test_cli_table.py LOREKEEPER_BIN MIRROR_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction

BIN = sys.argv[1]
MIRROR = sys.argv[2]
TMP = tempfile.mkdtemp(prefix="lk-cli-table-")
DB = os.path.join(TMP, "store.db")
ENV = dict(os.environ, LOREKEEPER_EMBED="off", LOREKEEPER_DB_PATH=DB)


def run(*args):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, timeout=60, env=ENV)


def setUpModule():
    r = subprocess.run([BIN, "sync", "--source", MIRROR, "--quiet"], capture_output=True, text=True, timeout=120,
                       env=ENV)
    assert r.returncode == 0, r.stderr


def at_least(dice, sides, target):
    """The exact chance that `dice` d`sides` total at least `target`, by convolution."""
    dist = {0: Fraction(1)}
    for _ in range(dice):
        nxt = {}
        for total, p in dist.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + p / sides
        dist = nxt
    return sum(p for total, p in dist.items() if total >= target)


class Roll(unittest.TestCase):
    def test_the_chance_of_a_target_is_exact(self):
        r = run("roll", "8d6", "--target", "30", "--seed", "7", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        odds = json.loads(r.stdout)["result"]["odds"]
        self.assertAlmostEqual(odds["at_least"]["probability"], float(at_least(8, 6, 30)), places=6)
        self.assertEqual(odds["min"], 8)
        self.assertEqual(odds["max"], 48)

    def test_a_seed_gives_the_same_dice_and_the_text_says_so(self):
        a = run("roll", "4d6kh3", "--seed", "42", "--times", "3")
        b = run("roll", "4d6kh3", "--seed", "42", "--times", "3")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        self.assertIn("Seed 42", a.stdout)

    def test_advantage_is_the_higher_of_two(self):
        r = run("roll", "1d20", "--advantage", "--target", "20", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        p = json.loads(r.stdout)["result"]["odds"]["at_least"]["probability"]
        self.assertAlmostEqual(p, 1 - (19 / 20) ** 2, places=9)

    def test_bad_dice_are_a_clear_error(self):
        r = run("roll", "8d")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("notation", r.stdout + r.stderr)
        r = run("roll", "1d20", "--advantage", "--disadvantage")
        self.assertEqual(r.returncode, 2)


class Encounter(unittest.TestCase):
    def test_creatures_given_evaluate_the_fight(self):
        for spec in (["4 goblin"], ["goblin x4"], ["4x goblin"], ["goblin", "goblin", "goblin", "goblin"]):
            r = run("encounter", "--party", "3,3,3,3", "--rules", "2014", "--json", *spec)
            self.assertEqual(r.returncode, 0, (spec, r.stderr))
            result = json.loads(r.stdout)["result"]
            self.assertEqual(result["party_levels"], [3, 3, 3, 3])
            self.assertEqual(result["base_xp"], 200, spec)  # four goblins of 50 XP
        tool = subprocess.run([BIN, "tool", "evaluate_encounter", json.dumps(
            {"party_levels": [3, 3, 3, 3], "rules": "2014", "creatures": [{"name": "Goblin", "count": 4}]})],
            capture_output=True, text=True, timeout=60, env=ENV)
        self.assertEqual(run("encounter", "--party", "4x3", "--rules", "2014", "4 goblin").stdout, tool.stdout)

    def test_a_challenge_rating_stands_for_a_creature_not_in_the_store(self):
        r = run("encounter", "--party", "4x5", "--rules", "2024", "cr 1/2", "2 cr 3", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["result"]["base_xp"], 100 + 2 * 700)

    def test_no_creatures_builds_fights(self):
        r = run("encounter", "--party", "3,3,3,3", "--difficulty", "easy", "--seed", "5", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["result"]["seed"], 5)

    def test_what_cannot_be_read_is_named(self):
        r = run("encounter", "--party", "three", "goblin")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--party 'three' is not a party", r.stderr)
        r = run("encounter", "--party", "3,3", "0 goblin")
        self.assertEqual(r.returncode, 2)
        self.assertIn("'0 goblin' is not a creature", r.stderr)
        r = run("encounter", "--party", "3,3", "--rules", "2014", "Frost Kraken Tyrant")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Frost Kraken Tyrant", r.stdout + r.stderr)
        r = run("encounter", "goblin")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--party", r.stderr)
        for party in ("3,,4", "5000x5", "4x0", "4x21", ",3"):
            r = run("encounter", "--party", party, "goblin")
            self.assertEqual(r.returncode, 2, party)
            self.assertIn("--party '%s' is not a party" % party, r.stderr)
        r = run("encounter", "--party", "4x3", "--difficulty", "hard", "goblin")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--difficulty", r.stderr)

    def test_a_count_the_shell_split_from_its_creature_still_counts_it(self):
        for words in (["4", "goblin"], ["goblin", "x4"], ["4x", "goblin"]):
            r = run("encounter", "--party", "4x3", "--rules", "2014", "--json", *words)
            self.assertEqual(r.returncode, 0, (words, r.stderr))
            self.assertEqual(json.loads(r.stdout)["result"]["base_xp"], 200, words)


class Spells(unittest.TestCase):
    def test_a_wizards_slots_prepared_spells_and_list(self):
        r = run("spells", "wizard", "3", "--rules", "2014", "--modifier", "3", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        result = json.loads(r.stdout)["result"]
        self.assertEqual(result["class"]["key"], "srd_wizard")
        self.assertEqual(result["slots"], {"1": 4, "2": 2})
        self.assertEqual(result["max_spell_level"], 2)
        self.assertEqual(result["prepared"]["count"], 6)  # Intelligence +3 and wizard level 3
        self.assertEqual(result["spellcasting_ability"], "Intelligence")
        names = {s["name"] for level in result["spells"].values() for s in level}
        self.assertIn("Magic Missile", names)
        self.assertFalse(any(s["name"] == "Fireball" for level in result["spells"].values() for s in level),
                         "a 3rd-level spell at character level 3")

    def test_the_command_prints_what_the_tool_answers(self):
        cli = run("spells", "wizard", "1", "--rules", "2024")
        tool = run("tool", "class_spells", json.dumps({"class": "wizard", "level": 1, "game_system": "2024"}))
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertEqual(cli.stdout, tool.stdout)

    def test_what_cannot_be_answered_is_named(self):
        r = run("spells", "wizard", "25")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("'level'", r.stderr)
        r = run("spells", "wizzard", "3")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Wizard", r.stderr)
        r = run("spells", "fighter", "5", "--rules", "2014")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("casts no spells", r.stdout)


def attack_hits(bonus, ac, mode="normal", crit=20):
    """The chance that an attack roll hits, by counting the faces (and pairs of faces) of the d20 here."""
    def hits(face):
        return face != 1 and (face >= crit or face + bonus >= ac)
    if mode == "normal":
        return Fraction(sum(1 for f in range(1, 21) if hits(f)), 20)
    pairs = [(a, b) for a in range(1, 21) for b in range(1, 21)]
    keep = max if mode == "advantage" else min
    return Fraction(sum(1 for a, b in pairs if hits(keep(a, b))), 400)


class Odds(unittest.TestCase):
    def test_the_hand_computed_cases(self):
        r = run("odds", "--bonus", "5", "--ac", "16", "--attacks", "3", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        result = json.loads(r.stdout)["result"]
        self.assertAlmostEqual(result["attacks"][0]["any_hit"], 0.5)
        self.assertAlmostEqual(result["round"]["at_least_one"], 0.875)
        adv = json.loads(run("odds", "--bonus", "5", "--ac", "16", "--advantage", "--json").stdout)["result"]
        self.assertAlmostEqual(adv["attacks"][0]["any_hit"], 0.75)

    def test_every_bonus_and_ac_agree_with_counting_the_faces(self):
        for bonus, ac, mode, crit in ((0, 10, "normal", 20), (7, 25, "disadvantage", 20), (-2, 30, "advantage", 20),
                                      (12, 5, "normal", 19), (3, 17, "advantage", 18)):
            args = ["odds", "--bonus", str(bonus), "--ac", str(ac), "--crit", str(crit), "--json"]
            if mode != "normal":
                args.append("--" + mode)
            r = run(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            got = json.loads(r.stdout)["result"]["attacks"][0]["any_hit"]
            self.assertAlmostEqual(got, float(attack_hits(bonus, ac, mode, crit)), places=12, msg=(bonus, ac, mode, crit))

    def test_a_creatures_routine_is_read_from_its_stat_block(self):
        r = run("odds", "--creature", "srd_adult-red-dragon", "--ac", "18", "--save-bonus", "2", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        result = json.loads(r.stdout)["result"]
        self.assertEqual(result["round"]["attacks"], [{"action": "Bite", "count": 1}, {"action": "Claw", "count": 2}])
        breath = [s for s in result["saves"] if s["action"] == "Fire Breath"][0]
        self.assertAlmostEqual(breath["fail"], 0.9)  # DC 21 against +2: only 19 and 20 succeed

    def test_what_cannot_be_answered_is_named(self):
        r = run("odds", "--ac", "15")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("attack_bonus", r.stderr)
        r = run("odds", "--bonus", "5", "--ac", "15", "--damage", "2d")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("damage", r.stderr)
        r = run("odds", "--creature", "owlbaer", "--ac", "15")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Owlbear", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])
