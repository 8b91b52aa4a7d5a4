#include "lorekeeper/gm/dice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace lorekeeper::gm {
namespace {

using Keep = DiceTerm::Keep;

DiceExpression parse_ok(std::string_view notation, Advantage advantage = Advantage::kNone) {
  Result<DiceExpression> e = parse_dice(notation, advantage);
  EXPECT_TRUE(e.is_ok()) << notation << ": " << e.status().to_string();
  return e.is_ok() ? e.value() : DiceExpression{};
}

Distribution distribution_of(std::string_view notation, Advantage advantage = Advantage::kNone) {
  Result<Distribution> d = distribution(parse_ok(notation, advantage));
  EXPECT_TRUE(d.is_ok()) << notation << ": " << d.status().to_string();
  return d.is_ok() ? d.value() : Distribution{};
}

// The error message parse_dice gives, or "" when it accepts the notation.
std::string parse_error(std::string_view notation) {
  Result<DiceExpression> e = parse_dice(notation);
  if (e.is_ok()) return "";
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  return e.status().message();
}

double total_probability(const Distribution& d) {
  double sum = 0;
  for (double p : d.p) sum += p;
  return sum;
}

// P(sign * kept sum == s) for every s, by enumerating all sides^n rolls of one term.
std::map<long long, double> enumerate_term(int n, int sides, Keep keep, int keep_count, int sign = 1) {
  std::map<long long, std::uint64_t> counts;
  std::vector<int> dice(n, 1);
  std::vector<int> sorted(n);
  std::uint64_t rolls = 0;
  for (;;) {
    sorted = dice;
    std::sort(sorted.begin(), sorted.end());
    long long sum = 0;
    const int kept = keep == Keep::kAll ? n : keep_count;
    for (int i = 0; i < kept; ++i) sum += keep == Keep::kLowest ? sorted[i] : sorted[n - 1 - i];
    ++counts[sign * sum];
    ++rolls;
    int i = 0;
    while (i < n && dice[i] == sides) dice[i++] = 1;
    if (i == n) break;
    ++dice[i];
  }
  std::map<long long, double> p;
  for (const auto& [sum, count] : counts) p[sum] = static_cast<double>(count) / static_cast<double>(rolls);
  return p;
}

std::map<long long, double> add(const std::map<long long, double>& a, const std::map<long long, double>& b) {
  std::map<long long, double> out;
  for (const auto& [x, px] : a) {
    for (const auto& [y, py] : b) out[x + y] += px * py;
  }
  return out;
}

void expect_matches(const Distribution& d, const std::map<long long, double>& expected, double tolerance,
                    const std::string& what) {
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(d.min, expected.begin()->first) << what;
  EXPECT_EQ(d.max(), expected.rbegin()->first) << what;
  for (long long t = d.min - 2; t <= d.max() + 2; ++t) {
    const auto it = expected.find(t);
    const double want = it == expected.end() ? 0.0 : it->second;
    EXPECT_NEAR(d.exactly(t), want, tolerance) << what << " total " << t;
  }
}

// P(kept sum == s) for the highest `keep` of n dice of `sides` sides, by a different method from the library's:
// walk the face values from the highest down; of the r dice not yet placed (uniform on 1..v), Binomial(r, 1/v) show
// v, and they are kept while fewer than `keep` are.
std::map<long long, double> layered_keep_highest(int n, int sides, int keep) {
  std::vector<std::vector<long double>> choose(n + 1, std::vector<long double>(n + 1, 0.0L));
  for (int i = 0; i <= n; ++i) {
    choose[i][0] = 1;
    for (int j = 1; j <= i; ++j) choose[i][j] = choose[i - 1][j - 1] + choose[i - 1][j];
  }
  // state[placed][sum]
  const std::size_t width = static_cast<std::size_t>(keep) * sides + 1;
  std::vector<std::vector<long double>> state(n + 1, std::vector<long double>(width, 0.0L));
  state[0][0] = 1;
  for (int v = sides; v >= 1; --v) {
    std::vector<std::vector<long double>> next(n + 1, std::vector<long double>(width, 0.0L));
    // binomial[r][c] = P(c of r dice uniform on 1..v show v)
    std::vector<std::vector<long double>> binomial(n + 1, std::vector<long double>(n + 1, 0.0L));
    for (int r = 0; r <= n; ++r) {
      for (int c = 0; c <= r; ++c) {
        binomial[r][c] = choose[r][c] * std::pow(1.0L / v, c) * std::pow(1 - 1.0L / v, r - c);
      }
    }
    for (int placed = 0; placed <= n; ++placed) {
      const int r = n - placed;
      for (std::size_t sum = 0; sum < width; ++sum) {
        const long double mass = state[placed][sum];
        if (mass == 0) continue;
        for (int c = 0; c <= r; ++c) {
          const int kept = std::min(c, std::max(0, keep - placed));
          next[placed + c][sum + static_cast<std::size_t>(kept) * v] += mass * binomial[r][c];
        }
      }
    }
    state.swap(next);
  }
  std::map<long long, double> out;
  for (std::size_t sum = 0; sum < width; ++sum) {
    if (state[n][sum] > 0) out[static_cast<long long>(sum)] = static_cast<double>(state[n][sum]);
  }
  return out;
}

// The sum of plain dice by repeated convolution in long double, independent of the library's window sums and FFT.
std::vector<long double> plain_dice_reference(const std::vector<std::pair<int, int>>& count_sides) {
  std::vector<long double> p{1.0L};
  for (const auto& [count, sides] : count_sides) {
    for (int i = 0; i < count; ++i) {
      std::vector<long double> next(p.size() + sides - 1, 0.0L);
      for (std::size_t j = 0; j < p.size(); ++j) {
        if (p[j] == 0) continue;
        for (int f = 0; f < sides; ++f) next[j + f] += p[j] / sides;
      }
      p.swap(next);
    }
  }
  return p;
}

// ---------------------------------------------------------------------------------------------------------------

TEST(DiceParse, ReadsEachForm) {
  DiceExpression e = parse_ok("2d6+3");
  ASSERT_EQ(e.terms.size(), 2u);
  EXPECT_EQ(e.terms[0].count, 2);
  EXPECT_EQ(e.terms[0].sides, 6);
  EXPECT_EQ(e.terms[0].keep, Keep::kAll);
  EXPECT_TRUE(e.terms[1].is_constant());
  EXPECT_EQ(e.terms[1].constant, 3);
  EXPECT_EQ(e.to_string(), "2d6 + 3");
  EXPECT_EQ(e.min(), 5);
  EXPECT_EQ(e.max(), 15);

  EXPECT_EQ(parse_ok("1d20").to_string(), "1d20");
  EXPECT_EQ(parse_ok("d20+5").to_string(), "1d20 + 5");
  EXPECT_EQ(parse_ok("3d8 + 1d6 - 2").to_string(), "3d8 + 1d6 - 2");
  EXPECT_EQ(parse_ok("3d8 + 1d6 - 2").terms[2].sign, -1);
  EXPECT_EQ(parse_ok("d%").to_string(), "1d100");
  EXPECT_EQ(parse_ok("10").to_string(), "10");
  EXPECT_EQ(parse_ok("10").min(), 10);
  EXPECT_EQ(parse_ok("0").max(), 0);
  EXPECT_EQ(parse_ok("1d1").to_string(), "1d1");
  EXPECT_EQ(parse_ok("007d006").to_string(), "7d6");
}

TEST(DiceParse, ReadsKeepAndDrop) {
  DiceExpression e = parse_ok("4d6kh3");
  ASSERT_EQ(e.terms.size(), 1u);
  EXPECT_EQ(e.terms[0].keep, Keep::kHighest);
  EXPECT_EQ(e.terms[0].keep_count, 3);
  EXPECT_EQ(e.terms[0].kept(), 3);
  EXPECT_EQ(e.to_string(), "4d6kh3");
  EXPECT_EQ(e.min(), 3);
  EXPECT_EQ(e.max(), 18);

  EXPECT_EQ(parse_ok("2d20kl1").to_string(), "2d20kl1");
  EXPECT_EQ(parse_ok("4d6k3").to_string(), "4d6kh3");
  EXPECT_EQ(parse_ok("4d6dl1").to_string(), "4d6kh3");
  EXPECT_EQ(parse_ok("4d6d1").to_string(), "4d6kh3");
  EXPECT_EQ(parse_ok("5d6dh2").to_string(), "5d6kl3");
  EXPECT_EQ(parse_ok("4d6kh4").to_string(), "4d6kh4");
  EXPECT_EQ(parse_ok("4d6dl0").to_string(), "4d6kh4");
  EXPECT_EQ(parse_ok("d%kh1").to_string(), "1d100kh1");
  EXPECT_EQ(parse_ok("4D6KH3 + D8").to_string(), "4d6kh3 + 1d8");
  EXPECT_EQ(parse_ok("2D20Kl1").to_string(), "2d20kl1");
}

TEST(DiceParse, AcceptsWhitespaceAroundOperatorsAndALeadingSign) {
  EXPECT_EQ(parse_ok("  2d6  +  3  ").to_string(), "2d6 + 3");
  EXPECT_EQ(parse_ok("\t1d4\n-\r1").to_string(), "1d4 - 1");
  const DiceExpression negative = parse_ok("-1d6");
  EXPECT_EQ(negative.to_string(), "-1d6");
  EXPECT_EQ(negative.min(), -6);
  EXPECT_EQ(negative.max(), -1);
  EXPECT_EQ(parse_ok("+ 3").to_string(), "3");
  EXPECT_EQ(parse_ok("-2 + 1d4").to_string(), "-2 + 1d4");
  EXPECT_EQ(parse_ok("5-1d4kh1").min(), 1);
}

TEST(DiceParse, ExplainsEachError) {
  struct Case {
    std::string notation;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "empty dice expression"},
      {"   ", "empty dice expression"},
      {"+", "trailing operator '+' at position 1"},
      {"-", "trailing operator '-' at position 1"},
      {"2d6+", "trailing operator '+' at position 4"},
      {"2d6 - ", "trailing operator '-' at position 5"},
      {"2d6++3", "expected a term after '+' at position 4, found '+'"},
      {"1d6+-2", "expected a term after '+' at position 4, found '-'"},
      {"d", "missing number of sides after 'd' at position 1"},
      {"dd6", "missing number of sides after 'd' at position 1"},
      {"1d", "missing number of sides after 'd' at position 2"},
      {"2d6+1dx", "missing number of sides after 'd' at position 6"},
      {"4d6kh", "missing number of dice after 'kh' at position 4"},
      {"4d6k", "missing number of dice after 'k' at position 4"},
      {"4d6dl", "missing number of dice after 'dl' at position 4"},
      {"4d6d", "missing number of dice after 'd' at position 4"},
      {"1d0", "a die needs at least 1 side: '1d0' at position 1"},
      {"0d6", "a term needs at least 1 die: '0d6' at position 1"},
      {"2d6+0d4", "a term needs at least 1 die: '0d4' at position 5"},
      {"4d6kh5", "cannot keep 5 of 4 dice: '4d6kh5' at position 1"},
      {"4d6kl0", "must keep at least 1 die: '4d6kl0' at position 1"},
      {"4d6dl4", "cannot drop 4 of 4 dice: '4d6dl4' at position 1"},
      {"4d6dh9", "cannot drop 9 of 4 dice: '4d6dh9' at position 1"},
      {"2d6x", "unknown token 'x' at position 4"},
      {"2d6+str", "unknown token 'str' at position 5"},
      {"2d6 * 2", "unknown token '*' at position 5"},
      {"x", "unknown token 'x' at position 1"},
      {"2d6 kh1", "unexpected 'kh' at position 5"},
      {"%", "unexpected '%' at position 1"},
      {"2d6 3", "missing '+' or '-' before '3' at position 5"},
      {"2d6 d8", "missing '+' or '-' before 'd' at position 5"},
      {"d%5", "missing '+' or '-' before '5' at position 3"},
      {"1d20kh1kh1", "unexpected 'kh' at position 8"},
      {"1.5d6", "unknown token '.' at position 2"},
      {"2d6+\xc3\xa9", "unknown token '\\xc3\\xa9' at position 5"},
      {"1d20\xe2\x80\x8b", "unknown token '\\xe2\\x80\\x8b' at position 5"},
      // One character, not the first four bytes of two (a two-byte and a three-byte character here).
      {"2d6+\xc3\xa9\xe2\x80\x8b", "unknown token '\\xc3\\xa9' at position 5"},
      {"\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2", "unknown token '\\xf0\\x9f\\x8e\\xb2' at position 1"},
      {std::string("1d6\0+2", 6), "unknown token '\\x00' at position 4"},
      {std::string("\0", 1), "unknown token '\\x00' at position 1"},
  };
  for (const Case& c : cases) EXPECT_EQ(parse_error(c.notation), c.message) << "notation: " << c.notation;
}

