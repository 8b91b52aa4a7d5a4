// Attack and saving-throw arithmetic for the attack_odds tool: the exact chance that an attack roll hits, crits or
// misses an armor class, the distribution of hits over several attacks, and the mean damage of a hit, of a critical
// hit (its dice rolled twice) and of a save for half. No simulation: every number is a sum over the twenty faces.
//
// The rules (SRD 5.1 and 5.2 alike): an attack roll of a natural 1 misses whatever the total; a natural roll at or
// above the critical range (20, or 19-20 and 18-20 for features that widen it) hits and is a critical hit, whose
// damage dice are rolled twice (the modifiers once); otherwise the attack hits when d20 + bonus >= AC. A saving
// throw has no automatic results: it succeeds when d20 + bonus >= DC. Advantage rolls two d20s and keeps the
// higher, disadvantage the lower.
//
// Every function is pure and thread-safe; errors are returned as values.
#pragma once

#include <string_view>
#include <vector>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::gm {

enum class RollMode { kNormal, kAdvantage, kDisadvantage };

// The chance of each natural d20 face (index 1-20; index 0 unused) under `mode`: 1/20 each, (2r-1)/400 with
// advantage, (41-2r)/400 with disadvantage.
std::vector<double> d20_faces(RollMode mode);

struct AttackChance {
  double hit = 0;   // a hit that is not critical
  double crit = 0;  // a critical hit
  double miss = 0;
  double any_hit() const { return hit + crit; }
};
// An attack roll of `bonus` against `ac`; `crit_range` is the lowest natural roll that crits (2-20).
AttackChance attack_chance(int bonus, int ac, RollMode mode, int crit_range = 20);

// P(exactly k of the attacks hit), k = 0..n, for independent attacks hitting with chances `p` (one per attack).
std::vector<double> hits_distribution(const std::vector<double>& p);

struct DamageMean {
  double on_hit = 0;   // dice and modifiers
  double on_crit = 0;  // dice twice, modifiers once
  double halved = 0;   // half of a roll, rounded down (a successful save for half)
};
// The mean damage of a hit and a critical hit of dice notation ("2d8+4", "1d6 + 1d4 + 2"), a roll below 0 counting
// as 0; an InvalidArgument status for notation gm::parse_dice refuses, or one that keeps or drops dice ("4d6kh3" is
// no damage roll) or subtracts them ("4-1d6": a critical hit would lower it).
Result<DamageMean> damage_mean(std::string_view notation);

// Mean damage of one attack: hits at on_hit, critical hits at on_crit.
double expected_damage(const AttackChance& chance, const DamageMean& damage);

struct SaveChance {
  double fail = 0;
  double success = 0;
};
// A saving throw of `bonus` against `dc`.
SaveChance save_chance(int dc, int bonus, RollMode mode);

}  // namespace lorekeeper::gm
