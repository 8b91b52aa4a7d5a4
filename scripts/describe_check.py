#!/usr/bin/env python3
"""Checks that an eval set's queries describe their answers without naming them.

A row passes when no content word of its query is a word of its answer's name, of the names inside the
answer's record (actions, traits, features, properties: every "name" in its data), or a rare word of the
answer's text (a word found in at most --rare-share of the store's entities). The answers are the record the
row's `note` names by key ("tob_kobold-trapsmith ...") and every entity of the row's kind whose name is in
`expect`: each of them is an answer the query must not name.

Words are compared generously, by their forms (the word, and the word without a plural's or a verb's ending:
"wolves" is "wolf", "bones" "bone"): two words match when they share a form, or when a form of four letters or more
of one begins a form of the other ("fire" matches "Fireball", "regenerate" matches "Regeneration"), or, for the words
of names, ends it ("ball" matches "Fireball", "dragon" matches "Pseudodragon"). A word is rare by the count of its
shortest form of four letters or more ("heads" is counted as "head", "rating" as itself, not as "rat"). The check is meant to
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


def forms(word):
    """The forms a word may take in another text: itself, and itself without a plural's or a verb's ending ("wolves"
    wolf, "bones" bone, "rated" rate and rat, "bleeding" bleed); only forms of three letters or more."""
    w = word.lower().replace("\u2019", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.strip("'")
    out = {w}
    for suffix, repls in (("ies", ("y",)), ("ves", ("f", "fe")), ("es", ("",)), ("s", ("",)), ("ing", ("", "e")),
                          ("ied", ("y",)), ("ed", ("", "e")), ("ly", ("",))):
        if w.endswith(suffix):
            for r in repls:
                out.add(w[: len(w) - len(suffix)] + r)
    return {f for f in out if len(f) >= 3}


def words(text):
    return re.findall(r"[A-Za-z][A-Za-z'\u2019]*", text or "")


def lemma(word):
    """The form a word is counted under: its shortest form of four letters or more ("heads" head, "rating" rating,
    not rat), else its shortest."""
    fs = sorted(forms(word) or {word.lower()}, key=lambda f: (len(f), f))
    long_ = [f for f in fs if len(f) >= 4]
    return long_[0] if long_ else fs[0]


def content_words(text):
    """The content words of `text`, lowercase: three letters or more, not function words."""
    out = set()
    for w in words(text):
        lw = w.lower().replace("\u2019", "'")
        if len(lw) >= 3 and lw not in STOPWORDS:
            out.add(lw)
    return out


def words_match(a, b, compound=False):
    """Whether two words share a form, or a form of four letters or more of one begins a form of the other (or, for
    the words of names, ends it: "ball" and "Fireball")."""
    fa, fb = forms(a), forms(b)
    if fa & fb:
        return True
    for x in fa:
        for y in fb:
            short, long_ = (x, y) if len(x) <= len(y) else (y, x)
            if len(short) >= 4 and (long_.startswith(short) or (compound and long_.endswith(short))):
                return True
    return False


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
        by_kind_name.setdefault((ent[1], ent[3].lower()), []).append(ent)
        for w in {lemma(w) for w in content_words(ent[4])}:
            df[w] = df.get(w, 0) + 1
    rare_limit = max(1, int(args.rare_share * len(rows)))

    def forbidden(ent):
        names = [ent[3]]
        try:
            names_in(json.loads(ent[5]), names)
        except (ValueError, TypeError):
            pass
        out = {}
        for n in names:
            for w in content_words(n):
                out.setdefault(w, (True, "name: " + n))
        for w in content_words(ent[4]):
            if df.get(lemma(w), 0) <= rare_limit and w not in out:
                out[w] = (False, "rare word of the text")
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
                    answers += [e for e in by_kind_name.get((row["kind"], name.lower()), []) if e[2] != note_key]
                if not answers:
                    print(f"{row['id']}: no record found for {row['expect']} (kind {row['kind']})")
                    failures += 1
                    continue
                query = row["args"].get("search") or row["args"].get("query") or ""
                if not query.strip():
                    print(f"{row['id']}: no query (args.search or args.query)")
                    failures += 1
                    continue
                shared = []
                for ent in answers:
                    bad = forbidden(ent)
                    for q in sorted(content_words(query)):
                        for w, (in_name, why) in bad.items():
                            if words_match(q, w, compound=in_name):
                                shared.append(f"{q} ~ {w} ({why}, {ent[2]})")
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
