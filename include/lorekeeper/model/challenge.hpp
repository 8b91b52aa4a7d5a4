// Challenge ratings: the tabled ratings, their experience points and proficiency bonus, and how people and stat
// blocks write them. The one home of the CR table, read by the encounter arithmetic (lk_gm), the mappers and the
// renderers.
//
// Sources: SRD 5.1, Monsters, "Experience Points by Challenge Rating" (Open5e v2 rule
// srd_monsters_experience-points-by-cr; the 2024 Monster Manual uses the same values) and "Proficiency Bonus by
// Challenge Rating" (srd_monsters_prof-bonus-by-cr). Every function is pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::model {

// The challenge ratings in the tables: 0, 1/8, 1/4, 1/2 and the whole numbers 1 to 30.
inline constexpr double kMinCr = 0.0;
inline constexpr double kMaxCr = 30.0;
// What a challenge rating may be, for messages.
inline constexpr std::string_view kCrExpectation = "expected 0, 1/8, 1/4, 1/2 or a whole number from 1 to 30";

// XP for one creature of challenge rating `cr`, or nullopt if `cr` is not exactly a tabled rating. CR 0 gives 10:
// the SRD gives 0 XP to a CR 0 creature without effective attacks and 10 to the others; this table always
// counts 10.
std::optional<long long> xp_for_cr(double cr);

// The tabled challenge ratings one step either side of `cr` (of the first tabled rating at or above it), kept
// within 0 and 30: 5 -> (4, 6), 1/8 -> (0, 1/4), 0 -> (0, 1/8), 30 -> (29, 30).
std::pair<double, double> neighbouring_crs(double cr);

// Proficiency bonus (+2 to +9) of a creature of challenge rating `cr`, or nullopt if `cr` is not tabled.
std::optional<int> proficiency_for_cr(double cr);

// Reads a challenge rating as users and stat blocks write it: "1/4", "0.25", "5", "½", with surrounding spaces.
// The value must be a tabled rating; "1/3", "0.3", "-1", "31", "1/0", "abc" and "" are invalid_argument errors
// whose message says what is accepted.
Result<double> parse_cr(std::string_view text);

// A challenge rating as stat blocks print it: 0.125 -> "1/8", 0.25 -> "1/4", 0.5 -> "1/2", 5 -> "5". A value
// that is not tabled is printed as a plain number (0.3 -> "0.3").
std::string cr_text(double cr);

}  // namespace lorekeeper::model
