#include "lorekeeper/gm/dice.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>
#include <random>
#include <utility>

namespace lorekeeper::gm {
namespace {

// Numbers in the notation saturate here, far above every limit, so "99999999999999999999d6" is refused cleanly.
constexpr long long kSaturated = 1'000'000'000'000'000LL;
// Convolutions and dice sums cheaper than this many operations are done directly, which keeps full relative
// precision; costlier ones go through an FFT.
constexpr double kDirectWork = 1e6;
// Probabilities below this are treated as zero where skipping them saves work (and avoids denormals).
constexpr double kNegligible = 1e-300;

Status invalid(std::string message) { return Status::invalid_argument(std::move(message)); }

std::string quoted_bytes(std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  std::string out = "'";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out + "'";
}

bool is_ascii_digit(int c) { return c >= '0' && c <= '9'; }
bool is_ascii_letter(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// The token starting at `pos` as shown in a message: a run of letters or of digits, one UTF-8 character (its lead
// byte and continuation bytes), otherwise the single byte.
std::string token_at(std::string_view s, std::size_t pos) {
  const auto c = static_cast<unsigned char>(s[pos]);
  if (c >= 0xC0) {
    std::size_t end = pos + 1;
    const std::size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    while (end < s.size() && end - pos < length && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
    return quoted_bytes(s.substr(pos, end - pos));
  }
  const auto same_kind = [c](unsigned char b) {
    if (is_ascii_letter(c)) return is_ascii_letter(b);
    return is_ascii_digit(c) ? is_ascii_digit(b) : c >= 0x80 && b >= 0x80;
  };
  const std::size_t longest = c >= 0x80 ? 4 : 20;
  std::size_t end = pos + 1;
  while (end < s.size() && end - pos < longest && same_kind(static_cast<unsigned char>(s[end]))) ++end;
  return quoted_bytes(s.substr(pos, end - pos));
}

std::string at_position(std::size_t pos) { return " at position " + std::to_string(pos + 1); }

// Limits, shared by the parser (which names the term's text and position) and by distribution() and roll(), which
// accept hand-built expressions too.

// A term as written, before its numbers are known to fit an int.
struct RawTerm {
  int sign = 1;
  long long count = 0;
  long long sides = 0;
  long long constant = 0;
  DiceTerm::Keep keep = DiceTerm::Keep::kAll;
  long long keep_count = 0;
  bool is_constant = false;
  bool dropping = false;  // written as a drop ("dl1"): keep_count is what the drop leaves
  long long drop_count = 0;
  std::string selector_text = {};  // the keep or drop count as written, so messages quote it; empty: keep_count
};

Status check_term(const RawTerm& t, const std::string& where) {
  if (t.sign != 1 && t.sign != -1) return invalid("a term's sign must be +1 or -1: " + where);
  if (t.is_constant) {
    if (t.constant < 0) return invalid("a constant must not be negative: " + where);
    if (t.constant > kMaxConstant) {
      return invalid("constant too large: " + where + ", the limit is " + std::to_string(kMaxConstant));
    }
    return Status::ok();
  }
  if (t.count < 1) return invalid("a term needs at least 1 die: " + where);
  if (t.sides < 1) return invalid("a die needs at least 1 side: " + where);
  if (t.count > kMaxDice) {
    return invalid("too many dice: " + where + ", the limit is " + std::to_string(kMaxDice) + " dice in total");
  }
  if (t.sides > kMaxSides) return invalid("too many sides: " + where + ", the limit is " + std::to_string(kMaxSides));
  if (t.keep != DiceTerm::Keep::kAll) {
    if (t.count > kMaxKeepDropDice) {
      return invalid("too many dice to keep or drop from: " + where + ", the limit is " +
                     std::to_string(kMaxKeepDropDice) + " dice in a term that keeps or drops");
    }
    const std::string written = t.selector_text.empty() ? std::to_string(t.keep_count) : t.selector_text;
    if (t.dropping && t.drop_count >= t.count) {
      return invalid("cannot drop " + written + " of " + std::to_string(t.count) + " dice: " + where);
    }
    if (t.keep_count < 1) return invalid("must keep at least 1 die: " + where);
    if (t.keep_count > t.count) {
      return invalid("cannot keep " + written + " of " + std::to_string(t.count) + " dice: " + where);
    }
  }
  return Status::ok();
}

Status check_totals(const std::vector<DiceTerm>& terms) {
  if (terms.empty()) return invalid("empty dice expression");
  if (terms.size() > static_cast<std::size_t>(kMaxTerms)) {
    return invalid("too many terms: " + std::to_string(terms.size()) + ", the limit is " + std::to_string(kMaxTerms));
  }
  long long dice = 0;
  long long keep_work = 0;
  for (const DiceTerm& t : terms) {
    dice += t.count;
    if (t.keep != DiceTerm::Keep::kAll && t.keep_count < t.count) {
      keep_work += static_cast<long long>(t.keep_count) * t.sides;
    }
  }
  if (dice > kMaxDice) {
    return invalid("too many dice: " + std::to_string(dice) + " in total, the limit is " + std::to_string(kMaxDice));
  }
  if (keep_work > kMaxKeepWork) {
    return invalid(
        "too costly to compute exactly: kept dice times sides, summed over the terms that keep or drop dice, is " +
        std::to_string(keep_work) + "; the limit is " + std::to_string(kMaxKeepWork) + " (100d1000kh50 is at it)");
  }
  return Status::ok();
}

Status validate(const DiceExpression& e) {
  for (std::size_t i = 0; i < e.terms.size(); ++i) {
    const DiceTerm& t = e.terms[i];
    const RawTerm raw{.sign = t.sign,
                      .count = t.count,
                      .sides = t.sides,
                      .constant = t.constant,
                      .keep = t.keep,
                      .keep_count = t.keep_count,
                      .is_constant = t.is_constant()};
    if (t.is_constant() && (t.count != 0 || t.keep != DiceTerm::Keep::kAll)) {
      return invalid("a constant has no dice: term " + std::to_string(i + 1));
    }
    LOREKEEPER_RETURN_IF_ERROR(check_term(raw, "term " + std::to_string(i + 1) + " (" + t.to_string() + ")"));
  }
  return check_totals(e.terms);
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Result<DiceExpression> parse() {
    if (s_.size() > kMaxNotationLength) {
      return invalid("dice notation too long: " + std::to_string(s_.size()) + " characters, the limit is " +
                     std::to_string(kMaxNotationLength));
    }
    DiceExpression e;
    skip_space();
    if (at_end()) return invalid("empty dice expression");
    int sign = 1;
    if (peek() == '+' || peek() == '-') LOREKEEPER_RETURN_IF_ERROR(operator_then_term(sign));
    for (;;) {
      if (e.terms.size() == static_cast<std::size_t>(kMaxTerms)) {
        return invalid("too many terms: another one starts" + at_position(pos_) + ", the limit is " +
                       std::to_string(kMaxTerms));
      }
      DiceTerm term;
      LOREKEEPER_RETURN_IF_ERROR(parse_term(sign, term));
      e.terms.push_back(term);
      skip_space();
      if (at_end()) break;
      const int c = peek();
      if (c == '+' || c == '-') {
        LOREKEEPER_RETURN_IF_ERROR(operator_then_term(sign));
      } else if (is_ascii_digit(c) || c == 'd') {
        return invalid("missing '+' or '-' before " + token_at(s_, pos_) + at_position(pos_));
      } else {
        return unexpected();
      }
    }
    return e;
  }

 private:
  bool at_end() const { return pos_ >= s_.size(); }
  // The lower-cased byte at the cursor, or -1 at the end (an embedded NUL is a byte like any other).
  int peek() const {
    if (at_end()) return -1;
    const auto c = static_cast<unsigned char>(s_[pos_]);
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
  }
  void skip_space() {
    while (!at_end() && is_space(peek())) ++pos_;
  }

  // Something that cannot stand at the cursor: a known symbol in the wrong place or a foreign one.
  Status unexpected() const {
    const int c = peek();
    const bool known = c == 'k' || c == 'h' || c == 'l' || c == '%';
    return invalid((known ? "unexpected " : "unknown token ") + token_at(s_, pos_) + at_position(pos_));
  }

  // Consumes a '+' or '-' and the whitespace after it, and checks that a term follows.
  Status operator_then_term(int& sign) {
    const std::size_t op = pos_;
    sign = peek() == '-' ? -1 : 1;
    ++pos_;
    skip_space();
    if (at_end()) return invalid("trailing operator " + quoted_bytes(s_.substr(op, 1)) + at_position(op));
    if (peek() == '+' || peek() == '-') {
      return invalid("expected a term after " + quoted_bytes(s_.substr(op, 1)) + at_position(op) + ", found " +
                     quoted_bytes(s_.substr(pos_, 1)));
    }
    return Status::ok();
  }

  // Reads a run of digits, saturating at kSaturated; false (nothing consumed) when there is none.
  bool number(long long& value) {
    if (at_end() || !is_ascii_digit(peek())) return false;
    value = 0;
    while (!at_end() && is_ascii_digit(peek())) {
      value = std::min(kSaturated, value * 10 + (peek() - '0'));
      ++pos_;
    }
    return true;
  }

  Status parse_term(int sign, DiceTerm& out) {
    const std::size_t start = pos_;
    RawTerm raw;
    raw.sign = sign;
    long long count = 1;
    const bool has_count = number(count);
    if (peek() != 'd') {
      if (!has_count) return unexpected();
      raw.is_constant = true;
      raw.constant = count;
    } else {
      const std::size_t d_pos = pos_++;
      raw.count = count;
      if (peek() == '%') {
        ++pos_;
        raw.sides = 100;
      } else if (!number(raw.sides)) {
        return invalid("missing number of sides after 'd'" + at_position(d_pos));
      }
      if (peek() == 'k' || peek() == 'd') {
        const std::size_t selector = pos_;
        raw.dropping = peek() == 'd';
        ++pos_;
        bool highest = !raw.dropping;  // "k" keeps the highest, "d" drops the lowest
        if (peek() == 'h' || peek() == 'l') {
          highest = peek() == 'h';
          ++pos_;
        }
        long long n = 0;
        const std::size_t digits = pos_;
        if (!number(n)) {
          return invalid("missing number of dice after " + quoted_bytes(s_.substr(selector, pos_ - selector)) +
                         at_position(selector));
        }
        raw.selector_text = std::string(s_.substr(digits, pos_ - digits));
        if (raw.dropping) {
          raw.drop_count = n;
          // Dropping the highest keeps the lowest, and the other way round.
          raw.keep = highest ? DiceTerm::Keep::kLowest : DiceTerm::Keep::kHighest;
          raw.keep_count = std::max(0LL, count - n);
        } else {
          raw.keep = highest ? DiceTerm::Keep::kHighest : DiceTerm::Keep::kLowest;
          raw.keep_count = n;
        }
      }
    }
    const std::string where = quoted_bytes(s_.substr(start, pos_ - start)) + at_position(start);
    LOREKEEPER_RETURN_IF_ERROR(check_term(raw, where));
    out = {sign,     static_cast<int>(raw.count),     static_cast<int>(raw.sides), raw.constant,
           raw.keep, static_cast<int>(raw.keep_count)};
    return Status::ok();
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

// out[t] = scale * (in[t] + in[t-1] + ... + in[t-width+1]) for t in [0, n + width - 1). in[] must be readable on
// [-width, n + width) and zero outside [0, n), so no index needs a check. The sums are running sums, forward on the
// first half and backward on the second: on the sequences summed here (near-symmetric, unimodal) each then adds
// what enters the window before it subtracts what leaves while the values grow, so the tails keep their relative
// precision. The two chains of additions are independent, so the processor overlaps them.
void window_sums(const double* in, std::ptrdiff_t n, std::ptrdiff_t width, double scale, double* out) {
  const std::ptrdiff_t len = n + width - 1;
  const std::ptrdiff_t split = (len + 1) / 2;  // forward sums fill [0, split), backward ones [split, len)
  double fwd = 0;
  double bwd = 0;
  for (std::ptrdiff_t i = 0; i < len - split; ++i) {
    fwd += in[i] - in[i - width];
    out[i] = std::max(0.0, fwd) * scale;
    const std::ptrdiff_t t = len - 1 - i;
    bwd += in[t - width + 1] - in[t + 1];
    out[t] = std::max(0.0, bwd) * scale;
  }
  if (2 * split > len) {  // odd length: the middle value
    fwd += in[split - 1] - in[split - 1 - width];
    out[split - 1] = std::max(0.0, fwd) * scale;
  }
}

// A sequence that grows by window sums, kept in two buffers with zeros around it (see window_sums).
class GrowingSequence {
 public:
  // Room for max_len values and windows up to max_width wide; starts as {1}.
  GrowingSequence(std::size_t max_len, std::size_t max_width)
      : pad_(max_width + 1), cur_(max_len + 2 * pad_, 0.0), next_(cur_.size(), 0.0) {
    cur_[pad_] = 1.0;
  }
  // Starts over as the single value v, with max_len values of room.
  void reset(double v, std::size_t max_len) {
    std::fill_n(cur_.begin(), std::min(cur_.size(), max_len + 2 * pad_), 0.0);
    std::fill_n(next_.begin(), std::min(next_.size(), max_len + 2 * pad_), 0.0);
    cur_[pad_] = v;
    len_ = 1;
  }
  // Replaces the sequence s by {head, (g * s)...} when shift is 1 or by g * s when it is 0, g being uniform on
  // `width` consecutive values.
  void add_uniform(int width, std::size_t shift, double head) {
    window_sums(cur_.data() + pad_, static_cast<std::ptrdiff_t>(len_), width, 1.0 / width, next_.data() + pad_ + shift);
    if (shift > 0) next_[pad_] = head;
    len_ += width - 1 + shift;
    cur_.swap(next_);
  }
  const double* data() const { return cur_.data() + pad_; }
  std::size_t size() const { return len_; }

 private:
  std::size_t pad_;
  std::vector<double> cur_;
  std::vector<double> next_;
  std::size_t len_ = 1;
};

using Complex = std::complex<double>;

// std::complex's operator* checks for infinities and NaNs on every product; these values have none.
Complex multiply(Complex a, Complex b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// Radix-2 FFT of one power-of-two size. Twiddles come from a table of sin(pi j / n) filled with std::sin, not from
// a recurrence, so their error does not grow with n; the same table gives the closed-form spectrum of a die.
class Fft {
 public:
  explicit Fft(std::size_t n) : n_(static_cast<long long>(n)), quarter_(n / 2 + 1), roots_(n / 2) {
    for (std::size_t j = 0; j <= n / 2; ++j)
      quarter_[j] = std::sin(std::numbers::pi * static_cast<double>(j) / static_cast<double>(n_));
    for (std::size_t k = 0; k < n / 2; ++k) roots_[k] = {cos_pi(2 * k), -sin_pi(2 * k)};
  }

  // sin(pi j / n) and cos(pi j / n) for any integer j.
  double sin_pi(long long j) const {
    long long r = (j % (2 * n_) + 2 * n_) % (2 * n_);  // sin(pi (n + r) / n) = -sin(pi r / n), sin(pi - a) = sin(a)
    const double sign = r >= n_ ? -1.0 : 1.0;
    r %= n_;
    return sign * quarter_[static_cast<std::size_t>(std::min(r, n_ - r))];
  }
  double cos_pi(long long j) const { return sin_pi(j + n_ / 2); }

  // In place; the inverse is unscaled (divide by n).
  void transform(std::vector<Complex>& a, bool inverse) const {
    const auto n = static_cast<std::size_t>(n_);
    for (std::size_t i = 1, j = 0; i < n; ++i) {
      std::size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    const double sign = inverse ? -1.0 : 1.0;
    for (std::size_t len = 2; len <= n; len <<= 1) {
      const std::size_t half = len / 2;
      const std::size_t step = n / len;
      for (std::size_t i = 0; i < n; i += len) {
        for (std::size_t k = 0; k < half; ++k) {
          const Complex root{roots_[k * step].real(), sign * roots_[k * step].imag()};
          const Complex u = a[i + k];
          const Complex v = multiply(a[i + k + half], root);
          a[i + k] = u + v;
          a[i + k + half] = u - v;
        }
      }
    }
  }

 private:
  long long n_;
  std::vector<double> quarter_;  // sin(pi j / n) for j in [0, n/2]
  std::vector<Complex> roots_;   // exp(-2 pi i k / n) for k in [0, n/2)
};

std::size_t fft_size(std::size_t at_least) {
  std::size_t n = 4;
  while (n < at_least) n <<= 1;
  return n;
}

// The inverse transform's real part, scaled. Its rounding error is about eps * log2(n) * |p|_2 on every value, so
// values below twice that are noise (the true ones are smaller still) and become 0; keeping them, or clamping only
// the negative ones, would add up to a visible bias in the total mass and the mean.
std::vector<double> real_part(const std::vector<Complex>& a, std::size_t len) {
  std::vector<double> out(len);
  const double scale = 1.0 / static_cast<double>(a.size());
  double squares = 0;
  for (std::size_t i = 0; i < len; ++i) {
    out[i] = a[i].real() * scale;
    squares += out[i] * out[i];
  }
  const double floor =
      2 * std::numeric_limits<double>::epsilon() * std::log2(static_cast<double>(a.size())) * std::sqrt(squares);
  for (double& v : out) v = v > floor ? v : 0.0;
  return out;
}

std::vector<Complex> spectrum(const Fft& fft, const std::vector<double>& v, std::size_t n) {
  std::vector<Complex> a(n);
  for (std::size_t i = 0; i < v.size(); ++i) a[i] = v[i];
  fft.transform(a, false);
  return a;
}

std::vector<double> convolve(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t len = a.size() + b.size() - 1;
  if (static_cast<double>(a.size()) * static_cast<double>(b.size()) <= kDirectWork) {
    std::vector<double> out(len, 0.0);
    for (std::size_t i = 0; i < a.size(); ++i) {
      for (std::size_t j = 0; j < b.size(); ++j) out[i + j] += a[i] * b[j];
    }
    return out;
  }
  const Fft fft(fft_size(len));
  std::vector<Complex> x = spectrum(fft, a, fft_size(len));
  const std::vector<Complex> y = spectrum(fft, b, fft_size(len));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = multiply(x[k], y[k]);
  fft.transform(x, true);
  return real_part(x, len);
}

double power(double a, int n) {
  double r = 1.0;
  for (; n > 0; n >>= 1, a *= a) {
    if (n & 1) r *= a;
  }
  return r;
}

// P(Binomial(r, p) >= k) for 1 <= k <= r and 0 < p < 1.
double binomial_tail(int r, int k, double p, const std::vector<double>& log_factorial) {
  const double q = 1.0 - p;
  double term =
      std::exp(log_factorial[r] - log_factorial[k] - log_factorial[r - k] + k * std::log(p) + (r - k) * std::log(q));
  double sum = term;
  for (int j = k; j < r; ++j) {
    const double ratio = (static_cast<double>(r - j) / (j + 1)) * (p / q);
    term *= ratio;
    sum += term;
    if (ratio < 1.0 && term < sum * 1e-18) break;  // the ratios only shrink from here
  }
  return std::min(1.0, sum);
}

// The distribution of the sum of the highest `keep` of `n` dice of `sides` sides (1 <= keep < n), indexed by
// sum - keep. Condition on x, the value of the keep-th highest die, and on A < keep, the number of dice above x:
// the A dice are uniform on x+1..sides, at least keep - A of the other n - A dice (uniform on 1..x) show x, and
// the kept sum is keep * x plus the sum of A dice uniform on 1..m, m = sides - x. So
//   P(sum = keep*x + t) = sum over A of W(x, A) * P(A dice of m sides sum to t), with
//   W(x, A) = C(n, A) (m/sides)^A (x/sides)^(n-A) * P(Binomial(n - A, 1/x) >= keep - A).
// For each x the polynomial sum_A W(x, A) g^A (g: one die of m sides) is evaluated by Horner's rule, each
// multiplication by g being a window sum, about keep^2 * m / 2 operations; over all x about (keep * sides)^2 / 4,
// which kMaxKeepWork bounds.
std::vector<double> keep_highest(int n, int sides, int keep) {
  std::vector<double> log_factorial(n + 1, 0.0);
  for (int i = 1; i <= n; ++i) log_factorial[i] = log_factorial[i - 1] + std::log(static_cast<double>(i));
  std::vector<double> out(static_cast<std::size_t>(keep) * (sides - 1) + 1, 0.0);
  std::vector<double> weight(keep);
  GrowingSequence poly(out.size(), sides);
  for (int x = 1; x <= sides; ++x) {
    const int m = sides - x;
    for (int a = 0; a < keep; ++a) {
      if (m == 0 && a > 0) {
        weight[a] = 0.0;
        continue;
      }
      double log_p = log_factorial[n] - log_factorial[a] - log_factorial[n - a] +
                     (n - a) * std::log(static_cast<double>(x) / sides);
      if (a > 0) log_p += a * std::log(static_cast<double>(m) / sides);
      const double tail = x == 1 ? 1.0 : binomial_tail(n - a, keep - a, 1.0 / x, log_factorial);
      weight[a] = std::exp(log_p) * tail;
    }
    int top = keep - 1;
    while (top >= 0 && weight[top] < kNegligible) --top;
    if (top < 0) continue;
    poly.reset(weight[top], static_cast<std::size_t>(top) * m + 1);
    for (int a = top - 1; a >= 0; --a) {
      // g has faces 1..m, so g * poly starts one place up and the new constant term is weight[a].
      poly.add_uniform(m, 1, weight[a] < kNegligible ? 0.0 : weight[a]);
    }
    const std::size_t base = static_cast<std::size_t>(keep) * (x - 1);
    for (std::size_t t = 0; t < poly.size(); ++t) out[base + t] += poly.data()[t];
  }
  return out;
}

// The least and most a term can add before its sign.
long long lowest(const DiceTerm& t) { return t.is_constant() ? t.constant : t.kept(); }
long long highest(const DiceTerm& t) {
  return t.is_constant() ? t.constant : static_cast<long long>(t.kept()) * t.sides;
}

}  // namespace

std::string DiceTerm::to_string() const {
  if (is_constant()) return std::to_string(constant);
  std::string s = std::to_string(count) + "d" + std::to_string(sides);
  if (keep == Keep::kHighest) s += "kh" + std::to_string(keep_count);
  if (keep == Keep::kLowest) s += "kl" + std::to_string(keep_count);
  return s;
}

std::string DiceExpression::to_string() const {
  std::string s;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i > 0 || terms[i].sign < 0) s += i == 0 ? "-" : terms[i].sign < 0 ? " - " : " + ";
    s += terms[i].to_string();
  }
  return s;
}

long long DiceExpression::min() const {
  long long total = 0;
  for (const DiceTerm& t : terms) total += t.sign > 0 ? lowest(t) : -highest(t);
  return total;
}

long long DiceExpression::max() const {
  long long total = 0;
  for (const DiceTerm& t : terms) total += t.sign > 0 ? highest(t) : -lowest(t);
  return total;
}

Result<DiceExpression> parse_dice(std::string_view notation, Advantage advantage) {
  Result<DiceExpression> parsed = Parser(notation).parse();
  if (!parsed.is_ok()) return parsed;
  DiceExpression e = std::move(parsed).value();
  if (advantage != Advantage::kNone) {
    for (DiceTerm& t : e.terms) {
      if (t.sign > 0 && t.count == 1 && t.sides == 20 && t.keep == DiceTerm::Keep::kAll) {
        t.count = 2;
        t.keep = advantage == Advantage::kAdvantage ? DiceTerm::Keep::kHighest : DiceTerm::Keep::kLowest;
        t.keep_count = 1;
      }
    }
  }
  LOREKEEPER_RETURN_IF_ERROR(validate(e));
  return e;
}

Result<Distribution> distribution(const DiceExpression& expression) {
  LOREKEEPER_RETURN_IF_ERROR(validate(expression));
  Distribution d;
  d.min = expression.min();
  // The limits bound the number of totals by 999,001 (1000d1000). Plain dice are uniform on 0..sides-1 above their
  // lowest value whatever their sign, so only their sides and counts matter; keep/drop terms become explicit
  // distributions, reversed when subtracted.
  std::map<int, int> plain;  // sides -> dice
  std::vector<std::vector<double>> explicit_terms;
  for (const DiceTerm& t : expression.terms) {
    if (t.is_constant() || t.sides == 1) continue;
    if (t.kept() == t.count) {
      plain[t.sides] += t.count;
      continue;
    }
    // Keeping the lowest of dice showing f is keeping the highest of dice showing sides + 1 - f: the same
    // distribution reversed. Subtracting a term reverses it again.
    explicit_terms.push_back(keep_highest(t.count, t.sides, t.keep_count));
    if ((t.keep == DiceTerm::Keep::kLowest) != (t.sign < 0)) {
      std::reverse(explicit_terms.back().begin(), explicit_terms.back().end());
    }
  }
  std::sort(explicit_terms.begin(), explicit_terms.end(),
            [](const auto& a, const auto& b) { return a.size() < b.size(); });
  std::vector<double> acc{1.0};
  for (const auto& term : explicit_terms) acc = convolve(acc, term);

  // Adding one die to a distribution is a window sum, O(support); many dice on a large support go through the
  // spectrum instead, where a die's transform has a closed form and n dice are its n-th power.
  double dice_work = 0;
  std::size_t dice_len = 1;
  for (const auto& [sides, count] : plain) {
    for (int i = 0; i < count; ++i) {
      dice_work += static_cast<double>(dice_len + sides);
      dice_len += sides - 1;
    }
  }
  const std::size_t len = dice_len + acc.size() - 1;
  if (dice_work <= kDirectWork) {
    GrowingSequence dice(dice_len, static_cast<std::size_t>(plain.empty() ? 1 : plain.rbegin()->first));
    for (const auto& [sides, count] : plain) {
      for (int i = 0; i < count; ++i) dice.add_uniform(sides, 0, 0.0);
    }
    d.p = convolve(std::vector<double>(dice.data(), dice.data() + dice.size()), acc);
  } else {
    const std::size_t n = fft_size(len);
    const Fft fft(n);
    std::vector<Complex> x = acc.size() > 1 ? spectrum(fft, acc, n) : std::vector<Complex>(n, 1.0);
    const auto two_n = static_cast<long long>(2 * n);
    // The transform of one die, uniform on 0..M-1, at frequency k is
    //   sin(pi k M / n) / (M sin(pi k / n)) * exp(-i pi k (M - 1) / n).
    // Only the upper half of the spectrum of a real sequence is computed; the rest are conjugates.
    for (std::size_t k = 0; k <= n / 2; ++k) {
      double amplitude = 1.0;
      long long phase = 0;  // in units of pi / n
      const auto kk = static_cast<long long>(k);
      for (const auto& [sides, count] : plain) {
        if (k > 0) amplitude *= power(fft.sin_pi(kk * sides) / (sides * fft.sin_pi(kk)), count);
        phase = (phase + kk * ((static_cast<long long>(count) * (sides - 1)) % two_n)) % two_n;
        if (std::abs(amplitude) < kNegligible) break;
      }
      if (std::abs(amplitude) < kNegligible) {
        x[k] = 0.0;
      } else {
        x[k] = multiply(x[k], Complex(amplitude * fft.cos_pi(phase), -amplitude * fft.sin_pi(phase)));
      }
      if (k > 0 && k < n / 2) x[n - k] = std::conj(x[k]);
    }
    fft.transform(x, true);
    d.p = real_part(x, len);
  }
  // Rounding leaves the total mass off 1 by about 1e-14; every probability is scaled to remove that.
  long double mass = 0;
  for (double v : d.p) mass += v;
  if (mass > 0) {
    for (double& v : d.p) v = static_cast<double>(v / mass);
  }
  return d;
}

double Distribution::mean() const {
  long double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) sum += static_cast<long double>(p[i]) * i;
  return static_cast<double>(static_cast<long double>(min) + sum);
}

double Distribution::stddev() const {
  const long double mu = static_cast<long double>(mean()) - min;
  long double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) sum += p[i] * (i - mu) * (i - mu);
  return std::sqrt(static_cast<double>(std::max<long double>(0, sum)));
}

double Distribution::exactly(long long n) const {
  if (n < min || n > max()) return 0.0;
  return p[static_cast<std::size_t>(n - min)];
}

double Distribution::at_least(long long n) const {
  if (n <= min) return 1.0;
  if (n > max()) return 0.0;
  long double sum = 0;
  // From the far end, the smallest terms first.
  for (std::size_t i = p.size(); i-- > static_cast<std::size_t>(n - min);) sum += p[i];
  return std::clamp(static_cast<double>(sum), 0.0, 1.0);
}

double Distribution::at_most(long long n) const {
  if (n >= max()) return 1.0;
  if (n < min) return 0.0;
  long double sum = 0;
  for (std::size_t i = 0; i <= static_cast<std::size_t>(n - min); ++i) sum += p[i];
  return std::clamp(static_cast<double>(sum), 0.0, 1.0);
}

long long Distribution::percentile(double q) const {
  if (!(q > 0)) return min;
  if (q >= 1) return max();
  long double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    sum += p[i];
    if (sum >= q - 1e-9) return min + static_cast<long long>(i);
  }
  return max();
}

long long Distribution::mode() const {
  if (p.empty()) return min;
  const double best = *std::max_element(p.begin(), p.end());
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] >= best * (1 - 1e-9)) return min + static_cast<long long>(i);
  }
  return min;
}