TEST(DiceLimits, RefusesWhatIsTooLargeByName) {
  EXPECT_EQ(parse_error("10000d10000"), "too many dice: '10000d10000' at position 1, the limit is 1000 dice in total");
  EXPECT_EQ(parse_error("1001d6"), "too many dice: '1001d6' at position 1, the limit is 1000 dice in total");
  EXPECT_EQ(parse_error("600d6+401d4"), "too many dice: 1001 in total, the limit is 1000");
  EXPECT_EQ(parse_error("1d1001"), "too many sides: '1d1001' at position 1, the limit is 1000");
  EXPECT_EQ(parse_error("101d6kh1"),
            "too many dice to keep or drop from: '101d6kh1' at position 1, the limit is 100 dice in a term that keeps "
            "or drops");
  EXPECT_EQ(parse_error("1000001"), "constant too large: '1000001' at position 1, the limit is 1000000");
  EXPECT_EQ(parse_error("1d6-1000001"), "constant too large: '1000001' at position 5, the limit is 1000000");
  EXPECT_EQ(parse_error("99999999999999999999d6"),
            "too many dice: '99999999999999999999d6' at position 1, the limit is 1000 dice in total");
  EXPECT_EQ(parse_error("1d99999999999999999999999"),
            "too many sides: '1d99999999999999999999999' at position 1, the limit is 1000");
  EXPECT_EQ(parse_error("99999999999999999999999999999"),
            "constant too large: '99999999999999999999999999999' at position 1, the limit is 1000000");
  EXPECT_EQ(parse_error("4d6kh99999999999999999999"),
            "cannot keep 99999999999999999999 of 4 dice: '4d6kh99999999999999999999' at position 1");
  EXPECT_EQ(parse_error("4d6dl99999999999999999999"),
            "cannot drop 99999999999999999999 of 4 dice: '4d6dl99999999999999999999' at position 1");
  EXPECT_EQ(parse_error("101d6dl200"),
            "too many dice to keep or drop from: '101d6dl200' at position 1, the limit is 100 dice in a term that "
            "keeps or drops");
  EXPECT_EQ(parse_error("100d1000kh51"),
            "too costly to compute exactly: kept dice times sides, summed over the terms that keep or drop dice, is "
            "51000; the limit is 50000 (100d1000kh50 is at it)");
  EXPECT_EQ(parse_error("50d1000kh25 + 50d1000kh26"),
            "too costly to compute exactly: kept dice times sides, summed over the terms that keep or drop dice, is "
            "51000; the limit is 50000 (100d1000kh50 is at it)");

  std::string terms = "1";
  for (int i = 1; i < kMaxTerms; ++i) terms += "+1";
  EXPECT_EQ(parse_error(terms), "");
  EXPECT_EQ(parse_error(terms + "+1"), "too many terms: another one starts at position 41, the limit is 20");

  EXPECT_EQ(parse_error(std::string(200, ' ') + ""), "empty dice expression");
  EXPECT_EQ(parse_error(std::string(201, '1')), "dice notation too long: 201 characters, the limit is 200");

  // At the limits.
  EXPECT_EQ(parse_error("1000d1000"), "");
  EXPECT_EQ(parse_error("100d1000kh50"), "");
  EXPECT_EQ(parse_error("100d1000kh100"), "");  // keeps every die: a plain sum, no keep work
  EXPECT_EQ(parse_error("1d6+1000000-1000000"), "");
  EXPECT_EQ(parse_error("999d6 + 1d20"), "");
}

