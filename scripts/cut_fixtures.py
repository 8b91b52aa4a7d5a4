#!/usr/bin/env python3
"""Cuts the small Open5e fixture mirror used by the tests from the full recorded mirror.

Usage: scripts/cut_fixtures.py [MIRROR_DIR] [OUT_DIR]
The output keeps the mirror's layout (<path>/<query>.json), so the directory loader reads it exactly as
it reads the full mirror. Spells are split over two pages to exercise `next` handling.
"""
import glob
import json
import os
import sys

MIRROR = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/open5e-mirror"
OUT = sys.argv[2] if len(sys.argv) > 2 else "tests/fixtures/mirror-mini"

PICK = {
    "spells": ["srd_fireball", "srd-2024_fireball", "a5e-ag_fireball", "srd_cure-wounds", "srd-2024_cure-wounds",
               "srd_mass-cure-wounds", "srd_magic-missile", "srd_fire-bolt", "srd-2024_fire-bolt", "srd_shield",
               "srd_shield-of-faith", "srd_hold-person", "srd_lightning-bolt", "srd_wish",
               "srd_delayed-blast-fireball", "deepmx_shield-of-star-and-shadow"],
    "creatures": ["srd_goblin", "srd-2024_goblin-warrior", "srd_hobgoblin", "srd_adult-red-dragon",
                  "srd-2024_adult-red-dragon", "srd_red-dragon-wyrmling", "srd_owlbear", "srd_wraith",
                  "srd_lich", "srd_vampire", "srd_vampire-spawn", "tob_dust-goblin", "a5e-mm_goblin"],
    "classes": ["srd_wizard", "srd_school-of-evocation", "srd_fighter", "srd_champion", "srd_cleric",
                "srd-2024_wizard", "srd-2024_fighter", "srd-2024_champion"],
    # Tome of Heroes' Shade has no traits in v2; v1's race gives them.
    "species": ["srd_elf", "srd_high-elf", "srd_dwarf", "srd_hill-dwarf", "srd_human", "srd-2024_elf",
                "srd_half-elf", "toh_shade"],
    "backgrounds": ["srd_acolyte", "srd-2024_acolyte", "srd-2024_sage", "a5e-ag_sage"],
    "feats": ["srd_grappler", "srd-2024_grappler", "srd-2024_alert"],
    "weapons": ["srd_longsword", "srd-2024_longsword", "srd_dagger", "srd_longbow", "srd_battleaxe"],
    "armor": ["srd_plate", "srd-2024_plate-armor", "srd_leather", "srd_breastplate", "srd-2024_shield"],
    "items": ["srd_rope-hempen-50-feet", "srd-2024_rope", "srd_torch", "srd_backpack", "srd_longsword", "srd_plate-armor"],
    "magicitems": ["srd_bag-of-holding", "srd-2024_bag-of-holding", "srd_potion-of-healing",
                   "srd_vorpal-sword-longsword", "srd_cloak-of-elvenkind", "vom_aberrant-agreement"],
    "conditions": ["grappled", "prone", "poisoned", "frightened"],
    # SRD 5.2's services, stored as items.
    "services": ["srd-2024_lodging-comfortable", "srd-2024_spellcasting-level-3", "srd-2024_messenger",
                 "srd-2024_meal-modest"],
    # With SRD 5.1's Damage and Healing rules, whose chapter v1's sections complete (Critical Hits holds another
    # rule's text in v2).
    "rules": ["srd_attacking_opportunity-attacks", "srd_attacking_grappling", "srd-2024_combat_cover",
              "srd_damage-and-healing_critical-hits", "srd_damage-and-healing_damage-rolls",
              "srd_damage-and-healing_damage-types", "srd_damage-and-healing_hit-points",
              "srd_damage-and-healing_resistance-and-vulnerability"],
}
# Small reference endpoints are copied whole.
WHOLE = ["documents", "damagetypes", "weaponproperties", "skills", "abilities", "spellschools", "languages",
         "alignments", "sizes", "creaturetypes", "itemrarities", "itemcategories", "environments", "rulesets"]


# v1 is read only for what v2 lacks: these cuts mix v1-only records (toh, a5e) with ones v2 already has
# (wotc-srd, vom), which a sync must leave out.
PICK_V1 = {
    "magicitems": ["orb-of-the-dragon-breaker-a5e", "bag-of-holding", "argent-mantle", "aberrant-agreement", "skysail"],
    # SRD 5.1's Longbow: v2's record lacks the Heavy property the SRD table (and v1) gives it.
    "weapons": ["axespear", "longsword", "longbow", "dagger"],
    "armor": ["brigandine", "plate"],
    # The monsters are the v1 records converted to the picked v2 creatures (main() picks them by v2_converted_path):
    # what v2's creatures lack comes from them.
    # The spells are the v1 records of the picked v2 spells (main() picks them by document and name): the class
    # lists come from them (Cure Wounds and Shield of Faith are on the Paladin's list, which v2 never names; Hold
    # Person is a Paladin's only through an oath, `archetype` "Paladin: Vengeance").
    # Read for SRD 5.1's rules no v2 record holds (Healing, Death Saving Throws, ...; Short Rest, Long Rest).
    "sections": ["damage-and-healing", "rest"],
}


