// A class's spellcasting as its records state it: the row of its class table at a level (slots, Pact Magic,
// cantrips, spells known or prepared), the 2014 rule for the number of prepared spells and the spellcasting
// ability from its Spellcasting feature's text, and the spells a subclass's tables grant by level. Read from the
// records, not from a table of our own, so that any class whose records carry the columns is served.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/model/entity.hpp"

namespace lorekeeper::model {

// The spellcasting columns of a class table's row. A column the table lacks stays unset (0 or nullopt).
struct CasterLevel {
  std::array<int, 10> slots{};  // slots[n]: spell slots of level n (1-9); slots[0] unused
  int pact_slots = 0;           // Pact Magic: slots, all of pact_slot_level
  int pact_slot_level = 0;
  std::optional<int> cantrips;      // "Cantrips Known", "Cantrips"; unset where the cell is "—"
  std::optional<int> spells_known;  // "Spells Known"
  std::optional<int> prepared;      // "Prepared Spells" (SRD 5.2)
  std::vector<int>
      arcanum_levels;  // Mystic Arcanum spell levels gained up to this level ("Mystic Arcanum (6th level)")

  // The highest spell level a slot (or an arcanum) lets the character cast; 0 for none.
  int max_spell_level() const;
  // Whether the row has any spellcasting column at all.
  bool casts() const;
};

// The row of `class_table` ({"header": [...], "rows": [[...], ...]}, as the mapper writes it) for character level
// `level`, with the Mystic Arcanum levels named in its Features column up to that level; nullopt when the table
// has no row for the level or no spellcasting column.
std::optional<CasterLevel> caster_level(const json& class_table, int level);

// The first level from `from` (1-20) at which `class_table` gives any spellcasting column a value: where a class
// begins to cast. 0 when it never does.
int first_casting_level(const json& class_table, int from = 1);

// The 2014 number of prepared spells, as a Spellcasting feature states it: "a number of cleric spells equal to your
// Wisdom modifier + your cleric level (minimum of one spell)"; "+ half your paladin level, rounded down".
struct PreparedRule {
  std::string ability;      // "Wisdom"
  bool half_level = false;  // half the class level, rounded down
  std::string sentence;     // the sentence that states it
  // The number for a character of class level `level` whose ability modifier is `modifier` (at least 1).
  int count(int modifier, int level) const;
};
std::optional<PreparedRule> prepared_rule(std::string_view spellcasting_text);

// "Wisdom" from "Wisdom is your spellcasting ability for your cleric spells"; empty when the text does not say.
std::string spellcasting_ability(std::string_view spellcasting_text);

// The spells one row of a subclass's spell table grants: its feature ("Oath Spells"), the group a feature with
// several tables or columns gives it ("Arctic", "Air Spells"; empty for one), the level and what it counts (the
// class level the spells come at, or, for a warlock's expanded list, the spell level they are of), and the names as
// written, without emphasis ("find familiar (snakes only)").
struct GrantedSpells {
  std::string feature;
  std::string group;
  int level = 0;
  bool spell_level = false;  // the table's first column is "Spell Level"
  std::vector<std::string> names;
};

// Every spell table of `features` (a subclass's [{"name", "desc"}]): a Markdown table in a feature whose name or
// header speaks of spells, whose first column is a level ("3rd", "3").
std::vector<GrantedSpells> granted_spells(const json& features);

// A spell name as written in a table, ready to look up: emphasis, a trailing comma and a bracketed note removed
// ("*find familiar* (snakes only)" -> "find familiar").
std::string spell_name_of(std::string_view written);

}  // namespace lorekeeper::model