TEST(DiceLimits, DistributionAndRollRefuseHandBuiltExpressionsOutsideThem) {
  DiceExpression huge;
  huge.terms.push_back(DiceTerm{.sign = 1, .count = 10000, .sides = 10000});
  Result<Distribution> d = distribution(huge);
  ASSERT_FALSE(d.is_ok());
  EXPECT_EQ(d.status().message(), "too many dice: term 1 (10000d10000), the limit is 1000 dice in total");
  EXPECT_FALSE(roll(huge, 1).is_ok());

  DiceExpression bad_keep;
  bad_keep.terms.push_back(DiceTerm{.sign = 1, .count = 4, .sides = 6, .keep = Keep::kHighest, .keep_count = 7});
  EXPECT_EQ(distribution(bad_keep).status().message(), "cannot keep 7 of 4 dice: term 1 (4d6kh7)");

  DiceExpression bad_sign;
  bad_sign.terms.push_back(DiceTerm{.sign = 2, .count = 1, .sides = 6});
  EXPECT_FALSE(roll(bad_sign, 1).is_ok());

  EXPECT_EQ(distribution(DiceExpression{}).status().message(), "empty dice expression");
}

TEST(DiceAdvantage, TurnsEachAddedPlainD20IntoTwoAndKeepsOne) {
  EXPECT_EQ(parse_ok("1d20", Advantage::kAdvantage).to_string(), "2d20kh1");
  EXPECT_EQ(parse_ok("d20+5", Advantage::kAdvantage).to_string(), "2d20kh1 + 5");
  EXPECT_EQ(parse_ok("d20+5", Advantage::kDisadvantage).to_string(), "2d20kl1 + 5");
  EXPECT_EQ(parse_ok("1d20 + 1d4 + 1d20", Advantage::kAdvantage).to_string(), "2d20kh1 + 1d4 + 2d20kh1");
  EXPECT_EQ(parse_ok("d20+5", Advantage::kNone).to_string(), "1d20 + 5");
  // Everything else is left alone.
  EXPECT_EQ(parse_ok("2d20", Advantage::kAdvantage).to_string(), "2d20");
  EXPECT_EQ(parse_ok("1d20kl1", Advantage::kAdvantage).to_string(), "1d20kl1");
  EXPECT_EQ(parse_ok("10 - 1d20", Advantage::kAdvantage).to_string(), "10 - 1d20");
  EXPECT_EQ(parse_ok("2d6 + 20", Advantage::kAdvantage).to_string(), "2d6 + 20");
  // The limits count the added die.
  EXPECT_TRUE(parse_dice("999d6 + 1d20").is_ok());
  Result<DiceExpression> over = parse_dice("999d6 + 1d20", Advantage::kAdvantage);
  ASSERT_FALSE(over.is_ok());
  EXPECT_EQ(over.status().message(), "too many dice: 1001 in total, the limit is 1000");
}

