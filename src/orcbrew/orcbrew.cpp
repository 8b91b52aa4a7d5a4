#include "lorekeeper/orcbrew/orcbrew.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <utility>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/challenge.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/model/vocabulary.hpp"

namespace lorekeeper::orcbrew {

using edn::Value;
using model::Document;
using model::Entity;
using model::Kind;
using nlohmann::json;

namespace {

// What one entity may hold: no list (traits, actions, spells, ...) longer than kMaxListItems, and no more than
// kMaxEntityBytes of text in all. The largest entities of every recorded source hold a few dozen items and a
// few tens of kilobytes; one homebrew monster with a million traits made get_entity answer 65 MB.
constexpr size_t kMaxListItems = 1000;
constexpr size_t kMaxEntityBytes = 1 << 20;

// Why `v` is past those bounds, or nullopt; `where` names the field for the message.
std::optional<std::string> beyond_bounds(const edn::Value& v, size_t* text_bytes, const std::string& where) {
  if (!v.is_collection()) {
    *text_bytes += v.text().size();
    if (*text_bytes > kMaxEntityBytes) {
      return "the entry holds more than " + text::group_thousands(static_cast<long long>(kMaxEntityBytes)) +
             " bytes of text; it is not imported";
    }
    return std::nullopt;
  }
  if (v.size() > kMaxListItems) {
    return (where.empty() ? std::string("the entry") : where) + " holds " +
           text::group_thousands(static_cast<long long>(v.size())) + " items, more than the " +
           text::group_thousands(static_cast<long long>(kMaxListItems)) + " a list may hold; the entry is not imported";
  }
  const bool map = v.is(edn::Kind::kMap);
  const auto& items = v.items();
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string field =
        map && i % 2 == 1 && items[i - 1].is(edn::Kind::kKeyword) ? ":" + std::string(items[i - 1].name()) : where;
    if (auto why = beyond_bounds(items[i], text_bytes, field)) return why;
  }
  return std::nullopt;
}

std::optional<std::string> beyond_bounds(const edn::Value& entity) {
  size_t text_bytes = 0;
  return beyond_bounds(entity, &text_bytes, "");
}

}  // namespace

