#!/usr/bin/env python3
"""Answer sizes over a fixed mix of 50 realistic tool calls (docs/PERFORMANCE.md, "Answer size").

Runs each call through `lorekeeper tool` twice (the text, then --json for structuredContent) against the store
named by LOREKEEPER_DB_PATH (or the default) and prints, per call and overall, the characters of text and of
structuredContent and the estimated tokens (characters / 4) of the larger of the two: a host gives its model one of
them (Claude Code the structured content, most others the text). The budgets count both together. Usage:

    LOREKEEPER_DB_PATH=/tmp/budget.db build/lorekeeper sync --source bundled
    LOREKEEPER_DB_PATH=/tmp/budget.db scripts/answer_budget.py build/lorekeeper
"""
import json
import statistics
import subprocess
import sys

CALLS = [
    # Exact names, every kind.
    ("search_spell", {"search": "Fireball"}),
    ("search_spell", {"search": "Wish"}),
    ("search_creature", {"search": "Ancient Red Dragon"}),
    ("search_creature", {"search": "Goblin"}),
    ("search_creature", {"search": "Lich"}),
    ("search_equipment", {"search": "Longsword"}),
    ("search_equipment", {"search": "Bag of Holding"}),
    ("search_rule", {"rule_type": "condition", "search": "Grappled"}),
    ("search_character_option", {"type": "class", "search": "Wizard"}),
    ("search_character_option", {"type": "race", "search": "Elf"}),
    # Descriptions and meaning.
    ("search_spell", {"search": "stop enemies from moving or acting"}),
    ("search_spell", {"search": "heal my allies from a distance"}),
    ("search_creature", {"search": "monster that turns people to stone"}),
    ("search_creature", {"search": "stealthy hunters that attack by surprise"}),
    ("search_equipment", {"search": "weapons for attacking from a distance"}),
    ("search_equipment", {"search": "ring that lets you breathe underwater"}),
    ("search_rule", {"rule_type": "rule", "search": "how does cover work"}),
    ("search_spell", {"search": "firbal"}),
    ("search_creature", {"search": "owl bear"}),
    ("search_all", {"query": "dragon breath"}),
    # Filtered lists.
    ("search_spell", {"level": 3, "class_key": "wizard"}),
    ("search_spell", {"school": "evocation", "level_max": 2}),
    ("search_spell", {"concentration": True, "level": 1}),
    ("search_spell", {"casting_time": "1 Bonus Action"}),
    ("search_spell", {"damage_type": "fire", "documents": ["srd-2014"]}),
    ("search_creature", {"cr": 5, "type": "undead"}),
    ("search_creature", {"cr_min": 10, "type": "dragon"}),
    ("search_creature", {"size": "Tiny", "documents": ["srd-2024"]}),
    ("search_equipment", {"type": "weapon", "is_finesse": True}),
    ("search_equipment", {"type": "magic-item", "rarity": "legendary"}),
    ("search_equipment", {"type": "armor"}),
    ("search_equipment", {"type": "item", "cost_max": 1}),
    ("search_rule", {"rule_type": "rule", "section": "combat"}),
    ("search_rule", {"rule_type": "condition"}),
    ("search_character_option", {"type": "class"}),
    ("search_character_option", {"type": "feat"}),
    ("search_character_option", {"type": "background"}),
    # Everything at once.
    ("search_all", {"query": "fireball"}),
    ("search_all", {"query": "shield"}),
    ("search_all", {"query": "vampire"}),
    ("search_all", {"query": "poison", "content_types": ["spell", "creature"]}),
    # One entry, and neighbours.
    ("get_entity", {"key": "srd_fireball"}),
    ("get_entity", {"key": "srd_ancient-red-dragon"}),
    ("get_entity", {"key": "srd_wizard"}),
    ("get_entity", {"key": "srd-2024_grappled"}),
    ("get_entity", {"key": "srd_vorpal-sword-longsword"}),
    ("find_similar", {"key": "srd_fireball"}),
    ("find_similar", {"key": "srd_goblin"}),
    ("find_similar", {"key": "srd_longsword"}),
    ("list_documents", {}),
]


def run(binary, name, args, as_json):
    cmd = [binary, "tool", name, json.dumps(args)] + (["--json"] if as_json else [])
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{name} {args}: exit {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/lorekeeper"
    assert len(CALLS) == 50
    read, both = [], []
    for name, args in CALLS:
        text = run(binary, name, args, False)
        structured = run(binary, name, args, True)
        s = len(json.dumps(json.loads(structured), separators=(",", ":"), ensure_ascii=False))
        read.append(max(len(text), s))
        both.append(len(text) + s)
        print(f"{len(text):>7} + {s:>7} chars  ~{max(len(text), s) // 4:>6} tokens read  {name} {json.dumps(args)}")

    def line(label, sizes):
        tokens = sorted(x // 4 for x in sizes)
        p95 = tokens[min(len(tokens) - 1, int(round(0.95 * (len(tokens) - 1))))]
        print(f"{label}: p50 {int(statistics.median(tokens))}, p95 {p95}, max {tokens[-1]} over {len(tokens)} calls")

    line("tokens a model reads (the larger of text and structuredContent)", read)
    line("tokens of text and structuredContent together", both)

if __name__ == "__main__":
    main()