// ---------------------------------------------------------------------------------------------------------------

TEST(DiceDistribution, TwoD6) {
  const Distribution d = distribution_of("2d6");
  EXPECT_EQ(d.min, 2);
  EXPECT_EQ(d.max(), 12);
  EXPECT_NEAR(d.exactly(7), 6.0 / 36, 1e-15);
  EXPECT_NEAR(d.exactly(2), 1.0 / 36, 1e-15);
  EXPECT_NEAR(d.mean(), 7.0, 1e-12);
  EXPECT_NEAR(d.stddev(), std::sqrt(35.0 / 6), 1e-12);
  EXPECT_NEAR(d.at_least(10), 6.0 / 36, 1e-15);
  EXPECT_NEAR(d.at_most(4), 6.0 / 36, 1e-15);
  EXPECT_EQ(d.mode(), 7);
  EXPECT_EQ(d.percentile(0.5), 7);
  // Outside the range.
  EXPECT_EQ(d.exactly(1), 0.0);
  EXPECT_EQ(d.exactly(13), 0.0);
  EXPECT_EQ(d.at_least(2), 1.0);
  EXPECT_EQ(d.at_least(-100), 1.0);
  EXPECT_EQ(d.at_least(13), 0.0);
  EXPECT_EQ(d.at_most(1), 0.0);
  EXPECT_EQ(d.at_most(12), 1.0);
  EXPECT_EQ(d.at_most(1000), 1.0);
}