def records(endpoint, version="v2", key="key"):
    seen = {}
    for path in sorted(glob.glob(os.path.join(MIRROR, version, endpoint, "limit=100*.json"))):
        with open(path, encoding="utf-8") as f:
            for rec in json.load(f)["results"]:
                seen.setdefault(rec.get(key), rec)
    return seen


def write_pages(endpoint, recs, per_page, version="v2"):
    out_dir = os.path.join(OUT, version, endpoint)
    os.makedirs(out_dir, exist_ok=True)
    pages = [recs[i:i + per_page] for i in range(0, len(recs), per_page)] or [[]]
    base = "https://api.open5e.com/%s/%s/" % (version, endpoint)
    for n, page in enumerate(pages, start=1):
        body = {
            "count": len(recs),
            "next": ("%s?limit=100&page=%d" % (base, n + 1)) if n < len(pages) else None,
            "previous": None if n == 1 else ("%s?limit=100" % base if n == 2 else "%s?limit=100&page=%d" % (base, n - 1)),
            "results": page,
        }
        name = "limit=100.json" if n == 1 else "limit=100&page=%d.json" % n
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            json.dump(body, f, ensure_ascii=False, indent=1)
            f.write("\n")


def main():
    for endpoint, keys in PICK.items():
        all_recs = records(endpoint)
        missing = [k for k in keys if k not in all_recs]
        if missing:
            sys.exit("missing %s records: %s" % (endpoint, missing))
        recs = [all_recs[k] for k in keys]
        write_pages(endpoint, recs, 10 if endpoint == "spells" else 100)
    for endpoint in WHOLE:
        recs = list(records(endpoint).values())
        if endpoint == "rulesets":
            # Rulesets embed every rule in full; keep the sections the fixture rules belong to, without the copies.
            wanted = {"srd_attacking", "srd-2024_combat", "srd_damage-and-healing"}
            recs = [dict(r, rules=[{"key": x["key"], "name": x["name"]} for x in r.get("rules", [])])
                    for r in recs if r["key"] in wanted]
        write_pages(endpoint, recs, 100)
    write_pages("documents", list(records("documents", "v1", "slug").values()), 100, "v1")
    picked = set(PICK["creatures"])
    monsters = [r for r in records("monsters", "v1", "v2_converted_path").values()
                if (r.get("v2_converted_path") or "").strip("/").split("/")[-1] in picked]
    write_pages("monsters", monsters, 100, "v1")
    v2_spells = records("spells")
    wanted = {(v2_spells[k]["document"]["key"], v2_spells[k]["name"].lower()) for k in PICK["spells"]}
    v1_documents = {"wotc-srd": "srd-2014", "dmag": "deepm", "dmag-e": "deepmx", "a5e": "a5e-ag", "toh": "toh",
                    "kp": "kp", "o5e": "open5e", "warlock": "wz", "taldorei": "tdcs"}  # kV1Documents
    spells = [r for r in records("spells", "v1", "slug").values()
              if (v1_documents.get(r["document__slug"]), r["name"].lower()) in wanted]
    write_pages("spells", spells, 100, "v1")
    # The races, backgrounds and classes of the picked species, backgrounds and classes, by document and name:
    # Level Up's Sage has no description in v2, and v1's gives it; the Champion and the School of Evocation have no
    # introduction in v2, and their v1 classes' archetypes give it.
    for v1_endpoint, v2_endpoint in (("races", "species"), ("backgrounds", "backgrounds"), ("classes", "classes")):
        v2_recs = records(v2_endpoint)
        wanted = {(v2_recs[k]["document"]["key"], v2_recs[k]["name"].lower()) for k in PICK[v2_endpoint]}
        write_pages(v1_endpoint, [r for r in records(v1_endpoint, "v1", "slug").values()
                                  if (v1_documents.get(r["document__slug"]), r["name"].lower()) in wanted], 100, "v1")
    for endpoint, keys in PICK_V1.items():
        all_recs = records(endpoint, "v1", "slug")
        missing = [k for k in keys if k not in all_recs]
        if missing:
            sys.exit("missing v1 %s records: %s" % (endpoint, missing))
        write_pages(endpoint, [all_recs[k] for k in keys], 100, "v1")


if __name__ == "__main__":
    main()
