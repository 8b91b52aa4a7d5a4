#!/usr/bin/env python3
"""Conservation census: how many facts of the recorded Open5e records are missing from LoreKeeper's answers.

For every record of the main v2 lists (and the v1 lists) of the recorded Open5e API, find the LoreKeeper
entity (or entities) answering for it, flatten the record into leaf values with their JSON paths and check
that each non-empty value can be found in the entity's answer payload (entity_bodies.data, the structured
content of the answer; optionally the Markdown answer of `lorekeeper get` for a sample).

Matching rules (deliberately loose; this is a census, not a proof):
  * strings: normalised text (lower-case, only [a-z0-9] kept) contained in the normalised text of all string
    and number values of the data JSON; strings longer than 200 normalised chars are checked as their first
    and last 100 normalised chars (both must be found; one alone is reported as "partial").
  * numbers (and strings that are numbers or fractions like "1/4"): equal to a number anywhere in the data,
    or to a number written in its text ("5,900", "+9", "1/8").
  * true booleans: some key of the same name in the data is truthy, or the field name occurs in the text.
  * 0, false, "no", "none", "-": counted as "trivial", not checked.  null, "", [] and {}: ignored.
  * link and metadata fields are skipped (see SKIP_* below); the entity's name counts as part of the answer.
  * a value not found exactly is "loose" when its text is there in another layout (without Markdown headings,
    split into other paragraphs/fields, or its words and numbers spread over fields: "darkvision 60 ft.").
  * a value still not found is "noise" when KNOWN_NOISE says why it is not a fact (units, enums, API
    defaults and errors, text of linked reference entities), else "missing".
  * v1 records are matched to the entity of the v1 monster's v2_converted_path, of (v2 document, name), of
    the v1 slug, or of a description that starts the same; v1 sections are checked against all SRD 5.1 rule,
    rule-section and condition texts, one heading's body at a time.
  Compare two stores by diffing their --json outputs (missing entries are keyed by source, record, path).

Standard library only.  Usage:
  scripts/census.py --db STORE --mirror DIR [--kind spells,v1/monsters,creature] [--json OUT] [--top 30]
                    [--markdown-sample N --binary build/lorekeeper --jobs 2]
  (--markdown-sample runs `lorekeeper --db STORE get KEY`, which may write to STORE: give it a copy.)
"""
import argparse
import collections
import glob
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


# v2 list -> LoreKeeper entity kind
V2_KINDS = {
    "spells": "spell", "creatures": "creature", "magicitems": "magic-item", "items": "item",
    "weapons": "weapon", "armor": "armor", "classes": "class", "species": "species",
    "backgrounds": "background", "feats": "feat", "conditions": "condition", "rules": "rule",
    "rulesets": "rule-section",
}
# v1 list -> LoreKeeper entity kind (sections are handled apart)
V1_KINDS = {
    "monsters": "creature", "spells": "spell", "magicitems": "magic-item", "weapons": "weapon",
    "armor": "armor", "races": "species", "feats": "feat", "backgrounds": "background",
    "classes": "class", "conditions": "condition", "sections": "rule",
}
# v1 document slug -> v2 document key, fixed for spells by the brief; the others come from v1/documents
V1_SPELL_DOCS = {"wotc-srd": "srd-2014", "dmag": "deepm", "dmag-e": "deepmx", "a5e": "a5e-ag",
                 "toh": "toh", "kp": "kp", "o5e": "open5e", "warlock": "wz"}
V2_DOC_FIXES = {"srd": "srd-2014", "a5e": "a5e-ag"}

# Skipped leaf names (last path segment) and path segments anywhere in the path.
SKIP_LEAF = {"url", "key", "slug", "permalink", "license_url", "img_main", "page", "page_no",
             "v2_converted_path", "file_url", "index", "initialHeaderLevel", "ruleset",
             "target_range_sort", "spell_level", "level_int", "cr", "order", "order_in_statblock"}
SKIP_SEGMENT = {"document", "publisher", "gamesystem", "illustration", "crossreferences", "modifiers",
                "icon", "licenses", "license", "spell_lists"}
