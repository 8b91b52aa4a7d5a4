#!/usr/bin/env python3
"""Checks that an eval set's queries describe their answers without naming them.

A row passes when no content word of its query is a word of its answer's name, of the names inside the
answer's record (actions, traits, features, properties: every "name" in its data), or a rare word of the
answer's text (a word found in at most --rare-share of the store's entities). The answers are the record the
row's `note` names by key ("tob_kobold-trapsmith ...") and every entity of the row's kind whose name is in
`expect`: each of them is an answer the query must not name.

Words are compared by stem, and generously: two stems match when they are equal or one, of four letters or
more, begins the other ("fire" matches "Fireball", "regenerate" matches "Regeneration"), or, for the words of
names, ends it ("ball" matches "Fireball", "dragon" matches "Pseudodragon"). The check is meant to
be stricter than any reader; a query that fails it should be reworded, not the check loosened.

    scripts/describe_check.py --db STORE tests/eval/describe.jsonl [--verbose]

Exit 0 when every row passes, 1 otherwise (the failing rows and their shared words are printed).
"""

import argparse
import json
import re
import sqlite3
import sys

STOPWORDS = set(
    """a an the and or but nor of to in on at by for with from into onto upon over under out off up down as is are
    was were be been being am it its it's this that these those there their them they he she his her him you your
    we our us i me my mine what which who whom whose when where why how than then so such very can could would
    should shall will may might must do does did done doing have has had having not no any all some each every
    one ones other another more most much many few less least own same just only also too even about after before
    again against between through during while until once here both either neither if else whether because
    being like something someone anything thing things way ways get gets got make makes made lets let use used
    uses using into within without across along around among toward towards per via""".split()
)


def stem(word):
    w = word.lower().replace("\u2019", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.strip("'")
    for suffix, repl in (
        ("ies", "y"), ("ied", "y"), ("ying", "y"), ("ing", ""), ("edly", ""), ("ed", ""), ("es", ""), ("ly", ""),
        ("s", ""),
    ):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: len(w) - len(suffix)] + repl
    return w


def words(text):
    return re.findall(r"[A-Za-z][A-Za-z'\u2019]*", text or "")


def content_stems(text):
    out = set()
    for w in words(text):
        lw = w.lower()
        if len(lw) < 3 or lw in STOPWORDS:
            continue
        out.add(stem(lw))
    return out


def stems_match(a, b, compound=False):
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < 4:
        return False
    return long_.startswith(short) or (compound and long_.endswith(short))


def names_in(value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "name" and isinstance(v, str):
                out.append(v)
            else:
                names_in(v, out)
    elif isinstance(value, list):
        for v in value:
            names_in(v, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--rare-share", type=float, default=0.01)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    db = sqlite3.connect(args.db)
    rows = db.execute(
        "select e.id, e.kind, e.key, e.name, coalesce(b.text, ''), b.data from entities e "
        "join entity_bodies b on b.id = e.id"
    ).fetchall()
    by_key = {}
    by_kind_name = {}
    df = {}
    for ent in rows:
        by_key[(ent[1], ent[2])] = ent
        by_kind_name.setdefault((ent[1], ent[3]), []).append(ent)
        for s in content_stems(ent[4]):
            df[s] = df.get(s, 0) + 1
    rare_limit = max(1, int(args.rare_share * len(rows)))

    def forbidden(ent):
        names = [ent[3]]
        try:
            names_in(json.loads(ent[5]), names)
        except (ValueError, TypeError):
            pass
        out = {}
        for n in names:
            for s in content_stems(n):
                out.setdefault(s, (True, "name: " + n))
        for s in content_stems(ent[4]):
            if df.get(s, 0) <= rare_limit and s not in out:
                out[s] = (False, "rare word of the text")
        return out

    failures = 0
    total = 0
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                row = json.loads(line)
                if not row.get("expect"):
                    continue
                total += 1
                answers = []
                note_key = (row.get("note") or "").split(" ")[0]
                if (row["kind"], note_key) in by_key:
                    answers.append(by_key[(row["kind"], note_key)])
                for name in row["expect"]:
                    answers += [e for e in by_kind_name.get((row["kind"], name), []) if e[2] != note_key]
                if not answers:
                    print(f"{row['id']}: no record found for {row['expect']} (kind {row['kind']})")
                    failures += 1
                    continue
                query = row["args"].get("search", "")
                shared = []
                for ent in answers:
                    bad = forbidden(ent)
                    for q in sorted(content_stems(query)):
                        for s, (in_name, why) in bad.items():
                            if stems_match(q, s, compound=in_name):
                                shared.append(f"{q} ~ {s} ({why}, {ent[2]})")
                                break
                if shared:
                    failures += 1
                    print(f"{row['id']}: {query}")
                    for s in sorted(set(shared)):
                        print(f"    shares {s}")
                elif args.verbose:
                    print(f"{row['id']}: ok")
    print(f"{total - failures} of {total} rows share no content word with their answers", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
