#include "lorekeeper/gm/encounter_math.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <string>
#include <system_error>
#include <utility>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::gm {
namespace {

using model::cr_text;
using model::kCrExpectation;
using model::xp_for_cr;

// Dungeon Master's Guide (2014), chapter 3, "XP Thresholds by Character Level": easy, medium, hard, deadly for
// levels 1 to 20.
constexpr std::array<std::array<long long, 4>, 20> kThresholds2014 = {{
    {25, 50, 75, 100},          // level 1
    {50, 100, 150, 200},        // level 2
    {75, 150, 225, 400},        // level 3
    {125, 250, 375, 500},       // level 4
    {250, 500, 750, 1100},      // level 5
    {300, 600, 900, 1400},      // level 6
    {350, 750, 1100, 1700},     // level 7
    {450, 900, 1400, 2100},     // level 8
    {550, 1100, 1600, 2400},    // level 9
    {600, 1200, 1900, 2800},    // level 10
    {800, 1600, 2400, 3600},    // level 11
    {1000, 2000, 3000, 4500},   // level 12
    {1100, 2200, 3400, 5100},   // level 13
    {1250, 2500, 3800, 5700},   // level 14
    {1400, 2800, 4300, 6400},   // level 15
    {1600, 3200, 4800, 7200},   // level 16
    {2000, 3900, 5900, 8800},   // level 17
    {2100, 4200, 6300, 9500},   // level 18
    {2400, 4900, 7300, 10900},  // level 19
    {2800, 5700, 8500, 12700},  // level 20
}};

// Dungeon Master's Guide (2024), "XP Budget per Character": low, moderate, high for levels 1 to 20.
constexpr std::array<std::array<long long, 3>, 20> kBudgets2024 = {{
    {50, 75, 100},         // level 1
    {100, 150, 200},       // level 2
    {150, 225, 400},       // level 3
    {250, 375, 500},       // level 4
    {500, 750, 1100},      // level 5
    {600, 1000, 1400},     // level 6
    {750, 1300, 1700},     // level 7
    {1000, 1700, 2100},    // level 8
    {1300, 2000, 2600},    // level 9
    {1600, 2300, 3100},    // level 10
    {1900, 2900, 4100},    // level 11
    {2200, 3700, 4700},    // level 12
    {2600, 4200, 5400},    // level 13
    {2900, 4900, 6200},    // level 14
    {3300, 5400, 7800},    // level 15
    {3800, 6100, 9800},    // level 16
    {4500, 7200, 11700},   // level 17
    {5000, 8700, 14200},   // level 18
    {5500, 10700, 17200},  // level 19
    {6400, 13200, 22000},  // level 20
}};

constexpr std::array<Difficulty, 4> kTargets2014 = {Difficulty::kEasy, Difficulty::kMedium, Difficulty::kHard,
                                                    Difficulty::kDeadly};
constexpr std::array<Difficulty, 3> kTargets2024 = {Difficulty::kLow, Difficulty::kModerate, Difficulty::kHigh};

// Dungeon Master's Guide (2014), "Encounter Multipliers", in halves: x0.5, x1, x1.5, x2, x2.5, x3, x4, x5. The
// table proper is steps 1 to 6; steps 0 and 7 are reached only through the party-size shift.
constexpr std::array<int, 8> kMultiplierHalves = {1, 2, 3, 4, 5, 6, 8, 10};

// The text quoted in an error message, shortened if long.
std::string quoted(std::string_view s) {
  constexpr std::size_t kMaxQuoted = 40;
  if (s.size() <= kMaxQuoted) return "'" + std::string(s) + "'";
  return "'" + std::string(s.substr(0, kMaxQuoted)) + "...'";
}

std::string halves_text(int halves) { return std::to_string(halves / 2) + (halves % 2 != 0 ? ".5" : ""); }

// Row of the encounter multiplier table for a monster count (1 -> step 1, ..., 15+ -> step 6).
int multiplier_step(int monster_count) {
  if (monster_count <= 1) return 1;
  if (monster_count == 2) return 2;
  if (monster_count <= 6) return 3;
  if (monster_count <= 10) return 4;
  if (monster_count <= 14) return 5;
  return 6;
}

std::string_view multiplier_band(int step) {
  switch (step) {
    case 1: return "1 monster";
    case 2: return "2 monsters";
    case 3: return "3-6 monsters";
    case 4: return "7-10 monsters";
    case 5: return "11-14 monsters";
    default: return "15+ monsters";
  }
}

// Step of the scale for this encounter, after the party-size shift.
int shifted_step(int monster_count, int party_size) {
  int step = multiplier_step(monster_count);
  if (party_size < 3) ++step;
  if (party_size >= 6) --step;
  return step;
}

std::string plural(long long n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

std::string_view rule_set_name(RuleSet rules) { return rules == RuleSet::k2014 ? "2014" : "2024"; }

std::string_view difficulty_name(Difficulty d) {
  switch (d) {
    case Difficulty::kTrivial: return "trivial";
    case Difficulty::kEasy: return "easy";
    case Difficulty::kMedium: return "medium";
    case Difficulty::kHard: return "hard";
    case Difficulty::kDeadly: return "deadly";
    case Difficulty::kAboveHigh: return "above high";
    case Difficulty::kLow: return "low";
    case Difficulty::kModerate: return "moderate";
    case Difficulty::kHigh: return "high";
  }
  return "unknown";
}

std::string_view difficulty_names(RuleSet rules) {
  return rules == RuleSet::k2014 ? "easy, medium, hard, deadly" : "low, moderate, high";
}

Result<Difficulty> parse_difficulty(RuleSet rules, std::string_view text) {
  std::string name = text::trim(text);
  for (char& c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const auto find_in = [&name](const auto& targets) -> std::optional<Difficulty> {
    for (Difficulty d : targets) {
      if (difficulty_name(d) == name) return d;
    }
    return std::nullopt;
  };
  const std::optional<Difficulty> in_2014 = find_in(kTargets2014);
  const std::optional<Difficulty> in_2024 = find_in(kTargets2024);
  const std::optional<Difficulty> found = rules == RuleSet::k2014 ? in_2014 : in_2024;
  if (found) return *found;
  const std::string valid =
      "the " + std::string(rule_set_name(rules)) + " rules use " + std::string(difficulty_names(rules));
  if (in_2014 || in_2024) {
    const RuleSet other = rules == RuleSet::k2014 ? RuleSet::k2024 : RuleSet::k2014;
    return Status::invalid_argument(quoted(name) + " is a " + std::string(rule_set_name(other)) + " difficulty; " +
                                    valid);
  }
  if (name.empty()) return Status::invalid_argument("empty difficulty; " + valid);
  return Status::invalid_argument("unknown difficulty " + quoted(name) + "; " + valid);
}

std::optional<long long> PartyBudget::xp_for(Difficulty d) const {
  for (const Threshold& t : thresholds) {
    if (t.difficulty == d) return t.xp;
  }
  return std::nullopt;
}

Result<PartyBudget> party_budget(RuleSet rules, const std::vector<int>& levels) {
  if (levels.empty()) return Status::invalid_argument("the party needs at least one character");
  if (levels.size() > static_cast<std::size_t>(kMaxPartySize)) {
    return Status::invalid_argument("a party of " + std::to_string(levels.size()) +
                                    " characters is too large (at most " + std::to_string(kMaxPartySize) + ")");
  }
  PartyBudget budget;
  budget.rules = rules;
  budget.levels = levels;
  if (rules == RuleSet::k2014) {
    for (Difficulty d : kTargets2014) budget.thresholds.push_back({d, 0});
  } else {
    for (Difficulty d : kTargets2024) budget.thresholds.push_back({d, 0});
  }
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const int level = levels[i];
    if (level < kMinLevel || level > kMaxLevel) {
      return Status::invalid_argument("character " + std::to_string(i + 1) + " has level " + std::to_string(level) +
                                      "; levels run from 1 to 20");
    }
    const auto row = static_cast<std::size_t>(level - 1);
    for (std::size_t k = 0; k < budget.thresholds.size(); ++k) {
      budget.thresholds[k].xp += rules == RuleSet::k2014 ? kThresholds2014[row][k] : kBudgets2024[row][k];
    }
  }
  return budget;
}

double multiplier_2014(int monster_count, int party_size) {
  if (monster_count < 1 || party_size < 1) return 0.0;
  return kMultiplierHalves[static_cast<std::size_t>(shifted_step(monster_count, party_size))] / 2.0;
}

Result<EncounterAssessment> assess(RuleSet rules, const std::vector<int>& levels,
                                   const std::vector<MonsterGroup>& monsters) {
  Result<PartyBudget> budget = party_budget(rules, levels);
  if (!budget) return budget.status();
  if (monsters.empty()) return Status::invalid_argument("the encounter needs at least one monster");
  if (monsters.size() > static_cast<std::size_t>(kMaxMonsterGroups)) {
    return Status::invalid_argument(std::to_string(monsters.size()) + " monster groups are too many (at most " +
                                    std::to_string(kMaxMonsterGroups) + ")");
  }

  EncounterAssessment a;
  a.rules = rules;
  std::string sum_text;
  for (std::size_t i = 0; i < monsters.size(); ++i) {
    const MonsterGroup& g = monsters[i];
    const std::optional<long long> xp = xp_for_cr(g.cr);
    if (!xp) {
      return Status::invalid_argument("monster group " + std::to_string(i + 1) + " has challenge rating " +
                                      cr_text(g.cr) + ", which is not in the table; " + std::string(kCrExpectation));
    }
    if (g.count < 1) {
      return Status::invalid_argument("monster group " + std::to_string(i + 1) + " has count " +
                                      std::to_string(g.count) + "; each group needs at least one creature");
    }
    if (g.count > kMaxMonsters - a.monster_count) {
      return Status::invalid_argument("too many creatures (at most " + std::to_string(kMaxMonsters) + ")");
    }
    a.monster_count += g.count;
    a.base_xp += *xp * g.count;
    if (!sum_text.empty()) sum_text += " + ";
    sum_text += std::to_string(g.count) + " \u00D7 CR " + cr_text(g.cr) + " (" + text::group_thousands(*xp) + " XP)";
  }

  const int party_size = static_cast<int>(levels.size());
  std::string line1 = "Monsters: " + sum_text + " = " + text::group_thousands(a.base_xp) + " XP";
  if (rules == RuleSet::k2014) {
    const int table_step = multiplier_step(a.monster_count);
    const int step = shifted_step(a.monster_count, party_size);
    const int halves = kMultiplierHalves[static_cast<std::size_t>(step)];
    a.multiplier = halves / 2.0;
    a.adjusted_xp = a.base_xp * halves / 2;
    line1 += ". " + plural(a.monster_count, "monster", "monsters") + " vs " +
             plural(party_size, "character", "characters") + ": ";
    if (step == table_step) {
      line1 += "\u00D7" + halves_text(halves) + " (" + std::string(multiplier_band(table_step)) + ")";
    } else {
      line1 += "\u00D7" + halves_text(kMultiplierHalves[static_cast<std::size_t>(table_step)]) + " for " +
               std::string(multiplier_band(table_step)) + ", one step " +
               (step > table_step ? "higher for fewer than 3" : "lower for 6 or more") + " characters: \u00D7" +
               halves_text(halves);
    }
    line1 += " \u2192 " + text::group_thousands(a.adjusted_xp) + " adjusted XP.";
    a.difficulty = Difficulty::kTrivial;
  } else {
    a.multiplier = 1.0;
    a.adjusted_xp = a.base_xp;
    line1 += " (the 2024 rules use no multiplier).";
    a.difficulty = Difficulty::kAboveHigh;
  }

  // 2014: the highest threshold the adjusted XP meets. 2024: the budgets are what a fight of that difficulty
  // may spend, so the difficulty is the lowest budget the XP stays within.
  std::optional<long long> reached_xp;
  if (rules == RuleSet::k2014) {
    for (const Threshold& t : budget->thresholds) {
      if (a.adjusted_xp >= t.xp) {
        a.difficulty = t.difficulty;
        reached_xp = t.xp;
      }
    }
  } else {
    for (auto t = budget->thresholds.rbegin(); t != budget->thresholds.rend(); ++t) {
      if (a.adjusted_xp <= t->xp) {
        a.difficulty = t->difficulty;
        reached_xp = t->xp;
      }
    }
  }

  std::string line2 = rules == RuleSet::k2014 ? "Party thresholds" : "Party budgets";
  line2 += " (" + plural(party_size, "character", "characters") + ", level";
  line2 += party_size == 1 ? " " : "s ";
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (i > 0) line2 += ", ";
    line2 += std::to_string(levels[i]);
  }
  line2 += "): ";
  for (std::size_t k = 0; k < budget->thresholds.size(); ++k) {
    if (k > 0) line2 += ", ";
    line2 += std::string(difficulty_name(budget->thresholds[k].difficulty)) + " " +
             text::group_thousands(budget->thresholds[k].xp);
  }
  line2 += "; " + text::group_thousands(a.adjusted_xp);
  if (rules == RuleSet::k2024) {
    if (!reached_xp) {
      line2 +=
          " is above the high budget by " + text::group_thousands(a.adjusted_xp - budget->thresholds.back().xp) + ".";
    } else {
      line2 += " is within the " + std::string(difficulty_name(a.difficulty)) + " budget.";
    }
  } else if (!reached_xp) {
    line2 += " is below " + std::string(difficulty_name(budget->thresholds.front().difficulty));
    if (rules == RuleSet::k2014) line2 += " (trivial)";
    line2 += ".";
  } else {
    line2 += " reaches " + std::string(difficulty_name(a.difficulty));
    if (a.difficulty == budget->thresholds.back().difficulty && a.adjusted_xp > *reached_xp) {
      line2 += " and exceeds it by " + text::group_thousands(a.adjusted_xp - *reached_xp);
    }
    line2 += ".";
  }
  a.explanation = line1 + "\n" + line2;
  a.budget = std::move(budget.value());
  return a;
}

}  // namespace lorekeeper::gm
