// Encounter arithmetic for game masters: party XP thresholds (2014) or budgets (2024), the 2014 encounter multiplier,
// and an assessment of a planned fight, over the challenge-rating table of model/challenge.hpp.
//
// Tables and their sources:
// - 2014 thresholds and multipliers: Dungeon Master's Guide (2014), chapter 3, "Combat Encounter Difficulty"
//   (p. 82): "XP Thresholds by Character Level" and "Encounter Multipliers". Not part of SRD 5.1.
// - 2024 budgets: Dungeon Master's Guide (2024), "Combat Encounters": "XP Budget per Character" (SRD 5.2 carries it
//   in its Gameplay Toolbox).
//
// Every function is pure and thread-safe; errors are returned as values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/model/challenge.hpp"

namespace lorekeeper::gm {

enum class RuleSet { k2014, k2024 };

// "2014" or "2024".
std::string_view rule_set_name(RuleSet rules);

// Difficulties. Under 2014: trivial (below easy), easy, medium, hard, deadly. Under 2024: low, moderate, high and
// above high (beyond the high budget).
enum class Difficulty { kTrivial, kEasy, kMedium, kHard, kDeadly, kLow, kModerate, kHigh, kAboveHigh };

// Lower-case name: "trivial", "easy", ..., "low", "moderate", "high", "above high".
std::string_view difficulty_name(Difficulty d);

// The difficulties a user may ask for under `rules`, for messages: "easy, medium, hard, deadly" (2014) or
// "low, moderate, high" (2024).
std::string_view difficulty_names(RuleSet rules);

// Reads a difficulty a user asked for under `rules` (case and surrounding spaces ignored). Only the tabled
// difficulties are accepted ("trivial" and "above high" are not targets). A 2014 name under 2024, or the reverse,
// is an invalid_argument error naming the valid ones.
Result<Difficulty> parse_difficulty(RuleSet rules, std::string_view text);

// The party bounds accepted by party_budget and assess.
inline constexpr int kMinLevel = 1;
inline constexpr int kMaxLevel = 20;
inline constexpr int kMaxPartySize = 12;

struct Threshold {
  Difficulty difficulty;
  long long xp;
};

// A party's thresholds (2014: easy, medium, hard, deadly) or budgets (2024: low, moderate, high), each the sum
// of the per-character values over the party's levels, in ascending order of difficulty.
struct PartyBudget {
  RuleSet rules = RuleSet::k2014;
  std::vector<int> levels;
  std::vector<Threshold> thresholds;

  // The XP of `d`, or nullopt if `d` is not one of this rule set's tabled difficulties.
  std::optional<long long> xp_for(Difficulty d) const;
};

// Thresholds for a party of 1 to kMaxPartySize characters of levels 1 to 20 (one entry per character).
// invalid_argument for an empty or too large party or a level out of range. A party of one gives the table row.
Result<PartyBudget> party_budget(RuleSet rules, const std::vector<int>& levels);

// The 2014 encounter multiplier for `monster_count` creatures facing `party_size` characters: 1 -> x1, 2 -> x1.5,
// 3-6 -> x2, 7-10 -> x2.5, 11-14 -> x3, 15 or more -> x4; with fewer than 3 characters one step higher, with 6 or
// more one step lower, on the scale 0.5, 1, 1.5, 2, 2.5, 3, 4, 5 (so a lone monster against 6 characters is
// x0.5 and 15 monsters against 2 characters x5). 0 when monster_count or party_size is below 1.
double multiplier_2014(int monster_count, int party_size);

// `count` creatures of challenge rating `cr`.
struct MonsterGroup {
  double cr = 0;
  int count = 1;
};

// At most this many creatures in one assessment, and this many groups.
inline constexpr int kMaxMonsters = 1000;
inline constexpr int kMaxMonsterGroups = 64;

struct EncounterAssessment {
  RuleSet rules = RuleSet::k2014;
  int monster_count = 0;      // creatures, each one counted (a group of 4 goblins is 4)
  long long base_xp = 0;      // sum of the creatures' XP; what the party earns for the fight
  double multiplier = 1.0;    // 2014: multiplier_2014(monster_count, party size); 2024: 1 (none)
  long long adjusted_xp = 0;  // base_xp x multiplier, rounded down; used only to judge difficulty
  Difficulty difficulty = Difficulty::kTrivial;
  PartyBudget budget;       // the thresholds adjusted_xp was compared with
  std::string explanation;  // the arithmetic, in two lines separated by '\n'
};

// Judges a fight of `monsters` against a party with `levels`. Under 2014 the difficulty is the highest threshold
// adjusted_xp meets or exceeds (kTrivial below easy). Under 2024 a budget is what a fight of that difficulty may
// spend, so the difficulty is the lowest budget the XP stays within (kLow for any fight within the low budget,
// kAboveHigh past the high one).
// Every creature counts toward the 2014 multiplier: the DMG's advice to leave out creatures whose challenge
// rating is far below the group's average is not applied. Under 2024 there is no multiplier.
// invalid_argument for the party (as party_budget), for no monsters, a challenge rating that is not tabled, a
// count below 1, more than kMaxMonsterGroups groups or more than kMaxMonsters creatures.
Result<EncounterAssessment> assess(RuleSet rules, const std::vector<int>& levels,
                                   const std::vector<MonsterGroup>& monsters);

}  // namespace lorekeeper::gm
