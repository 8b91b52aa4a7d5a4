#!/usr/bin/env python3
"""Precision and recall of the derived facets (src/model/derived.cpp) against a hand-labelled sample.

    scripts/derived_facets_eval.py STORE [all|tune|held] [--errors]

STORE is a store built by the program (e.g. `lorekeeper --db /tmp/d.db documents` builds one from the bundled
snapshot). The labels are tests/eval/derived-facets/{creatures,spells}.jsonl: 113 creatures and 116 spells sampled
in proportion to each document (seed 20261125), each read and labelled by hand from its record's text, then 5
creatures named by the issue on honest answers. Even lines
are the part rules may be tuned on ("tune"), odd lines the held-out part nobody tunes on ("held"). --errors lists
the false positives and negatives of the tune part only.
"""
import collections
import json
import os
import re
import sqlite3
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = os.path.join(HERE, "..", "tests", "eval", "derived-facets")
FIELDS = {"casts": "casts", "conditions": "condition", "damage_types": "damage_type", "saves": "save",
          "attack": "attack", "flags": "trait"}
FLAGS = {"creature": {"legendary", "spellcaster"}, "spell": {"heals", "summons", "teleports"}}


def fold(s):
    """text::fold for spell names: accents, case and apostrophes dropped, punctuation as spaces."""
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower().replace("'", "").replace("\u2019", "")
    return re.sub(r"[^a-z0-9]+", " ", s).strip()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    part = args[1] if len(args) > 1 else "all"
    db = sqlite3.connect(args[0])
    stats = collections.defaultdict(lambda: [0, 0, 0])
    errors = []
    for kind, name in (("creature", "creatures.jsonl"), ("spell", "spells.jsonl")):
        for i, line in enumerate(open(os.path.join(LABELS, name))):
            if (part == "tune" and i % 2) or (part == "held" and not i % 2):
                continue
            label = json.loads(line)
            got = collections.defaultdict(set)
            for tag, value in db.execute(
                    "SELECT t.tag, t.value FROM entity_tags t JOIN entities e ON e.id = t.entity_id"
                    " WHERE e.kind = ? AND e.key = ?", (kind, label["key"])):
                got[tag].add(value)
            for field, tag in FIELDS.items():
                if field not in label:
                    continue
                truth = {fold(x) if field == "casts" else x for x in label[field]}
                derived = got.get(tag, set())
                if field == "flags":
                    derived &= FLAGS[kind]
                for v in truth | derived:
                    facet = f"{field}:{v}" if field in ("flags", "attack") else field
                    s = stats[(kind, facet)]
                    if v in truth and v in derived:
                        s[0] += 1
                    elif v in derived:
                        s[1] += 1
                        errors.append((kind, facet, "FP", label["key"], v))
                    else:
                        s[2] += 1
                        errors.append((kind, facet, "FN", label["key"], v))
    print(f"{'kind':9}{'facet':22}{'tp':>5}{'fp':>5}{'fn':>5}{'precision':>11}{'recall':>8}")
    for (kind, facet), (tp, fp, fn) in sorted(stats.items()):
        p = tp / (tp + fp) if tp + fp else float("nan")
        r = tp / (tp + fn) if tp + fn else float("nan")
        print(f"{kind:9}{facet:22}{tp:5}{fp:5}{fn:5}{p:11.3f}{r:8.3f}")
    if "--errors" in sys.argv and part == "tune":
        for e in errors:
            print(*e)


if __name__ == "__main__":
    main()
