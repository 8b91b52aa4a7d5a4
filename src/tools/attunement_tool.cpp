#include "attunement_tool.hpp"

#include <algorithm>
#include <set>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/attunement.hpp"
#include "lorekeeper/model/spellcasting.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "queries.hpp"
#include "search_tools.hpp"
#include "specs.hpp"
#include "tool_table.hpp"

namespace lorekeeper::tools::attunement_tool {

using model::Entity;
using model::Kind;

namespace {

// The rules' limit: a creature can be attuned to no more than three magic items at the same time.
constexpr int kAttunementSlots = 3;
constexpr size_t kMaxItems = 20;
const std::vector<Kind> kItemKinds = {Kind::kMagicItem, Kind::kWeapon, Kind::kArmor, Kind::kItem};

// The entity `given` names among `kinds` (a key in any case, or a name in `scope`, the preferred edition first);
// with `children`, a subclass or subspecies too. nullopt with `why` set when there is none.
std::optional<Entity> entity_named(store::Store& st, const std::string& given, const std::vector<Kind>& kinds,
                                   const store::Query& scope, std::string_view preferred, bool children,
                                   std::string* why) {
  if (given.find('_') != std::string::npos && given.find(' ') == std::string::npos) {
    auto got = st.get(text::lower(given), std::nullopt, false);
    if (got) {
      for (auto& e : *got) {
        if (std::find(kinds.begin(), kinds.end(), e.kind) != kinds.end()) return std::move(e);
      }
      if (!got->empty()) {
        *why = "'" + given + "' is a " + std::string(model::kind_name(got->front().kind)) + ", not what is asked here";
        return std::nullopt;
      }
    }
  }
  store::Query q = scope;
  q.kinds = kinds;
  auto named = search::editions_named(st, q, given, preferred);
  if (named) {
    for (const auto& e : *named) {
      if (children || e.facets.parent_key.empty()) {
        auto got = st.get(e.key, e.kind, false);
        if (got && !got->empty()) return std::move(got->front());
      }
    }
  }
  auto close = closest_names(st, q, given, 3);
  *why = "no entry is named '" + given + "'" + (close.empty() ? "" : "; closest: " + text::join(close, ", "));
  return std::nullopt;
}

// The level a class (or subclass) first casts spells at: its table's spellcasting columns, or a subclass's own
// Spellcasting feature (Eldritch Knight, Arcane Trickster: from the level it is chosen, 3). 0 for none.
int casting_from(const Entity& e) {
  const json& table = e.data.contains("class_table") ? e.data["class_table"] : json();
  if (const int level = model::first_casting_level(table); level > 0) return level;
  for (const auto& f : e.data.value("features", json::array())) {
    if (f.value("name", "") == "Spellcasting") return 3;
  }
  return 0;
}

// An alignment as people write it: "lawful good", "LG", "N", "true neutral", "unaligned". Its words, or nullopt
// for anything else.
std::optional<std::vector<std::string>> alignment_words(const std::string& given) {
  const std::string f = text::fold(given);
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kShort = {{"lg", {"lawful", "good"}},
                                                                                       {"ng", {"neutral", "good"}},
                                                                                       {"cg", {"chaotic", "good"}},
                                                                                       {"ln", {"lawful", "neutral"}},
                                                                                       {"n", {"neutral"}},
                                                                                       {"tn", {"neutral"}},
                                                                                       {"cn", {"chaotic", "neutral"}},
                                                                                       {"le", {"lawful", "evil"}},
                                                                                       {"ne", {"neutral", "evil"}},
                                                                                       {"ce", {"chaotic", "evil"}},
                                                                                       {"true neutral", {"neutral"}},
                                                                                       {"unaligned", {"unaligned"}}};
  for (const auto& [name, words] : kShort) {
    if (f == name) return words;
  }
  const std::vector<std::string> words = text::folded_words(f);
  static const std::set<std::string> kAxes = {"lawful", "neutral", "chaotic", "good", "evil"};
  if (words.empty() || words.size() > 2) return std::nullopt;
  for (const auto& w : words) {
    if (!kAxes.count(w)) return std::nullopt;
  }
  return words;
}

std::string with_article(const std::string& noun) {
  return (!noun.empty() && std::string("aeiouAEIOU").find(noun[0]) != std::string::npos ? "an " : "a ") + noun;
}

// A Markdown table cell: no bar or line break of the text breaks the row.
std::string cell(std::string s) {
  for (char& c : s) {
    if (c == '|' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

// A sentence of an item's text that speaks of attunement ("You cannot attune to this armor if ..."), for an item
// whose record names no restriction; empty when none does.
std::string attunement_sentence(const std::string& desc) {
  const std::string lower = text::lower(desc);
  for (size_t at = lower.find("attune"); at != std::string::npos; at = lower.find("attune", at + 6)) {
    const size_t start = [&] {
      const size_t dot = lower.rfind(". ", at);
      return dot == std::string::npos ? 0 : dot + 2;
    }();
    const size_t end = lower.find('.', at);
    const std::string sentence = desc.substr(start, end == std::string::npos ? std::string::npos : end + 1 - start);
    const std::string s = text::lower(sentence);
    // "While attuned to it" describes use, not who may attune.
    if (s.find("can't attune") != std::string::npos || s.find("cannot attune") != std::string::npos ||
        s.find("only one") != std::string::npos || s.find("must") != std::string::npos ||
        s.find("attune to this") != std::string::npos || s.find("attune to it") != std::string::npos) {
      return text::trim(sentence);
    }
  }
  return "";
}

// Checks items for one character: the steps are the character (class, its casting, species, alignment), each item
// (found, its restriction, the verdict), then the count against the slots and the answer.
class AttunementCheck {
 public:
  AttunementCheck(store::Store& st, const json& args, const std::optional<std::vector<std::string>>& documents,
                  std::string_view preferred)
      : st_(st), args_(args), preferred_(preferred) {
    scope_.document_keys = documents;
    scope_.game_system = str_arg(args, "game_system");
  }

  ToolResult run() {
    if (Status s = read_character(); !s.is_ok()) return error_result(s.message());
    read_vocabulary();
    std::set<std::string> seen;
    for (const auto& item : args_.value("items", json::array())) {
      const std::string given = text::trim(item.get<std::string>());
      if (given.empty()) return error_result("Parameter 'items' holds an empty name: give each item's name or key.");
      check_item(given, seen);
    }
    return answer();
  }

 private:
  struct Verdict {
    std::optional<bool> allowed;  // nullopt: it depends on what the call did not say, or the record does not say
    std::string why;
  };

  Status read_character() {
    const std::string class_given = text::trim(str_arg(args_, "class"));
    if (!class_given.empty()) {
      // A class is looked for in any document of the call's rules (an item's book rarely has classes); a subclass
      // named stands for its class, and casts when either does.
      store::Query class_scope;
      class_scope.game_system = scope_.game_system.empty() ? documents_game_system() : scope_.game_system;
      std::string why;
      auto found = entity_named(st_, class_given, {Kind::kClass}, class_scope, preferred_, true, &why);
      if (!found) return Status::invalid_argument("Parameter 'class': " + why + ".");
      if (!found->facets.parent_key.empty()) {
        subclass_ = *found;
        auto parent = st_.get(found->facets.parent_key, Kind::kClass, false);
        if (!parent || parent->empty())
          return Status::invalid_argument("Parameter 'class': its class is not in the store.");
        cls_ = parent->front();
      } else {
        cls_ = std::move(found);
      }
      casts_from_ = casting_from(*cls_);
      if (casts_from_ == 0 && subclass_) casts_from_ = casting_from(*subclass_);
      if (casts_from_ == 0 && !subclass_) {
        // A class that casts only through some subclasses (the Fighter's Eldritch Knight).
        store::Query q;
        q.kinds = {Kind::kClass};
        q.parent_key = cls_->key;
        q.limit = 200;
        if (auto subs = st_.query(q)) {
          for (const auto& s : subs->entities) {
            auto full = st_.get(s.key, Kind::kClass, false);
            if (full && !full->empty() && casting_from(full->front()) > 0) casting_subclasses_.push_back(s.name);
          }
        }
      }
    }
    const std::string alignment_given = text::trim(str_arg(args_, "alignment"));
    if (!alignment_given.empty()) {
      auto words = alignment_words(alignment_given);
      if (!words) {
        return Status::invalid_argument("Parameter 'alignment': '" + alignment_given +
                                        "' is no alignment; give one as \"lawful good\" or \"LG\", \"neutral\", "
                                        "\"chaotic evil\", or \"unaligned\".");
      }
      alignment_ = *words;
      alignment_text_ = text::join(*words, " ");
    }
    const std::string species_given = text::trim(str_arg(args_, "species"));
    if (!species_given.empty()) {
      // A subrace counts as its race ("hill dwarf" is a dwarf); a name the store lacks is matched by its words.
      species_words_ = text::folded_words(species_given);
      std::string why;
      if (auto sp = entity_named(st_, species_given, {Kind::kSpecies}, {}, preferred_, true, &why)) {
        species_names_.insert(text::fold(sp->name));
        if (!sp->facets.parent_key.empty()) {
          if (auto parent = st_.get(sp->facets.parent_key, Kind::kSpecies, false); parent && !parent->empty()) {
            species_names_.insert(text::fold(parent->front().name));
          }
        }
      }
      species_text_ = species_given;
    }
    return Status::ok();
  }

  // The one game system of the documents chosen, or "" when they are of several or none were chosen.
  std::string documents_game_system() {
    if (!scope_.document_keys) return "";
    std::string system;
    for (const auto& key : *scope_.document_keys) {
      auto doc = st_.document(key);
      if (!doc || !*doc) continue;
      if (!system.empty() && system != (*doc)->game_system) return "";
      system = (*doc)->game_system;
    }
    return system;
  }

  void read_vocabulary() {
    if (auto names = st_.names({Kind::kClass})) {
      for (const auto& n : *names) class_names_.insert(n.name_fold);
    }
    if (auto names = st_.names({Kind::kSpecies})) {
      for (const auto& n : *names) species_vocabulary_.insert(n.name_fold);
    }
  }

  bool species_is(const std::string& folded) const {
    if (species_names_.count(folded)) return true;
    return std::find(species_words_.begin(), species_words_.end(), folded) != species_words_.end();
  }

  void check_item(const std::string& given, std::set<std::string>& seen) {
    std::string why;
    auto e = entity_named(st_, given, kItemKinds, scope_, preferred_, false, &why);
    if (!e) {
      items_.push_back({{"given", given}, {"found", false}, {"why", why}});
      rows_ += "| " + cell(given) + " | not found: " + cell(why) + " | |\n";
      missing_.push_back(given);
      return;
    }
    json one = {{"given", given},
                {"found", true},
                {"key", e->key},
                {"name", e->name},
                {"document", e->document.key},
                {"requires_attunement", e->data.value("requires_attunement", false)}};
    if (!seen.insert(e->key).second) {
      // One creature cannot attune to two copies of one item: a repeat takes no second slot.
      one["repeat"] = true;
      one["why"] = "given before: one creature can't attune to more than one copy of an item";
      items_.push_back(one);
      rows_ += "| " + cell(e->name) + " (`" + e->key + "`) | given before | not counted again |\n";
      return;
    }
    std::string who = one["requires_attunement"] ? "required" : "not required";
    Verdict v = one["requires_attunement"] ? verdict(*e, one, &who) : Verdict{true, "no attunement needed"};
    if (one["requires_attunement"] && v.allowed != false) ++attuned_;
    if (v.allowed.has_value()) one["allowed"] = *v.allowed;
    one["why"] = v.why;
    if (v.allowed == false) refused_.push_back(e->name);
    items_.push_back(one);
    rows_ += "| " + cell(e->name) + " (`" + e->key + "`) | " + cell(who) + " | " +
             (v.allowed == false  ? "**no**: "
              : v.allowed == true ? "yes: "
                                  : "unknown: ") +
             cell(v.why) + " |\n";
  }

  // The verdict for an item that needs attunement; `one` gets the restriction's parts, `who` its words.
  Verdict verdict(const Entity& e, json& one, std::string* who) {
    const std::string detail = e.data.value("attunement_detail", "");
    if (detail.empty()) return unstated(e, one);
    one["attunement_detail"] = detail;
    *who = detail;
    const model::AttunementRestriction r = model::attunement_restriction(detail);
    if (!r.condition.empty()) one["condition"] = r.condition;
    if (!r.alignment.empty()) {
      one["alignment"] = r.alignment;
      if (alignment_.empty()) return {std::nullopt, "depends on alignment: give alignment"};
      if (std::find(alignment_.begin(), alignment_.end(), r.alignment) != alignment_.end()) return {true, "qualifies"};
      return {false, with_article(alignment_text_) + " creature is not of " + r.alignment + " alignment"};
    }
    if (r.by.empty()) {
      // "requires attunement outdoors at night": when, not who.
      return {true, r.condition.empty() ? "no restriction" : "anyone; the attuning is done " + r.condition};
    }
    // Each "by" part is a way to qualify: a class, any spellcaster, a species, or something not known here.
    json classes = json::array(), species = json::array(), others = json::array();
    bool met = false, unknown = false;
    std::vector<std::string> give, refusals;
    for (const auto& part : r.by) {
      const std::string f = text::fold(part);
      if (f == "spellcaster") {
        classes.push_back("spellcaster");
        if (!cls_) {
          unknown = true, give.push_back("class");
        } else if (casts_from_ > 0) {
          met = true;
        } else if (!casting_subclasses_.empty()) {
          unknown = true;
          refusals.push_back(cls_->name + " casts spells only as " + text::join(casting_subclasses_, " or "));
        } else {
          refusals.push_back(cls_->name + " casts no spells");
        }
      } else if (class_names_.count(f)) {
        classes.push_back(part);
        if (!cls_) {
          unknown = true, give.push_back("class");
        } else if (text::fold(cls_->name) == f) {
          met = true;
        } else {
          refusals.push_back(with_article(cls_->name) + " is no " + part);
        }
      } else if (species_vocabulary_.count(f)) {
        species.push_back(part);
        if (species_words_.empty()) {
          unknown = true, give.push_back("species");
        } else if (species_is(f)) {
          met = true;
        } else {
          refusals.push_back(with_article(species_text_) + " is no " + part);
        }
      } else {
        others.push_back(part);
        unknown = true;
      }
    }
    if (!classes.empty()) one["classes"] = classes;
    if (!species.empty()) one["species"] = species;
    if (!others.empty()) one["other"] = others;
    if (met) {
      if (cls_ && casts_from_ > 1 && classes.size() == 1 && classes[0] == "spellcaster") {
        return {true, cls_->name + " casts spells from level " + std::to_string(casts_from_)};
      }
      return {true, "qualifies"};
    }
    if (!unknown) return {false, text::join(refusals, "; ")};
    std::sort(give.begin(), give.end());
    give.erase(std::unique(give.begin(), give.end()), give.end());
    return {std::nullopt, "depends on being " + text::join(r.by, " or ") +
                              (give.empty() ? "" : " (give " + text::join(give, " and ") + ")") +
                              (refusals.empty() ? "" : "; " + text::join(refusals, "; "))};
  }

  // An item that needs attunement and whose record names no restriction: another edition's record, or its own
  // text, may name one, and then the answer is not a confident yes.
  Verdict unstated(const Entity& e, json& one) {
    store::Query q;
    q.kinds = kItemKinds;
    if (auto others = search::editions_named(st_, q, e.name, preferred_)) {
      for (const auto& o : *others) {
        if (o.key == e.key) continue;
        auto full = st_.get(o.key, o.kind, false);
        if (!full || full->empty()) continue;
        const std::string detail = full->front().data.value("attunement_detail", "");
        if (!detail.empty()) {
          one["other_edition_detail"] = {{"key", o.key}, {"detail", detail}};
          return {std::nullopt, "this record names no restriction, but " + o.key + " (" + o.document.key + ") says \"" +
                                    detail + "\""};
        }
      }
    }
    if (std::string s = attunement_sentence(e.data.value("desc", "")); !s.empty()) {
      one["text_says"] = s;
      return {std::nullopt, "its text says: \"" + s + "\""};
    }
    return {true, "the record names no restriction"};
  }

  ToolResult answer() {
    std::string character = cls_ ? with_article(subclass_ ? subclass_->name + " " + cls_->name : cls_->name) : "";
    std::vector<std::string> traits;
    if (!alignment_text_.empty()) traits.push_back(alignment_text_);
    if (!species_text_.empty()) traits.push_back(species_text_);
    if (character.empty()) {
      character = traits.empty() ? "the character" : with_article(text::join(traits, " ")) + " character";
    } else if (!traits.empty()) {
      character += " (" + text::join(traits, ", ") + ")";
    }
    const int found = static_cast<int>(items_.size() - missing_.size());
    std::string out = "## Attunement: " + std::to_string(attuned_) + " of " + std::to_string(found) +
                      " item(s) found would take a slot; a creature has " + std::to_string(kAttunementSlots) + "\n\n";
    if (attuned_ > kAttunementSlots) {
      out += "**Over the limit:** " + std::to_string(attuned_) + " items need attunement and at most " +
             std::to_string(kAttunementSlots) + " can be attuned at once; choose which.\n\n";
    }
    if (!refused_.empty()) out += "**Not for " + character + ":** " + text::join(refused_, ", ") + ".\n\n";
    out += "| item | attunement | for " + character + " |\n|---|---|---|\n" + rows_;
    json result = {{"items", items_},
                   {"attuned", attuned_},
                   {"slots", kAttunementSlots},
                   {"over_limit", attuned_ > kAttunementSlots}};
    if (cls_) {
      result["class"] = {{"key", cls_->key}, {"name", cls_->name}, {"document", cls_->document.key}};
      if (subclass_) result["class"]["subclass"] = subclass_->key;
      if (casts_from_ > 0) result["class"]["casts_from_level"] = casts_from_;
    }
    ToolResult r;
    r.text = out;
    r.structured = {{"result", result}, {"total", static_cast<int>(items_.size())}, {"filters", args_}};
    if (!missing_.empty()) r.structured["message"] = "Not found: " + text::join(missing_, ", ") + ".";
    return r;
  }

  store::Store& st_;
  const json& args_;
  const std::string_view preferred_;
  store::Query scope_;
  std::optional<Entity> cls_, subclass_;
  int casts_from_ = 0;
  std::vector<std::string> casting_subclasses_;
  std::vector<std::string> alignment_;
  std::string alignment_text_;
  std::vector<std::string> species_words_;
  std::set<std::string> species_names_;
  std::string species_text_;
  std::set<std::string> class_names_, species_vocabulary_;
  json items_ = json::array();
  int attuned_ = 0;
  std::string rows_;
  std::vector<std::string> refused_, missing_;
};

}  // namespace

ToolSpec spec() {
  ParamSpec items{"items",
                  ParamType::kStringArray,
                  "The magic items, by key or name (\"srd_staff-of-power\", \"Cloak of Protection\").",
                  {},
                  {},
                  {},
                  json(),
                  true,
                  {}};
  items.max_items = kMaxItems;
  items.max_length = 200;
  auto string = [](const char* name, const char* desc) {
    ParamSpec p{name, ParamType::kString, desc, {}, {}, {}, json(), false, {}};
    p.max_length = 100;
    return p;
  };
  return {"check_attunement",
          "Check attunement",
          "For magic items: which need attunement and by whom (a class, a spellcaster, a species, an alignment), how "
          "many of a character's three attunement slots they take, and, given the character's class (a subclass "
          "names both), alignment (\"lawful good\", \"LG\") or species, which it may not attune to ({\"items\": "
          "[\"Staff of Power\", \"Cloak of Protection\"], \"class\": \"fighter\"}).",
          {items, string("class", "The character's class (or subclass), by name or key."),
           string("alignment", "The character's alignment: \"lawful good\", \"LG\", \"neutral\", \"unaligned\"."),
           string("species", "The character's species or race (\"dwarf\", \"hill dwarf\")."), documents_param(),
           game_system_param()},
          object_answer_schema({{"type", "object"},
                                {"properties",
                                 {{"items", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                                  {"attuned", {{"type", "integer"}}},
                                  {"slots", {{"type", "integer"}}}}},
                                {"required", {"items", "attuned", "slots"}}})};
}

ToolResult check_attunement(store::Store& st, const json& args,
                            const std::optional<std::vector<std::string>>& document_keys,
                            std::string_view preferred_edition) {
  if (args.value("items", json::array()).empty()) {
    return error_result("Parameter 'items' is empty: give 1 to " + std::to_string(kMaxItems) +
                        " items by name or key.");
  }
  return AttunementCheck(st, args, document_keys, preferred_edition).run();
}

ToolDef row() {
  return documents_row(spec(), [](const ToolCall& c, const DocFilter& docs) {
    return check_attunement(*c.st, c.args, docs.keys, c.ctx.preferred_edition);
  });
}

}  // namespace lorekeeper::tools::attunement_tool
