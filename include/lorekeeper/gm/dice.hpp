// Dice for the roll_dice tool: standard dice notation, the exact probability distribution of a roll's total, and
// seeded rolls that give the same dice on every platform.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::gm {

// What parse_dice accepts. A refusal names the limit it hit, e.g. "too many sides: '1d1001' at position 1, the
// limit is 1000". Within these limits distribution() takes at most about half a second in an optimized build
// (100d1000kh50 is the slowest; 1000d1000 takes about 0.2 s; everyday expressions microseconds).
inline constexpr std::size_t kMaxNotationLength = 200;  // bytes of notation
inline constexpr int kMaxTerms = 20;
inline constexpr int kMaxDice = 1000;         // dice in the whole expression, counted after advantage
inline constexpr int kMaxSides = 1000;        // per die (d% is d100)
inline constexpr int kMaxKeepDropDice = 100;  // dice rolled by one term that keeps or drops dice
inline constexpr long long kMaxConstant = 1'000'000;
// Kept dice times sides, summed over the terms that keep fewer dice than they roll (4d6kh3 counts 3 * 6 = 18):
// the exact distribution of such a term costs about the square of this, so it is bounded.
// 100d1000kh50 is at the limit.
inline constexpr long long kMaxKeepWork = 50'000;

// Advantage turns every added term that is exactly one plain twenty-sided die ("1d20", "d20", "+ 1d20") into
// 2d20kh1; disadvantage turns it into 2d20kl1. Subtracted d20s ("- 1d20"), terms with other dice or counts
// ("2d20", "1d20kh1", "1d12") and constants are left as they are, so an expression without a plain 1d20 is
// unchanged. The limits apply after the change.
enum class Advantage { kNone, kAdvantage, kDisadvantage };

// One term of an expression: `count` dice of `sides` sides of which some are kept, or a constant. The term adds
// `sign` times the sum of its kept dice (or its constant) to the total.
struct DiceTerm {
  enum class Keep { kAll, kHighest, kLowest };

  int sign = 1;            // +1 or -1
  int count = 0;           // dice rolled; 0 for a constant
  int sides = 0;           // 0 for a constant
  long long constant = 0;  // a constant's value, >= 0 (the sign is in `sign`)
  Keep keep = Keep::kAll;  // which dice count toward the total
  int keep_count = 0;      // how many of them count, when keep is not kAll (1..count)

  bool is_constant() const { return sides == 0; }
  // Dice that count toward the total: count, or keep_count when some are dropped.
  int kept() const { return keep == Keep::kAll ? count : keep_count; }
  // The term without its sign: "4d6kh3", "2d20kl1", "1d100", "5".
  std::string to_string() const;
};

struct DiceExpression {
  std::vector<DiceTerm> terms;

  // Canonical notation: "4d6kh3 + 2", "-1d6 + 1d20", "2d20kh1 + 5". Dice always carry their count ("1d20"), d% is
  // written 1d100, and dropping is written as keeping the others (4d6dl1 is "4d6kh3", 5d6dh2 is "5d6kl3").
  std::string to_string() const;
  // The smallest and largest possible totals.
  long long min() const;
  long long max() const;
};

// Parses dice notation. Terms are joined by '+' or '-', with optional whitespace around the operators and at both
// ends; the first term may carry a sign ("-1d6 + 4"). Letters are case-insensitive. A term is one of:
//   N        a constant, 0..1000000
//   NdM      N dice (N omitted means 1) of M sides; "d%" is d100
//   NdMkhK   keep the highest K (also "kK");  NdMklK  keep the lowest K
//   NdMdlK   drop the lowest K (also "dK");   NdMdhK  drop the highest K
// Whitespace is not allowed inside a term. Errors are invalid_argument with a message that names the problem and
// its 1-based byte position: "unknown token 'x' at position 4", "empty dice expression", "trailing operator '+' at
// position 4", "missing number of sides after 'd' at position 2", "a term needs at least 1 die: '0d6' at position
// 1", "a die needs at least 1 side: '1d0' at position 1", "cannot keep 5 of 4 dice: '4d6kh5' at position 1",
// "cannot drop 4 of 4 dice: ...". Messages are ASCII: other bytes are shown as \xNN.
Result<DiceExpression> parse_dice(std::string_view notation, Advantage advantage = Advantage::kNone);

// The exact probability of every total of an expression.
struct Distribution {
  long long min = 0;      // the smallest total
  std::vector<double> p;  // p[i] = P(total == min + i); every total in [min, max] has an entry

  long long max() const { return min + static_cast<long long>(p.size()) - 1; }
  double mean() const;
  double stddev() const;
  // P(total == n), P(total >= n) and P(total <= n); n may lie outside [min, max].
  double exactly(long long n) const;
  double at_least(long long n) const;
  double at_most(long long n) const;
  // The smallest total t with P(total <= t) >= q, allowing 1e-9 for rounding (so the median of 1d100 is 50).
  // q <= 0 (or NaN) gives min, q >= 1 gives max.
  long long percentile(double q) const;
  // The most likely total; the smallest of them when several are equally likely (within a relative 1e-9).
  long long mode() const;
};

// The quantiles the roll_dice tool reports by default.
inline constexpr std::array<double, 5> kStandardQuantiles = {0.05, 0.25, 0.5, 0.75, 0.95};

// Computes the distribution exactly rather than by simulation: a plain die is added by a window sum, many plain dice
// at once through their spectrum (an FFT, where a die's transform has a closed form), and a keep/drop term by
// conditioning on the value of its last kept die. Probabilities are accurate to about 1e-15 absolute and sum to 1.
// Those too small to resolve come out as 0: below about 1e-300, or, when the FFT is used (large expressions such
// as 1000d6 or 1000d1000), below about 1e-16 times the root of the sum of squared probabilities. Fails
// (invalid_argument) only for an expression outside the limits above, which parse_dice never returns.
Result<Distribution> distribution(const DiceExpression& expression);

// One term of a roll.
struct TermRoll {
  std::vector<int> faces;  // each die in the order rolled; empty for a constant
  std::vector<bool> kept;  // kept[i]: faces[i] counts toward the total
  long long subtotal = 0;  // what the term adds to the total, sign included
};

struct Roll {
  std::vector<TermRoll> terms;  // parallel to the expression's terms
  long long total = 0;
};

// Rolls an expression deterministically: the same seed gives the same dice with every compiler and standard library.
// The generator is std::mt19937_64 constructed from `seed` (its output sequence is fixed by the C++ standard). Dice
// are rolled term by term, left to right; each die of M sides draws outputs x until x >= 2^64 mod M and shows
// 1 + x mod M, which is unbiased. Keep/drop terms keep the highest (lowest) faces, the earlier die first among equal
// faces. Fails (invalid_argument) only for an expression outside the limits above.
Result<Roll> roll(const DiceExpression& expression, std::uint64_t seed);

// A fresh seed from std::random_device (the clock if that fails), for callers that were given none.
std::uint64_t random_seed();

}  // namespace lorekeeper::gm
