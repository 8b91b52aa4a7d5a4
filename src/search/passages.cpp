#include "lorekeeper/search/passages.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <set>

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

// A boolean field; anything else (missing, null, a string from a hand-written pack) reads as `otherwise`.
bool flag(const json& j, const char* field, bool otherwise = false) {
  const auto it = j.find(field);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : otherwise;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string ordinal_level(int level) { return text::ordinal(level) + "-level"; }

// "bonus-action" -> "bonus action", "1minute" -> "1 minute", "10minutes" -> "10 minutes".
std::string casting_time_words(const std::string& ct) {
  std::string out;
  for (size_t i = 0; i < ct.size(); ++i) {
    const char c = ct[i];
    if (c == '-') {
      out += ' ';
    } else {
      if (i > 0 && std::isdigit(static_cast<unsigned char>(ct[i - 1])) && std::isalpha(static_cast<unsigned char>(c)))
        out += ' ';
      out += c;
    }
  }
  return out;
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
      // How it is cast, when that is what sets it apart: "bonus action", "reaction", "ritual", "concentration".
      // (The facets when the entity was just mapped; its data when it was read back from the store.)
      const std::string ct =
          f.casting_time.empty() ? model::normalize_casting_time(str(d, "casting_time")) : f.casting_time;
      if (!ct.empty() && ct != "action") add(casting_time_words(ct));
      if (f.ritual.value_or(flag(d, "ritual"))) add("ritual");
      if (f.concentration.value_or(flag(d, "concentration"))) add("concentration");
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
      // How it moves beyond walking: the stat blocks say what a creature does, rarely what it looks like,
      // and "flies" or "burrows" is often all they say of wings or digging.
      if (const auto sp = d.find("speed"); sp != d.end() && sp->is_object()) {
        for (const auto& [mode, word] : {std::pair<const char*, const char*>{"fly", "flies"},
                                         {"swim", "swims"},
                                         {"burrow", "burrows"},
                                         {"climb", "climbs"}}) {
          const auto m = sp->find(mode);
          if (m != sp->end() && m->is_number() && m->get<double>() > 0) add(word);
        }
      }
      if (!str(d, "alignment").empty()) add(str(d, "alignment"));
      break;
    case Kind::kMagicItem:
      add(str(d, "category"));
      add(lower(str(d, "rarity")));
      if (flag(d, "requires_attunement")) add("requires attunement");
      break;
    case Kind::kWeapon: {
      add(str(d, "category") + (flag(d, "is_melee", true) ? " melee weapon" : " ranged weapon"));
      add(lower(str(d, "damage_type")) + " " + str(d, "damage_dice"));
      if (d.contains("properties") && d["properties"].is_array()) {
        for (const auto& p : d["properties"]) add(lower(p.is_object() ? str(p, "name") : std::string()));
      }
      break;
    }
    case Kind::kArmor:
      add(str(d, "category") + " armor");
      if (flag(d, "stealth_disadvantage")) add("disadvantage on stealth");
      break;
    case Kind::kItem: add(str(d, "category")); break;
    case Kind::kClass:
      add(str(d, "subclass_of").empty() ? "character class" : str(d, "subclass_of") + " subclass");
      break;
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

// What a class or subclass is known by: its description, then its features in the order they are gained,
// each as its name and the start of its text. The stored text lists features alphabetically (it starts with
// "Ability Score Improvement" for every class), which says nothing about the class; tables, equipment and
// proficiency lists say little more.
std::string class_text(const model::Entity& e) {
  constexpr size_t kFeatureWords = 40;
  const json& d = e.data;
  std::string out = str(d, "desc");
  const auto it = d.find("features");
  if (it == d.end() || !it->is_array()) return out.empty() ? e.text : out;
  struct Feature {
    int level;
    const json* f;
  };
  std::vector<Feature> features;
  for (const json& f : *it) {
    if (!f.is_object()) continue;
    const std::string name = str(f, "name"), desc = str(f, "desc");
    if (desc.empty() || desc[0] == '[' || desc[0] == '|' || name == "Equipment" || name == "Proficiencies" ||
        name == "Ability Score Improvement" || name.find("Traits") != std::string::npos) {
      continue;
    }
    int level = 99;
    if (const auto lv = f.find("levels"); lv != f.end() && lv->is_array()) {
      for (const auto& l : *lv) {
        if (l.is_number_integer()) level = std::min(level, l.get<int>());
      }
    }
    features.push_back({level, &f});
  }
  std::stable_sort(features.begin(), features.end(),
                   [](const Feature& a, const Feature& b) { return a.level < b.level; });
  for (const auto& feature : features) {
    if (!out.empty()) out += ' ';
    out += str(*feature.f, "name") + ".";
    const std::string desc = str(*feature.f, "desc");
    const auto words = words_of(desc);
    for (size_t w = 0; w < std::min(words.size(), kFeatureWords); ++w) {
      out += ' ';
      out += words[w];
    }
  }
  return out;
}

// A species' or background's text with what sets it apart first: its description, then its own traits or
// features, then the entries every one of them has (ability scores, age, alignment, size, speed, languages,
// proficiencies, equipment, suggested characteristics, ...), which fill the passage's first 160 words otherwise
// (a gearforged's soul gem came after its age, alignment and languages). A background's benefits say which are
// which (`type`: "feature" or none is its own); a species' traits by their names.
std::string option_text(const model::Entity& e, const char* list_field) {
  static const std::set<std::string, std::less<>> kCommonTraits = {"ability score increase",
                                                                   "ability score increases",
                                                                   "ability scores",
                                                                   "age",
                                                                   "alignment",
                                                                   "size",
                                                                   "speed",
                                                                   "languages",
                                                                   "language",
                                                                   "creature type",
                                                                   "life span",
                                                                   "lifespan"};
  const json& d = e.data;
  const auto it = d.find(list_field);
  if (it == d.end() || !it->is_array()) return e.text;
  std::string own, common;
  for (const json& t : *it) {
    if (!t.is_object()) continue;
    const std::string name = str(t, "name"), desc = str(t, "desc"), type = str(t, "type");
    if (desc.empty() && name.empty()) continue;
    const bool is_common = (!type.empty() && type != "feature") || kCommonTraits.count(text::fold(name)) > 0;
    std::string& to = is_common ? common : own;
    if (!to.empty()) to += '\n';
    to += name.empty() ? desc : name + ". " + desc;
  }
  std::string out = str(d, "desc");
  for (const std::string* part : {&own, &common}) {
    if (part->empty()) continue;
    if (!out.empty()) out += '\n';
    out += *part;
  }
  return out.empty() ? e.text : out;
}

}  // namespace

std::vector<std::string> passages(const model::Entity& e, int max_passages, const model::Hints& hints) {
  std::string header = e.name;
  const std::string desc = descriptor(e);
  if (!desc.empty()) header += " (" + desc + ")";
  header += ".";
  if (const auto hint = hints.find(e.kind, e.name); !hint.empty()) {
    header += ' ';
    header += hint;
    if (hint.back() != '.') header += '.';
  }
  const std::string body = e.kind == Kind::kClass        ? class_text(e)
                           : e.kind == Kind::kSpecies    ? option_text(e, "traits")
                           : e.kind == Kind::kBackground ? option_text(e, "benefits")
                                                         : e.text;
  const auto words = words_of(body);
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
