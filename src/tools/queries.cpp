#include "queries.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "answer.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/model/vocabulary.hpp"
#include "lorekeeper/tools/routes.hpp"
#include "specs.hpp"

namespace lorekeeper::tools {

using model::Kind;
using store::Query;

namespace {

// Known aliases for document keys: older LoreKeeper examples and Open5e v1 slugs.
const std::map<std::string, std::string>& document_aliases() {
  static const std::map<std::string, std::string> kAliases = {
      {"srd-5e", "srd-2014"},  {"srd5e", "srd-2014"},   {"wotc-srd", "srd-2014"}, {"srd-5-1", "srd-2014"},
      {"srd-5-2", "srd-2024"}, {"menagerie", "a5e-mm"}, {"blackflag", "bfrd"},    {"cc", "ccdx"},
      {"dmag", "deepm"},       {"dmag-e", "deepmx"},    {"a5e", "a5e-ag"},        {"taldorei", "tdcs"},
      {"o5e", "open5e"},       {"warlock", "wz"},
  };
  return kAliases;
}

}  // namespace

DocFilter resolve_documents(store::Store& st, const json& args) {
  DocFilter f;
  if (!args.contains("documents")) return f;
  const json& values = args["documents"];
  if (values.empty()) {
    f.keys = std::vector<std::string>{};
    f.select_nothing = true;
    f.message =
        "documents is an empty list, so no source is searched. Omit documents (or pass null) to search "
        "every source.";
    return f;
  }
  auto docs = st.documents();
  std::vector<model::Document> known;
  if (docs) {
    for (const auto& d : *docs) known.push_back(d.document);
  }
  std::vector<std::string> keys;
  std::vector<std::string> unknown;
  for (const auto& v : values) {
    const std::string given = v.get<std::string>();
    const std::string g = text::fold(given);
    std::string match;
    for (const auto& d : known) {
      if (d.key == given) match = d.key;
    }
    if (match.empty()) {
      for (const auto& d : known) {
        if (text::fold(d.key) == g || text::fold(d.name) == g ||
            (!d.display_name.empty() && text::fold(d.display_name) == g)) {
          match = d.key;
          break;
        }
      }
    }
    if (match.empty()) {
      if (auto it = document_aliases().find(model::slug(given)); it != document_aliases().end()) {
        for (const auto& d : known) {
          if (d.key == it->second) match = d.key;
        }
      }
    }
    if (match.empty())
      unknown.push_back(given);
    else if (std::find(keys.begin(), keys.end(), match) == keys.end())
      keys.push_back(match);
  }
  f.keys = keys;
  if (!unknown.empty()) {
    // Closest known documents: those whose key starts with what was given ("srd": srd-2014, srd-2024), then those
    // whose name holds it ("level up": a5e, ...), then by edit distance on folded keys and names.
    std::vector<std::pair<int, std::string>> scored;
    for (const auto& d : known) {
      int best = 1000;
      for (const auto& u : unknown) {
        const std::string fu = text::fold(u), key = text::fold(d.key), name = text::fold(d.name);
        if (fu.size() >= 3 && key.rfind(fu, 0) == 0) best = -2;
        if (fu.size() >= 3 && name.find(fu) != std::string::npos) best = std::min(best, -1);
        best = std::min({best, text::edit_distance(fu, key, 20), text::edit_distance(fu, name, 20)});
      }
      scored.push_back({best, d.key});
    }
    std::sort(scored.begin(), scored.end());
    std::vector<std::string> close;
    for (size_t i = 0; i < scored.size() && i < 5; ++i) close.push_back(scored[i].second);
    // The answer names a few of the unknown documents, not all of them: a list of 64 long wrong names would
    // otherwise be echoed whole into every answer.
    constexpr size_t kNamed = 5;
    std::vector<std::string> named(unknown.begin(),
                                   unknown.begin() + static_cast<std::ptrdiff_t>(std::min(unknown.size(), kNamed)));
    for (auto& n : named) {
      if (std::string cut = text::cut_at_word(n, 60); cut.size() < n.size()) n = cut + "...";
    }
    named.resize(unknown.size());  // the rest only counted
    const std::string listed = text::join_first(named, kNamed);
    f.message =
        "Unknown document(s): " + listed + ". Closest known: " + text::join(close, ", ") + " (see list_documents).";
  }
  if (keys.empty()) f.select_nothing = true;
  return f;
}

Result<DocFilter> required_documents(store::Store& st, const json& args) {
  DocFilter docs = resolve_documents(st, args);
  if (docs.select_nothing || (docs.keys && docs.keys->empty())) {
    return Status::invalid_argument(docs.message.empty() ? "No source document selected." : docs.message);
  }
  return docs;
}

std::string str_arg(const json& args, const char* name) {
  auto it = args.find(name);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}
std::optional<int> int_arg(const json& args, const char* name) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_number()) return std::nullopt;
  return static_cast<int>(it->get<long long>());
}
std::optional<double> num_arg(const json& args, const char* name) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}
std::optional<bool> bool_arg(const json& args, const char* name) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

