#include "class_spells_tool.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/spellcasting.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "queries.hpp"
#include "search_tools.hpp"
#include "specs.hpp"
#include "tool_table.hpp"

namespace lorekeeper::tools::class_spells_tool {

using model::Entity;
using model::Kind;

namespace {

// Spells of one class and level range that one answer lists: every list of the SRDs fits many times over.
constexpr int kMaxSpells = 2000;

json entry_of(const Entity& e) { return {{"key", e.key}, {"name", e.name}, {"document", e.document.key}}; }

std::string source_of(const Entity& e) {
  return e.document.name.empty() ? e.document.key : e.document.name + ", " + e.document.game_system;
}

std::string level_heading(int level) { return level == 0 ? "Cantrips" : text::ordinal(level) + " level"; }
std::string spell_level_text(int level) { return level == 0 ? "cantrip" : text::ordinal(level) + " level"; }

// The class and, when one was asked for (or the name given was a subclass's), its subclass.
struct Chosen {
  Entity cls;
  std::optional<Entity> sub;
  std::vector<std::string> other_editions;  // "srd-2024_cleric (System Reference Document 5.2, 5e-2024)"
  bool sub_named_as_class = false;          // `class` named the subclass
};

// The subclasses of `cls` among `scope`'s documents, as "Name (document)".
std::vector<Entity> subclasses_of(store::Store& st, const Entity& cls, const store::Query& scope) {
  store::Query q;
  q.kinds = {Kind::kClass};
  q.parent_key = cls.key;
  q.document_keys = scope.document_keys;
  q.limit = 500;
  auto found = st.query(q);
  return found ? std::move(found->entities) : std::vector<Entity>{};
}

Result<Entity> full_entity(store::Store& st, const std::string& key) {
  auto got = st.get(key, Kind::kClass, false);
  if (!got) return got.status();
  if (got->empty()) return Status::not_found("The class '" + key + "' is not in the store.");
  return std::move(got->front());
}

Result<Chosen> choose_class(store::Store& st, const std::string& given, const store::Query& scope,
                            std::string_view preferred) {
  store::Query q = scope;
  q.kinds = {Kind::kClass};
  // A key is looked up as written in any case ("SRD_CLERIC"); a name is folded by the lookup itself.
  const bool key_like = given.find('_') != std::string::npos && given.find(' ') == std::string::npos;
  auto named = search::editions_named(st, q, key_like ? text::lower(given) : given, preferred);
  if (!named) return named.status();
  const Entity* cls = nullptr;
  const Entity* sub = nullptr;
  for (const auto& e : *named) {
    if (e.facets.parent_key.empty() && cls == nullptr) cls = &e;
    if (!e.facets.parent_key.empty() && sub == nullptr) sub = &e;
  }
  if (cls == nullptr && sub == nullptr) {
    const bool scoped = scope.document_keys || !scope.game_system.empty();
    store::Query anywhere;
    anywhere.kinds = {Kind::kClass};
    if (scoped) {
      // The class may be in a document the call left out: a third-party book's spells need the class's own book.
      auto elsewhere = search::editions_named(st, anywhere, given, preferred);
      if (elsewhere && !elsewhere->empty()) {
        std::vector<std::string> where;
        for (const auto& e : *elsewhere) where.push_back(e.document.key);
        for (const auto& e : *elsewhere) {
          const bool chosen = !scope.document_keys ||
                              std::find(scope.document_keys->begin(), scope.document_keys->end(), e.document.key) !=
                                  scope.document_keys->end();
          if (chosen && !scope.game_system.empty() && e.document.game_system != scope.game_system) {
            return Status::invalid_argument("Parameter 'class': '" + given + "' is in " + e.document.key + ", a " +
                                            e.document.game_system + " document, and game_system asks for " +
                                            scope.game_system + ": change or leave out one of them.");
          }
        }
        return Status::invalid_argument("Parameter 'class': '" + given +
                                        "' is not in the documents or game system chosen; it is in " +
                                        text::join_first(where, 6) + ": add its document to `documents`.");
      }
    }
    auto close = closest_names(st, scoped ? q : anywhere, given, 5);
    return Status::invalid_argument("Parameter 'class': no class or subclass is named '" + given + "'" +
                                    (scoped ? " in the documents chosen" : "") + "." +
                                    (close.empty() ? "" : " Closest names: " + text::join(close, ", ") + "."));
  }
  Chosen out;
  if (cls != nullptr) {
    auto full = full_entity(st, cls->key);
    if (!full) return full.status();
    out.cls = std::move(*full);
    for (const auto& e : *named) {
      if (e.facets.parent_key.empty() && e.key != cls->key)
        out.other_editions.push_back(e.key + " (" + source_of(e) + ")");
    }
  } else {
    auto full_sub = full_entity(st, sub->key);
    if (!full_sub) return full_sub.status();
    auto full = full_entity(st, sub->facets.parent_key);
    if (!full) return full.status();
    out.cls = std::move(*full);
    out.sub = std::move(*full_sub);
    out.sub_named_as_class = true;
    for (const auto& e : *named) {
      if (!e.facets.parent_key.empty() && e.key != sub->key)
        out.other_editions.push_back(e.key + " (" + source_of(e) + ")");
    }
  }
  return out;
}

// Whether every word of `words` is a word of `name` ("life" of Life Domain).
bool has_every_word(const std::vector<std::string>& words, const std::string& name) {
  const std::vector<std::string> have = text::folded_words(name);
  return !words.empty() && std::all_of(words.begin(), words.end(), [&](const std::string& w) {
    return std::find(have.begin(), have.end(), w) != have.end();
  });
}

// The subclass `given` names among the class's: its name folded, or every word of it in the name ("life" -> Life
// Domain), or its key.
Result<Entity> choose_subclass(store::Store& st, const Entity& cls, const std::string& given,
                               const store::Query& scope) {
  std::vector<Entity> subs = subclasses_of(st, cls, scope);
  const std::string want = text::fold(given);
  const std::vector<std::string> words = text::folded_words(given);
  const Entity* best = nullptr;
  for (const auto& s : subs) {
    if (text::fold(s.name) == want || text::lower(s.key) == text::lower(given)) {
      best = &s;
      break;
    }
  }
  if (best == nullptr) {
    // Every word given in the name ("life" for Life Domain); more than one such subclass is a question back.
    std::vector<const Entity*> matching;
    for (const auto& s : subs) {
      if (has_every_word(words, s.name)) matching.push_back(&s);
    }
    if (matching.size() > 1) {
      std::vector<std::string> names;
      for (const Entity* s : matching) names.push_back(s->name + " (" + s->document.key + ")");
      return Status::invalid_argument("Parameter 'subclass': '" + given + "' names several subclasses of " + cls.name +
                                      ": " + text::join_first(names, 30) + ". Give one's name or key.");
    }
    if (matching.size() == 1) best = matching.front();
  }
  if (best == nullptr) {
    std::vector<std::string> names;
    for (const auto& s : subs) names.push_back(s.name + " (" + s.document.key + ")");
    // A subclass of that name under another edition of the class, or of another class.
    store::Query any;
    any.kinds = {Kind::kClass};
    any.top_level = false;
    any.limit = 2000;
    std::string other;
    if (auto all = st.query(any)) {
      for (const auto& e : all->entities) {
        const bool named =
            text::fold(e.name) == want || text::lower(e.key) == text::lower(given) || has_every_word(words, e.name);
        if (named && e.facets.parent_key != cls.key) {
          other = " " + e.name + " (" + e.key + ") is a subclass of " + e.facets.parent_key + " (" +
                  e.document.game_system + "): ask for that class, or choose its documents or game system.";
          break;
        }
      }
    }
    const bool scoped = scope.document_keys || !scope.game_system.empty();
    return Status::invalid_argument("Parameter 'subclass': " + cls.name + " (" + cls.document.key +
                                    ") has no subclass named '" + given + "'" +
                                    (scoped ? " in the documents chosen" : "") + "." + other +
                                    (names.empty() ? "" : " Its subclasses: " + text::join_first(names, 30) + "."));
  }
  return full_entity(st, best->key);
}

// The Spellcasting (or Pact Magic) feature's text.
std::string spellcasting_text(const Entity& cls) {
  for (const auto& f : cls.data.value("features", json::array())) {
    const std::string name = f.value("name", "");
    if (name == "Spellcasting" || name == "Pact Magic") return f.value("desc", "");
  }
  return "";
}

// The spell a granted name is: the entry of that name in the subclass's document, else the class's, else of the
// class's game system, else any; nullopt when the store has none.
std::optional<Entity> granted_spell(store::Store& st, const std::string& name, const Entity& sub, const Entity& cls,
                                    std::string_view preferred) {
  store::Query q;
  q.kinds = {Kind::kSpell};
  auto named = search::editions_named(st, q, model::spell_name_of(name), preferred);
  if (!named || named->empty()) return std::nullopt;
  for (const auto& test : std::vector<std::function<bool(const Entity&)>>{
           [&](const Entity& e) { return e.document.key == sub.document.key; },
           [&](const Entity& e) { return e.document.key == cls.document.key; },
           [&](const Entity& e) { return e.document.game_system == cls.document.game_system; }}) {
    for (const auto& e : *named) {
      if (test(e)) return e;
    }
  }
  return named->front();
}

// The sentence of `text` that says spells are always prepared ("Once you gain a domain spell, you always have it
// prepared, and it doesn't count against ..."); empty when none does.
std::string always_prepared_sentence(const std::string& text_in) {
  size_t start = 0;
  while (start < text_in.size()) {
    size_t end = text_in.find_first_of(".\n", start);
    if (end == std::string::npos) end = text_in.size();
    const std::string sentence = text::trim(text_in.substr(start, end - start + 1));
    const std::string f = text::fold(sentence);
    if (f.find("always") != std::string::npos && f.find("prepared") != std::string::npos &&
        f.find("if another") == std::string::npos) {
      return sentence;
    }
    start = end + 1;
  }
  return "";
}

// How a subclass's table grants its spells, as its feature or its class's words say: {how, the sentence}.
std::pair<std::string, std::string> subclass_how(const Entity& sub, const Entity& cls, const std::string& feature) {
  for (const auto& f : sub.data.value("features", json::array())) {
    if (f.value("name", "") != feature) continue;
    const std::string desc = f.value("desc", "");
    if (std::string s = always_prepared_sentence(desc); !s.empty()) return {"always prepared", s};
    const std::string t = text::fold(desc);
    if (t.find("added to the") != std::string::npos && t.find("spell list") != std::string::npos)
      return {"added to your spell list", ""};
  }
  // SRD 5.1 states it once for every domain and oath, in the class's Divine Domain and Sacred Oath features.
  for (const auto& f : cls.data.value("features", json::array())) {
    if (f.value("name", "") == "Spellcasting") continue;
    if (std::string s = always_prepared_sentence(f.value("desc", "")); !s.empty()) return {"always prepared", s};
  }
  return {"", ""};
}

}  // namespace

ToolSpec spec() {
  ParamSpec cls{"class",
                ParamType::kString,
                "The class, by name or key (\"cleric\", \"srd-2024_wizard\"); a subclass's name (\"Life Domain\") "
                "picks its class and that subclass.",
                {},
                {},
                {},
                json(),
                true,
                {}};
  cls.max_length = 100;
  ParamSpec level{"level", ParamType::kInteger, "Character level in the class, 1-20.", {}, 1, 20, json(), true, {}};
  ParamSpec sub{"subclass",
                ParamType::kString,
                "A subclass of the class by name or key (\"Life\", \"Oath of Devotion\"): its granted spells are "
                "listed as the subclass's.",
                {},
                {},
                {},
                json(),
                false,
                {}};
  sub.max_length = 100;
  ParamSpec modifier{"ability_modifier",
                     ParamType::kInteger,
                     "The spellcasting ability modifier (-5 to 10), to count the prepared spells of a 2014 class.",
                     {},
                     -5,
                     10,
                     json(),
                     false,
                     {}};
  ParamSpec documents = documents_param();
  documents.description =
      "Source documents by key or name (see list_documents): the class is looked for in them, and their spells "
      "of the class are listed. Omitted: the class's own document's spells.";
  ojson spells = {{"type", "array"}, {"items", {{"type", "object"}}}};
  ojson output =
      object_answer_schema({{"type", "object"},
                            {"properties",
                             {{"class", {{"type", "object"}}},
                              {"level", {{"type", "integer"}}},
                              {"casts", {{"type", "boolean"}}},
                              {"max_spell_level", {{"type", "integer"}}},
                              {"slots", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}},
                              {"spells", {{"type", "object"}, {"additionalProperties", spells}}},
                              {"subclass", {{"type", "object"}}},
                              {"subclass_spells", spells}}},
                            {"required", {"class", "level", "casts"}}});
  return {"class_spells",
          "A class's spells at a level",
          "What a character of a class can cast at a level, from the class's records: its own spell list by spell "
          "level up to the highest it can cast, spell slots (or Pact Magic), cantrips known, spells known or "
          "prepared (SRD 5.2's table number, or the 2014 rule with its ability), and a subclass's granted spells "
          "marked as the subclass's ({\"class\": \"cleric\", \"level\": 5, \"game_system\": \"5e-2014\", "
          "\"subclass\": \"Life\"}).",
          {cls, level, sub, modifier, documents, game_system_param()},
          output};
}

