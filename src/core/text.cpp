#include "lorekeeper/core/text.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace lorekeeper::text {

namespace {

bool is_separator_codepoint(utf8proc_int32_t cp) {
  switch (cp) {
    case '-':
    case '_':
    case '.':
    case ',':
    case '/':
    case ':':
    case ';':
    case '(':
    case ')':
    case 0x2010:
    case 0x2011:
    case 0x2013:
    case 0x2014:
    case 0x00AD: return true;
    default: return false;
  }
}

}  // namespace

std::vector<std::string> folded_words(std::string_view s) {
  const std::string f = fold(s);
  std::vector<std::string> out;
  size_t start = 0;
  while (start < f.size()) {
    size_t end = f.find(' ', start);
    if (end == std::string::npos) end = f.size();
    if (end > start) out.push_back(f.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string fold(std::string_view s) {
  std::string clean = sanitize_utf8(s);
  utf8proc_uint8_t* mapped = nullptr;
  const auto options = static_cast<utf8proc_option_t>(UTF8PROC_COMPAT | UTF8PROC_DECOMPOSE | UTF8PROC_STRIPMARK |
                                                      UTF8PROC_CASEFOLD | UTF8PROC_IGNORE);
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(clean.data()),
                                    static_cast<utf8proc_ssize_t>(clean.size()), &mapped, options);
  if (n < 0 || mapped == nullptr) return lower(trim(clean));
  std::string out;
  out.reserve(static_cast<size_t>(n));
  bool pending_space = false;
  utf8proc_ssize_t i = 0;
  while (i < n) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t len = utf8proc_iterate(mapped + i, n - i, &cp);
    if (len <= 0) break;
    if (cp == '\'' || cp == 0x2019 || cp == 0x2018) {  // apostrophes join: "Bigby's" -> "bigbys"
      i += len;
      continue;
    }
    const auto category = utf8proc_category(cp);
    const bool space = cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || category == UTF8PROC_CATEGORY_ZS ||
                       is_separator_codepoint(cp);
    if (space) {
      pending_space = !out.empty();
    } else {
      if (pending_space) out.push_back(' ');
      pending_space = false;
      out.append(reinterpret_cast<const char*>(mapped + i), static_cast<size_t>(len));
    }
    i += len;
  }
  std::free(mapped);
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string capitalised(std::string_view s) {
  std::string t = lower(s);
  if (!t.empty()) t[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
  return t;
}

bool goes_on_from(std::string_view s, std::string_view start) {
  return !start.empty() && s.size() > start.size() && s.substr(0, start.size()) == start && s[start.size()] == ' ';
}

std::string trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string_view::npos) end = s.size();
    std::string part = trim(s.substr(start, end - start));
    if (!part.empty()) out.push_back(std::move(part));
    start = end + 1;
  }
  return out;
}

int edit_distance(std::string_view a, std::string_view b, int max_distance) {
  const int la = static_cast<int>(a.size());
  const int lb = static_cast<int>(b.size());
  const int k = std::max(0, max_distance);
  if (std::abs(la - lb) > k) return k + 1;
  // Only cells within k of the diagonal can stay within the cap (a cell (i, j) costs at least |i - j|), so each
  // row computes that band; cells just outside it read as k + 1. The rows are reused across calls, as a typo
  // pass calls this for every name in the store.
  const int inf = k + 1;
  const auto n = static_cast<size_t>(lb) + 2;
  thread_local std::vector<int> before, prev, cur;  // rows i-2, i-1, i
  before.assign(n, inf);
  prev.assign(n, inf);
  cur.assign(n, inf);
  for (int j = 0; j <= std::min(lb, k); ++j) prev[static_cast<size_t>(j)] = j;
  for (int i = 1; i <= la; ++i) {
    const int lo = std::max(1, i - k), hi = std::min(lb, i + k);
    cur[0] = i <= k ? i : inf;
    if (lo > 1) cur[static_cast<size_t>(lo - 1)] = inf;
    int row_min = cur[0];
    for (int j = lo; j <= hi; ++j) {
      const auto ju = static_cast<size_t>(j);
      const char ca = a[static_cast<size_t>(i - 1)], cb = b[ju - 1];
      int d = std::min({prev[ju] + 1, cur[ju - 1] + 1, prev[ju - 1] + (ca == cb ? 0 : 1)});
      // Two adjacent characters swapped ("rouge" / "rogue") count as one edit.
      if (i > 1 && j > 1 && ca == b[ju - 2] && a[static_cast<size_t>(i - 2)] == cb) d = std::min(d, before[ju - 2] + 1);
      cur[ju] = std::min(d, inf);
      row_min = std::min(row_min, cur[ju]);
    }
    if (hi < lb) cur[static_cast<size_t>(hi + 1)] = inf;
    if (row_min > k) return inf;
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return std::min(prev[static_cast<size_t>(lb)], inf);
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out.append(sep);
    out.append(parts[i]);
  }
  return out;
}

std::string join_first(const std::vector<std::string>& parts, size_t n, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size() && i < n; ++i) {
    if (i) out.append(sep);
    out.append(parts[i]);
  }
  if (parts.size() > n) out += " and " + std::to_string(parts.size() - n) + " more";
  return out;
}

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t len = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                                            static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
    if (len <= 0) {
      out.append("\xEF\xBF\xBD");
      ++i;
      continue;
    }
    out.append(s.substr(i, static_cast<size_t>(len)));
    i += static_cast<size_t>(len);
  }
  return out;
}

std::string ordinal(int n) {
  const int last_two = (n < 0 ? -n : n) % 100;
  const char* suffix = "th";
  if (last_two < 11 || last_two > 13) {
    switch (last_two % 10) {
      case 1: suffix = "st"; break;
      case 2: suffix = "nd"; break;
      case 3: suffix = "rd"; break;
      default: break;
    }
  }
  return std::to_string(n) + suffix;
}

std::string format_number(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string group_thousands(long long v) {
  const std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

size_t utf8_boundary(std::string_view s, size_t pos) {
  pos = std::min(pos, s.size());
  while (pos > 0 && pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}

std::string cut_at_word(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  size_t cut = s.rfind(' ', max_bytes);
  if (cut == std::string_view::npos || cut < max_bytes / 2) cut = max_bytes;
  return std::string(s.substr(0, utf8_boundary(s, cut)));
}

}  // namespace lorekeeper::text
