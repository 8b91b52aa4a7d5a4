#!/usr/bin/env python3
"""Writes a large, realistic OrcBrew pack for the import benchmarks: spells and monsters in the shape OrcPub
exports (nested maps, vectors of traits and actions, spell lists), about 20 lines per entity.

    scripts/make-large-orcbrew.py OUT.orcbrew [SPELLS] [MONSTERS]   (defaults 2000 and 1500: about 54,000 lines, 3.4 MB)
"""
import sys

out = sys.argv[1]
spells = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
monsters = int(sys.argv[3]) if len(sys.argv) > 3 else 1500
schools = ["abjuration", "conjuration", "divination", "enchantment", "evocation", "illusion", "necromancy",
           "transmutation"]
types = ["beast", "fey", "fiend", "undead", "monstrosity", "dragon", "elemental", "aberration"]
lines = ['{"Benchmark Compendium"', " {:orcpub.dnd.e5/spells", "  {"]
for i in range(spells):
    k = "bench-spell-%d" % i
    lines += [
        "   :%s" % k,
        "   {:key :%s," % k,
        '    :name "Bench Spell %d",' % i,
        '    :option-pack "Benchmark Compendium",',
        "    :level %d, :school \"%s\"," % (i % 10, schools[i % len(schools)]),
        '    :casting-time "1 action", :range "%d feet",' % (30 + 10 * (i % 12)),
        '    :duration "%s",' % ("Concentration, up to 1 minute" if i % 3 == 0 else "Instantaneous"),
        "    :components {:verbal true, :somatic true, :material %s}," % ("true" if i % 4 == 0 else "false"),
        '    :material-component "a pinch of ash",' if i % 4 == 0 else "    :page %d," % (i % 300),
        '    :description "A crackling ribbon of energy lashes out at one creature you can see within range. '
        'The target must make a Dexterity saving throw, taking %dd8 force damage on a failed save, or half as '
        'much on a successful one.\\n\\nAt Higher Levels. The damage increases by 1d8 for each slot level above '
        'the first.",' % (1 + i % 8),
        "    :spell-lists {:wizard true, :sorcerer %s, :warlock %s}," % (
            "true" if i % 2 else "false", "true" if i % 5 == 0 else "false"),
        "    :ritual %s}" % ("true" if i % 11 == 0 else "false"),
    ]
lines += ["  }", "  :orcpub.dnd.e5/monsters", "  {"]
for i in range(monsters):
    k = "bench-monster-%d" % i
    lines += [
        "   :%s" % k,
        "   {:key :%s," % k,
        '    :name "Bench Monster %d",' % i,
        '    :option-pack "Benchmark Compendium",',
        "    :size :%s, :type :%s," % (["small", "medium", "large", "huge"][i % 4], types[i % len(types)]),
        '    :alignment "neutral evil",',
        "    :armor-class %d, :armor-notes \"natural armor\"," % (11 + i % 8),
        "    :hit-points {:die 10, :die-count %d, :modifier %d}," % (2 + i % 20, i % 30),
        '    :speed "30 ft., fly 60 ft. (hover)",',
        "    :str %d, :dex 14, :con 16, :int 8, :wis 12, :cha 10," % (10 + i % 10),
        "    :saving-throws {:dex 4, :con 5},",
        '    :senses "darkvision 60 ft., passive Perception 13",',
        '    :languages "Common, Sylvan",',
        "    :challenge %s," % (["0.25", "0.5", "1", "3", "5", "8", "12", "17"][i % 8]),
        '    :traits [{:name "Keen Smell", :description "The creature has advantage on Wisdom (Perception) '
        'checks that rely on smell."}',
        '             {:name "Pack Tactics", :description "It has advantage on an attack roll against a creature '
        'if at least one ally is within 5 feet of the creature."}],',
        '    :actions [{:name "Multiattack", :description "It makes two attacks."}',
        '              {:name "Bite", :description "Melee Weapon Attack: +5 to hit, reach 5 ft., one target. '
        'Hit: 10 (2d6 + 3) piercing damage."}',
        '              {:name "Breath", :description "Recharge 5-6. Each creature in a 15-foot cone must make a '
        'DC 13 Dexterity saving throw, taking 22 (4d10) fire damage on a failed save."}],',
        '    :description "A generated monster for benchmarks."}',
    ]
lines += ["  }}}"]
with open(out, "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
print("%s: %d lines, %d spells, %d monsters" % (out, len(lines), spells, monsters))