TEST(DiceDistribution, AdvantageAndDisadvantageOnAD20) {
  const Distribution advantage = distribution_of("1d20", Advantage::kAdvantage);
  EXPECT_EQ(advantage.min, 1);
  EXPECT_EQ(advantage.max(), 20);
  EXPECT_NEAR(advantage.at_least(15), 1 - (14.0 / 20) * (14.0 / 20), 1e-14);
  EXPECT_NEAR(advantage.at_least(15), 0.51, 1e-14);
  EXPECT_NEAR(advantage.exactly(20), 39.0 / 400, 1e-15);
  EXPECT_NEAR(advantage.mean(), 13.825, 1e-12);
  const Distribution disadvantage = distribution_of("1d20", Advantage::kDisadvantage);
  EXPECT_NEAR(disadvantage.at_least(15), (6.0 / 20) * (6.0 / 20), 1e-14);
  EXPECT_NEAR(disadvantage.mean(), 7.175, 1e-12);
  const Distribution with_bonus = distribution_of("d20+5", Advantage::kAdvantage);
  EXPECT_NEAR(with_bonus.at_least(20), 0.51, 1e-14);
}

TEST(DiceDistribution, FourD6DropLowest) {
  const Distribution d = distribution_of("4d6kh3");
  EXPECT_EQ(d.min, 3);
  EXPECT_EQ(d.max(), 18);
  EXPECT_NEAR(d.mean(), 15869.0 / 1296, 1e-12);
  EXPECT_NEAR(d.mean(), 12.2446, 1e-4);
  EXPECT_NEAR(d.exactly(18), 21.0 / 1296, 1e-15);
  EXPECT_NEAR(d.exactly(3), 1.0 / 1296, 1e-15);
  const Distribution dropped = distribution_of("4d6dl1");
  ASSERT_EQ(dropped.p.size(), d.p.size());
  for (std::size_t i = 0; i < d.p.size(); ++i) EXPECT_NEAR(dropped.p[i], d.p[i], 1e-16);
}

TEST(DiceDistribution, EightD6AtLeastThirtyByEnumeration) {
  // Every one of the 6^8 rolls, counted independently of the library.
  std::uint64_t at_least_30 = 0;
  std::uint64_t rolls = 0;
  std::vector<int> dice(8, 1);
  for (;;) {
    int sum = 0;
    for (int f : dice) sum += f;
    at_least_30 += sum >= 30;
    ++rolls;
    int i = 0;
    while (i < 8 && dice[i] == 6) dice[i++] = 1;
    if (i == 8) break;
    ++dice[i];
  }
  ASSERT_EQ(rolls, 1679616u);
  const Distribution d = distribution_of("8d6");
  EXPECT_NEAR(d.at_least(30), static_cast<double>(at_least_30) / rolls, 1e-12);
  EXPECT_NEAR(d.at_most(29), 1 - static_cast<double>(at_least_30) / rolls, 1e-12);
  expect_matches(d, enumerate_term(8, 6, Keep::kAll, 0), 1e-15, "8d6");
}

TEST(DiceDistribution, KeepAndDropMatchEnumeration) {
  struct Case {
    std::string notation;
    int n, sides;
    Keep keep;
    int keep_count;
  };
  const std::vector<Case> cases = {
      {"3d6kl2", 3, 6, Keep::kLowest, 2},    {"5d4kh2", 5, 4, Keep::kHighest, 2},   {"4d6dl1", 4, 6, Keep::kHighest, 3},
      {"2d20kh1", 2, 20, Keep::kHighest, 1}, {"2d20kl1", 2, 20, Keep::kLowest, 1},  {"6d3kh4", 6, 3, Keep::kHighest, 4},
      {"5d6dh1", 5, 6, Keep::kLowest, 4},    {"3d10kh2", 3, 10, Keep::kHighest, 2}, {"4d2kl1", 4, 2, Keep::kLowest, 1},
      {"3d1kh2", 3, 1, Keep::kHighest, 2},   {"7d5kh1", 7, 5, Keep::kHighest, 1},   {"6d4kl5", 6, 4, Keep::kLowest, 5},
      {"4d8kh4", 4, 8, Keep::kHighest, 4},   {"3d12k1", 3, 12, Keep::kHighest, 1},
  };
  for (const Case& c : cases) {
    const Distribution d = distribution_of(c.notation);
    expect_matches(d, enumerate_term(c.n, c.sides, c.keep, c.keep_count), 1e-14, c.notation);
    EXPECT_NEAR(total_probability(d), 1.0, 1e-12) << c.notation;
  }
}

TEST(DiceDistribution, KeepAndDropMatchALayeredComputation) {
  struct Case {
    std::string notation;
    int n, sides, keep;
    bool lowest;
  };
  const std::vector<Case> cases = {
      {"20d20kh10", 20, 20, 10, false}, {"12d100kh4", 12, 100, 4, false}, {"30d10kh29", 30, 10, 29, false},
      {"15d12kl6", 15, 12, 6, true},    {"40d6dl10", 40, 6, 30, false},   {"9d50k1", 9, 50, 1, false},
  };
  for (const Case& c : cases) {
    std::map<long long, double> expected = layered_keep_highest(c.n, c.sides, c.keep);
    if (c.lowest) {
      // The lowest dice showing f are the highest showing sides + 1 - f.
      std::map<long long, double> reflected;
      for (const auto& [sum, p] : expected) reflected[static_cast<long long>(c.keep) * (c.sides + 1) - sum] = p;
      expected = reflected;
    }
    const Distribution d = distribution_of(c.notation);
    expect_matches(d, expected, 1e-14, c.notation);
    EXPECT_NEAR(total_probability(d), 1.0, 1e-12) << c.notation;
  }
}