Result<Query> spell_query(const json& args) {
  Query q;
  q.kinds = {Kind::kSpell};
  q.level = int_arg(args, "level");
  q.level_min = int_arg(args, "level_min");
  q.level_max = int_arg(args, "level_max");
  if (q.level_min && q.level_max && *q.level_min > *q.level_max) {
    return Status::invalid_argument("level_min (" + std::to_string(*q.level_min) + ") is greater than level_max (" +
                                    std::to_string(*q.level_max) + ").");
  }
  q.school = str_arg(args, "school");
  const std::string cls = text::trim(str_arg(args, "class_key"));
  if (!cls.empty()) q.class_key = cls.find('_') != std::string::npos ? text::lower(cls) : text::fold(cls);
  q.concentration = bool_arg(args, "concentration");
  q.ritual = bool_arg(args, "ritual");
  const std::string ct = str_arg(args, "casting_time");
  if (!ct.empty()) {
    q.casting_time = model::normalize_casting_time(ct);
    if (const auto& known = model::casting_times();
        std::find(known.begin(), known.end(), q.casting_time) == known.end()) {
      return Status::invalid_argument("Parameter 'casting_time': unknown value '" + ct +
                                      "'. Valid values: 1 Action, 1 Bonus Action, Reaction, 1 Turn, 1 Round, "
                                      "1 Minute, 5 Minutes, 10 Minutes, 1 Hour, 4/7/8/9/12/24 Hours, 1 Week.");
    }
  }
  q.damage_type = str_arg(args, "damage_type");
  q.condition = str_arg(args, "inflicts_condition");
  q.save_ability = str_arg(args, "save_ability");
  if (std::string effect = str_arg(args, "effect"); !effect.empty()) q.traits.push_back(effect);
  q.game_system = str_arg(args, "game_system");
  return q;
}

Result<Query> creature_query(const json& args) {
  Query q;
  q.kinds = {Kind::kCreature};
  q.cr = num_arg(args, "cr");
  q.cr_min = num_arg(args, "cr_min");
  q.cr_max = num_arg(args, "cr_max");
  if (q.cr_min && q.cr_max && *q.cr_min > *q.cr_max) {
    return Status::invalid_argument("cr_min (" + text::format_number(*q.cr_min) + ") is greater than cr_max (" +
                                    text::format_number(*q.cr_max) + ").");
  }
  q.type = text::lower(str_arg(args, "type"));
  q.size = text::lower(str_arg(args, "size"));
  q.armor_class_min = int_arg(args, "armor_class_min");
  q.hit_points_min = int_arg(args, "hit_points_min");
  if (std::string spell = text::fold(str_arg(args, "casts_spell")); !spell.empty()) {
    q.casts_spell.push_back(spell);
    // Stat blocks name some spells without their inventor ("hideous laughter" for Tasha's Hideous Laughter).
    const std::string given = text::trim(str_arg(args, "casts_spell"));
    const size_t space = spell.find(' ');
    const size_t mark = given.find_first_of(" '\xE2");
    if (space != std::string::npos && mark != std::string::npos &&
        (given.compare(mark, 2, "'s") == 0 || given.compare(mark, 4, "\xE2\x80\x99s") == 0)) {
      q.casts_spell.push_back(spell.substr(space + 1));
    }
  }
  q.condition = str_arg(args, "inflicts_condition");
  q.damage_type = str_arg(args, "deals_damage_type");
  q.save_ability = str_arg(args, "save_ability");
  q.attack_range = str_arg(args, "attack_range");
  q.movement = str_arg(args, "movement");
  if (args.contains("environment")) {
    auto place = model::environment_asked(str_arg(args, "environment"));
    if (!place) {
      return Status::invalid_argument("Parameter 'environment': '" +
                                      text::cut_at_word(str_arg(args, "environment"), 60) +
                                      "' names no environment; ask for a place such as \"swamp\", \"forest\" or "
                                      "\"underworld\".");
    }
    q.environments = {*place};
  }
  for (const char* trait : {"legendary", "spellcaster"}) {
    if (auto b = bool_arg(args, trait)) (*b ? q.traits : q.without_traits).push_back(trait);
  }
  q.game_system = str_arg(args, "game_system");
  return q;
}