namespace {

const std::vector<KindMapping> kKinds = {
    {"spells", Kind::kSpell, ""},           {"monsters", Kind::kCreature, ""},
    {"classes", Kind::kClass, ""},          {"subclasses", Kind::kClass, "classes"},
    {"races", Kind::kSpecies, ""},          {"subraces", Kind::kSpecies, "races"},
    {"backgrounds", Kind::kBackground, ""}, {"feats", Kind::kFeat, ""},
    {"languages", Kind::kLanguage, ""},     {"magic-items", Kind::kMagicItem, ""},
    {"weapons", Kind::kWeapon, ""},         {"armor", Kind::kArmor, ""},
};

constexpr std::string_view kKindNamespace = "orcpub.dnd.e5";

// The classes and races OrcPub builds in that the SRD 5.1 also has (Open5e v2 keys "srd_<key>"): a homebrew
// subclass of :wizard belongs under the synced SRD Wizard.
const std::set<std::string, std::less<>> kSrdClasses = {"barbarian", "bard",     "cleric",  "druid",
                                                        "fighter",   "monk",     "paladin", "ranger",
                                                        "rogue",     "sorcerer", "warlock", "wizard"};
const std::set<std::string, std::less<>> kSrdRaces = {"dragonborn", "dwarf",    "elf",   "gnome",   "half-elf",
                                                      "half-orc",   "halfling", "human", "tiefling"};

std::string ability_name(std::string_view key) {
  const std::string k = text::lower(key);
  if (k == "str" || k == "strength") return "Strength";
  if (k == "dex" || k == "dexterity") return "Dexterity";
  if (k == "con" || k == "constitution") return "Constitution";
  if (k == "int" || k == "intelligence") return "Intelligence";
  if (k == "wis" || k == "wisdom") return "Wisdom";
  if (k == "cha" || k == "charisma") return "Charisma";
  return "";
}

// "very-rare" -> "Very Rare", "wondrous_item" -> "Wondrous Item", "Evocation" -> "Evocation".
std::string title_case(std::string_view s) {
  std::string out;
  bool start = true;
  for (char c : s) {
    if (c == '-' || c == '_' || c == ' ') {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
      start = true;
      continue;
    }
    out.push_back(start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    start = false;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  }
  return true;
}

size_t find_ci(std::string_view s, std::string_view needle) {
  if (needle.empty() || s.size() < needle.size()) return std::string::npos;
  for (size_t i = 0; i + needle.size() <= s.size(); ++i) {
    if (starts_with_ci(s.substr(i), needle)) return i;
  }
  return std::string::npos;
}

uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

std::string hex8(uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// A key-like slug of any text, accents folded first ("Grimoire Étrange" -> "grimoire-etrange"); a hash when the
// text has no ASCII letters or digits.
std::string key_slug(std::string_view s) {
  std::string out = model::slug(text::fold(s));
  if (out.empty()) out = hex8(fnv1a(s));
  return out;
}

// Percent-encodes everything but unreserved characters and '/', so labels with spaces or '#' stay one URL part.
std::string url_part(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// A number for text: as text::format_number ("150", "2.5"), in exponent form past 1e15 so a stray 1e300 stays
// short.
std::string number_text(double v) {
  if (std::fabs(v) < 1e15) return text::format_number(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// "##NaN", "##Inf", "##-Inf" for a non-finite double.
std::string non_finite_text(double d) {
  if (std::isnan(d)) return "##NaN";
  return d > 0 ? "##Inf" : "##-Inf";
}

// How a value is described in warnings: "a vector", "##NaN", "the integer 42".
std::string describe(const Value& v) {
  switch (v.kind()) {
    case edn::Kind::kFloat: {
      const double d = v.as_double().value_or(0);
      if (!std::isfinite(d)) return non_finite_text(d);
      return "the number " + number_text(d);
    }
    case edn::Kind::kInteger: return "the integer " + std::string(v.is_big_integer() ? v.text() : edn::to_string(v));
    case edn::Kind::kString: {
      std::string s(v.text());
      if (s.size() > 40) s = s.substr(0, text::utf8_boundary(s, 40)) + "...";
      return "the string \"" + s + "\"";
    }
    case edn::Kind::kKeyword: return "the keyword :" + std::string(v.text());
    case edn::Kind::kBool: return v.as_bool().value_or(false) ? "true" : "false";
    case edn::Kind::kNil: return "nil";
    case edn::Kind::kMap: return "a map";
    case edn::Kind::kVector: return "a vector";
    case edn::Kind::kList: return "a list";
    case edn::Kind::kSet: return "a set";
    default: return std::string("a ") + edn::kind_name(v.kind());
  }
}

// The text of a scalar: strings as they are, keywords and symbols by their name without namespace (:evocation ->
// "evocation", :orcpub.dnd.e5.character/str -> "str"), finite numbers formatted, characters. Nothing for other
// kinds.
std::optional<std::string> scalar_text(const Value& v) {
  switch (v.kind()) {
    case edn::Kind::kString: return std::string(v.text());
    case edn::Kind::kKeyword:
    case edn::Kind::kSymbol: return std::string(v.name());
    case edn::Kind::kInteger:
      if (v.is_big_integer()) return std::string(v.text());
      return std::to_string(v.as_int().value_or(0));
    case edn::Kind::kFloat: {
      const double d = v.as_double().value_or(0);
      if (!std::isfinite(d)) return std::nullopt;
      return number_text(d);
    }
    case edn::Kind::kCharacter: {
      std::string s;
      text::append_utf8(s, v.as_char().value_or(U'?'));
      return s;
    }
    default: return std::nullopt;
  }
}

// A whole string as a number ("3", " 2.5 "), if it is one.
std::optional<double> parse_number(std::string_view s) {
  const std::string t = text::trim(s);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

// A challenge rating written as text: "1/4", "0.25", "CR 1/2", "5 (1,800 XP)".
std::optional<double> parse_cr(std::string_view s) {
  std::string t = text::trim(s);
  if (starts_with_ci(t, "cr")) t = text::trim(std::string_view(t).substr(2));
  if (const auto paren = t.find('('); paren != std::string::npos) t = text::trim(std::string_view(t).substr(0, paren));
  if (const auto slash = t.find('/'); slash != std::string::npos) {
    const auto num = parse_number(std::string_view(t).substr(0, slash));
    const auto den = parse_number(std::string_view(t).substr(slash + 1));
    if (!num || !den || *den == 0) return std::nullopt;
    return *num / *den;
  }
  return parse_number(t);
}

// The leading integer of "17 (natural armor)" and the text in parentheses after it.
std::optional<int> leading_int(std::string_view s, std::string* rest) {
  const std::string t = text::trim(s);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i > 6) return std::nullopt;
  if (rest) {
    std::string r = text::trim(std::string_view(t).substr(i));
    if (r.size() >= 2 && r.front() == '(' && r.back() == ')') r = r.substr(1, r.size() - 2);
    *rest = text::trim(r);
  }
  return std::atoi(t.substr(0, i).c_str());
}

// A link from an entity to the classes or races it names, resolved once the whole file is read.
struct Link {
  size_t entity = 0;              // index into FileImport::entities
  size_t pack = 0;                // index into FileImport::packs
  std::string target_kind;        // "classes" or "races"
  std::vector<std::string> keys;  // OrcBrew keys of the targets, as written
  bool parent = false;            // parent link (subclass, subrace) or spell class list
  std::string where;              // "<kind>/<key>" for warnings
};

// Reads the fields of one entity map; every conversion or rejection is a warning "<kind>/<key>: ...".
class Fields {
 public:
  Fields(const Value& m, std::vector<std::string>& warnings, std::string where)
      : m_(m), warnings_(warnings), where_(std::move(where)) {}

  const std::string& where() const { return where_; }
  // Fields of a nested map, warning under "<where><suffix>".
  Fields sub(const Value& m, const std::string& suffix) const { return Fields(m, warnings_, where_ + suffix); }
  void warn(const std::string& message) { warnings_.push_back(where_ + ": " + message); }

  // The value of the bare keyword `name`, else of a keyword with that name in any namespace (the magic-item
  // builder writes :orcpub.dnd.e5.magic-items/rarity); null when absent or nil.
  const Value* get(std::string_view name) const { return get_in(m_, name); }
  static const Value* get_in(const Value& m, std::string_view name) {
    if (!m.is(edn::Kind::kMap)) return nullptr;
    const Value* qualified = nullptr;
    for (const auto& [k, v] : m.entries()) {
      if (!k.is(edn::Kind::kKeyword) || k.name() != name) continue;
      if (k.ns().empty()) return v.is_nil() ? nullptr : &v;
      if (!qualified) qualified = &v;
    }
    return qualified && !qualified->is_nil() ? qualified : nullptr;
  }

  // Text of a field: strings trimmed, keywords by name, numbers formatted (with a warning), collections of such
  // joined by `sep`; other kinds are warned about and ignored.
  std::string text(std::string_view name, std::string_view sep = ", ") {
    const Value* v = get(name);
    if (!v) return "";
    return text_of(*v, name, sep);
  }
  std::string text_of(const Value& v, std::string_view name, std::string_view sep = ", ") {
    if (v.is(edn::Kind::kString)) return text::trim(v.text());
    if (v.is(edn::Kind::kKeyword) || v.is(edn::Kind::kSymbol)) return std::string(v.name());
    if (v.is(edn::Kind::kInteger) || v.is(edn::Kind::kFloat)) {
      auto t = scalar_text(v);
      if (!t) {
        warn(":" + std::string(name) + " is " + describe(v) + "; ignored");
        return "";
      }
      warn(":" + std::string(name) + " is " + describe(v) + " where text is expected; used as \"" + *t + "\"");
      return *t;
    }
    if (v.is(edn::Kind::kVector) || v.is(edn::Kind::kList) || v.is(edn::Kind::kSet)) {
      std::vector<std::string> parts;
      size_t skipped = 0;
      for (const auto& x : v.items()) {
        auto t = scalar_text(x);
        if (t && !text::trim(*t).empty())
          parts.push_back(text::trim(*t));
        else if (!x.is_nil())
          ++skipped;
      }
      if (skipped > 0) {
        warn(":" + std::string(name) + " holds " + std::to_string(skipped) + " element(s) that are not text; ignored");
      }
      return text::join(parts, sep);
    }
    warn(":" + std::string(name) + " is " + describe(v) + " where text is expected; ignored");
    return "";
  }

  // A number: integers and finite floats; strings holding a number (with a warning); NaN, infinities and other
  // kinds are warned about and ignored.
  std::optional<double> number(std::string_view name) {
    const Value* v = get(name);
    if (!v) return std::nullopt;
    return number_of(*v, name);
  }
  std::optional<double> number_of(const Value& v, std::string_view name) {
    if (v.is(edn::Kind::kInteger) || v.is(edn::Kind::kFloat)) {
      const double d = v.as_double().value_or(0);
      if (std::isfinite(d)) return d;
    } else if (v.is(edn::Kind::kString)) {
      if (auto d = parse_number(v.text())) {
        warn(":" + std::string(name) + " is " + describe(v) + "; read as " + number_text(*d));
        return d;
      }
    }
    warn(":" + std::string(name) + " is " + describe(v) + " where a number is expected; ignored");
    return std::nullopt;
  }
  // A whole number in [lo, hi].
  std::optional<int> integer(std::string_view name, int lo, int hi) {
    auto d = number(name);
    if (!d) return std::nullopt;
    if (*d != std::floor(*d) || *d < lo || *d > hi) {
      warn(":" + std::string(name) + " " + number_text(*d) + " is not a whole number from " + std::to_string(lo) +
           " to " + std::to_string(hi) + "; ignored");
      return std::nullopt;
    }
    return static_cast<int>(*d);
  }

  // A flag: booleans; "true"/"false" strings and 0/1 (with a warning); others warned about and ignored.
  std::optional<bool> flag(std::string_view name) {
    const Value* v = get(name);
    if (!v) return std::nullopt;
    if (auto b = v->as_bool()) return b;
    if (v->is(edn::Kind::kString)) {
      const std::string t = text::lower(text::trim(v->text()));
      if (t == "true" || t == "yes" || t == "false" || t == "no") {
        warn(":" + std::string(name) + " is " + describe(*v) + "; read as " +
             (t == "true" || t == "yes" ? "true" : "false"));
        return t == "true" || t == "yes";
      }
    }
    if (auto i = v->as_int(); i && (*i == 0 || *i == 1)) {
      warn(":" + std::string(name) + " is " + describe(*v) + "; read as " + (*i == 1 ? "true" : "false"));
      return *i == 1;
    }
    warn(":" + std::string(name) + " is " + describe(*v) + " where true or false is expected; ignored");
    return std::nullopt;
  }

  // A list of maps (traits, actions) from the value of field `name`: a vector, list or set of maps, or one map
  // alone. Elements that are not maps are warned about and skipped.
  std::vector<const Value*> maps_of(const Value& list, std::string_view name) {
    std::vector<const Value*> out;
    const Value* v = &list;
    if (v->is(edn::Kind::kMap)) {
      out.push_back(v);
      return out;
    }
    if (!v->is(edn::Kind::kVector) && !v->is(edn::Kind::kList) && !v->is(edn::Kind::kSet)) {
      warn(":" + std::string(name) + " is " + describe(*v) + " where a list of entries is expected; ignored");
      return out;
    }
    size_t i = 0;
    for (const auto& x : v->items()) {
      if (x.is(edn::Kind::kMap))
        out.push_back(&x);
      else if (!x.is_nil())
        warn(":" + std::string(name) + " element " + std::to_string(i) + " is " + describe(x) + ", not a map; skipped");
      ++i;
    }
    return out;
  }

  // The keys of a flag map ({:wizard true :bard false} -> wizard), or the elements of a collection of keywords.
  std::vector<std::string> flag_keys(std::string_view name) {
    std::vector<std::string> out;
    const Value* v = get(name);
    if (!v) return out;
    if (v->is(edn::Kind::kMap)) {
      for (const auto& [k, on] : v->entries()) {
        if (on.is_nil() || on.as_bool() == false) continue;
        if (auto t = scalar_text(k)) out.push_back(*t);
      }
    } else if (v->is(edn::Kind::kVector) || v->is(edn::Kind::kList) || v->is(edn::Kind::kSet)) {
      for (const auto& x : v->items()) {
        if (auto t = scalar_text(x)) out.push_back(*t);
      }
    } else if (auto t = scalar_text(*v)) {
      out.push_back(*t);
    } else {
      warn(":" + std::string(name) + " is " + describe(*v) + " where a map of flags is expected; ignored");
    }
    return out;
  }

  // An entity's description: :description, else :desc, :summary or :help (class and background builders).
  std::string description() {
    for (const char* f : {"description", "desc", "summary", "help"}) {
      if (get(f)) {
        std::string t = text(f, "\n\n");
        if (!t.empty()) return t;
      }
    }
    return "";
  }

 private:
  const Value& m_;
  std::vector<std::string>& warnings_;
  std::string where_;
};

void put_str(json& data, const char* field, const std::string& value) {
  if (!value.empty()) data[field] = value;
}

// Whole numbers as JSON integers (ability scores and bonuses are integers in Open5e records), others as doubles.
json number_json(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9.0e15) return static_cast<int64_t>(v);
  return v;
}

void add_part(std::vector<std::string>& parts, const std::string& s) {
  if (!s.empty()) parts.push_back(s);
}

// "Costs 2 Actions" -> 2.
std::optional<int> legendary_cost(std::string_view notes) {
  const size_t at = find_ci(notes, "costs");
  if (at == std::string::npos) return std::nullopt;
  std::string rest;
  return leading_int(notes.substr(at + 5), &rest);
}

// {name, desc} entries of a list field (traits, actions), with the usage a note gives ("3/Day", "Recharge 5-6"),
// the cost of a legendary action, and the levels of class features. `parts` gets "Name. desc" lines for the
// search text.
json named_entries(Fields& f, const Value& list, std::string_view field, std::vector<std::string>& parts) {
  json out = json::array();
  size_t i = 0;
  for (const Value* t : f.maps_of(list, field)) {
    Fields tf = f.sub(*t, " :" + std::string(field) + " " + std::to_string(i++));
    const std::string name = tf.text("name");
    const std::string desc = tf.description();
    if (name.empty() && desc.empty()) continue;
    json x = {{"name", name}, {"desc", desc}};
    const std::string notes = tf.text("notes");
    if (auto cost = legendary_cost(notes)) {
      if (*cost > 1) x["cost"] = *cost;
    } else {
      put_str(x, "usage", notes);
    }
    if (tf.get("level")) {
      if (auto lv = tf.integer("level", 0, 30)) x["levels"] = json::array({*lv});
    }
    out.push_back(std::move(x));
    parts.push_back(name.empty() ? desc : name + ". " + desc);
  }
  return out;
}

// Spell description and "At Higher Levels." text, which OrcPub keeps in one field. The heading counts only where
// a paragraph or sentence starts ("...\nAt Higher Levels. When you...", "***At Higher Levels.***"), not in prose.
void split_higher_level(std::string& desc, std::string& higher) {
  if (!higher.empty()) return;
  size_t at = std::string::npos;
  for (size_t from = 0; (at = find_ci(std::string_view(desc).substr(from), "at higher levels")) != std::string::npos;) {
    at += from;
    size_t p = at;
    while (p > 0 && (desc[p - 1] == '*' || desc[p - 1] == '_' || desc[p - 1] == ' ' || desc[p - 1] == '\t')) --p;
    if (p == 0 || desc[p - 1] == '\n' || desc[p - 1] == '.') break;
    from = at + 1;
    at = std::string::npos;
  }
  if (at == std::string::npos) return;
  std::string after = desc.substr(at + 16);
  size_t b = 0;
  while (b < after.size() && (after[b] == '.' || after[b] == ':' || after[b] == '*' || after[b] == '_' ||
                              std::isspace(static_cast<unsigned char>(after[b]))))
    ++b;
  higher = text::trim(std::string_view(after).substr(b));
  std::string before = desc.substr(0, at);
  while (!before.empty() &&
         (before.back() == '*' || before.back() == '_' || std::isspace(static_cast<unsigned char>(before.back()))))
    before.pop_back();
  desc = before;
}

// What the entity mappers hand back for the whole-file pass: the OrcBrew keys of a parent (subclass, subrace) or
// of a spell's classes, resolved once every pack is read.
struct PendingLink {
  std::string target_kind;  // "classes" or "races"
  std::vector<std::string> keys;
  bool parent = false;
};

void map_spell(Fields& f, Entity& e, PendingLink& link) {
  auto& d = e.data;
  auto& fc = e.facets;
  if (!f.get("level")) {
    f.warn("has no :level");
  } else if (auto lv = f.integer("level", 0, 9)) {
    fc.level = *lv;
    d["level"] = *lv;
  }
  const std::string school = f.text("school");
  if (!school.empty()) {
    fc.school = model::slug(school);
    d["school"] = title_case(school);
  }
  const std::string ct = f.text("casting-time");
  if (!ct.empty()) {
    std::string head = ct;
    std::string tail;
    if (const auto comma = ct.find(','); comma != std::string::npos) {
      head = text::trim(std::string_view(ct).substr(0, comma));
      tail = text::trim(std::string_view(ct).substr(comma + 1));
    }
    const std::string norm = model::normalize_casting_time(head);
    // The casting times the tools filter on (model/vocabulary.hpp): data keeps this form, as Open5e records do;
    // anything else is kept as written.
    if (const auto& known = model::casting_times(); std::find(known.begin(), known.end(), norm) != known.end()) {
      fc.casting_time = norm;
      d["casting_time"] = model::casting_time_text(norm);
      put_str(d, "reaction_condition", tail);
    } else {
      fc.casting_time = model::normalize_casting_time(ct);
      d["casting_time"] = ct;
    }
  }
  put_str(d, "range", f.text("range"));
  if (const Value* comps = f.get("components")) {
    std::vector<std::string> letters;
    if (comps->is(edn::Kind::kMap)) {
      Fields cf = f.sub(*comps, " :components");
      if (cf.flag("verbal").value_or(false)) letters.push_back("V");
      if (cf.flag("somatic").value_or(false)) letters.push_back("S");
      if (cf.flag("material").value_or(false) || !cf.text("material-component").empty()) letters.push_back("M");
      put_str(d, "material", cf.text("material-component"));
      if (auto cost = cf.get("material-cost") ? cf.number("material-cost") : std::nullopt) d["material_cost"] = *cost;
      if (cf.get("material-consumed") && cf.flag("material-consumed").value_or(false)) d["material_consumed"] = true;
      put_str(d, "components", text::join(letters, ", "));
    } else if (comps->is(edn::Kind::kString)) {
      put_str(d, "components", text::trim(comps->text()));
    } else {
      for (const std::string& c : f.flag_keys("components")) {
        const std::string l = text::lower(c);
        if (l == "verbal" || l == "v") letters.push_back("V");
        if (l == "somatic" || l == "s") letters.push_back("S");
        if (l == "material" || l == "m") letters.push_back("M");
      }
      put_str(d, "components", text::join(letters, ", "));
    }
  }
  std::string duration = f.text("duration");
  const bool duration_says = starts_with_ci(duration, "concentration");
  const auto flagged = f.get("concentration") ? f.flag("concentration") : std::nullopt;
  if (flagged == false && duration_says) {
    f.warn(":concentration is false but the duration \"" + duration +
           "\" says concentration; treated as concentration");
  }
  fc.concentration = flagged.value_or(false) || duration_says;
  if (duration_says) {
    duration = duration.substr(13);
    while (!duration.empty() && (duration.front() == ',' || std::isspace(static_cast<unsigned char>(duration.front()))))
      duration.erase(0, 1);
  }
  put_str(d, "duration", duration);
  fc.ritual = f.get("ritual") ? f.flag("ritual").value_or(false) : false;
  d["concentration"] = *fc.concentration;
  d["ritual"] = *fc.ritual;
  std::string desc = f.description();
  std::string higher = f.text("higher-level", "\n\n");
  split_higher_level(desc, higher);
  put_str(d, "desc", desc);
  put_str(d, "higher_level", higher);
  d["classes"] = json::array();  // filled when the class list is resolved
  link.target_kind = "classes";
  link.keys = f.flag_keys("spell-lists");
  for (auto& k : f.flag_keys("classes")) link.keys.push_back(k);
  std::vector<std::string> parts;
  add_part(parts, desc);
  add_part(parts, higher);
  e.text = text::join(parts, "\n\n");
}

// "30 ft., fly 60 ft. (hover), swim 30 ft." -> {walk: 30, fly: 60, swim: 30, hover: true}; null when no speed is
// readable.
json parse_speed(const std::string& s) {
  json out = json::object();
  for (const auto& part : text::split_commas(s)) {
    const std::string p = text::lower(part);
    std::string mode = "walk";
    size_t i = 0;
    while (i < p.size() && std::isalpha(static_cast<unsigned char>(p[i]))) ++i;
    if (i > 0) {
      mode = p.substr(0, i);
      if (mode == "speed") mode = "walk";
    }
    std::string rest;
    if (auto n = leading_int(std::string_view(p).substr(i), &rest)) out[mode] = *n;
  }
  if (out.empty()) return nullptr;
  if (find_ci(s, "hover") != std::string::npos) out["hover"] = true;
  return out;
}

// "darkvision 120 ft., passive Perception 20" -> {darkvision: 120, passive_perception: 20}.
json parse_senses(const std::string& s) {
  json out = json::object();
  for (const auto& part : text::split_commas(s)) {
    const std::string p = text::lower(part);
    for (const char* sense : {"darkvision", "blindsight", "tremorsense", "truesight", "passive perception"}) {
      if (p.rfind(sense, 0) != 0) continue;
      std::string rest;
      if (auto n = leading_int(std::string_view(p).substr(std::string_view(sense).size()), &rest)) {
        out[std::string(sense) == "passive perception" ? "passive_perception" : sense] = *n;
      }
    }
  }
  return out;
}

// {ability: bonus} from a map keyed by ability keywords, with full lower-case names ("constitution").
json ability_map(Fields& f, std::string_view field) {
  json out = json::object();
  const Value* m = f.get(field);
  if (!m) return out;
  if (!m->is(edn::Kind::kMap)) {
    f.warn(":" + std::string(field) + " is " + describe(*m) + " where a map is expected; ignored");
    return out;
  }
  for (const auto& [k, v] : m->entries()) {
    const std::string name = text::lower(ability_name(scalar_text(k).value_or("")));
    if (name.empty() || v.is_nil()) continue;
    if (auto n = f.number_of(v, std::string(field) + " " + edn::to_string(k))) out[name] = number_json(*n);
  }
  return out;
}

// {skill: bonus}: keys as Open5e writes them ("sleight_of_hand").
json skill_map(Fields& f) {
  json out = json::object();
  const Value* m = f.get("skills");
  if (!m) return out;
  if (!m->is(edn::Kind::kMap)) {
    f.warn(":skills is " + describe(*m) + " where a map is expected; ignored");
    return out;
  }
  for (const auto& [k, v] : m->entries()) {
    std::string name = text::lower(scalar_text(k).value_or(""));
    std::replace(name.begin(), name.end(), '-', '_');
    std::replace(name.begin(), name.end(), ' ', '_');
    if (name.empty() || v.is_nil()) continue;
    if (auto n = f.number_of(v, "skills " + edn::to_string(k))) out[name] = number_json(*n);
  }
  return out;
}

void map_creature(Fields& f, Entity& e) {
  auto& d = e.data;
  auto& fc = e.facets;
  const std::string size = f.text("size");
  fc.size = model::slug(size);
  put_str(d, "size", title_case(size));
  const std::string type = f.text("type");
  fc.type = model::slug(type);
  put_str(d, "type", title_case(type));
  put_str(d, "subcategory", f.text("subtypes"));
  put_str(d, "alignment", f.text("alignment"));
  if (const Value* ac = f.get("armor-class")) {
    if (ac->is(edn::Kind::kString)) {
      std::string detail;
      if (auto n = leading_int(ac->text(), &detail)) {
        f.warn(":armor-class is " + describe(*ac) + "; read as " + std::to_string(*n));
        fc.armor_class = *n;
        put_str(d, "armor_detail", detail);
      } else {
        f.warn(":armor-class is " + describe(*ac) + " where a number is expected; ignored");
      }
    } else if (auto n = f.integer("armor-class", 0, 1000)) {
      fc.armor_class = *n;
    }
    if (fc.armor_class) d["armor_class"] = *fc.armor_class;
  }
  if (!d.contains("armor_detail")) put_str(d, "armor_detail", f.text("armor-notes"));
  if (const Value* hp = f.get("hit-points")) {
    std::optional<double> points;
    if (hp->is(edn::Kind::kMap)) {
      Fields hf = f.sub(*hp, " :hit-points");
      const auto die = hf.number("die");
      const auto count = hf.number("die-count");
      const double mod = hf.number("modifier").value_or(0);
      if (die && count && *die > 0 && *count > 0) {
        std::string dice = number_text(*count) + "d" + number_text(*die);
        if (mod != 0) dice += (mod > 0 ? "+" : "") + number_text(mod);
        d["hit_dice"] = dice;
        points = std::floor(*count * (*die + 1) / 2 + mod);
      } else if (hf.get("modifier")) {
        points = mod;
      }
      if (hf.get("mean")) {
        if (auto mean = hf.number("mean")) points = *mean;
      }
    } else if (hp->is(edn::Kind::kString)) {
      std::string dice;
      if (auto n = leading_int(hp->text(), &dice)) {
        f.warn(":hit-points is " + describe(*hp) + "; read as " + std::to_string(*n));
        points = *n;
        put_str(d, "hit_dice", dice);
      } else {
        f.warn(":hit-points is " + describe(*hp) + " where a number or {:die :die-count} is expected; ignored");
      }
    } else {
      points = f.number("hit-points");
    }
    if (points && (*points < 0 || *points > 1e7)) {
      f.warn("hit points " + number_text(*points) + " are out of range; ignored");
      points.reset();
    }
    if (points) {
      fc.hit_points = static_cast<int>(std::floor(*points));
      d["hit_points"] = *fc.hit_points;
    }
  }
  if (const Value* speed = f.get("speed")) {
    json s;
    if (speed->is(edn::Kind::kString)) {
      s = parse_speed(std::string(speed->text()));
      if (s.is_null()) f.warn(":speed \"" + std::string(speed->text()) + "\" has no readable speed; ignored");
    } else if (speed->is(edn::Kind::kMap)) {
      s = json::object();
      bool hover = false;
      for (const auto& [k, v] : speed->entries()) {
        const auto mode = scalar_text(k);
        if (!mode || v.is_nil()) continue;
        if (text::lower(*mode) == "hover" && v.as_bool()) {
          hover = *v.as_bool();
          continue;
        }
        if (auto n = f.number_of(v, "speed " + *mode)) s[text::lower(*mode)] = number_json(*n);
      }
      if (s.empty())
        s = nullptr;
      else if (hover)
        s["hover"] = true;
    } else if (auto n = f.number("speed")) {
      s = {{"walk", number_json(*n)}};
    }
    if (!s.is_null()) d["speed"] = s;
  }
  json abilities = json::object();
  const Value* nested = f.get("abilities");
  for (const char* ab : {"str", "dex", "con", "int", "wis", "cha"}) {
    const Value* v = f.get(ab);
    if (!v && nested) v = Fields::get_in(*nested, ab);
    if (!v) continue;
    if (auto n = f.number_of(*v, ab)) abilities[text::lower(ability_name(ab))] = number_json(*n);
  }
  if (!abilities.empty()) d["ability_scores"] = abilities;
  if (json saves = ability_map(f, "saving-throws"); !saves.empty()) d["saving_throws"] = saves;
  if (json skills = skill_map(f); !skills.empty()) d["skill_bonuses"] = skills;
  put_str(d, "damage_vulnerabilities", f.text("damage-vulnerabilities"));
  put_str(d, "damage_resistances", f.text("damage-resistances"));
  put_str(d, "damage_immunities", f.text("damage-immunities"));
  put_str(d, "condition_immunities", f.text("condition-immunities"));
  if (const Value* senses = f.get("senses")) {
    json s = json::object();
    if (senses->is(edn::Kind::kMap)) {
      for (const auto& [k, v] : senses->entries()) {
        std::string name = text::lower(scalar_text(k).value_or(""));
        std::replace(name.begin(), name.end(), '-', '_');
        if (name.empty() || v.is_nil()) continue;
        if (auto n = f.number_of(v, "senses " + name)) s[name] = number_json(*n);
      }
    } else {
      s = parse_senses(f.text("senses"));
    }
    if (!s.empty()) d["senses"] = s;
  }
  put_str(d, "languages", f.text("languages"));
  const Value* challenge = f.get("challenge");
  if (!challenge) challenge = f.get("challenge-rating");
  if (challenge) {
    std::optional<double> cr;
    if (challenge->is(edn::Kind::kInteger) || challenge->is(edn::Kind::kFloat)) {
      const double v = challenge->as_double().value_or(0);
      if (std::isfinite(v))
        cr = v;
      else
        f.warn(":challenge is " + non_finite_text(v) + "; challenge rating left unset");
    } else if (challenge->is(edn::Kind::kString)) {
      cr = parse_cr(challenge->text());
      if (cr)
        f.warn(":challenge is " + describe(*challenge) + "; read as " +
               (*cr < 1 ? model::cr_text(*cr) : number_text(*cr)));
      else
        f.warn(":challenge is " + describe(*challenge) + ", not a challenge rating; left unset");
    } else {
      f.warn(":challenge is " + describe(*challenge) + " where a number is expected; challenge rating left unset");
    }
    if (cr && (*cr < 0 || *cr > 1000)) {
      f.warn("challenge rating " + number_text(*cr) + " is out of range; left unset");
      cr.reset();
    }
    if (cr) {
      fc.cr = *cr;
      d["challenge_rating"] = *cr;
      d["challenge_rating_text"] = model::cr_text(*cr);
      if (const auto xp = model::xp_for_cr(*cr)) d["experience_points"] = number_json(static_cast<double>(*xp));
      if (*cr <= 30) d["proficiency_bonus"] = 2 + static_cast<int>(std::floor((std::max(*cr, 1.0) - 1) / 4));
    }
  }
  std::vector<std::string> parts;
  const std::string desc = f.description();
  put_str(d, "desc", desc);
  add_part(parts, desc);
  for (const auto& [field, out] : std::vector<std::pair<const char*, const char*>>{{"traits", "traits"},
                                                                                   {"actions", "actions"},
                                                                                   {"bonus-actions", "bonus_actions"},
                                                                                   {"reactions", "reactions"}}) {
    const Value* v = f.get(field);
    if (!v) continue;
    json list = named_entries(f, *v, field, parts);
    if (!list.empty()) d[out] = std::move(list);
  }
  // Legendary and lair actions: {:description "..." :actions [...]}, or the list alone.
  struct ActionGroup {
    const char* field;
    const char* out;
    const char* intro;
  };
  for (const auto& [field, out, intro] : {ActionGroup{"legendary-actions", "legendary_actions", "legendary_desc"},
                                          ActionGroup{"lair-actions", "lair_actions", "lair_desc"}}) {
    const Value* v = f.get(field);
    if (!v) continue;
    json list;
    if (const Value* inner = v->is(edn::Kind::kMap) ? Fields::get_in(*v, "actions") : nullptr) {
      Fields lf = f.sub(*v, " :" + std::string(field));
      const std::string intro_text = lf.description();
      add_part(parts, intro_text);
      list = named_entries(lf, *inner, "actions", parts);
      if (!list.empty() && !intro_text.empty()) d[intro] = intro_text;
    } else {
      list = named_entries(f, *v, field, parts);
    }
    if (!list.empty()) d[out] = std::move(list);
  }
  e.text = text::join(parts, "\n");
}

void map_class(Fields& f, Entity& e, PendingLink& link, bool subclass) {
  auto& d = e.data;
  std::vector<std::string> parts;
  const std::string desc = f.description();
  put_str(d, "desc", desc);
  add_part(parts, desc);
  if (f.get("hit-die")) {
    if (auto die = f.integer("hit-die", 1, 100)) {
      const std::string n = std::to_string(*die);
      d["hit_dice"] = "D" + n;
      d["hit_points"] = {{"hit_points_at_1st_level", n + " + your Constitution modifier"},
                         {"hit_points_at_higher_levels", "1D" + n + " (or " + std::to_string(*die / 2 + 1) +
                                                             ") + your Constitution modifier per " +
                                                             text::lower(e.name) + " level after 1st"}};
    }
  }
  if (const Value* profs = f.get("profs")) {
    if (profs->is(edn::Kind::kMap)) {
      Fields pf = f.sub(*profs, " :profs");
      json saves = json::array();
      for (const std::string& k : pf.flag_keys("save")) {
        const std::string n = ability_name(k);
        if (!n.empty()) saves.push_back(n);
      }
      if (!saves.empty()) d["saving_throws"] = saves;
    } else {
      f.warn(":profs is " + describe(*profs) + " where a map is expected; ignored");
    }
  }
  if (const Value* sc = f.get("spellcasting")) {
    if (sc->is(edn::Kind::kMap)) {
      Fields sf = f.sub(*sc, " :spellcasting");
      if (sf.get("level-factor")) {
        if (auto factor = sf.integer("level-factor", 1, 3)) {
          d["caster_type"] = *factor == 1 ? "FULL" : *factor == 2 ? "HALF" : "THIRD";
        }
      }
    } else {
      f.warn(":spellcasting is " + describe(*sc) + " where a map is expected; ignored");
    }
  }
  json features = f.get("traits") ? named_entries(f, *f.get("traits"), "traits", parts) : json::array();
  std::stable_sort(features.begin(), features.end(), [](const json& a, const json& b) {
    const int la = a.contains("levels") ? a["levels"][0].get<int>() : 0;
    const int lb = b.contains("levels") ? b["levels"][0].get<int>() : 0;
    return la < lb;
  });
  if (!features.empty()) d["features"] = std::move(features);
  if (subclass) {
    link.target_kind = "classes";
    link.parent = true;
    const std::string parent = f.text("class");
    if (parent.empty())
      f.warn("has no :class; not linked to a class");
    else
      link.keys.push_back(parent);
  }
  e.text = text::join(parts, "\n");
}

std::string signed_number(double v) { return (v >= 0 ? "+" : "") + number_text(v); }

void map_species(Fields& f, Entity& e, PendingLink& link, bool subrace) {
  auto& d = e.data;
  std::vector<std::string> parts;
  const std::string desc = f.description();
  put_str(d, "desc", desc);
  add_part(parts, desc);
  // The mechanical fields become the traits Open5e species list first ("Ability Score Increase", "Size", ...).
  json traits = json::array();
  auto add_trait = [&](const std::string& name, const std::string& text) {
    if (text.empty()) return;
    traits.push_back({{"name", name}, {"desc", text}});
    parts.push_back(name + ". " + text);
  };
  if (const Value* abilities = f.get("abilities")) {
    std::vector<std::string> asi;
    if (abilities->is(edn::Kind::kMap)) {
      for (const auto& [k, v] : abilities->entries()) {
        const std::string n = ability_name(scalar_text(k).value_or(""));
        if (n.empty() || v.is_nil()) continue;
        if (auto x = f.number_of(v, "abilities " + edn::to_string(k))) asi.push_back(n + " " + signed_number(*x));
      }
    } else {
      f.warn(":abilities is " + describe(*abilities) + " where a map is expected; ignored");
    }
    add_trait("Ability Score Increase", text::join(asi, ", "));
  }
  add_trait("Size", title_case(f.text("size")));
  if (f.get("speed")) {
    if (auto speed = f.number("speed")) add_trait("Speed", number_text(*speed) + " feet");
  }
  if (f.get("darkvision")) {
    if (auto dv = f.number("darkvision"); dv && *dv > 0) add_trait("Darkvision", number_text(*dv) + " feet");
  }
  add_trait("Languages", f.text("languages"));
  if (const Value* t = f.get("traits")) {
    for (auto& x : named_entries(f, *t, "traits", parts)) traits.push_back(std::move(x));
  }
  if (!traits.empty()) d["traits"] = std::move(traits);
  if (subrace) {
    link.target_kind = "races";
    link.parent = true;
    const std::string parent = f.text("race");
    if (parent.empty())
      f.warn("has no :race; not linked to a race");
    else
      link.keys.push_back(parent);
  }
  e.text = text::join(parts, "\n");
}

// "explorers-pack" x1, "javelin" x4 -> "Explorers Pack, Javelin (4)".
std::string equipment_text(Fields& f, std::string_view field) {
  const Value* m = f.get(field);
  if (!m || !m->is(edn::Kind::kMap)) return "";
  std::vector<std::string> items;
  for (const auto& [k, v] : m->entries()) {
    const auto name = scalar_text(k);
    if (!name) continue;
    std::string item = title_case(*name);
    if (auto n = v.as_double(); n && *n > 1) item += " (" + number_text(*n) + ")";
    items.push_back(item);
  }
  return text::join(items, ", ");
}

std::string titled_keys(const std::vector<std::string>& keys) {
  std::vector<std::string> names;
  for (const auto& k : keys) names.push_back(title_case(k));
  return text::join(names, ", ");
}

void map_background(Fields& f, Entity& e) {
  auto& d = e.data;
  std::vector<std::string> parts;
  const std::string desc = f.description();
  put_str(d, "desc", desc);
  add_part(parts, desc);
  json benefits = json::array();
  auto add_benefit = [&](const std::string& name, const std::string& text, const char* type) {
    if (text.empty()) return;
    benefits.push_back({{"name", name}, {"desc", text}, {"type", type}});
    parts.push_back(name + ". " + text);
  };
  if (const Value* profs = f.get("profs")) {
    if (profs->is(edn::Kind::kMap)) {
      Fields pf = f.sub(*profs, " :profs");
      add_benefit("Skill Proficiencies", titled_keys(pf.flag_keys("skill")), "skill_proficiency");
      add_benefit("Tool Proficiencies", titled_keys(pf.flag_keys("tool")), "tool_proficiency");
    } else {
      f.warn(":profs is " + describe(*profs) + " where a map is expected; ignored");
    }
  }
  add_benefit("Equipment", equipment_text(f, "equipment"), "equipment");
  if (const Value* t = f.get("traits")) {
    for (auto& x : named_entries(f, *t, "traits", parts)) benefits.push_back(std::move(x));
  }
  if (!benefits.empty()) d["benefits"] = std::move(benefits);
  e.text = text::join(parts, "\n");
}

void map_feat(Fields& f, Entity& e) {
  auto& d = e.data;
  std::vector<std::string> parts;
  const std::string desc = f.description();
  put_str(d, "desc", desc);
  add_part(parts, desc);
  json benefits = json::array();
  if (const Value* inc = f.get("ability-increases")) {
    // The legacy form is a set of abilities, one of which rises by 1.
    std::vector<std::string> names;
    if (inc->is(edn::Kind::kSet) || inc->is(edn::Kind::kVector) || inc->is(edn::Kind::kList)) {
      for (const auto& x : inc->items()) {
        const std::string n = ability_name(scalar_text(x).value_or(""));
        if (!n.empty()) names.push_back(n);
      }
    }
    if (!names.empty()) {
      const std::string t = names.size() == 1 ? "Increase your " + names[0] + " score by 1."
                                              : "Increase one of " + text::join(names, ", ") + " by 1.";
      benefits.push_back({{"name", "Ability Score Increase"}, {"desc", t}});
      parts.push_back("Ability Score Increase. " + t);
    }
  }
  if (const Value* t = f.get("traits")) {
    for (auto& x : named_entries(f, *t, "traits", parts)) benefits.push_back(std::move(x));
  }
  if (!benefits.empty()) d["benefits"] = std::move(benefits);
  std::string prereq = f.text("prerequisite");
  if (prereq.empty()) prereq = titled_keys(f.flag_keys("prereqs"));
  put_str(d, "prerequisite", prereq);
  const std::string type = f.text("type");
  put_str(d, "type", type);
  e.facets.type = text::lower(type);
  e.text = text::join(parts, "\n");
}

void map_language(Fields& f, const Value& m, Entity& e) {
  auto& d = e.data;
  const std::string desc = f.description();
  put_str(d, "desc", desc);
  // Like Open5e's reference kinds: the small scalar fields (type, script, typical speakers...).
  for (const auto& [k, v] : m.entries()) {
    if (!k.is(edn::Kind::kKeyword)) continue;
    const std::string_view name = k.name();
    if (name == "key" || name == "name" || name == "option-pack" || name == "description" || name == "desc") continue;
    std::string field(name);
    std::replace(field.begin(), field.end(), '-', '_');
    field.erase(std::remove(field.begin(), field.end(), '?'), field.end());
    if (field.empty()) continue;
    if (auto b = v.as_bool()) {
      d[field] = *b;
    } else if (auto t = scalar_text(v); t && !v.is(edn::Kind::kInteger) && !v.is(edn::Kind::kFloat)) {
      if (!t->empty()) d[field] = *t;
    } else if (auto n = v.as_double(); n && std::isfinite(*n)) {
      d[field] = *n;
    }
  }
  e.text = desc;
}

// Cost in gold pieces: a number, {:num 15 :type :gp}, or "15 gp".
std::optional<double> cost_gp(Fields& f) {
  const Value* c = f.get("cost");
  if (!c) return std::nullopt;
  auto to_gp = [](double v, std::string unit) -> std::optional<double> {
    unit = text::lower(text::trim(unit));
    if (unit.empty() || unit == "gp") return v;
    if (unit == "sp") return v / 10;
    if (unit == "cp") return v / 100;
    if (unit == "pp") return v * 10;
    if (unit == "ep") return v / 2;
    return std::nullopt;
  };
  if (c->is(edn::Kind::kMap)) {
    Fields cf = f.sub(*c, " :cost");
    const auto n = cf.number("num");
    if (!n) return std::nullopt;
    return to_gp(*n, cf.text("type"));
  }
  if (c->is(edn::Kind::kString)) {
    char* end = nullptr;
    const std::string s(c->text());
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && std::isfinite(v)) {
      if (auto gp = to_gp(v, end)) return gp;
    }
    f.warn(":cost is " + describe(*c) + ", not a cost; ignored");
    return std::nullopt;
  }
  return f.number("cost");
}

void add_cost_weight(Fields& f, Entity& e) {
  e.facets.cost = cost_gp(f);
  if (e.facets.cost) e.data["cost_gp"] = *e.facets.cost;
  if (f.get("weight")) {
    e.facets.weight = f.number("weight");
    if (e.facets.weight) {
      e.data["weight"] = *e.facets.weight;
      e.data["weight_unit"] = "lb";
    }
  }
}

void map_magic_item(Fields& f, Entity& e) {
  auto& d = e.data;
  auto& fc = e.facets;
  std::string category = f.text("item-type");
  if (category.empty()) category = f.text("type");
  fc.type = model::slug(category);
  put_str(d, "category", title_case(category));
  const std::string rarity = f.text("rarity");
  fc.rarity = model::slug(rarity);
  put_str(d, "rarity", title_case(rarity));
  bool attune = false;
  std::string detail;
  if (const Value* a = f.get("attunement")) {
    if (auto b = a->as_bool()) {
      attune = *b;
    } else if (a->is(edn::Kind::kString)) {
      const std::string t = text::lower(text::trim(a->text()));
      attune = !t.empty() && t != "no" && t != "false" && t != "none";
      if (const auto by = t.find("by "); attune && by != std::string::npos) detail = text::trim(a->text()).substr(by);
    } else {
      // [:any] or the classes that may attune ([:wizard :sorcerer]).
      std::vector<std::string> who;
      for (const std::string& k : f.flag_keys("attunement")) {
        attune = true;
        if (text::lower(k) != "any") who.push_back(text::lower(title_case(k)));
      }
      if (!who.empty()) detail = "by a " + text::join(who, " or ");
    }
  }
  if (const Value* r = f.get("requires-attunement")) {
    if (r->is(edn::Kind::kString)) {
      const std::string t = text::lower(text::trim(r->text()));
      attune = attune || (!t.empty() && t != "no" && t != "false");
      if (const auto by = t.find("by "); by != std::string::npos && detail.empty())
        detail = text::trim(r->text()).substr(by);
    } else if (auto b = f.flag("requires-attunement")) {
      attune = attune || *b;
    }
  }
  fc.requires_attunement = attune;
  d["requires_attunement"] = attune;
  put_str(d, "attunement_detail", detail);
  add_cost_weight(f, e);
  const std::string desc = f.description();
  put_str(d, "desc", desc);
  e.text = desc;
}

// "1d8" from {:damage-die 8 :damage-die-count 1}.
std::string dice_of(Fields& f) {
  if (!f.get("damage-die")) return "";
  const auto die = f.number("damage-die");
  const auto count = f.get("damage-die-count") ? f.number("damage-die-count") : std::optional<double>(1);
  if (!die || !count) return "";
  return number_text(*count) + "d" + number_text(*die);
}

void map_weapon(Fields& f, Entity& e) {
  auto& d = e.data;
  auto& fc = e.facets;
  const std::string type = text::lower(f.text("type"));
  bool simple = type == "simple";
  if (f.get("simple?")) simple = f.flag("simple?").value_or(simple);
  fc.is_simple = simple;
  d["category"] = *fc.is_simple ? "simple" : "martial";
  fc.type = *fc.is_simple ? "simple" : "martial";
  std::string dice = dice_of(f);
  if (dice.empty()) dice = f.text("damage");
  fc.damage_dice = text::lower(dice);
  put_str(d, "damage_dice", dice);
  const std::string damage_type = f.text("damage-type");
  put_str(d, "damage_type", title_case(damage_type));
  if (!damage_type.empty()) fc.damage_types.push_back(model::slug(damage_type));
  const bool ranged = f.get("ranged?") ? f.flag("ranged?").value_or(false) : false;
  d["is_melee"] = !ranged;
  if (const Value* range = f.get("range")) {
    if (range->is(edn::Kind::kMap)) {
      Fields rf = f.sub(*range, " :range");
      const auto normal = rf.number("min");
      const auto longest = rf.number("max");
      if (normal) {
        d["range"] = *normal;
        d["long_range"] = longest.value_or(*normal);
        d["distance_unit"] = "feet";
      }
    } else if (auto n = f.number("range")) {
      d["range"] = *n;
      d["long_range"] = *n;
      d["distance_unit"] = "feet";
    }
  }
  json props = json::array();
  std::vector<std::string> prop_text;
  auto add_prop = [&](const std::string& name, const std::string& detail) {
    json x = {{"name", name}};
    put_str(x, "detail", detail);
    props.push_back(std::move(x));
    fc.properties.push_back(model::slug(name));
    prop_text.push_back(detail.empty() ? name : name + " (" + detail + ")");
  };
  for (const char* p : {"ammunition", "finesse", "heavy", "light", "loading", "reach", "thrown", "two-handed"}) {
    const std::string flag = std::string(p) + "?";
    if (f.get(flag) && f.flag(flag).value_or(false)) add_prop(title_case(p), "");
  }
  if (const Value* v = f.get("versatile")) {
    std::string vdice;
    if (v->is(edn::Kind::kMap)) {
      Fields vf = f.sub(*v, " :versatile");
      vdice = dice_of(vf);
    } else if (v->is(edn::Kind::kString)) {
      vdice = text::trim(v->text());
    }
    if (!vdice.empty()) {
      d["versatile_dice"] = vdice;
      add_prop("Versatile", vdice);
    }
  }
  if (!props.empty()) d["properties"] = std::move(props);
  add_cost_weight(f, e);
  const std::string desc = f.description();
  put_str(d, "desc", desc);
  std::vector<std::string> parts;
  add_part(parts, text::trim(title_case(damage_type) + " damage " + dice) + ". " + text::join(prop_text, ", "));
  add_part(parts, desc);
  e.text = text::join(parts, "\n");
}

void map_armor(Fields& f, Entity& e) {
  auto& d = e.data;
  auto& fc = e.facets;
  const std::string category = text::lower(f.text("type"));
  fc.type = model::slug(category);
  put_str(d, "category", category);
  std::string display;
  if (f.get("base-ac")) {
    if (auto base = f.integer("base-ac", 0, 100)) {
      d["ac_base"] = *base;
      fc.armor_class = *base;
      display = (category == "shield" ? "+" : "") + std::to_string(*base);
    }
  }
  std::optional<double> max_dex;
  if (f.get("max-dex-mod")) max_dex = f.number("max-dex-mod");
  if (max_dex) d["ac_dex_modifier_max"] = *max_dex;
  const bool dex = category == "light" || category == "medium" || max_dex.has_value();
  if (!display.empty() && category != "shield") {
    d["ac_add_dex_modifier"] = dex;
    if (dex) {
      display += " + Dex modifier";
      if (max_dex) display += " (max " + number_text(*max_dex) + ")";
    }
  }
  put_str(d, "armor_class", display);
  d["stealth_disadvantage"] = f.get("stealth-disadvantage?") ? f.flag("stealth-disadvantage?").value_or(false) : false;
  if (f.get("min-str")) {
    if (auto s = f.number("min-str"); s && *s > 0) d["strength_required"] = *s;
  }
  add_cost_weight(f, e);
  const std::string desc = f.description();
  put_str(d, "desc", desc);
  std::vector<std::string> parts;
  add_part(parts, category + " armor. AC " + display);
  add_part(parts, desc);
  e.text = text::join(parts, "\n");
}

const KindMapping* find_mapping(std::string_view orcbrew_kind) {
  for (const auto& m : kKinds) {
    if (m.orcbrew_kind == orcbrew_kind) return &m;
  }
  return nullptr;
}

bool has_non_finite(const Value& v) {
  if (v.is(edn::Kind::kFloat)) return !std::isfinite(v.as_double().value_or(0));
  if (v.is(edn::Kind::kTagged)) return has_non_finite(v.tagged_value());
  for (const auto& x : v.items()) {
    if (has_non_finite(x)) return true;
  }
  return false;
}

// Entries a kind value holds (for the unsupported-kind counts).
int entry_count(const Value& v) { return v.is_collection() ? static_cast<int>(v.size()) : 0; }

// The base name of a file label without its extension: "packs/Homebrew Grimoire.orcbrew" -> "Homebrew Grimoire".
std::string file_stem(const std::string& label) {
  std::string base = label;
  if (const auto slash = base.find_last_of("/\\"); slash != std::string::npos) base = base.substr(slash + 1);
  if (const auto dot = base.find_last_of('.'); dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return text::trim(base);
}

constexpr std::string_view kUnnamedPack = "Unnamed Content";

// Maps a whole file: packs in order, then the links between entities across packs.
class Importer {
 public:
  // `release`: the tree is the importer's own (read_orcbrew's), and each entry is freed once it is mapped, so the
  // tree's memory goes as the entities' comes.
  Importer(std::string file_label, bool release) : label_(std::move(file_label)), release_(release) {}

  FileImport& out() { return out_; }

  void pack(std::string name, const Value& pack) {
    PackReport r;
    if (text::trim(name).empty()) {
      r.warnings.push_back("the pack has no name; named \"" + std::string(kUnnamedPack) + "\"");
      name = std::string(kUnnamedPack);
    }
    r.pack_name = name;
    std::string key = document_key_for(name);
    if (doc_keys_.count(key) > 0) {
      int n = 2;
      while (doc_keys_.count(key + "-" + std::to_string(n)) > 0) ++n;
      const std::string taken = key;
      key += "-" + std::to_string(n);
      r.warnings.push_back("document key \"" + taken + "\" is taken by an earlier pack of this file; this pack is \"" +
                           key + "\"");
    }
    doc_keys_.insert(key);
    Document& doc = r.document;
    doc.key = key;
    doc.name = name;
    doc.display_name = name;
    doc.publisher = std::string(kPublisher);
    doc.game_system = std::string(kGameSystem);
    doc.source_api = std::string(kSourceApi);
    doc.url = "orcbrew://" + url_part(label_) + "#" + url_part(name);
    doc.description = "Homebrew pack \"" + name + "\" imported from the OrcBrew file " + label_ + ".";
    const size_t pack_index = out_.packs.size();
    used_keys_.clear();
    if (!pack.is(edn::Kind::kMap)) {
      r.problems.push_back(
          {name, "", "", "the pack is " + describe(pack) + ", not a map of kinds; nothing in it was imported"});
    } else {
      for (const auto& [k, v] : pack.entries()) kind_entry(r, pack_index, k, v);
    }
    if (r.imported() > 0) out_.documents.push_back(r.document);
    out_.packs.push_back(std::move(r));
  }

  // Resolves parents and spell class lists once every pack is known.
  void resolve_links() {
    for (const Link& link : links_) {
      Entity& e = out_.entities[link.entity];
      json names = json::array();
      std::vector<std::string> facet;
      std::set<std::string> seen;
      for (const std::string& written : link.keys) {
        const std::string slug = key_slug(written);
        if (!seen.insert(slug).second) continue;
        std::string key;
        std::string name;
        bool found = false;
        if (auto it = targets_.find({link.target_kind, slug}); it != targets_.end()) {
          size_t pick = it->second.front().second;
          for (const auto& [pack, entity] : it->second) {
            if (pack == link.pack) {
              pick = entity;
              break;
            }
          }
          key = out_.entities[pick].key;
          name = out_.entities[pick].name;
          found = true;
        } else if ((link.target_kind == "classes" ? kSrdClasses : kSrdRaces).count(slug) > 0) {
          key = "srd_" + slug;
          name = title_case(slug);
          found = true;
        } else {
          key = slug;
          name = title_case(written);
        }
        if (link.parent) {
          e.facets.parent_key = key;
          e.data[link.target_kind == "classes" ? "subclass_of" : "subspecies_of"] = name;
          if (!found) {
            out_.packs[link.pack].warnings.push_back(
                link.where + ": its " + (link.target_kind == "classes" ? "class :" : "race :") + written +
                " is neither in this file nor an SRD " + (link.target_kind == "classes" ? "class" : "race") +
                "; parent_key \"" + key + "\" links to nothing yet");
          }
        } else {
          names.push_back(name);
          facet.push_back(text::fold(name));
          facet.push_back(text::lower(key));
        }
      }
      if (!link.parent) {
        std::sort(facet.begin(), facet.end());
        facet.erase(std::unique(facet.begin(), facet.end()), facet.end());
        e.data["classes"] = std::move(names);
        e.facets.classes = std::move(facet);
      }
    }
  }

 private:
  void kind_entry(PackReport& r, size_t pack_index, const Value& k, const Value& v) {
    if (!k.is(edn::Kind::kKeyword)) {
      r.problems.push_back({r.pack_name, edn::to_string(k), "",
                            "a pack entry keyed by " + describe(k) + ", not a kind keyword; not imported"});
      return;
    }
    const std::string_view ns = k.ns();
    const std::string_view name = k.name();
    if (ns.empty() && name == "disabled?") {
      if (v.as_bool() == true) r.warnings.push_back("the pack is marked disabled in OrcPub; imported anyway");
      return;
    }
    if (ns == kKindNamespace || ns.empty()) {
      if (const KindMapping* m = find_mapping(name)) {
        kind(r, pack_index, *m, v);
        return;
      }
      if (ns.empty() && !v.is_collection() && !v.is_nil()) {
        r.warnings.push_back("pack field :" + std::string(name) + " (" + describe(v) + ") is not a kind; ignored");
        return;
      }
      r.unsupported_kinds[std::string(name)] += entry_count(v);
      return;
    }
    r.unsupported_kinds[std::string(k.text())] += entry_count(v);
  }

  void kind(PackReport& r, size_t pack_index, const KindMapping& m, const Value& v) {
    const std::string kind_name(m.orcbrew_kind);
    if (v.is_nil()) {
      r.warnings.push_back(kind_name + ": nil instead of a map of entities; nothing to import");
      return;
    }
    if (v.is(edn::Kind::kMap)) {
      for (const auto& [k, ent] : v.entries()) {
        const auto key = k.is(edn::Kind::kKeyword) || k.is(edn::Kind::kString) || k.is(edn::Kind::kSymbol) ||
                                 k.is(edn::Kind::kInteger)
                             ? scalar_text(k)
                             : std::nullopt;
        std::string key_text = key ? text::trim(*key) : "";
        if (k.is(edn::Kind::kKeyword) && !k.ns().empty()) key_text = std::string(k.text());
        entity(r, pack_index, m, key_text, key_text.empty() ? edn::to_string(k) : key_text, ent);
      }
      return;
    }
    if (v.is(edn::Kind::kVector) || v.is(edn::Kind::kList)) {
      r.warnings.push_back(kind_name + ": " + describe(v) + " of " + std::to_string(v.size()) +
                           " entries instead of a map keyed by entity key; each entry is keyed by its :key or name");
      size_t i = 0;
      for (const auto& ent : v.items()) entity(r, pack_index, m, "", "[" + std::to_string(i++) + "]", ent);
      return;
    }
    r.problems.push_back({r.pack_name, kind_name, "",
                          "the kind is " + describe(v) + ", not a map of entities; nothing in it was imported"});
  }

  void entity(PackReport& r, size_t pack_index, const KindMapping& m, std::string key_text, const std::string& label,
              const Value& ent) {
    const std::string kind_name(m.orcbrew_kind);
    if (ent.is_nil()) {
      r.problems.push_back({r.pack_name, kind_name, label, "the entry is nil, not an entity map"});
      return;
    }
    if (!ent.is(edn::Kind::kMap)) {
      r.problems.push_back({r.pack_name, kind_name, label, "the entry is " + describe(ent) + ", not an entity map"});
      return;
    }
    if (auto why = beyond_bounds(ent)) {
      r.problems.push_back({r.pack_name, kind_name, label, *why});
      return;
    }
    Fields f(ent, r.warnings, kind_name + "/" + label);
    if (key_text.empty()) {
      // No usable map key: the entity's own :key, else its name.
      if (const Value* k = f.get("key"); k && scalar_text(*k)) key_text = text::trim(*scalar_text(*k));
      if (key_text.empty()) {
        if (const Value* n = f.get("name"); n && n->is(edn::Kind::kString)) key_text = model::slug(n->text());
      }
      if (key_text.empty()) {
        r.problems.push_back(
            {r.pack_name, kind_name, label, "the entry has no usable key: no keyword map key, :key or :name"});
        return;
      }
      f.warn("keyed by \"" + key_text + "\" from its own :key or name");
    }
    Entity e;
    e.kind = m.kind;
    // The name: text, else the key spelled as words.
    if (const Value* n = f.get("name")) {
      if (n->is_collection())
        f.warn(":name is " + describe(*n) + " where text is expected; ignored");
      else
        e.name = f.text_of(*n, "name");
    }
    if (text::trim(e.name).empty()) {
      e.name = title_case(key_text);
      f.warn("has no name; named \"" + e.name + "\" after its key");
    }
    e.name = text::trim(e.name);
    const PackReport& pr = r;
    std::string key = entity_key_for(pr.document.key, key_text);
    const auto kind_id = static_cast<int>(m.kind);
    if (used_keys_.count({kind_id, key}) > 0) {
      int n = 2;
      while (used_keys_.count({kind_id, key + "-" + std::to_string(n)}) > 0) ++n;
      const std::string taken = key;
      key += "-" + std::to_string(n);
      f.warn("key \"" + taken + "\" is taken by an earlier " + std::string(model::kind_name(m.kind)) +
             " of this pack; stored as \"" + key + "\"");
    }
    used_keys_.insert({kind_id, key});
    e.key = key;
    e.document = pr.document;
    e.source_api = std::string(kSourceApi);
    e.url = "orcbrew://" + url_part(label_) + "#" + url_part(pr.pack_name) + "/" + url_part(kind_name) + "/" +
            url_part(key_text);
    e.raw = to_json(ent);
    std::vector<std::string> non_finite;
    for (const auto& [fk, fv] : ent.entries()) {
      if (has_non_finite(fv)) non_finite.push_back(edn::to_string(fk));
    }
    if (!non_finite.empty()) {
      f.warn("##NaN or ##Inf in " + text::join(non_finite, ", ") + ": null in the stored original record");
    }
    PendingLink link;
    const std::string_view k = m.orcbrew_kind;
    if (k == "spells")
      map_spell(f, e, link);
    else if (k == "monsters")
      map_creature(f, e);
    else if (k == "classes" || k == "subclasses")
      map_class(f, e, link, k == "subclasses");
    else if (k == "races" || k == "subraces")
      map_species(f, e, link, k == "subraces");
    else if (k == "backgrounds")
      map_background(f, e);
    else if (k == "feats")
      map_feat(f, e);
    else if (k == "languages")
      map_language(f, ent, e);
    else if (k == "magic-items")
      map_magic_item(f, e);
    else if (k == "weapons")
      map_weapon(f, e);
    else if (k == "armor")
      map_armor(f, e);
    const size_t index = out_.entities.size();
    if (!link.keys.empty()) {
      links_.push_back({index, pack_index, link.target_kind, std::move(link.keys), link.parent, f.where()});
    }
    if (k == "classes" || k == "races") targets_[{std::string(k), key_slug(key_text)}].push_back({pack_index, index});
    out_.entities.push_back(std::move(e));
    ++r.imported_per_kind[kind_name];
    // Nothing reads an entry after it is mapped; a released tree was created mutable by read_orcbrew.
    if (release_) const_cast<Value&>(ent) = Value();
  }

  std::string label_;
  bool release_;
  FileImport out_;
  std::set<std::string> doc_keys_;
  std::set<std::pair<int, std::string>> used_keys_;  // (model kind, entity key) in the current pack
  std::vector<Link> links_;
  // ("classes" or "races", slug of the OrcBrew key) -> (pack, entity) in file order.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<size_t, size_t>>> targets_;
};

// Whether a top-level key looks like a kind (so the file is a single pack).
bool is_kind_key(const Value& k) {
  if (!k.is(edn::Kind::kKeyword)) return false;
  if (k.ns() == kKindNamespace) return true;
  return k.ns().empty() && find_mapping(k.name()) != nullptr;
}

// A single pack's name: the :option-pack its entities agree on, else the file's name (as OrcPub does).
std::string single_pack_name(const Value& pack, const std::string& file_label, std::string* how) {
  std::set<std::string> packs;
  for (const auto& [k, v] : pack.entries()) {
    if (!v.is(edn::Kind::kMap)) continue;
    for (const auto& [ek, ent] : v.entries()) {
      if (const Value* op = Fields::get_in(ent, "option-pack"); op && op->is(edn::Kind::kString)) {
        const std::string t = text::trim(op->text());
        if (!t.empty()) packs.insert(t);
      }
    }
  }
  if (packs.size() == 1) {
    *how = "the :option-pack its entries share";
    return *packs.begin();
  }
  *how = packs.empty() ? "the file (its entries name no :option-pack)" : "the file (its entries name several packs)";
  std::string stem = file_stem(file_label);
  return stem.empty() ? std::string(kUnnamedPack) : stem;
}

}  // namespace

const std::vector<KindMapping>& supported_kinds() { return kKinds; }

std::optional<model::Kind> model_kind_for(std::string_view orcbrew_kind) {
  if (const KindMapping* m = find_mapping(orcbrew_kind)) return m->kind;
  return std::nullopt;
}

int PackReport::imported() const {
  int n = 0;
  for (const auto& [k, c] : imported_per_kind) n += c;
  return n;
}

int PackReport::unsupported() const {
  int n = 0;
  for (const auto& [k, c] : unsupported_kinds) n += c;
  return n;
}

int PackReport::skipped_entities() const {
  int n = 0;
  for (const auto& p : problems) n += p.key.empty() ? 0 : 1;
  return n;
}

std::string document_key_for(const std::string& pack_name) { return "orcbrew-" + key_slug(pack_name); }

std::string entity_key_for(const std::string& document_key, std::string_view orcbrew_key) {
  return document_key + "_" + key_slug(orcbrew_key);
}

json to_json(const Value& v) {
  switch (v.kind()) {
    case edn::Kind::kNil: return nullptr;
    case edn::Kind::kBool: return v.as_bool().value_or(false);
    case edn::Kind::kInteger:
      if (v.is_big_integer()) return std::string(v.text());
      return v.as_int().value_or(0);
    case edn::Kind::kFloat: {
      const double d = v.as_double().value_or(0);
      if (!std::isfinite(d)) return nullptr;
      return d;
    }
    case edn::Kind::kString:
    case edn::Kind::kKeyword:
    case edn::Kind::kSymbol: return std::string(v.text());
    case edn::Kind::kCharacter: return scalar_text(v).value_or("");
    case edn::Kind::kList:
    case edn::Kind::kVector:
    case edn::Kind::kSet: {
      json a = json::array();
      for (const auto& x : v.items()) a.push_back(to_json(x));
      return a;
    }
    case edn::Kind::kMap: {
      json o = json::object();
      for (const auto& [k, x] : v.entries()) {
        const bool textual = k.is(edn::Kind::kString) || k.is(edn::Kind::kKeyword) || k.is(edn::Kind::kSymbol);
        o[textual ? std::string(k.text()) : edn::to_string(k)] = to_json(x);
      }
      return o;
    }
    case edn::Kind::kTagged: return to_json(v.tagged_value());
  }
  return nullptr;
}

namespace {

Result<FileImport> map_tree(const Value& root, const std::string& file_label, bool release) {
  if (!root.is(edn::Kind::kMap)) {
    return Status::invalid_argument(file_label + ": expected a map of packs at the top level, found " + describe(root));
  }
  Importer imp(file_label, release);
  std::vector<std::string> notes;
  const Value* packs = &root;
  const Value* version = root.get("orcbrew/format-version");
  if (const Value* content = root.get("orcbrew/content"); content || version) {
    if (!content || !content->is(edn::Kind::kMap)) {
      return Status::invalid_argument(file_label + ": a versioned OrcBrew envelope whose :orcbrew/content is " +
                                      (content ? describe(*content) : std::string("missing")) + ", not a map of packs");
    }
    notes.push_back("the file is a versioned OrcBrew envelope (format version " +
                    (version ? scalar_text(*version).value_or(edn::to_string(*version)) : std::string("unknown")) +
                    "); the packs inside it were imported");
    packs = content;
  }
  bool any_string = false;
  bool any_kind = false;
  for (const auto& [k, v] : packs->entries()) {
    any_string = any_string || k.is(edn::Kind::kString);
    any_kind = any_kind || is_kind_key(k);
  }
  if (!any_string && any_kind) {
    std::string how;
    const std::string name = single_pack_name(*packs, file_label, &how);
    notes.push_back("the file holds a single pack without a pack name; named \"" + name + "\" after " + how);
    imp.pack(name, *packs);
  } else {
    for (const auto& [k, v] : packs->entries()) {
      if (k.is(edn::Kind::kString)) {
        imp.pack(std::string(k.text()), v);
      } else if (!(k.is(edn::Kind::kKeyword) && k.ns() == "orcbrew")) {
        notes.push_back("top-level key " + edn::to_string(k) + " is not a pack name (" + describe(v) +
                        "); its content was not imported");
      }
    }
    if (packs->size() == 0) notes.push_back("the file holds no packs");
  }
  imp.resolve_links();
  FileImport out = std::move(imp.out());
  for (model::Entity& e : out.entities) model::derive_facets(e);
  out.warnings.insert(out.warnings.end(), notes.begin(), notes.end());
  return out;
}

}  // namespace

Result<FileImport> map_orcbrew(const Value& root, const std::string& file_label) {
  return map_tree(root, file_label, false);
}

Result<FileImport> read_orcbrew(std::string text, const std::string& file_label) {
  edn::ParseReport report;
  edn::ParseOptions options;
  options.max_values = kMaxValues;
  auto parsed = edn::parse(text, options, &report);
  // The tree holds its own copy of every string and number: the text is not needed while mapping.
  std::string().swap(text);
  if (!parsed) return Status::invalid_argument(file_label + ": " + parsed.status().message());
  auto mapped = map_tree(*parsed, file_label, true);
  if (!mapped) return mapped;
  FileImport& out = *mapped;
  out.duplicate_map_keys = report.duplicate_map_keys;
  if (report.duplicate_map_keys > 0) {
    std::vector<std::string> dup;
    dup.push_back(std::to_string(report.duplicate_map_keys) +
                  " duplicate map key(s) in the file: the last value of each was kept");
    dup.insert(dup.end(), report.warnings.begin(), report.warnings.end());
    if (report.warnings.size() < report.duplicate_map_keys + report.duplicate_set_elements) {
      dup.push_back("... and " +
                    std::to_string(report.duplicate_map_keys + report.duplicate_set_elements - report.warnings.size()) +
                    " more");
    }
    out.warnings.insert(out.warnings.begin(), dup.begin(), dup.end());
  }
  return mapped;
}

json report_json(const FileImport& import, const std::string& file_label) {
  json packs = json::array();
  for (const auto& p : import.packs) {
    json problems = json::array();
    for (const auto& pr : p.problems) problems.push_back({{"kind", pr.kind}, {"key", pr.key}, {"reason", pr.reason}});
    packs.push_back({{"pack", p.pack_name},
                     {"document_key", p.document.key},
                     {"imported", p.imported_per_kind},
                     {"imported_total", p.imported()},
                     {"unsupported", p.unsupported_kinds},
                     {"problems", std::move(problems)},
                     {"warnings", p.warnings}});
  }
  return {{"file", file_label},
          {"packs", std::move(packs)},
          {"warnings", import.warnings},
          {"entities", import.entities.size()},
          {"documents", import.documents.size()}};
}

}  // namespace lorekeeper::orcbrew