TEST(DiceDistribution, CombinesTermsAndSigns) {
  const Distribution symmetric = distribution_of("1d4-1d4");
  EXPECT_EQ(symmetric.min, -3);
  EXPECT_EQ(symmetric.max(), 3);
  for (int t = 0; t <= 3; ++t) EXPECT_NEAR(symmetric.exactly(t), symmetric.exactly(-t), 1e-16);
  EXPECT_NEAR(symmetric.exactly(0), 4.0 / 16, 1e-15);
  EXPECT_NEAR(symmetric.mean(), 0.0, 1e-14);

  const Distribution negative = distribution_of("-1d6");
  EXPECT_EQ(negative.min, -6);
  EXPECT_EQ(negative.max(), -1);
  EXPECT_NEAR(negative.mean(), -3.5, 1e-14);

  const auto mixed = add(add(enumerate_term(4, 6, Keep::kHighest, 3), enumerate_term(2, 4, Keep::kLowest, 1, -1)),
                         add(enumerate_term(2, 8, Keep::kAll, 0), {{-3, 1.0}}));
  expect_matches(distribution_of("4d6kh3 - 2d4kl1 + 2d8 - 3"), mixed, 1e-14, "mixed");

  const auto subtracted_keep = add(enumerate_term(1, 20, Keep::kAll, 0), enumerate_term(3, 6, Keep::kHighest, 2, -1));
  expect_matches(distribution_of("1d20 - 3d6kh2"), subtracted_keep, 1e-14, "subtracted keep");

  const auto three_kinds = add(add(enumerate_term(3, 8, Keep::kAll, 0), enumerate_term(1, 6, Keep::kAll, 0)),
                               std::map<long long, double>{{-2, 1.0}});
  expect_matches(distribution_of("3d8 + 1d6 - 2"), three_kinds, 1e-15, "3d8 + 1d6 - 2");
}

TEST(DiceDistribution, ConstantsOnly) {
  const Distribution d = distribution_of("10");
  EXPECT_EQ(d.min, 10);
  EXPECT_EQ(d.max(), 10);
  ASSERT_EQ(d.p.size(), 1u);
  EXPECT_EQ(d.p[0], 1.0);
  EXPECT_EQ(d.mean(), 10.0);
  EXPECT_EQ(d.stddev(), 0.0);
  EXPECT_EQ(d.percentile(0.5), 10);
  EXPECT_EQ(d.mode(), 10);
  EXPECT_EQ(d.at_least(10), 1.0);
  EXPECT_EQ(d.at_least(11), 0.0);
  const Distribution sum = distribution_of("3 - 5 + 1000000");
  EXPECT_EQ(sum.min, 999998);
  EXPECT_EQ(sum.p.size(), 1u);
  const Distribution ones = distribution_of("5d1kh3 + 2d1");
  EXPECT_EQ(ones.min, 5);
  EXPECT_EQ(ones.p.size(), 1u);
}

TEST(DiceDistribution, PercentilesAndMode) {
  for (const char* notation : {"1d100", "d%"}) {
    const Distribution d = distribution_of(notation);
    EXPECT_EQ(d.percentile(0.05), 5) << notation;
    EXPECT_EQ(d.percentile(0.25), 25) << notation;
    EXPECT_EQ(d.percentile(0.5), 50) << notation;
    EXPECT_EQ(d.percentile(0.75), 75) << notation;
    EXPECT_EQ(d.percentile(0.95), 95) << notation;
    EXPECT_EQ(d.percentile(0.951), 96) << notation;
    EXPECT_EQ(d.percentile(0.0), 1) << notation;
    EXPECT_EQ(d.percentile(-1.0), 1) << notation;
    EXPECT_EQ(d.percentile(std::nan("")), 1) << notation;
    EXPECT_EQ(d.percentile(1.0), 100) << notation;
    EXPECT_EQ(d.percentile(2.0), 100) << notation;
    EXPECT_EQ(d.mode(), 1) << notation;  // all equally likely: the smallest
    EXPECT_NEAR(d.mean(), 50.5, 1e-12) << notation;
  }
  const Distribution two_d6 = distribution_of("2d6");
  std::vector<long long> quantiles;
  for (double q : kStandardQuantiles) quantiles.push_back(two_d6.percentile(q));
  EXPECT_EQ(quantiles, (std::vector<long long>{3, 5, 7, 9, 11}));
  EXPECT_EQ(distribution_of("4d6kh3").mode(), 13);
  EXPECT_EQ(distribution_of("2d20kh1").mode(), 20);
  EXPECT_EQ(distribution_of("2d20kl1").mode(), 1);
}

