// `lorekeeper roll`, `encounter`, `spells` and `odds`: the table's arithmetic on the command line, as the tool call
// each makes (roll_dice; evaluate_encounter or build_encounter; class_spells; attack_odds), so that the terminal
// answers what a model is told.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lookup.hpp"

namespace lorekeeper::cli {

struct RollRequest {
  std::string notation;  // "8d6", "1d20+5", "4d6kh3"
  std::optional<int> target;
  std::optional<int> times;
  std::string mode;  // "", "advantage" or "disadvantage"
  std::optional<long long> seed;
};
// roll_dice with these arguments; the tool checks them (an error names what is wrong).
ToolCall roll_call(const RollRequest& request);

struct EncounterRequest {
  std::string party;                   // levels, comma-separated ("3,3,3,4"), or "4x5" (four level-5 characters)
  std::vector<std::string> creatures;  // "goblin", "4 goblin", "goblin x4", "4x goblin", "srd_bugbear", "cr 1/2"
  std::string rules;                   // "", "2014" or "2024"
  std::string difficulty;              // with no creatures: the difficulty to build for
  std::string theme;
  std::string environment;
  std::optional<long long> seed;
  std::vector<std::string> documents;
};
// evaluate_encounter when creatures are given, else build_encounter. InvalidArgument (a usage error) for a party
// or a creature that cannot be read, naming it and the forms that can.
Result<ToolCall> encounter_call(const EncounterRequest& request);

struct SpellsRequest {
  std::string class_name;  // "cleric", "srd-2024_wizard", "Life Domain"
  int level = 1;
  std::string subclass;
  std::string rules;  // "", "2014" or "2024"
  std::optional<int> modifier;
  std::vector<std::string> documents;
};
// class_spells with these arguments; the tool checks them.
ToolCall spells_call(const SpellsRequest& request);

struct OddsRequest {
  std::optional<int> bonus, ac, attacks, crit, save_dc, save_bonus;
  std::string creature, action, damage;
  std::string mode;  // "", "advantage" or "disadvantage"
  bool table = false;
  std::vector<std::string> documents;
};
// attack_odds with these arguments; the tool checks them.
ToolCall odds_call(const OddsRequest& request);

}  // namespace lorekeeper::cli