Result<Roll> roll(const DiceExpression& expression, std::uint64_t seed) {
  LOREKEEPER_RETURN_IF_ERROR(validate(expression));
  std::mt19937_64 engine(seed);
  Roll r;
  for (const DiceTerm& t : expression.terms) {
    TermRoll tr;
    if (t.is_constant()) {
      tr.subtotal = t.sign * t.constant;
    } else {
      const auto sides = static_cast<std::uint64_t>(t.sides);
      const std::uint64_t reject_below = (0 - sides) % sides;  // 2^64 mod sides
      for (int i = 0; i < t.count; ++i) {
        std::uint64_t x = engine();
        while (x < reject_below) x = engine();
        tr.faces.push_back(static_cast<int>(1 + x % sides));
      }
      // Faces from the most to the least wanted, the earlier die first among equal ones; the first kept() are kept.
      std::vector<std::size_t> order(tr.faces.size());
      std::iota(order.begin(), order.end(), 0);
      if (t.keep != DiceTerm::Keep::kAll) {
        const int direction = t.keep == DiceTerm::Keep::kHighest ? -1 : 1;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return direction * (tr.faces[a] - tr.faces[b]) < 0; });
      }
      tr.kept.assign(tr.faces.size(), false);
      long long sum = 0;
      for (int i = 0; i < t.kept(); ++i) {
        tr.kept[order[i]] = true;
        sum += tr.faces[order[i]];
      }
      tr.subtotal = t.sign * sum;
    }
    r.total += tr.subtotal;
    r.terms.push_back(std::move(tr));
  }
  return r;
}

std::uint64_t random_seed() {
  try {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  } catch (...) {
    // No entropy source: the clock differs between calls, which is all a caller without a seed needs.
    static std::atomic<std::uint64_t> counter{0};
    const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    return now * 0x9e3779b97f4a7c15ULL + counter.fetch_add(1);
  }
}

}  // namespace lorekeeper::gm