TEST(DiceDistribution, LargeSumsMatchAnIndependentConvolution) {
  // Large enough that the plain dice go through the spectrum rather than window sums.
  const std::vector<long double> reference = plain_dice_reference({{1000, 6}});
  const Distribution d = distribution_of("1000d6");
  ASSERT_EQ(d.p.size(), reference.size());
  double worst = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    worst = std::max(worst, std::abs(d.p[i] - static_cast<double>(reference[i])));
  }
  EXPECT_LT(worst, 1e-15);
  EXPECT_NEAR(d.mean(), 3500.0, 1e-9);
  EXPECT_NEAR(d.stddev(), std::sqrt(1000 * 35.0 / 12), 1e-9);

  // Keep/drop terms convolved with many plain dice of two kinds.
  const std::vector<long double> plain = plain_dice_reference({{600, 6}, {300, 8}});
  const auto keep = enumerate_term(4, 6, Keep::kHighest, 3);
  const Distribution mixed = distribution_of("4d6kh3 + 600d6 - 300d8");
  EXPECT_EQ(mixed.min, 3 + 600 - 2400);
  EXPECT_EQ(mixed.max(), 18 + 3600 - 300);
  worst = 0;
  for (long long t = mixed.min; t <= mixed.max(); ++t) {
    long double want = 0;
    for (const auto& [k, pk] : keep) {
      // 600d6 - 300d8 = (600d6 + 300d8) - 2700: the reference index of a plain total v is v - (600 + 300 - 2700).
      const long long index = t - k - (600 + 300 - 2700);
      if (index >= 0 && index < static_cast<long long>(plain.size())) want += pk * plain[index];
    }
    worst = std::max(worst, std::abs(mixed.exactly(t) - static_cast<double>(want)));
  }
  EXPECT_LT(worst, 1e-15);
}

TEST(DiceDistribution, WorstPlainSumFinishes) {
  const Distribution thousand = distribution_of("1000d1000");
  EXPECT_EQ(thousand.min, 1000);
  EXPECT_EQ(thousand.max(), 1000000);
  EXPECT_NEAR(total_probability(thousand), 1.0, 1e-9);
  EXPECT_NEAR(thousand.mean(), 500500.0, 1e-4);
  EXPECT_NEAR(thousand.stddev(), std::sqrt(1000 * (1000.0 * 1000 - 1) / 12), 1e-4);
  EXPECT_EQ(thousand.percentile(0.5), 500500);
  EXPECT_NEAR(thousand.at_least(500500), thousand.at_most(500500), 1e-12);  // symmetric about 500500
  EXPECT_NEAR(thousand.at_least(500501), thousand.at_most(500499), 1e-12);
  EXPECT_NEAR(thousand.exactly(500500), 4.3695e-5, 1e-9);  // about 1 / (sqrt(2 pi) * stddev)
  EXPECT_EQ(thousand.mode(), 500500);
  EXPECT_EQ(thousand.at_most(1000), 0.0);  // 1000^-1000: below what a double holds
}

TEST(DiceDistribution, WorstKeepTermFinishes) {
  const Distribution keep = distribution_of("100d1000kh50");
  EXPECT_EQ(keep.min, 50);
  EXPECT_EQ(keep.max(), 50000);
  EXPECT_NEAR(total_probability(keep), 1.0, 1e-9);
  for (double p : keep.p) ASSERT_GE(p, 0.0);
  // The highest 50 of 100 uniform dice average about 3/4 of the die each.
  EXPECT_NEAR(keep.mean() / 50, 750.0, 5.0);
}

TEST(DiceDistribution, WorstTwentyTermsFinish) {
  std::string twenty = "50d1000kh25 + 50d1000kh25";
  for (int i = 0; i < 18; ++i) twenty += " + 50d" + std::to_string(1000 - i);
  const Distribution many = distribution_of(twenty);
  EXPECT_NEAR(total_probability(many), 1.0, 1e-9);

  std::string twenty_small = "4d6kh3";
  for (int i = 1; i < kMaxTerms; ++i) twenty_small += i % 2 ? " - 2d20kl1" : " + 3d8";
  const Distribution mixed = distribution_of(twenty_small);
  EXPECT_NEAR(total_probability(mixed), 1.0, 1e-9);
  EXPECT_NEAR(mixed.mean(), 15869.0 / 1296 - 10 * 7.175 + 9 * 13.5, 1e-9);
}

TEST(DiceDistribution, SumsToOne) {
  for (const char* notation : {"1d2", "3d6", "d%", "2d20kh1 + 5", "1d4-1d4", "10d10kl3 - 4", "1d1000", "400d6",
                               "20d20kh10", "2d12 + 3d4 - 1d8", "100d6kh99", "100d6kl1", "-5d4dh2", "1000d2"}) {
    EXPECT_NEAR(total_probability(distribution_of(notation)), 1.0, 1e-9) << notation;
  }
}

// ---------------------------------------------------------------------------------------------------------------

