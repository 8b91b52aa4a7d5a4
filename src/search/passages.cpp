#include "lorekeeper/search/passages.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::search {

namespace {

using model::json;
using model::Kind;

// About 200 tokens of English prose: the header and the window stay under the model's 256.
constexpr size_t kWindowWords = 160;

std::string str(const json& j, const char* field) {
  const auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string ordinal_level(int level) {
  static const char* kSuffix[] = {"th", "st", "nd", "rd"};
  const char* suffix = (level % 100 >= 11 && level % 100 <= 13) || level % 10 > 3 ? "th" : kSuffix[level % 10];
  return std::to_string(level) + suffix + "-level";
}

std::string descriptor(const model::Entity& e) {
  const json& d = e.data;
  const auto& f = e.facets;
  std::string out;
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    if (!out.empty()) out += ", ";
    out += part;
  };
  switch (e.kind) {
    case Kind::kSpell: {
      const std::string school = lower(f.school.empty() ? str(d, "school") : f.school);
      if (f.level && *f.level == 0)
        add(school + " cantrip");
      else if (f.level)
        add(ordinal_level(*f.level) + " " + school + " spell");
      if (d.contains("classes") && d["classes"].is_array()) {
        std::string classes;
        for (const auto& c : d["classes"]) {
          if (!c.is_string()) continue;
          if (!classes.empty()) classes += ", ";
          classes += c.get<std::string>();
        }
        if (!classes.empty()) add("for " + classes);
      }
      break;
    }
    case Kind::kCreature:
      add(lower(str(d, "size") + " " + str(d, "type")));
      if (!str(d, "alignment").empty()) add(str(d, "alignment"));
      break;
    case Kind::kMagicItem:
      add(str(d, "category"));
      add(lower(str(d, "rarity")));
      if (d.value("requires_attunement", false)) add("requires attunement");
      break;
    case Kind::kWeapon: {
      add(str(d, "category") + (d.value("is_melee", true) ? " melee weapon" : " ranged weapon"));
      add(lower(str(d, "damage_type")) + " " + str(d, "damage_dice"));
      if (d.contains("properties") && d["properties"].is_array()) {
        for (const auto& p : d["properties"]) add(lower(p.is_object() ? str(p, "name") : std::string()));
      }
      break;
    }
    case Kind::kArmor:
      add(str(d, "category") + " armor");
      if (d.value("stealth_disadvantage", false)) add("disadvantage on stealth");
      break;
    case Kind::kItem: add(str(d, "category")); break;
    default: add(std::string(model::kind_name(e.kind))); break;
  }
  return out;
}

std::vector<std::string_view> words_of(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

}  // namespace

std::vector<std::string> passages(const model::Entity& e, int max_passages) {
  std::string header = e.name;
  const std::string desc = descriptor(e);
  if (!desc.empty()) header += " (" + desc + ")";
  header += ".";
  const auto words = words_of(e.text);
  std::vector<std::string> out;
  for (size_t start = 0; out.empty() || (start < words.size() && static_cast<int>(out.size()) < max_passages);
       start += kWindowWords) {
    std::string p = header;
    for (size_t i = start; i < std::min(words.size(), start + kWindowWords); ++i) {
      p += ' ';
      p += words[i];
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string text_hash(std::string_view model, std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // separator
    h *= 1099511628211ull;
  };
  mix(model);
  mix(kPassageRecipe);
  mix(text);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace lorekeeper::search