SKIP_SEGMENT_PREFIX = ("document__",)
SKIP_SEGMENT_SUFFIX = ("_all",)
# per list: whole paths (array indices as []) that are skipped, with the reason in a comment
SKIP_PATHS = {
    # the rules of a ruleset are checked as the rule records themselves; only their names are kept here
    ("v2", "rulesets"): {"rules[].desc", "rules[].document", "rules[].index",
                         "rules[].initialHeaderLevel", "rules[].key", "rules[].ruleset"},
    # descriptions[].document/gamesystem are document keys
    ("v2", "conditions"): {"descriptions[].document", "descriptions[].gamesystem"},
}
TRIVIAL_STRINGS = {"no", "none", "-", "—", "0", "false", "null", "[column data]"}
# true booleans that the answer writes as a letter of another field (components "V, S, M")
BOOL_ALIASES = {"verbal": ("components", "V"), "somatic": ("components", "S"), "material": ("components", "M"),
                "requires_verbal_components": ("components", "V"),
                "requires_somatic_components": ("components", "S"),
                "requires_material_components": ("components", "M")}
BOOL_ALIAS_KEYS = {k for k, _ in BOOL_ALIASES.values()}
BOOL_STOPWORDS = {"is", "has", "requires", "can", "be", "grants", "components", "the"}
LOOSE_WORD_RE = re.compile(r"\d+(?:\.\d+)?|[a-z]+")
LOOSE_MAX_WORDS = 12

# Missing values that are not facts lost, by (list, path pattern) regex; counted in the "noise" column
# and kept apart from "missing".  Keep this short and justified: everything else counts as a loss.
KNOWN_NOISE = [
    (r"\S+ (.*\.)?(distance_unit|unit|shape_size_unit|range_unit|weight_unit)$",
     "unit word ('feet', 'lb') of a number that is checked on its own"),
    (r"v2/creatures normal_sight_range$", "API default 10560 (2 miles) on every creature"),
    (r"v2/magicitems rarity\.rank$", "sort rank of the rarity (the rarity name is checked)"),
    (r"v2/spells casting_options\[\]\.type$", "casting option type enum ('default', 'slot_level_N')"),
    (r"v2/creatures actions\[\]\.usage_limits\.type$", "usage enum (PER_DAY, RECHARGE_ON_ROLL; usage is checked)"),
    (r"v2/creatures actions\[\]\.legendary_action_cost$", "default legendary action cost 1"),
    (r"v2/creatures actions\[\]\.attacks\[\]\.(extra_)?damage_type\.name =Thunder$",
     "API error: srd-2014 attacks typed Thunder (the answer keeps the type written in the attack text)"),
    (r"v2/classes features\[\]\.feature_type$", "feature type enum (CLASS_LEVEL_FEATURE, CLASS_TABLE_DATA)"),
    (r"v2/magicitems (armor\.(ac_|grants_|strength_|category)|weapon\.(is_|damage_|range|long_range))",
     "stats of the base armor/weapon of a magic item (kept in that armor/weapon entity)"),
    (r"v2/creatures languages\.data\[\]\.desc$", "description of the language (a reference entity of its own)"),
    (r"v2/\S+ (weapon\.)?properties\[\]\.property\.(desc|type)$",
     "description of the weapon property (a reference entity of its own)"),
]
KNOWN_NOISE = [(re.compile(p), why) for p, why in KNOWN_NOISE]

NORM_RE = re.compile(r"[^a-z0-9]+")
NUM_RE = re.compile(r"(?<![0-9.])([-−+]?)(\d+(?:\.\d+)?)(?:/(\d+))?")
DIGIT_COMMA_RE = re.compile(r"(?<=\d),(?=\d{3}\b)")
FRACTION_RE = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*(?:/\s*(\d+))?\s*$")
INDEX_RE = re.compile(r"\[\d+\]")


TAG_RE = re.compile(r"<[^>]{1,40}>")
# cross-reference markup of the API texts: "knock it srd:prone" (LoreKeeper writes the plain word)
XREF_RE = re.compile(r"\b(?:srd|srd-20\d\d|a5e-[a-z]+|tob[-0-9a-z]*|toh|deepm|deepmx|vom|kp|ccdx|bfrd|open5e):(?=\w)")


def norm(s):
    s = s.lower()
    if "<" in s:
        s = TAG_RE.sub(" ", s)
    if ":" in s:
        s = XREF_RE.sub("", s)
    return NORM_RE.sub("", s)


def numkey(x):
    return round(float(x), 4)


# ---------------------------------------------------------------------------------------------- records