Result<Query> character_option_query(const json& args) {
  Query q;
  q.kinds = kinds_of("search_character_option", str_arg(args, "type"));
  q.game_system = str_arg(args, "game_system");
  return q;
}

Result<Query> equipment_query(const json& args) {
  Query q;
  const std::string type = str_arg(args, "type");
  q.kinds = kinds_of("search_equipment", type);  // "all": every kind of equipment
  // Filters that only one kind has narrow the kinds searched: they are hard constraints.
  auto restrict_to = [&](Kind k, const char* param) -> Status {
    if (std::find(q.kinds.begin(), q.kinds.end(), k) == q.kinds.end()) {
      return Status::invalid_argument(std::string("Parameter '") + param + "' applies only to " +
                                      plural_of(std::string(model::kind_name(k))) + ", but type is '" + type + "'.");
    }
    q.kinds = {k};
    return Status::ok();
  };
  if (args.contains("rarity")) {
    LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kMagicItem, "rarity"));
    q.rarity = model::slug(str_arg(args, "rarity"));
  }
  if (auto v = bool_arg(args, "requires_attunement")) {
    q.requires_attunement = *v;
    LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kMagicItem, "requires_attunement"));
  }
  const std::vector<std::pair<const char*, const char*>> props = {{"is_light", "light"},
                                                                  {"is_versatile", "versatile"},
                                                                  {"is_thrown", "thrown"},
                                                                  {"is_finesse", "finesse"},
                                                                  {"is_two_handed", "two-handed"}};
  for (const auto& [param, prop] : props) {
    if (auto v = bool_arg(args, param)) {
      LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kWeapon, param));
      if (*v) {
        q.properties.push_back(prop);
      } else {
        return Status::invalid_argument(std::string("Parameter '") + param +
                                        "': only true is supported (weapons that have the property).");
      }
    }
  }
  if (args.contains("damage_dice")) {
    LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kWeapon, "damage_dice"));
    q.damage_dice = text::lower(text::trim(str_arg(args, "damage_dice")));
  }
  if (auto v = bool_arg(args, "is_simple")) {
    LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kWeapon, "is_simple"));
    q.is_simple = v;
  }
  q.cost_min = num_arg(args, "cost_min");
  q.cost_max = num_arg(args, "cost_max");
  q.weight_max = num_arg(args, "weight_max");
  if (q.cost_min && q.cost_max && *q.cost_min > *q.cost_max) {
    return Status::invalid_argument("cost_min is greater than cost_max.");
  }
  q.game_system = str_arg(args, "game_system");
  return q;
}

Result<Query> rule_query(const json& args) {
  Query q;
  const std::string t = str_arg(args, "rule_type");
  q.kinds = kinds_of("search_rule", t);
  q.game_system = str_arg(args, "game_system");
  const std::string section = text::trim(str_arg(args, "section"));
  if (!section.empty()) {
    if (!t.empty() && t != "rule" && t != "rule-section") {
      return Status::invalid_argument("Parameter 'section' applies only to rule_type \"rule\".");
    }
    q.kinds = {Kind::kRule};
    if (section.find('_') != std::string::npos)
      q.parent_key = text::lower(section);
    else
      q.section = model::slug(section);
  }
  return q;
}

}  // namespace lorekeeper::tools
