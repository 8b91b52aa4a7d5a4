// Rules and rule sections from Open5e v2: their sections and chapters, and the repair of misnamed rules
// (mapper_parts.hpp).
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "mapper_parts.hpp"

namespace lorekeeper::open5e {

using json_util::child;
using json_util::str;

namespace detail {

namespace {

// The SRD chapter each rule section belongs to, so `section: "combat"` finds the rules of every combat section.
// SRD 5.1 splits chapters into many sections (v1's /sections/ `parent` names them); SRD 5.2's are chapters.
const std::map<std::string, std::string>& rule_chapters() {
  static const std::map<std::string, std::string> kChapters = {
      {"srd_abilities", "using-ability-scores"},
      {"srd_saving-throws", "using-ability-scores"},
      {"srd_time", "adventuring"},
      {"srd_movement", "adventuring"},
      {"srd_environment", "adventuring"},
      {"srd_rest", "adventuring"},
      {"srd_between-adventures", "adventuring"},
      {"srd_actions-in-combat", "combat"},
      {"srd_attacking", "combat"},
      {"srd_combat-sequence", "combat"},
      {"srd_cover", "combat"},
      {"srd_damage-and-healing", "combat"},
      {"srd_mounted-combat", "combat"},
      {"srd_underwater-combat", "combat"},
      {"srd_spellcasting", "spellcasting"},
      {"srd_adventuring-gear", "equipment"},
      {"srd_armor", "equipment"},
      {"srd_coins", "equipment"},
      {"srd_equipment-packs", "equipment"},
      {"srd_expenses", "equipment"},
      {"srd_mounts-and-vehicles", "equipment"},
      {"srd_selling-treasure", "equipment"},
      {"srd_tools", "equipment"},
      {"srd_trade-goods", "equipment"},
      {"srd_weapons", "equipment"},
      {"srd_alignment", "characters"},
      {"srd_backgrounds", "characters"},
      {"srd_feats", "characters"},
      {"srd_inspiration", "characters"},
      {"srd_languages", "characters"},
      {"srd_races", "characters"},
      {"srd_leveling-up", "characters"},
      {"srd_multiclassing", "characters"},
      {"srd_conditions", "appendix"},
      {"srd_diseases", "appendix"},
      {"srd_madness", "appendix"},
      {"srd_magic-items", "appendix"},
      {"srd_monsters", "appendix"},
      {"srd_nonplayer-characters", "appendix"},
      {"srd_objects", "appendix"},
      {"srd_pantheons", "appendix"},
      {"srd_planes", "appendix"},
      {"srd_poisons", "appendix"},
      {"srd_traps", "appendix"},
      {"srd-2024_combat", "combat"},
      {"srd-2024_damage-and-healing", "combat"},
      {"srd-2024_d20-tests", "using-ability-scores"},
      {"srd-2024_the-six-abilities", "using-ability-scores"},
      {"srd-2024_proficiency", "using-ability-scores"},
      {"srd-2024_exploration", "adventuring"},
      {"srd-2024_rhythm-of-play", "adventuring"},
      {"srd-2024_social-interaction", "adventuring"},
      {"srd-2024_create-your-character", "characters"},
      {"srd-2024_multiclassing", "characters"},
      {"srd-2024_trinkets", "equipment"},
  };
  return kChapters;
}

// "combat attacking": the chapter, then the section's own slug, so a filter can name either.
std::string section_facet(const std::string& ruleset_key, const std::string& section_name) {
  auto it = rule_chapters().find(ruleset_key);
  const std::string own = model::slug(section_name);
  return it == rule_chapters().end() || it->second == own ? own : it->second + " " + own;
}

// A key's last part ("srd_spellcasting_reactions" -> "reactions").
std::string key_slug(const std::string& key) {
  const auto at = key.rfind('_');
  return at == std::string::npos ? key : key.substr(at + 1);
}

// A key's last part as a title ("use-an-object" -> "Use an Object").
std::string slug_title(const std::string& slug) {
  static const std::set<std::string, std::less<>> kSmall = {"a",  "an", "and", "as", "at",  "by", "for", "from",
                                                            "in", "of", "on",  "or", "the", "to", "with"};
  std::string out, word;
  auto flush = [&] {
    if (word.empty()) return;
    if (!out.empty()) out += ' ';
    if (out.empty() || !kSmall.count(word))
      word[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
    out += word;
    word.clear();
  };
  for (char c : slug) {
    if (c == '-') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return out;
}

// A rule is misnamed when another rule of its document has its name and the key that name spells, while its own
// key spells something else: the API's 2014 SRD names the reactions of spellcasting "Bonus Action", darkvision
// "Blindsight" and the coins' exchange rates "Training", each beside the rule that rightly has that name. Such a
// rule takes its name from its key. Two rules of one name whose keys both spell it ("Speed" of movement, of races
// and of monsters), or a name no other rule has, are kept as they are.
std::optional<std::string> repaired_rule_name(const Entity& e, const MappingContext& ctx) {
  const auto doc = ctx.rule_names.find(e.document.key);
  if (doc == ctx.rule_names.end()) return std::nullopt;
  const auto named = doc->second.find(text::fold(e.name));
  if (named == doc->second.end()) return std::nullopt;
  const std::string own = key_slug(e.key), spelt = model::slug(e.name);
  if (own.empty() || own == spelt) return std::nullopt;
  const bool rightly_named = std::any_of(named->second.begin(), named->second.end(),
                                         [&](const std::string& k) { return k != e.key && key_slug(k) == spelt; });
  if (!rightly_named) return std::nullopt;
  return slug_title(own);
}

}  // namespace

void map_rule(const json& rec, Entity& e, const MappingContext& ctx) {
  if (auto name = repaired_rule_name(e, ctx)) e.name = *name;
  auto& d = e.data;
  put_str(d, "desc", str(rec, "desc"));
  const std::string ruleset = str(rec, "ruleset");
  if (!ruleset.empty()) {
    e.facets.parent_key = ruleset;
    auto it = ctx.rule_section_names.find(ruleset);
    const std::string section_name = it != ctx.rule_section_names.end() ? it->second : ruleset;
    e.facets.section = section_facet(ruleset, section_name);
    d["section"] = section_name;
    if (auto ch = rule_chapters().find(ruleset); ch != rule_chapters().end()) d["chapter"] = ch->second;
  }
  e.text = str(rec, "desc");
}

void map_rule_section(const json& rec, Entity& e) {
  auto& d = e.data;
  put_str(d, "desc", str(rec, "desc"));
  e.facets.section = section_facet(e.key, str(rec, "name"));
  if (auto ch = rule_chapters().find(e.key); ch != rule_chapters().end()) d["chapter"] = ch->second;
  put_if(d, "rules", named_list(child(rec, "rules")));
  e.text = str(rec, "desc");
}

}  // namespace detail

std::string squashed(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (const char c : t) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
  }
  return out;
}

std::vector<Entity> map_v1_section(const json& rec, const MappingContext& ctx, const std::string& covered) {
  std::vector<Entity> out;
  const std::string slug = str(rec, "slug");
  auto doc = ctx.documents.find("srd-2014");
  if (str(rec, "document__slug") != "wotc-srd" || slug.empty() || doc == ctx.documents.end()) return out;
  // The SRD's licence (parent "Legal Information") is no rule: every answer names its document's licence.
  if (str(rec, "parent") == "Legal Information") return out;
  const std::string ruleset = "srd_" + slug;
  auto known = ctx.rule_section_names.find(ruleset);
  const std::string section_name = known != ctx.rule_section_names.end() ? known->second : str(rec, "name");
  // The section's Markdown, cut at its headings ("## Healing", "### Death Saving Throws"): each heading with the
  // text up to the next heading of any level; the text before the first heading under the section's own name (the
  // Rest chapter's "Heroic though they might be, adventurers can't spend every hour of the day ...").
  const std::string desc = str(rec, "desc");
  std::vector<std::pair<std::string, std::string>> parts = {{section_name, ""}};  // heading, body
  size_t current = 0;                                                             // the part a line belongs to
  size_t pos = 0;
  while (pos < desc.size()) {
    size_t end = desc.find('\n', pos);
    if (end == std::string::npos) end = desc.size();
    const std::string_view line(desc.data() + pos, end - pos);
    if (!line.empty() && line.front() == '#') {
      const size_t hashes = line.find_first_not_of('#');
      const std::string heading = hashes == std::string_view::npos ? "" : text::trim(line.substr(hashes));
      // A heading that repeats the section's name (Adventuring Gear's table) goes on in the first part: one rule.
      if (!heading.empty() && text::fold(heading) == text::fold(parts.front().first)) {
        current = 0;
      } else if (!heading.empty()) {
        parts.push_back({heading, ""});
        current = parts.size() - 1;
      }
    } else {
      parts[current].second.append(line).append("\n");
    }
    pos = end + 1;
  }
  for (auto& [heading, body] : parts) {
    body = text::trim(body);
    // Compared as the v2 texts are stored: after clean_markup ("srd:prone" reads "prone").
    const std::string probe = squashed(clean_markup(body)).substr(0, 120);
    if (heading.empty() || probe.empty() || covered.find(probe) != std::string::npos) continue;
    Entity e;
    e.kind = Kind::kRule;
    e.key = ruleset + "_" + model::slug(heading);
    e.name = heading;
    e.document = doc->second;
    e.source_api = "open5e_v1";
    e.url = ctx.base_url + "/v1/sections/" + slug + "/";
    e.raw = rec;
    e.data["desc"] = body;
    e.data["section"] = section_name;
    if (auto ch = detail::rule_chapters().find(ruleset); ch != detail::rule_chapters().end())
      e.data["chapter"] = ch->second;
    if (known != ctx.rule_section_names.end()) e.facets.parent_key = ruleset;
    e.facets.section = detail::section_facet(ruleset, section_name);
    e.text = body;
    detail::clean_entity(e);
    out.push_back(std::move(e));
  }
  return out;
}

void note_ruleset(const json& rec, MappingContext& ctx) {
  const json& doc = child(rec, "document");
  const std::string document = doc.is_object() ? str(doc, "key") : str(rec, "document");
  const json& rules = child(rec, "rules");
  if (document.empty() || !rules.is_array()) return;
  for (const json& r : rules) {
    if (!r.is_object() || str(r, "key").empty() || str(r, "name").empty()) continue;
    std::vector<std::string>& keys = ctx.rule_names[document][text::fold(str(r, "name"))];
    if (std::find(keys.begin(), keys.end(), str(r, "key")) == keys.end()) keys.push_back(str(r, "key"));
  }
}

}  // namespace lorekeeper::open5e
