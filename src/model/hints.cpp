#include "lorekeeper/model/hints.hpp"

#include <cctype>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/sha256.hpp"
#include "lorekeeper/core/text.hpp"

extern "C" const char lorekeeper_search_hints_begin[];
extern "C" const char lorekeeper_search_hints_end[];

namespace lorekeeper::model {

namespace {

std::string entry_key(Kind kind, std::string_view name) {
  std::string key(kind_name(kind));
  key += '\t';
  key += text::fold(name);
  return key;
}

// "Vorpal Sword (Longsword)" -> "Vorpal Sword", "Wand of the War Mage +2" -> "Wand of the War Mage"; anything
// else -> "".
std::string family(std::string_view name) {
  if (!name.empty() && name.back() == ')') {
    if (const size_t open = name.rfind(" ("); open != std::string_view::npos && open > 0)
      return text::trim(name.substr(0, open));
  }
  if (name.size() > 3 && std::isdigit(static_cast<unsigned char>(name.back())) && name[name.size() - 2] == '+' &&
      name[name.size() - 3] == ' ') {
    return text::trim(name.substr(0, name.size() - 3));
  }
  return {};
}

}  // namespace

Result<Hints> Hints::parse(std::string_view tsv) {
  Hints hints;
  {
    sha256::Hasher hasher;
    hasher.update(tsv);
    hints.stamp_ = hasher.hex().substr(0, 16);
  }
  size_t line_no = 0;
  while (!tsv.empty()) {
    const size_t nl = tsv.find('\n');
    std::string_view line = tsv.substr(0, nl);
    tsv.remove_prefix(nl == std::string_view::npos ? tsv.size() : nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_no == 1 || line.empty()) continue;  // the header, blank lines
    const size_t t1 = line.find('\t');
    const size_t t2 = t1 == std::string_view::npos ? t1 : line.find('\t', t1 + 1);
    auto fail = [&](const std::string& why) {
      return Status::invalid_argument("search hints, line " + std::to_string(line_no) + ": " + why);
    };
    if (t2 == std::string_view::npos || line.find('\t', t2 + 1) != std::string_view::npos) {
      return fail("expected three tab-separated fields: kind, name, hint");
    }
    const std::string_view kind_text = line.substr(0, t1), name = line.substr(t1 + 1, t2 - t1 - 1),
                           hint = line.substr(t2 + 1);
    const auto kind = parse_kind(kind_text);
    if (!kind || kind_name(*kind) != kind_text) return fail("unknown kind '" + std::string(kind_text) + "'");
    if (name.empty() || hint.empty()) return fail("empty name or hint");
    if (!hints.by_entry_.emplace(entry_key(*kind, name), std::string(hint)).second) {
      return fail("a second hint for " + std::string(kind_text) + " '" + std::string(name) + "'");
    }
  }
  return hints;
}

const Hints& Hints::bundled() {
  static const Hints hints = [] {
    const std::string_view data(lorekeeper_search_hints_begin,
                                static_cast<size_t>(lorekeeper_search_hints_end - lorekeeper_search_hints_begin));
    auto parsed = parse(data);
    if (parsed) return std::move(parsed).value();
    log::error("the bundled search hints are unusable, searching without them: " + parsed.status().message());
    return Hints();
  }();
  return hints;
}

std::string_view Hints::exact(Kind kind, std::string_view name) const {
  const auto it = by_entry_.find(entry_key(kind, name));
  return it == by_entry_.end() ? std::string_view() : std::string_view(it->second);
}

std::string_view Hints::find(Kind kind, std::string_view name) const {
  if (by_entry_.empty()) return {};
  if (const auto hint = exact(kind, name); !hint.empty()) return hint;
  if (kind != Kind::kMagicItem) return {};
  const std::string base = family(name);
  return base.empty() ? std::string_view() : exact(kind, base);
}

}  // namespace lorekeeper::model
