#include "lorekeeper/model/challenge.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <system_error>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::model {
namespace {

struct CrRow {
  double cr;
  long long xp;
  int proficiency;
};

// SRD 5.1, Monsters: "Experience Points by Challenge Rating" and "Proficiency Bonus by Challenge Rating"
// (CR 0 counted at 10 XP, see xp_for_cr).
constexpr std::array<CrRow, 34> kCrTable = {{
    {0.0, 10, 2},   {0.125, 25, 2}, {0.25, 50, 2},   {0.5, 100, 2},   {1, 200, 2},     {2, 450, 2},     {3, 700, 2},
    {4, 1100, 2},   {5, 1800, 3},   {6, 2300, 3},    {7, 2900, 3},    {8, 3900, 3},    {9, 5000, 4},    {10, 5900, 4},
    {11, 7200, 4},  {12, 8400, 4},  {13, 10000, 5},  {14, 11500, 5},  {15, 13000, 5},  {16, 15000, 5},  {17, 18000, 6},
    {18, 20000, 6}, {19, 22000, 6}, {20, 25000, 6},  {21, 33000, 7},  {22, 41000, 7},  {23, 50000, 7},  {24, 62000, 7},
    {25, 75000, 8}, {26, 90000, 8}, {27, 105000, 8}, {28, 120000, 8}, {29, 135000, 9}, {30, 155000, 9},
}};

const CrRow* find_cr(double cr) {
  for (const CrRow& row : kCrTable) {
    if (row.cr == cr) return &row;
  }
  return nullptr;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The text quoted in an error message, shortened if long.
std::string quoted(std::string_view s) {
  constexpr std::size_t kMaxQuoted = 40;
  if (s.size() <= kMaxQuoted) return "'" + std::string(s) + "'";
  return "'" + std::string(s.substr(0, kMaxQuoted)) + "...'";
}

// An unsigned decimal number: digits with at most one '.', at least one digit. nullopt for anything else.
std::optional<double> unsigned_decimal(std::string_view s) {
  if (s.empty() || s.size() > 24) return std::nullopt;
  int dots = 0;
  int digits = 0;
  for (char c : s) {
    if (c == '.') {
      ++dots;
    } else if (is_digit(c)) {
      ++digits;
    } else {
      return std::nullopt;
    }
  }
  if (dots > 1 || digits == 0) return std::nullopt;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, std::chars_format::fixed);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<long long> xp_for_cr(double cr) {
  const CrRow* row = find_cr(cr);
  if (row == nullptr) return std::nullopt;
  return row->xp;
}

std::pair<double, double> neighbouring_crs(double cr) {
  const auto at = std::lower_bound(kCrTable.begin(), kCrTable.end(), cr - 1e-9,
                                   [](const CrRow& row, double v) { return row.cr < v; });
  const size_t i = std::min(static_cast<size_t>(at - kCrTable.begin()), kCrTable.size() - 1);
  return {kCrTable[i == 0 ? 0 : i - 1].cr, kCrTable[std::min(i + 1, kCrTable.size() - 1)].cr};
}

std::optional<int> proficiency_for_cr(double cr) {
  const CrRow* row = find_cr(cr);
  if (row == nullptr) return std::nullopt;
  return row->proficiency;
}

Result<double> parse_cr(std::string_view text) {
  const std::string trimmed = text::trim(text);
  const std::string_view t = trimmed;
  if (t.empty()) return Status::invalid_argument("empty challenge rating; " + std::string(kCrExpectation));
  if (t == "\u215B") return 0.125;  // ⅛
  if (t == "\u00BC") return 0.25;   // ¼
  if (t == "\u00BD") return 0.5;    // ½

  std::string_view body = t;
  const bool negative = body.front() == '-';
  if (body.front() == '-' || body.front() == '+') body.remove_prefix(1);

  double value = 0;
  if (const std::size_t slash = body.find('/'); slash != std::string_view::npos) {
    const std::string_view num_text = body.substr(0, slash);
    const std::string_view den_text = body.substr(slash + 1);
    const auto all_digits = [](std::string_view s) {
      if (s.empty() || s.size() > 9) return false;
      for (char c : s) {
        if (!is_digit(c)) return false;
      }
      return true;
    };
    if (!all_digits(num_text) || !all_digits(den_text)) {
      return Status::invalid_argument(quoted(t) + " is not a challenge rating; " + std::string(kCrExpectation));
    }
    long long num = 0;
    long long den = 0;
    std::from_chars(num_text.data(), num_text.data() + num_text.size(), num);
    std::from_chars(den_text.data(), den_text.data() + den_text.size(), den);
    if (den == 0) {
      return Status::invalid_argument(quoted(t) + " divides by zero; " + std::string(kCrExpectation));
    }
    value = static_cast<double>(num) / static_cast<double>(den);
  } else {
    const std::optional<double> parsed = unsigned_decimal(body);
    if (!parsed) {
      return Status::invalid_argument(quoted(t) + " is not a challenge rating; " + std::string(kCrExpectation));
    }
    value = *parsed;
  }
  if (negative && value != 0) value = -value;

  if (value < kMinCr || value > kMaxCr) {
    return Status::invalid_argument("challenge rating " + quoted(t) +
                                    " is out of range: challenge ratings run from 0 to 30");
  }
  if (find_cr(value) == nullptr) {
    return Status::invalid_argument(quoted(t) +
                                    " is not a challenge rating: below 1 the ratings are 0, 1/8, 1/4 and 1/2, from 1 "
                                    "to 30 they are whole numbers");
  }
  return value;
}

std::string cr_text(double cr) {
  if (std::fabs(cr - 0.125) < 1e-9) return "1/8";
  if (std::fabs(cr - 0.25) < 1e-9) return "1/4";
  if (std::fabs(cr - 0.5) < 1e-9) return "1/2";
  return text::format_number(cr);
}

}  // namespace lorekeeper::model