ToolResult class_spells(store::Store& st, const json& args,
                        const std::optional<std::vector<std::string>>& document_keys,
                        std::string_view preferred_edition) {
  store::Query scope;
  scope.document_keys = document_keys;
  scope.game_system = str_arg(args, "game_system");
  const int level = int_arg(args, "level").value_or(1);
  const std::string given = text::trim(str_arg(args, "class"));
  if (given.empty())
    return error_result("Parameter 'class' must not be empty: give a class's name or key (\"cleric\").");
  auto chosen = choose_class(st, given, scope, preferred_edition);
  if (!chosen) return error_result(chosen.status().message());
  const Entity& cls = chosen->cls;
  if (const std::string sub = text::trim(str_arg(args, "subclass")); !sub.empty()) {
    if (chosen->sub_named_as_class) {
      return error_result("Parameter 'class' names the subclass " + chosen->sub->name + " (" + chosen->sub->key +
                          ") and 'subclass' names another: give the class (" + cls.name + ") in 'class'.");
    }
    auto found = choose_subclass(st, cls, sub, scope);
    if (!found) return error_result(found.status().message());
    chosen->sub = std::move(*found);
  }
  const json& table = cls.data.contains("class_table") ? cls.data["class_table"] : json();
  const auto row = model::caster_level(table, level);
  json result = {{"class", entry_of(cls)}, {"level", level}, {"casts", row && row->casts()}};
  if (chosen->sub) result["subclass"] = entry_of(*chosen->sub);
  std::string text = "## " + cls.name + " (" + source_of(cls) + "), level " + std::to_string(level) + "\n";
  std::vector<std::string> notes;
  if (!chosen->other_editions.empty()) {
    notes.push_back("Other editions of the class: " + text::join(chosen->other_editions, ", ") +
                    " (choose one with game_system or documents).");
  }

  if (!row || !row->casts()) {
    // When the class starts to cast, if it ever does at all.
    const int from = model::first_casting_level(table, level + 1);
    const std::string message =
        from > 0 ? cls.name + " casts no spells at level " + std::to_string(level) +
                       "; its spellcasting begins at level " + std::to_string(from) + "."
                 : cls.name + "'s class table has no spell slots, cantrips or spells at any level: it casts no spells" +
                       (chosen->sub ? " (a subclass's own spellcasting, if its text has one, is not read here)." : ".");
    text += "\n" + message + "\n";
    for (const auto& n : notes) text += "\n" + n + "\n";
    ToolResult r;
    r.text = text;
    r.structured = {{"result", result}, {"total", 0}, {"message", message}, {"filters", args}};
    return r;
  }

  // What the table says at this level.
  const int max_level = row->max_spell_level();
  result["max_spell_level"] = max_level;
  json slots = json::object();
  std::vector<std::string> slot_text;
  for (int l = 1; l <= 9; ++l) {
    if (row->slots[static_cast<size_t>(l)] <= 0) continue;
    slots[std::to_string(l)] = row->slots[static_cast<size_t>(l)];
    slot_text.push_back(text::ordinal(l) + " " + std::to_string(row->slots[static_cast<size_t>(l)]));
  }
  result["slots"] = slots;
  if (!slot_text.empty()) text += "\n**Spell slots:** " + text::join(slot_text, " · ") + "\n";
  if (row->pact_slots > 0) {
    result["pact_magic"] = {{"slots", row->pact_slots}, {"slot_level", row->pact_slot_level}};
    text += "\n**Pact Magic:** " + std::to_string(row->pact_slots) + " slot" + (row->pact_slots == 1 ? "" : "s") +
            ", all " + text::ordinal(row->pact_slot_level) + " level (regained on a short or long rest)\n";
  }
  if (!row->arcanum_levels.empty()) {
    std::vector<std::string> levels;
    for (int l : row->arcanum_levels) levels.push_back(text::ordinal(l));
    result["mystic_arcanum"] = row->arcanum_levels;
    text += "\n**Mystic Arcanum:** one spell of each of these levels, cast once a long rest without a slot: " +
            text::join(levels, ", ") + "\n";
  }
  if (row->cantrips) {
    result["cantrips_known"] = *row->cantrips;
    text += "\n**Cantrips known:** " + std::to_string(*row->cantrips) + "\n";
  }
  if (row->spells_known) {
    result["spells_known"] = *row->spells_known;
    text += "\n**Spells known:** " + std::to_string(*row->spells_known) + "\n";
  }
  const std::string casting = spellcasting_text(cls);
  const std::string ability = model::spellcasting_ability(casting);
  if (!ability.empty()) result["spellcasting_ability"] = ability;
  if (row->prepared) {
    result["prepared"] = {{"count", *row->prepared}};
    text += "\n**Prepared spells:** " + std::to_string(*row->prepared) + " (the class table)\n";
  } else if (auto rule = model::prepared_rule(casting)) {
    json prepared = {
        {"rule", (rule->ability + " modifier + " + (rule->half_level ? "half " : "") + "class level, minimum 1")},
        {"sentence", rule->sentence}};
    std::string line =
        "\n**Prepared spells:** " + rule->ability + " modifier + " + (rule->half_level ? "half the " : "") +
        text::lower(cls.name) + " level" +
        (rule->half_level ? " rounded down (" + std::to_string(level / 2) + ")" : " (" + std::to_string(level) + ")") +
        ", at least 1";
    if (auto mod = int_arg(args, "ability_modifier")) {
      prepared["count"] = rule->count(*mod, level);
      line += ": with a modifier of " + std::string(*mod >= 0 ? "+" : "") + std::to_string(*mod) + ", **" +
              std::to_string(rule->count(*mod, level)) + "**";
    } else {
      line += " (give ability_modifier for the number)";
    }
    result["prepared"] = prepared;
    text += line + ". The class's words: \"" + rule->sentence + "\"\n";
  }
  if (!ability.empty()) text += "\n**Spellcasting ability:** " + ability + "\n";

  // The class's own list, by spell level.
  store::Query q;
  q.kinds = {Kind::kSpell};
  q.class_key = text::fold(cls.name);
  q.document_keys = document_keys ? document_keys : std::optional<std::vector<std::string>>({cls.document.key});
  q.game_system = str_arg(args, "game_system");
  q.level_min = row->cantrips ? 0 : 1;
  q.level_max = max_level;
  q.limit = kMaxSpells;
  auto listed = st.query(q);
  if (!listed) return error_result("The store could not be read: " + listed.status().message());
  std::map<int, std::vector<const Entity*>> by_level;
  for (const auto& e : listed->entities) by_level[e.facets.level.value_or(0)].push_back(&e);
  json spells = json::object();
  text += "\n### " + cls.name + " spell list" +
          (document_keys ? " (documents " + text::join(*document_keys, ", ") + ")" : " (" + source_of(cls) + ")") +
          "\n";
  for (int l = 0; l <= max_level; ++l) {
    if (l == 0 && !row->cantrips) continue;
    json list = json::array();
    std::vector<std::string> names;
    std::map<std::string, int> seen;  // folded name -> entries of it at this level
    for (const Entity* e : by_level[l]) ++seen[text::fold(e->name)];
    for (const Entity* e : by_level[l]) {
      list.push_back(entry_of(*e));
      // Two documents' spells of one name are told apart by their document.
      names.push_back(seen[text::fold(e->name)] > 1 ? e->name + " (" + e->document.key + ")" : e->name);
    }
    spells[std::to_string(l)] = list;
    text += "\n**" + level_heading(l) + " (" + std::to_string(names.size()) + "):** " +
            (names.empty() ? "none in these documents" : text::join(names, ", ")) + "\n";
  }
  result["spells"] = spells;
  if (listed->total > kMaxSpells) {
    notes.push_back("The list holds the first " + std::to_string(kMaxSpells) + " of " + std::to_string(listed->total) +
                    " spells; choose fewer documents.");
  }
  if (!document_keys) {
    // Spells of the class that other documents of its rules add.
    store::Query wider = q;
    wider.document_keys.reset();
    wider.game_system = cls.document.game_system;
    auto all = st.query(wider);
    std::set<std::string> own, others;
    for (const auto& e : listed->entities) own.insert(text::fold(e.name));
    if (all) {
      for (const auto& e : all->entities) {
        if (!own.count(text::fold(e.name))) others.insert(text::fold(e.name));
      }
    }
    if (!others.empty()) {
      const int more = static_cast<int>(others.size());
      result["other_documents"] = more;
      notes.push_back(std::to_string(more) + " more " + cls.name + " spells of these levels (by name) are in other " +
                      cls.document.game_system + " documents; give `documents` to list them.");
    }
  }

  // The subclass's granted spells, as its tables give them.
  if (chosen->sub) {
    const Entity& sub = *chosen->sub;
    const auto granted = model::granted_spells(sub.data.value("features", json::array()));
    json out = json::array();
    std::string part;
    std::string feature_seen;
    for (const auto& g : granted) {
      const bool available = g.spell_level ? g.level <= max_level : g.level <= level;
      if (!available) continue;
      json names = json::array();
      std::vector<std::string> shown;
      for (const auto& n : g.names) {
        auto spell = granted_spell(st, n, sub, cls, preferred_edition);
        json one = {{"name", spell ? spell->name : n}, {"written", n}};
        if (spell) {
          one["key"] = spell->key;
          one["level"] = spell->facets.level.value_or(0);
        }
        names.push_back(one);
        const size_t paren = n.find('(');
        const std::string note = spell && paren != std::string::npos ? " " + n.substr(paren) : "";
        shown.push_back(
            (spell ? spell->name + note : n + " (not in the store)") +
            (spell && !g.spell_level ? " (" + spell_level_text(spell->facets.level.value_or(0)) + ")" : ""));
      }
      const auto [how, how_sentence] = subclass_how(sub, cls, g.feature);
      json item = {{"feature", g.feature}, {"spells", names}};
      item[g.spell_level ? "spell_level" : "class_level"] = g.level;
      if (!g.group.empty()) item["group"] = g.group;
      if (!how.empty()) item["how"] = how;
      if (!how_sentence.empty()) item["how_stated"] = how_sentence;
      out.push_back(item);
      if (g.feature != feature_seen) {
        std::string feature = g.feature;
        if (const size_t at = feature.find(" (table)"); at != std::string::npos) feature.erase(at);
        part += "\n**" + feature + "**" + (how.empty() ? "" : " (" + how + ")") + ":" +
                (how_sentence.empty() ? "" : " \"" + how_sentence + "\"") + "\n";
        feature_seen = g.feature;
      }
      part += "- " + (g.group.empty() ? "" : g.group + ", ") +
              (g.spell_level ? text::ordinal(g.level) + "-level spells"
                             : "at " + text::lower(cls.name) + " level " + std::to_string(g.level)) +
              ": " + text::join(shown, ", ") + "\n";
    }
    result["subclass_spells"] = out;
    text += "\n### " + sub.name + " (" + source_of(sub) + ")\n";
    if (out.empty()) {
      text += granted.empty()
                  ? "\nIts records hold no spell table; it grants no spells by level.\n"
                  : "\nIt grants spells from " + text::lower(cls.name) + " level " +
                        std::to_string(granted.front().level) + ", none yet at level " + std::to_string(level) + ".\n";
    } else {
      text += part;
      bool groups = std::any_of(granted.begin(), granted.end(), [](const auto& g) { return !g.group.empty(); });
      if (groups)
        text +=
            "\nThe groups are the subclass's tables as it names them; its text says which apply (a land chosen, an "
            "affinity).\n";
    }
  }
  for (const auto& n : notes) text += "\n" + n + "\n";
  ToolResult r;
  r.text = text;
  int total = 0;
  for (const auto& [l, list] : spells.items()) total += static_cast<int>(list.size());
  r.structured = {{"result", result}, {"total", total}, {"filters", args}};
  if (!notes.empty()) r.structured["message"] = text::join(notes, " ");
  return r;
}

ToolDef row() {
  return documents_row(spec(), [](const ToolCall& c, const DocFilter& docs) {
    return class_spells(*c.st, c.args, docs.keys, c.ctx.preferred_edition);
  });
}

}  // namespace lorekeeper::tools::class_spells_tool