def load_list(mirror, version, endpoint):
    """All records of a full list walk: files limit=100.json, limit=100&page=N.json only."""
    out = []
    files = []
    for f in glob.glob(os.path.join(mirror, version, endpoint, "limit=100*.json")):
        q = os.path.basename(f)[:-5]
        params = dict(p.split("=", 1) if "=" in p else (p, "") for p in q.split("&"))
        if set(params) - {"limit", "page"} or params.get("limit") != "100":
            continue
        files.append((int(params.get("page", "1")), f))
    for _, f in sorted(files):
        with open(f, encoding="utf-8") as fh:
            out.extend(json.load(fh)["results"])
    return out


def segment_skipped(seg):
    return (seg in SKIP_SEGMENT or seg.startswith(SKIP_SEGMENT_PREFIX) or seg.endswith(SKIP_SEGMENT_SUFFIX)
            or "permalink" in seg or "license" in seg)


def flatten(obj, skip_paths, path="", pattern="", leaf=""):
    """Yield (path, pattern, leaf_name, value) for the leaves of obj that are not skipped.

    path keeps array indices (actions[2].desc), pattern replaces them by [] (actions[].desc)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            pt = f"{pattern}.{k}" if pattern else k
            if segment_skipped(k) or pt in skip_paths:
                continue
            if not isinstance(v, (dict, list)) and k in SKIP_LEAF:
                continue
            yield from flatten(v, skip_paths, f"{path}.{k}" if path else k, pt, k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from flatten(v, skip_paths, f"{path}[{i}]", f"{pattern}[]", leaf)
    else:
        yield path, pattern, leaf, obj


# ---------------------------------------------------------------------------------------------- corpus

class Corpus:
    """Normalised text, numbers and truthy key names of one or more answers."""
    __slots__ = ("text", "numbers", "true_keys", "keytext", "by_key")

    def __init__(self):
        self.text = ""
        self.numbers = set()
        self.true_keys = set()
        self.keytext = ""
        self.by_key = {}

    @staticmethod
    def of_json(objs, names=()):
        """objs: parsed data payloads; names: entity names (shown in every answer's heading)."""
        c = Corpus()
        parts = list(names)
        keys = set()

        def walk(o):
            if isinstance(o, dict):
                for k, v in o.items():
                    keys.add(k)
                    if v not in (None, False, 0, "", [], {}):
                        c.true_keys.add(k)
                    if isinstance(v, str) and k in BOOL_ALIAS_KEYS:
                        c.by_key[k] = c.by_key.get(k, "") + " " + v
                    walk(v)
            elif isinstance(o, list):
                for v in o:
                    walk(v)
            elif isinstance(o, bool):
                pass
            elif isinstance(o, (int, float)):
                c.numbers.add(numkey(o))
                parts.append(format_number(o))
            elif isinstance(o, str):
                parts.append(o)
                add_text_numbers(c.numbers, o)
        for o in objs:
            walk(o)
        c.text = norm(" ".join(parts))
        c.keytext = norm(" ".join(keys))
        return c

    @staticmethod
    def of_text(texts):
        c = Corpus()
        t = "\n".join(texts)
        add_text_numbers(c.numbers, t)
        c.text = norm(t)
        c.keytext = c.text
        m = re.search(r"(?im)^.*components?\W+([VSM](?:\s*,\s*[VSM])*)", t)
        if m:
            c.by_key["components"] = m.group(1)
        return c


def format_number(x):
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def add_text_numbers(numbers, s):
    if not any(ch.isdigit() for ch in s):
        return
    s = DIGIT_COMMA_RE.sub("", s)
    for sign, num, den in NUM_RE.findall(s):
        v = float(num)
        if den:
            d = float(den)
            if d:
                numbers.add(numkey(v / d))
        if sign in ("-", "−"):
            numbers.add(numkey(-v))
        numbers.add(numkey(v))


def as_number(v):
    """A string that is a number or a fraction ("1/8", "+5", "5,900") as float, else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    m = FRACTION_RE.match(DIGIT_COMMA_RE.sub("", v))
    if not m:
        return None
    num = float(m.group(1))
    if m.group(2):
        d = float(m.group(2))
        return num / d if d else None
    return num


def loose_found(s, corpus):
    """Formatting-tolerant match of a short string: every word (3+ letters, in the text or among the
    data's field names) and every number of it is somewhere in the answer."""
    words = LOOSE_WORD_RE.findall(s.lower())
    if not words or len(words) > LOOSE_MAX_WORDS:
        return False
    for w in words:
        if w[0].isdigit():
            if numkey(w) not in corpus.numbers:
                return False
        elif len(w) >= 3 and not any(x in corpus.text or x in corpus.keytext
                                     for x in (w, w[:-1] if w.endswith("s") else w)):
            return False
    return True


def check_value(leaf, v, corpus):
    """Return 'found', 'loose', 'missing', 'partial', 'trivial' or None (ignored)."""
    if v is None:
        return None
    if isinstance(v, bool):
        if not v:
            return "trivial"
        if leaf in corpus.true_keys or (norm(leaf) and norm(leaf) in corpus.text):
            return "found"
        alias = BOOL_ALIASES.get(leaf)
        if alias:
            k, letter = alias
            if letter in re.split(r"[\s,]+", corpus.by_key.get(k, "")):
                return "found"
        words = [w for w in leaf.lower().split("_") if len(w) >= 3 and w not in BOOL_STOPWORDS]
        if words and all(w in corpus.text or w in corpus.keytext for w in words):
            return "loose"
        return "missing"
    if isinstance(v, (int, float)):
        if v == 0:
            return "trivial"
        if numkey(v) in corpus.numbers or numkey(abs(v)) in corpus.numbers:
            return "found"
        return "missing"
    if not isinstance(v, str):
        return None
    s = v.strip()
    if not s or s.startswith(("http://", "https://", "/v1/", "/v2/")):
        return None  # links
    if s.lower() in TRIVIAL_STRINGS:
        return "trivial"
    if s.lower() == "yes":
        return check_value(leaf, True, corpus)
    n = as_number(s)
    if n is not None:
        if n == 0:
            return "trivial"
        if numkey(n) in corpus.numbers or numkey(abs(n)) in corpus.numbers or norm(s) in corpus.text:
            return "found"
        return "missing"
    ns = norm(s)
    if not ns:
        return "trivial"  # punctuation only
    res = text_found(ns, corpus)
    if res == "found":
        return res
    if loose_text(s, corpus):
        return "loose"
    return res


def text_found(ns, corpus):
    if len(ns) > 200:
        h, t = ns[:100] in corpus.text, ns[-100:] in corpus.text
        return "found" if h and t else ("partial" if h or t else "missing")
    return "found" if ns in corpus.text else "missing"


HEADING_LINE_RE = re.compile(r"(?m)^\s{0,3}#{1,6}\s.*$")
RUN_IN_RE = re.compile(r"(?m)^\s*(?:[-*]\s+)?[*_]{1,3}[^*_\n]{1,80}?[*_]{1,3}\s*")
PARA_RE = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)|<br\s*/?>|\n")
CLAUSE_RE = re.compile(r"[,;]\s*")


def loose_text(s, corpus):
    """The text is there but written differently: without its Markdown headings or run-in headings
    ("***Age.*** ..."), split into other paragraphs or fields, or (short strings) with its words and
    numbers in another order or in field names ("darkvision 60 ft." vs senses.darkvision = 60)."""
    if s.lower() == "cantrip":
        return numkey(0) in corpus.numbers or "cantrip" in corpus.text
    stripped = RUN_IN_RE.sub("", HEADING_LINE_RE.sub("", s))
    if stripped != s and norm(stripped) and text_found(norm(stripped), corpus) == "found":
        return True
    paras = [p for p in PARA_RE.split(stripped) if norm(p)]
    if len(paras) > 1 and all(text_found(norm(p), corpus) == "found" or loose_found(p, corpus) for p in paras):
        return True
    if len(norm(s)) <= 200:
        clauses = [c for c in CLAUSE_RE.split(s) if norm(c)]
        if all(norm(c) in corpus.text or loose_found(c, corpus) for c in clauses):
            return True
    return False


# ---------------------------------------------------------------------------------------------- store

class Store:
    def __init__(self, path):
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.rows = {}          # id -> (kind, key, name, document_key, parent_key)
        self.by_kind_key = {}
        self.by_key = collections.defaultdict(list)
        self.by_kind_suffix = collections.defaultdict(list)
        self.by_kind_doc_name = collections.defaultdict(list)
        self.by_kind_name = collections.defaultdict(list)
        self.children = collections.defaultdict(list)
        self._data = {}
        self._corpus = {}
        for eid, kind, key, name, doc, parent in self.db.execute(
                "SELECT id, kind, key, name, document_key, parent_key FROM entities"):
            self.rows[eid] = (kind, key, name, doc, parent)
            self.by_kind_key[(kind, key)] = eid
            self.by_key[key].append(eid)
            if "_" in key:
                self.by_kind_suffix[(kind, key.split("_", 1)[1])].append(eid)
            self.by_kind_doc_name[(kind, doc, norm(name))].append(eid)
            self.by_kind_name[(kind, norm(name))].append(eid)
            if parent:
                self.children[parent].append(eid)

    def load_data(self, kinds):
        q = ("SELECT b.id, b.data FROM entity_bodies b JOIN entities e ON e.id = b.id WHERE e.kind IN (%s)"
             % ",".join("?" * len(kinds)))
        for eid, data in self.db.execute(q, list(kinds)):
            self._data[eid] = data

    def data(self, eid):
        if eid not in self._data:
            r = self.db.execute("SELECT data FROM entity_bodies WHERE id = ?", (eid,)).fetchone()
            self._data[eid] = r[0] if r else "{}"
        return self._data[eid]

    def corpus(self, eids):
        key = tuple(sorted(eids))
        c = self._corpus.get(key)
        if c is None:
            c = Corpus.of_json([json.loads(self.data(e) or "{}") for e in key],
                               [self.rows[e][2] for e in key])
            self._corpus[key] = c
        return c

    def find_v2(self, kind, key):
        eid = self.by_kind_key.get((kind, key))
        if eid is not None:
            return [eid]
        if self.by_key.get(key):
            return list(self.by_key[key][:1])
        return list(self.by_kind_suffix.get((kind, key), []))

    def find_by_desc(self, kind, docs, desc):
        """An entity of kind in docs whose data text holds the start of desc (renamed or split records)."""
        head = norm(desc or "")[:80]
        if len(head) < 40:
            return []
        for eid, (k, _, _, d, _) in self.rows.items():
            if k == kind and d in docs and head in self.corpus([eid]).text:
                return [eid]
        return []

    def find_by_name(self, kind, docs, name, slug=None):
        for d in docs:
            hits = self.by_kind_doc_name.get((kind, d, norm(name)))
            if hits:
                return hits[:1]
        if slug:
            eid = self.by_kind_key.get((kind, slug))
            if eid is not None:
                return [eid]
            if self.by_key.get(slug):
                return self.by_key[slug][:1]
            for d in docs:
                eid = self.by_kind_key.get((kind, f"{d}_{slug}")) or self.by_kind_key.get(
                    (kind, f"{'srd' if d == 'srd-2014' else d}_{slug}"))
                if eid is not None:
                    return [eid]
        return []


# ---------------------------------------------------------------------------------------------- census

class Tally:
    def __init__(self):
        self.groups = collections.OrderedDict()   # (source, doc) -> counters
        self.missing = []                         # dicts
        self.noise = collections.Counter()
        self._noise_cache = {}
        self.loose = collections.Counter()
        self.loose_ex = collections.defaultdict(list)

    def noise_reason(self, source, pattern, value):
        """KNOWN_NOISE regexes match "source pattern" or "source pattern =value"."""
        k = (source, pattern, str(value)[:40])
        if k not in self._noise_cache:
            self._noise_cache[k] = next((why for rx, why in KNOWN_NOISE
                                         if rx.match(f"{source} {pattern}") or rx.match(f"{source} {pattern} ={k[2]}")),
                                        None)
        return self._noise_cache[k]

    def group(self, source, doc):
        g = self.groups.get((source, doc))
        if g is None:
            g = self.groups[(source, doc)] = collections.Counter()
        return g


def check_record(tally, source, doc, rec_id, record, eids, store, skip_paths, values=None, corpus=None):
    g = tally.group(source, doc)
    g["records"] += 1
    if not eids and corpus is None:
        g["unmatched"] += 1
    if corpus is None:
        corpus = store.corpus(eids) if eids else Corpus()
    ents = [store.rows[e][1] for e in eids] if eids else []
    items = values if values is not None else flatten(record, skip_paths)
    for path, pattern, leaf, v in items:
        res = check_value(leaf, v, corpus)
        if res is None:
            continue
        if res == "trivial":
            g["trivial"] += 1
            continue
        g["checked"] += 1
        if res == "found":
            g["found"] += 1
            continue
        if res == "loose":
            g["loose"] += 1
            tally.loose[(source, pattern)] += 1
            if len(tally.loose_ex[(source, pattern)]) < 2:
                tally.loose_ex[(source, pattern)].append(f"{rec_id}={str(v)[:30]!r}")
            continue
        pat = pattern if (eids or values is not None) else "(no entity)"
        why = tally.noise_reason(source, pat, v)
        if why:
            g["noise"] += 1
            tally.noise[why] += 1
            continue
        g["missing"] += 1
        if res == "partial":
            g["partial"] += 1
        tally.missing.append({
            "source": source, "document": doc, "record": rec_id, "entities": ents,
            "path": path, "pattern": pat,
            "result": res, "value": v if not isinstance(v, str) else v[:300],
        })


def v1_doc_map(mirror):
    m = {}
    # The recorded mirror has the unpaged list as _.json; the bundled snapshot only the limit=100 pages.
    for name in ("_.json", "limit=100.json"):
        p = os.path.join(mirror, "v1", "documents", name)
        try:
            with open(p, encoding="utf-8") as fh:
                for r in json.load(fh)["results"]:
                    k = r.get("v2_related_key") or r["slug"]
                    m[r["slug"]] = V2_DOC_FIXES.get(k, k)
        except (OSError, KeyError, ValueError):
            continue
        break
    return m


def v2_doc(rec):
    d = rec.get("document")
    if isinstance(d, dict):
        return d.get("key", "?")
    return d or "?"


def split_sections(md):
    """Split Markdown at heading lines: [(heading, body)]."""
    out, head, body = [], "(intro)", []
    for line in md.splitlines():
        m = re.match(r"^\s{0,3}#{1,6}\s+(.*)$", line)
        if m:
            if "".join(body).strip():
                out.append((head, "\n".join(body)))
            head, body = m.group(1).strip(), []
        else:
            body.append(line)
    if "".join(body).strip():
        out.append((head, "\n".join(body)))
    return out


def run(args):
    t0 = time.time()
    store = Store(args.db)
    want = None
    if args.kind:
        want = {k.strip() for k in args.kind.split(",") if k.strip()}

    def wanted(version, ep):
        return want is None or ep in want or f"{version}/{ep}" in want or \
            (V2_KINDS.get(ep) in want if version == "v2" else V1_KINDS.get(ep) in want)

    kinds = set()
    for ep, k in V2_KINDS.items():
        if wanted("v2", ep):
            kinds.add(k)
    for ep, k in V1_KINDS.items():
        if wanted("v1", ep):
            kinds.add(k)
    if "rule" in kinds:
        kinds.add("rule-section")
    if kinds:
        store.load_data(sorted(kinds))

    tally = Tally()
    sample_pool = []   # (source, doc, rec_id, record, eids, skip_paths)

    # ---- v2
    for ep, kind in V2_KINDS.items():
        if not wanted("v2", ep):
            continue
        skip_paths = SKIP_PATHS.get(("v2", ep), set())
        for rec in load_list(args.mirror, "v2", ep):
            eids = store.find_v2(kind, rec.get("key", ""))
            if not eids and ep == "items":
                # base armor and weapons are stored once, as armor/weapon entities (srd_hide-armor -> srd_hide)
                for sub, subkind in (("armor", "armor"), ("weapon", "weapon")):
                    if isinstance(rec.get(sub), dict) and rec[sub].get("key"):
                        eids = eids or store.find_v2(subkind, rec[sub]["key"])
            src = f"v2/{ep}"
            check_record(tally, src, v2_doc(rec), rec.get("key"), rec, eids, store, skip_paths)
            if eids:
                sample_pool.append((src, v2_doc(rec), rec.get("key"), rec, eids, skip_paths))

    # ---- v1
    docmap = v1_doc_map(args.mirror)
    for ep, kind in V1_KINDS.items():
        if not wanted("v1", ep):
            continue
        src = f"v1/{ep}"
        skip_paths = SKIP_PATHS.get(("v1", ep), set())
        records = load_list(args.mirror, "v1", ep)
        if ep == "sections":
            # the SRD 5.1 rules text; its Conditions appendix lives in the condition entities
            srd = [e for e, r in store.rows.items()
                   if r[0] in ("rule", "rule-section", "condition") and r[3] == "srd-2014"]
            corpus = Corpus.of_json([json.loads(store.data(e) or "{}") for e in srd],
                                    [store.rows[e][2] for e in srd])
            for rec in records:
                values = []
                for i, (head, body) in enumerate(split_sections(rec.get("desc") or "")):
                    values.append((f"desc#{i}:{head[:40]}", "desc#section", "desc", body))
                if rec.get("name"):
                    values.append(("name", "name", "name", rec["name"]))
                doc = docmap.get(rec.get("document__slug"), rec.get("document__slug"))
                check_record(tally, src, doc, rec.get("slug"), rec, [], store, skip_paths,
                             values=values, corpus=corpus)
            continue
        for rec in records:
            v1slug = rec.get("document__slug") or "?"
            if ep == "spells":
                doc = V1_SPELL_DOCS.get(v1slug, docmap.get(v1slug, v1slug))
            else:
                doc = docmap.get(v1slug, v1slug)
            docs = [doc] if doc == v1slug else [doc, v1slug]
            eids = []
            if ep == "monsters":
                m = re.search(r"/v2/creatures/([^/]+)/?", rec.get("v2_converted_path") or "")
                if m:
                    eids = store.find_v2(kind, m.group(1))
            if not eids:
                eids = store.find_by_name(kind, docs, rec.get("name", ""), rec.get("slug"))
            if not eids:
                # v2 split generic items into variants ("Adamantine Armor (Breastplate)"); match by description
                eids = store.find_by_desc(kind, docs, rec.get("desc"))
            if eids and ep in ("classes", "races"):
                # v1 nests subclasses (archetypes) and subraces; LoreKeeper keeps them as child entities
                parent_key = store.rows[eids[0]][1]
                eids = eids + store.children.get(parent_key, [])
            check_record(tally, src, doc, rec.get("slug"), rec, eids, store, skip_paths)
            if eids:
                sample_pool.append((src, doc, rec.get("slug"), rec, eids, skip_paths))

    # ---- optional Markdown sample
    md_report = None
    if args.markdown_sample and sample_pool:
        md_report = markdown_sample(args, store, sample_pool)

    report(args, tally, md_report, time.time() - t0)


def markdown_sample(args, store, pool):
    rnd = random.Random(args.seed)
    sample = rnd.sample(pool, min(args.markdown_sample, len(pool)))
    keys = sorted({store.rows[e][1] for s in sample for e in s[4]})

    def get(key):
        try:
            p = subprocess.run([args.binary, "--db", args.db, "--log-level", "off", "get", key],
                               capture_output=True, text=True, timeout=120)
            if p.returncode != 0 or not p.stdout.strip():
                return key, None, f"rc={p.returncode} {p.stderr.strip()[:200]}"
            return key, p.stdout, None
        except (OSError, subprocess.TimeoutExpired) as exc:
            return key, None, str(exc)[:200]
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        results = list(ex.map(get, keys))
    md = {k: out for k, out, err in results if out is not None}
    failed = [(k, err) for k, out, err in results if out is None]
    for k, err in failed[:5]:
        print(f"warning: `get {k}` failed: {err}", file=sys.stderr)
    sample = [s for s in sample if all(store.rows[e][1] in md for e in s[4])]
    stats = {"data": collections.Counter(), "markdown": collections.Counter()}
    only = collections.Counter()
    examples = collections.defaultdict(list)
    for src, doc, rec_id, rec, eids, skip_paths in sample:
        dc = store.corpus(eids)
        mc = Corpus.of_text([md.get(store.rows[e][1], "") for e in eids])
        for path, pattern, leaf, v in flatten(rec, skip_paths):
            rd, rm = check_value(leaf, v, dc), check_value(leaf, v, mc)
            if rd in (None, "trivial"):
                continue
            stats["data"][rd in ("found", "loose")] += 1
            stats["markdown"][rm in ("found", "loose")] += 1
            if rd in ("found", "loose") and rm not in ("found", "loose"):
                only[pattern] += 1
                if len(examples[pattern]) < 2:
                    examples[pattern].append((rec_id, str(v)[:50]))
    return {"records": len(sample), "entities": len(keys) - len(failed), "failed": len(failed), "stats": stats, "data_not_markdown": only,
            "examples": examples}


def report(args, tally, md_report, elapsed):
    out = sys.stdout
    hdr = f"{'source':<16} {'document':<22} {'records':>7} {'unmatch':>7} {'checked':>8} {'found':>8} " \
          f"{'loose':>6} {'noise':>6} {'missing':>7} {'partial':>7} {'miss%':>6} {'trivial':>7}"
    print(f"Census of {args.db} against {args.mirror}", file=out)
    print("checked = values looked for; found = exact (normalised) match; loose = only its words/numbers found "
          "(formatting differs); noise = not found but known not to be a fact (KNOWN_NOISE); missing includes partial (long text: only head or tail found); "
          "unmatch = records without an entity (all their values count as missing)", file=out)
    print(hdr, file=out)
    print("-" * len(hdr), file=out)
    tot = collections.Counter()
    sub = collections.Counter()
    last_src = None

    def line(src, doc, g):
        pct = 100.0 * g["missing"] / g["checked"] if g["checked"] else 0.0
        print(f"{src:<16} {doc:<22} {g['records']:>7} {g['unmatched']:>7} {g['checked']:>8} {g['found']:>8} "
              f"{g['loose']:>6} {g['noise']:>6} {g['missing']:>7} {g['partial']:>7} {pct:>5.1f}% "
              f"{g['trivial']:>7}", file=out)

    for (src, doc), g in sorted(tally.groups.items(), key=lambda x: (x[0][0].split("/")[0] == "v1", x[0])):
        if last_src is not None and src != last_src:
            line(last_src, "(all)", sub)
            print("", file=out)
            sub = collections.Counter()
        last_src = src
        line(src, doc, g)
        sub.update(g)
        tot.update(g)
    if last_src is not None:
        line(last_src, "(all)", sub)
        print("-" * len(hdr), file=out)
    for ver in ("v2", "v1"):
        vt = collections.Counter()
        for (src, _), g in tally.groups.items():
            if src.startswith(ver + "/"):
                vt.update(g)
        if vt:
            line(f"TOTAL {ver}", "", vt)
    line("TOTAL", "", tot)

    pats = collections.Counter()
    ex = collections.defaultdict(list)
    for m in tally.missing:
        k = (m["source"], m["pattern"])
        pats[k] += 1
        if len(ex[k]) < 2:
            val = m["value"]
            val = (val[:40] + "…") if isinstance(val, str) and len(val) > 40 else val
            ex[k].append(f"{m['record']}={val!r}")
    print(f"\nTop {args.top} missing field patterns (source pattern: count; examples):", file=out)
    for (src, pat), n in pats.most_common(args.top):
        print(f"{n:>6}  {src} {pat}   e.g. {'; '.join(ex[(src, pat)])}", file=out)

    print("\nNoise (not found, not counted as missing):", file=out)
    for why, n in tally.noise.most_common():
        print(f"{n:>6}  {why}", file=out)
    print(f"\nTop {min(args.top, 15)} 'loose' patterns (words and numbers present, formatting differs):", file=out)
    for (src, pat), n in tally.loose.most_common(min(args.top, 15)):
        print(f"{n:>6}  {src} {pat}   e.g. {'; '.join(tally.loose_ex[(src, pat)])}", file=out)

    if md_report:
        d, m = md_report["stats"]["data"], md_report["stats"]["markdown"]
        print(f"\nMarkdown sample: {md_report['records']} records, {md_report['entities']} entities "
              f"({md_report['failed']} `get` failures); "
              f"found in data {d[True]}/{d[True] + d[False]}, in Markdown {m[True]}/{m[True] + m[False]}",
              file=out)
        for pat, n in md_report["data_not_markdown"].most_common(15):
            print(f"{n:>6}  in data, not in Markdown: {pat}   e.g. {md_report['examples'][pat]}", file=out)
    print(f"\n({elapsed:.1f}s)", file=out)

    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({
                "db": args.db,
                "groups": [dict(source=s, document=d, **g) for (s, d), g in tally.groups.items()],
                "patterns": [dict(source=s, pattern=p, count=n) for (s, p), n in pats.most_common()],
                "noise": dict(tally.noise),
                "loose": [dict(source=s, pattern=p, count=n) for (s, p), n in tally.loose.most_common()],
                "missing": tally.missing,
            }, fh, ensure_ascii=False, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="LoreKeeper store (opened read-only)")
    ap.add_argument("--mirror", required=True, help="recorded Open5e API directory (the bundled snapshot unpacked: "
                    "mkdir M && zstd -dc data/open5e-snapshot.tar.zst | tar -x -C M)")
    ap.add_argument("--kind", help="comma-separated filter: list names (spells, v1/monsters) or entity kinds")
    ap.add_argument("--json", help="write the full missing list (and per-group counts) as JSON here")
    ap.add_argument("--top", type=int, default=30, help="how many missing field patterns to show")
    ap.add_argument("--markdown-sample", type=int, default=0,
                    help="also check N random matched records against the Markdown of `lorekeeper get`")
    ap.add_argument("--binary", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                     "build", "lorekeeper"), help="lorekeeper binary")
    ap.add_argument("--jobs", type=int, default=2, help="parallel `get` processes for --markdown-sample")
    ap.add_argument("--seed", type=int, default=1)
    run(ap.parse_args())


if __name__ == "__main__":
    main()