TEST(DiceRoll, IsDeterministicForASeed) {
  const DiceExpression e = parse_ok("4d6kh3 + 1d20 - 2d4 + 3");
  Result<Roll> a = roll(e, 42);
  Result<Roll> b = roll(e, 42);
  ASSERT_TRUE(a.is_ok());
  ASSERT_TRUE(b.is_ok());
  ASSERT_EQ(a->terms.size(), 4u);
  for (std::size_t i = 0; i < a->terms.size(); ++i) {
    EXPECT_EQ(a->terms[i].faces, b->terms[i].faces);
    EXPECT_EQ(a->terms[i].kept, b->terms[i].kept);
    EXPECT_EQ(a->terms[i].subtotal, b->terms[i].subtotal);
  }
  EXPECT_EQ(a->total, b->total);

  // The generator is specified exactly, so these faces are the same with every standard library. They were
  // checked against an independent MT19937-64 written from the published algorithm, drawing as the header says.
  Result<Roll> pinned = roll(parse_ok("8d6 + 2d20 + 3d100 + 1d1000"), 20240601);
  ASSERT_TRUE(pinned.is_ok());
  std::vector<int> faces;
  for (const TermRoll& t : pinned->terms) faces.insert(faces.end(), t.faces.begin(), t.faces.end());
  EXPECT_EQ(faces, (std::vector<int>{3, 6, 6, 3, 2, 1, 2, 2, 11, 19, 34, 91, 100, 311}));

  // Different seeds give different rolls (for this seed pair, checked once).
  Result<Roll> other = roll(parse_ok("10d20"), 43);
  Result<Roll> again = roll(parse_ok("10d20"), 44);
  EXPECT_NE(other->terms[0].faces, again->terms[0].faces);
}

TEST(DiceRoll, FacesKeptFlagsAndTotalsAreConsistent) {
  const DiceExpression e = parse_ok("4d6kh3 + 2d20kl1 - 5d8dh2 + 1d100 + 7 - 3d4k1 + 1d1");
  std::vector<std::set<int>> seen(e.terms.size());
  for (std::uint64_t seed = 0; seed < 500; ++seed) {
    Result<Roll> r = roll(e, seed);
    ASSERT_TRUE(r.is_ok());
    ASSERT_EQ(r->terms.size(), e.terms.size());
    long long total = 0;
    for (std::size_t i = 0; i < e.terms.size(); ++i) {
      const DiceTerm& term = e.terms[i];
      const TermRoll& tr = r->terms[i];
      if (term.is_constant()) {
        EXPECT_TRUE(tr.faces.empty());
        EXPECT_EQ(tr.subtotal, term.sign * term.constant);
        total += tr.subtotal;
        continue;
      }
      ASSERT_EQ(tr.faces.size(), static_cast<std::size_t>(term.count));
      ASSERT_EQ(tr.kept.size(), tr.faces.size());
      long long sum = 0;
      int kept = 0;
      for (std::size_t j = 0; j < tr.faces.size(); ++j) {
        EXPECT_GE(tr.faces[j], 1);
        EXPECT_LE(tr.faces[j], term.sides);
        seen[i].insert(tr.faces[j]);
        if (tr.kept[j]) {
          sum += tr.faces[j];
          ++kept;
        }
      }
      EXPECT_EQ(kept, term.kept());
      // Every kept face is at least (at most) every dropped one.
      for (std::size_t j = 0; j < tr.faces.size(); ++j) {
        for (std::size_t k = 0; k < tr.faces.size(); ++k) {
          if (!tr.kept[j] || tr.kept[k]) continue;
          if (term.keep == Keep::kHighest) {
            EXPECT_GE(tr.faces[j], tr.faces[k]);
          } else {
            EXPECT_LE(tr.faces[j], tr.faces[k]);
          }
        }
      }
      EXPECT_EQ(tr.subtotal, term.sign * sum);
      total += tr.subtotal;
    }
    EXPECT_EQ(r->total, total);
    EXPECT_GE(r->total, e.min());
    EXPECT_LE(r->total, e.max());
  }
  // Over 500 rolls every face of the small dice shows up.
  EXPECT_EQ(seen[0].size(), 6u);
  EXPECT_EQ(seen[1].size(), 20u);
  EXPECT_EQ(seen[2].size(), 8u);
  EXPECT_EQ(seen[5].size(), 4u);
}

TEST(DiceRoll, BreaksTiesTowardTheEarlierDie) {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    Result<Roll> r = roll(parse_ok("6d2kh2"), seed);
    ASSERT_TRUE(r.is_ok());
    const TermRoll& t = r->terms[0];
    // Among dice showing the lowest kept face, the kept ones come first.
    int lowest_kept = 3;
    for (std::size_t j = 0; j < t.faces.size(); ++j) {
      if (t.kept[j]) lowest_kept = std::min(lowest_kept, t.faces[j]);
    }
    bool dropped_one = false;
    for (std::size_t j = 0; j < t.faces.size(); ++j) {
      if (t.faces[j] != lowest_kept) continue;
      if (t.kept[j]) {
        EXPECT_FALSE(dropped_one) << "seed " << seed;
      } else {
        dropped_one = true;
      }
    }
  }
}

TEST(DiceRoll, RollsTheWorstAcceptedInput) {
  Result<Roll> r = roll(parse_ok("1000d1000"), 7);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->terms[0].faces.size(), 1000u);
  EXPECT_GE(r->total, 1000);
  EXPECT_LE(r->total, 1000000);
}

TEST(DiceRoll, RandomSeedsDiffer) {
  std::set<std::uint64_t> seeds;
  for (int i = 0; i < 8; ++i) seeds.insert(random_seed());
  EXPECT_GT(seeds.size(), 1u);
}

}  // namespace
}  // namespace lorekeeper::gm
