// Creatures: a v2 creature record as a stat block, completed from the /v1/monsters/ record converted to it, and
// attacks that agree with their text. docs/entity-model.md ("creature") states the rules.
#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/challenge.hpp"
#include "lorekeeper/model/derived.hpp"
#include "mapper_parts.hpp"

namespace lorekeeper::open5e::detail {

using json_util::child;
using json_util::num;
using json_util::str;

namespace {

// The stat block's action groups in the order a stat block prints them: v2's `action_type`, the data field, and
// the field of a v1 record that holds that group (none for the groups v1 does not have).
struct ActionGroup {
  const char* action_type;
  const char* field;
  const char* v1_field;
};
constexpr ActionGroup kGroups[] = {
    {"ACTION", "actions", "actions"},
    {"BONUS_ACTION", "bonus_actions", "bonus_actions"},
    {"REACTION", "reactions", "reactions"},
    {"LEGENDARY_ACTION", "legendary_actions", "legendary_actions"},
    {"MYTHIC_ACTION", "mythic_actions", nullptr},
    {"LAIR_ACTION", "lair_actions", nullptr},
};

size_t group_of(const std::string& action_type) {
  for (size_t i = 0; i < std::size(kGroups); ++i) {
    if (action_type == kGroups[i].action_type) return i;
  }
  return 0;  // an unknown type is shown with the actions
}

// One entry of a stat block's action groups while it is being assembled.
struct Action {
  size_t group = 0;
  json data;             // name, desc, usage, limited_to, spell, cost, attacks
  bool from_v2 = true;   // false: added from the v1 record
  bool matched = false;  // a v1 action of the same name was found for it
  double order = 0;      // v2's order_in_statblock
  // Folded once (folding is the merge's main cost): the name, the name without its parenthesis, the text.
  std::string name, base, desc;
  void fold_fields();
};

// "Recharge 5-6" from a recharge roll of `param`.
std::string recharge_text(double param) {
  return param >= 6 ? std::string("Recharge 6") : "Recharge " + text::format_number(param) + "-6";
}

// What the parenthesis of a v1 action's name says about its use: "Acid Spray (Recharge 6)", "Slimy Cloud (1/Day,
// While Bloodied)", "Swallow (3 actions, Roc Form Only)", "Shield (1st-Level; V, S)". v2 keeps the bare name and
// drops the limit for about 160 actions.
struct Qualifier {
  std::string usage;  // "Recharge 5-6", "3/Day", "Recharges after a Short or Long Rest"
  std::optional<double> cost;
  std::string limited_to;  // "While Bloodied", "19 HP or Fewer", "Roc Form Only"
  std::string spell;       // "1st-Level; V, S" (a spell cast as an action)
};

Qualifier parse_qualifier(std::string q, bool closed, bool legendary) {
  Qualifier out;
  static const RE2 kSpell(R"((?i)^\s*((?:cantrip|\d+(?:st|nd|rd|th)-level)[;:].*)$)");
  static const RE2 kRecharge(R"((?i)\brecharges?:?\s+(\d)(?:\s*[-–]\s*6)?\b)");
  static const RE2 kPerDay(R"((?i)\b(\d+)\s*/\s*day(\s+each)?\b)");
  static const RE2 kPer(R"((?i)\b(\d+)\s*/\s*(rest|round|turn)\b)");
  static const RE2 kRest(
      R"((?i)\brecharges?:?\s+(?:after|on)?\s*(?:an?\s+)?(short|long)\s*(?:or|/)\s*(short|long)\s+rest\b)");
  static const RE2 kLongRest(R"((?i)\brecharges?\s+(?:after|on)\s+(?:an?\s+)?long\s+rest\b)");
  static const RE2 kAfter(R"((?i)\brecharges?\s+after\s+(\d+\s+(?:minutes?|hours?|rounds?))\b)");
  static const RE2 kSpecial(R"((?i)\brecharge\s+special\b)");
  static const RE2 kCost(R"((?i)\b(?:costs\s+)?(\d)\s+actions?\b)");
  static const RE2 kBareCost(R"(^\s*(\d)\s*$)");
  std::string spell;
  if (RE2::FullMatch(q, kSpell, &spell)) {
    if (closed) out.spell = text::trim(spell);  // a name cut at its comma ("Shield (1st-Level; V") is not shown
    return out;
  }
  std::string n, each, unit, a, b;
  if (RE2::PartialMatch(q, kRest, &a, &b)) {
    out.usage = "Recharges after a Short or Long Rest";
    RE2::Replace(&q, kRest, "");
  } else if (RE2::PartialMatch(q, kLongRest)) {
    out.usage = "Recharges after a Long Rest";
    RE2::Replace(&q, kLongRest, "");
  } else if (RE2::PartialMatch(q, kAfter, &unit)) {
    out.usage = "Recharges after " + text::lower(unit);
    RE2::Replace(&q, kAfter, "");
  } else if (RE2::PartialMatch(q, kRecharge, &n)) {
    out.usage = recharge_text(std::stod(n));
    RE2::Replace(&q, kRecharge, "");
  } else if (RE2::PartialMatch(q, kSpecial)) {
    out.usage = "Recharge Special";
    RE2::Replace(&q, kSpecial, "");
  }
  if (RE2::PartialMatch(q, kPerDay, &n, &each)) {
    const std::string day = n + "/Day" + (each.empty() ? "" : " each");
    out.usage = out.usage.empty() ? day : out.usage + ", " + day;
    RE2::Replace(&q, kPerDay, "");
  } else if (RE2::PartialMatch(q, kPer, &n, &unit)) {
    const std::string u = text::capitalised(unit);
    out.usage = out.usage.empty() ? n + "/" + u : out.usage + ", " + n + "/" + u;
    RE2::Replace(&q, kPer, "");
  }
  if (RE2::PartialMatch(q, kCost, &n) || (legendary && RE2::PartialMatch(q, kBareCost, &n))) {
    out.cost = std::stod(n);
    if (!RE2::Replace(&q, kCost, "")) q.clear();
  }
  // What is left is the condition of use ("Roc Form Only"), without the separators the limits left behind.
  std::string rest = text::trim(q);
  while (!rest.empty() && (rest.front() == ',' || rest.front() == ';')) rest = text::trim(rest.substr(1));
  while (!rest.empty() && (rest.back() == ',' || rest.back() == ';'))
    rest = text::trim(rest.substr(0, rest.size() - 1));
  if (closed || out.usage.empty()) out.limited_to = rest;
  return out;
}

// A v1 action's name split into the name v2 gives it and what its parenthesis says: "Acid Spray (Recharge 6)." is
// "Acid Spray" and "Recharge 6"; `closed` is false for a name the API cut inside its parenthesis ("Giant Form
// (1/Day").
struct SplitName {
  std::string base;
  std::string qualifier;
  bool closed = true;
};

SplitName split_name(const std::string& full) {
  std::string name = text::trim(full);
  while (!name.empty() && name.back() == '.') name.pop_back();
  SplitName out{name, "", true};
  const size_t open = name.find(" (");
  if (open == std::string::npos) return out;
  out.base = text::trim(name.substr(0, open));
  std::string q = name.substr(open + 2);
  out.closed = !q.empty() && q.back() == ')';
  if (out.closed) q.pop_back();
  out.qualifier = text::trim(q);
  return out;
}

void Action::fold_fields() {
  name = text::fold(str(data, "name"));
  base = text::fold(split_name(str(data, "name")).base);
  desc = text::fold(str(data, "desc"));
}

// v1's name states the book's limit, so its usage replaces a v2 usage that disagrees (the Doppelrat's "144/Day"
// for "recharges after 10 minutes"); a condition of use and a cost fill what the entry lacks.
void apply_qualifier(json& x, const Qualifier& q) {
  if (!q.usage.empty()) x["usage"] = q.usage;
  if (!q.limited_to.empty() && str(x, "limited_to").empty()) x["limited_to"] = q.limited_to;
  if (!q.spell.empty()) x["spell"] = q.spell;
  if (q.cost && *q.cost > 1 && !x.contains("cost")) x["cost"] = *q.cost;
}

// "2d6+3" from a v2 attack's dice fields; empty without dice.
std::string dice_of(const json& k, const char* count, const char* die, const char* bonus) {
  const auto dc = num(k, count);
  const std::string dt = str(k, die);
  if (!dc || dt.empty()) return "";
  std::string dice = text::format_number(*dc) + text::lower(dt);
  if (auto b = num(k, bonus); b && *b != 0) dice += (*b > 0 ? "+" : "") + text::format_number(*b);
  return dice;
}

json v2_attack(const json& k) {
  json y = json::object();
  for (const char* fld : {"attack_type", "to_hit_mod", "reach", "range", "long_range"}) {
    if (!child(k, fld).is_null()) y[fld] = child(k, fld);
  }
  if (auto dice = dice_of(k, "damage_die_count", "damage_die_type", "damage_bonus"); !dice.empty()) y["damage"] = dice;
  std::string type = name_of(child(k, "damage_type"));
  const std::string extra_type = name_of(child(k, "extra_damage_type"));
  const std::string extra = dice_of(k, "extra_damage_die_count", "extra_damage_die_type", "extra_damage_bonus");
  // v2 files the only damage type of some 3,800 attacks as the extra damage's.
  if (type.empty() && extra.empty()) type = extra_type;
  put_str(y, "damage_type", type);
  if (!extra.empty()) {
    json e = {{"damage", extra}};
    put_str(e, "damage_type", extra_type);
    y["extra_damage"] = json::array({e});
  }
  return y;
}

// "2d6+3" from "2d6 + 3", "2d6+3", "1d8 - 1"; dice as written otherwise.
std::string tidy_dice(const std::string& dice, const std::string& sign, const std::string& bonus) {
  std::string out = text::lower(dice);
  if (!bonus.empty() && bonus != "0") out += (sign == "-" || sign == "−" ? "-" : "+") + bonus;
  return out;
}

// A number of a stat block's text ("+5", "reach 10 ft."); none for more digits than any stat block has (the
// records come over the network, and a number past int would otherwise throw).
std::optional<int> small_number(const std::string& digits) {
  int v = 0;
  if (digits.empty() || digits.size() > 6) return std::nullopt;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

// "(acid|bludgeoning|...|thunder)": the damage types, for the patterns below.
const std::string& damage_alternation() {
  static const std::string alt = "(" + text::join(model::damage_type_names(), "|") + ")";
  return alt;
}

// The attack an action's text states: "Melee Weapon Attack: +5 to hit, reach 5 ft., one target. Hit: 10 (2d6 + 3)
// slashing damage plus 3 (1d6) acid damage." (2014 and most third-party books), "Melee Attack Roll: +14, reach
// 10 ft. Hit: 18 (2d8 + 9) Slashing damage plus 4 (1d8) Fire damage." (2024), or Tome of Beasts 3's shorthand
// "Melee Weapon Attack: +5 to hit, 5 ft., one target, 8 (1d10+3) slashing damage + 7 (2d6) poison." Null when
// the text states no attack roll.
json text_attack(const std::string& desc) {
  static const RE2 kHead(
      R"((?i)(melee or ranged|melee|ranged)\s+(?:(weapon|spell|power|magical|magic)\s+)?attack(?:\s+roll)?\s*[:.]?_?\*?\s*((?:[+-]|−)\s*\d+))");
  static const RE2 kReach(R"((?i)\breach\s+(\d+)\s*(?:ft|feet|'))");
  static const RE2 kBareReach(R"((?i)^\s*(?:to hit)?\s*,?\s*(\d+)\s*(?:ft|feet|'))");
  static const RE2 kRange(R"((?i)(?:\brange\s+)?\b(\d+)\s*/\s*(\d+)\s*(?:ft|feet|'))");
  static const RE2 kOneRange(R"((?i)\brange\s+(\d+)\s*(?:ft|feet|'))");
  // "10 (2d6 + 3) slashing", "(2d6 + 3) slashing", "1 piercing": the first damage, then its riders.
  static const RE2 kDamage("(?i)(?:\\d+\\s*\\(\\s*)?(\\d+d\\d+)\\s*(?:([+-]|−)\\s*(\\d+))?\\s*\\)?\\s*" +
                           damage_alternation() + "\\b");
  static const RE2 kFlat("(?i)\\b(\\d+)\\s+" + damage_alternation() + "\\s+damage");
  static const RE2 kRider(
      "(?i)(?:\\bplus|\\band|\\+)\\s+(?:\\d+\\s*\\(\\s*)?(\\d+d\\d+)\\s*(?:([+-]|−)\\s*(\\d+))?\\s*"
      "\\)?\\s*" +
      damage_alternation() + "\\b");
  std::string kind, sub, to_hit;
  re2::StringPiece input(desc);
  if (!RE2::FindAndConsume(&input, kHead, &kind, &sub, &to_hit)) return nullptr;
  json y = json::object();
  const std::string k = text::lower(kind);
  y["attack_type"] = text::lower(sub) == "spell" ? "SPELL" : "WEAPON";
  y["melee_or_ranged"] = k;
  std::string digits;
  for (char c : to_hit) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  if (auto n = small_number(digits)) y["to_hit_mod"] = (to_hit.find('+') == std::string::npos ? -1 : 1) * *n;
  // Reach and range before "Hit:" (or the first damage), the damage after it, so a save's damage or a range later
  // in the same action is not taken for the attack's.
  const std::string rest(input.data(), input.size());
  const size_t hit = text::lower(rest).find("hit:");
  const std::string head = hit == std::string::npos ? rest : rest.substr(0, hit);
  const std::string after = hit == std::string::npos ? rest : rest.substr(hit);
  std::string a, b;
  if (RE2::PartialMatch(head, kReach, &a) || (k == "melee" && RE2::PartialMatch(head, kBareReach, &a))) {
    if (auto n = small_number(a)) y["reach"] = *n;
  }
  if (k != "melee") {
    if (RE2::PartialMatch(head, kRange, &a, &b)) {
      const auto near = small_number(a), far = small_number(b);
      if (near && far) {
        y["range"] = *near;
        y["long_range"] = *far;
      }
    } else if (RE2::PartialMatch(head, kOneRange, &a)) {
      if (auto n = small_number(a)) y["range"] = *n;
    }
  }
  // "Hit: 5 (1d6 + 2) plus 9 (2d8) necrotic damage", "Hit: 9 (1d8 + 5) damage (damage type based on the form of
  // the weapon) plus 3 (1d6) radiant damage": a first damage whose type the text does not name, then riders.
  static const RE2 kUntyped(R"((?i)^[\W_]*(?:hit[\W_]*)?(?:\d+\s*\(\s*)?(\d+d\d+)\s*(?:([+-]|−)\s*(\d+))?\s*\)?\s*)"
                            R"((?:damage\b[^.\d(]*)?(?:\([^)]*\)\s*)?()plus\b)");
  // "Hit: 1 piercing damage plus 3 (1d6) poison damage": a flat first damage, then riders.
  static const RE2 kFlatFirst("(?i)^[\\W_]*(?:hit[\\W_]*)?(\\d+)\\s+" + damage_alternation() +
                              "\\s+damage\\s+()plus\\b");
  std::string dice, sign, bonus, type;
  re2::StringPiece damage(after);
  re2::StringPiece riders_at;  // where the riders start, when the first damage is one kDamage does not read
  const bool untyped = RE2::PartialMatch(after, kUntyped, &dice, &sign, &bonus, &riders_at);
  const bool flat = !untyped && RE2::PartialMatch(after, kFlatFirst, &dice, &type, &riders_at);
  if (untyped || flat) damage = re2::StringPiece(riders_at.data(), after.data() + after.size() - riders_at.data());
  if (untyped || flat || RE2::FindAndConsume(&damage, kDamage, &dice, &sign, &bonus, &type)) {
    y["damage"] = flat ? dice : tidy_dice(dice, sign, bonus);
    if (!untyped) y["damage_type"] = text::capitalised(type);
    // Riders directly after the first damage ("plus 3 (1d6) acid damage", "+ 7 (2d6) poison"), not a later
    // sentence's ("takes 7 (2d6) bludgeoning damage at the start of each of its turns").
    json extras = json::array();
    std::string tail(damage.data(), damage.size());
    if (const size_t dot = tail.find('.'); dot != std::string::npos) tail.resize(dot);
    re2::StringPiece riders(tail);
    std::string d2, s2, b2, t2;
    while (RE2::FindAndConsume(&riders, kRider, &d2, &s2, &b2, &t2)) {
      extras.push_back({{"damage", tidy_dice(d2, s2, b2)}, {"damage_type", text::capitalised(t2)}});
    }
    if (!extras.empty()) y["extra_damage"] = std::move(extras);
  } else if (RE2::PartialMatch(after, kFlat, &dice, &type)) {
    y["damage"] = dice;  // "Hit: 1 piercing damage."
    y["damage_type"] = text::capitalised(type);
  }
  return y;
}

// The attacks of an action as its text states them: the record's structured attacks where the text says nothing
// else; the text's to-hit, reach, range, damage, damage type and riders where it states them (v2 gives 532 of the
// 538 SRD 5.1 attacks the damage type "Thunder" and drops the bonus of 442); the attack the text states where the
// record has none. An action with several attacks (melee and ranged, one- and two-handed) keeps the record's
// split, each attack's damage type taken from the text when the text never names the record's.
json reconciled_attacks(const json& attacks, const std::string& desc) {
  json stated = text_attack(desc);
  if (stated.is_null()) return attacks;
  if (!attacks.is_array() || attacks.empty()) return json::array({stated});
  if (attacks.size() == 1) {
    json y = attacks[0];
    for (const char* fld : {"to_hit_mod", "reach", "range", "long_range", "damage", "damage_type", "extra_damage"}) {
      if (stated.contains(fld)) y[fld] = stated[fld];
    }
    // A first damage the text gives no type ("Hit: 18 (3d6 + 8) plus 3 (1d6) poison damage") has none, whatever type
    // the record's rider lent it.
    if (stated.contains("damage") && !stated.contains("damage_type")) y.erase("damage_type");
    y["melee_or_ranged"] = stated["melee_or_ranged"];
    return json::array({y});
  }
  json out = attacks;
  const std::string folded = text::fold(desc);
  for (auto& y : out) {
    const std::string type = str(y, "damage_type");
    if (stated.contains("damage_type") && (type.empty() || folded.find(text::fold(type)) == std::string::npos)) {
      y["damage_type"] = stated["damage_type"];
    }
    // "2d6" where the text says "(2d6 + 2)": the bonus the record dropped.
    const std::string dice = str(y, "damage");
    if (!dice.empty() && dice.find_first_of("+-") == std::string::npos) {
      static const RE2 kWithBonus(R"((?i)\((\d+d\d+)\s*([+-]|−)\s*(\d+)\))");
      re2::StringPiece scan(desc);
      std::string d2, s2, b2;
      while (RE2::FindAndConsume(&scan, kWithBonus, &d2, &s2, &b2)) {
        if (text::lower(d2) == dice) {
          y["damage"] = tidy_dice(d2, s2, b2);
          break;
        }
      }
    }
  }
  return out;
}

// Whether `folded_haystack` (folded already) holds `needle`'s folded words.
bool contains_folded(const std::string& folded_haystack, const std::string& needle) {
  const std::string n = text::fold(needle);
  return !n.empty() && folded_haystack.find(n) != std::string::npos;
}

// An action, bonus action or reaction with the name and text of one of the creature's legendary actions is that
// legendary action listed twice: both API versions list Tome of Beasts 2023's dragons' Detect, Tail Attack and
// Wing Attack (Costs 2 Actions) among their bonus actions as well.
void drop_legendary_copies(std::vector<Action>& actions) {
  // An entry is its folded name, its folded text and its structured attacks: a copy carrying an attack the legendary
  // action does not is an attack whose text v2 overwrote, and stays.
  auto entry = [](const Action& a) {
    return a.base + '\n' + a.desc + '\n' + a.data.value("attacks", json::array()).dump();
  };
  const size_t legendary = group_of("LEGENDARY_ACTION");
  std::set<std::string> entries;
  for (const auto& a : actions) {
    if (a.group == legendary) entries.insert(entry(a));
  }
  if (entries.empty()) return;
  std::erase_if(actions, [&](const Action& a) { return a.group != legendary && entries.count(entry(a)); });
}

// v2 lost part of some texts v1 has whole: Tome of Beasts 2023's Mirror Hag's Reconfiguring Curse ends at "one of
// the following effects of the hag's choice:", and v1 goes on to list them; Level Up's kobold sorcerer's spell list
// reads "1/Day Each: ., expeditious retreat", where v1's names charm person. An entry whose text v1's extends, or
// whose list has an item that is only punctuation where v1's has none, takes v1's.
void take_fuller_v1_text(json& entry, const std::string& v1_desc) {
  static const RE2 kBlankItem(R"((?:[:,]|\*\*)\s*[.;]\s*,)");
  const std::string v2_desc = str(entry, "desc");
  const std::string v2_folded = text::fold(v2_desc);
  const std::string v1_folded = text::fold(v1_desc);
  if (v2_folded.empty() || v1_folded.empty()) return;
  const bool extends = text::goes_on_from(v1_folded, v2_folded);
  const bool repairs = RE2::PartialMatch(v2_desc, kBlankItem) && !RE2::PartialMatch(v1_desc, kBlankItem);
  if (extends || repairs) entry["desc"] = v1_desc;
}

// A v1 monster record's actions merged into the v2 record's: v1 keeps each action's limit in its name and has the
// actions v2 lost (Tome of Beasts 3's, an action named only by a legendary action). See docs/entity-model.md.
void merge_v1_actions(std::vector<Action>& actions, const json& v1, const std::string& v2_text) {
  // The groups v1 lists each folded name in.
  std::map<std::string, std::set<size_t>> v1_groups;
  for (size_t g = 0; g < std::size(kGroups); ++g) {
    if (!kGroups[g].v1_field) continue;
    const json& list = child(v1, kGroups[g].v1_field);
    if (!list.is_array()) continue;
    for (const auto& a : list) {
      const SplitName n = split_name(str(a, "name"));
      v1_groups[text::fold(n.base)].insert(g);
      v1_groups[text::fold(str(a, "name"))].insert(g);
    }
  }
  auto find = [&](size_t g, const std::string& folded) -> Action* {
    for (auto& x : actions) {
      if (!x.matched && x.group == g && x.name == folded) return &x;
    }
    return nullptr;
  };
  for (size_t g = 0; g < std::size(kGroups); ++g) {
    if (!kGroups[g].v1_field) continue;
    const json& list = child(v1, kGroups[g].v1_field);
    if (!list.is_array()) continue;
    const bool legendary = std::string(kGroups[g].field) == "legendary_actions";
    for (const auto& a : list) {
      const std::string full = str(a, "name");
      const SplitName n = split_name(full);
      if (n.base.empty()) continue;
      const std::string folded_full = text::fold(full);
      const std::string folded_base = text::fold(n.base);
      Action* hit = find(g, folded_full);
      bool exact = hit != nullptr;
      if (!hit) hit = find(g, folded_base);
      if (!hit) {
        // Filed by v2 under a group v1 does not list it in ("Bite" of tob_zmey's actions kept only as a legendary
        // action): moved to v1's group.
        for (auto& x : actions) {
          const std::string& f = x.name;
          if (x.matched || x.group == g || (f != folded_full && f != folded_base)) continue;
          if (v1_groups[f].count(x.group)) continue;
          hit = &x;
          hit->group = g;
          break;
        }
      }
      const Qualifier q =
          n.qualifier.empty() || exact ? Qualifier{} : parse_qualifier(n.qualifier, n.closed, legendary);
      if (hit) {
        hit->matched = true;
        // v2 gave an action the text of its namesake in another group (the Aatxe's Gore attack reads "The aatxe
        // makes one gore attack.", its legendary action's text): v1's own text is the action's.
        const std::string v1_desc = str(a, "desc");
        if (!v1_desc.empty() &&
            std::any_of(actions.begin(), actions.end(),
                        [&](const Action& y) { return &y != hit && y.group != hit->group && y.desc == hit->desc; }) &&
            text::fold(v1_desc) != hit->desc) {
          hit->data["desc"] = v1_desc;
          hit->data.erase("attacks");
          hit->fold_fields();
        }
        // A text that opens with the same parenthesis ("(Cantrip; V, S) Ranged Spell Attack: ...", Level Up's
        // spells) already shows the spell's level and the condition of use: they are not repeated in its name.
        Qualifier shown = q;
        const std::string text = str(hit->data, "desc");
        if (!text.empty() && text.front() == '(' && text.find(')') != std::string::npos &&
            text::fold(text.substr(1, text.find(')') - 1)) == text::fold(n.qualifier)) {
          shown.spell.clear();
          shown.limited_to.clear();
        }
        apply_qualifier(hit->data, shown);
        take_fuller_v1_text(hit->data, v1_desc);
        hit->fold_fields();
        continue;
      }
      const std::string desc = str(a, "desc");
      // A text v2 already holds under another name (v1 cut some descriptions into two entries) is not repeated.
      if (!desc.empty() && contains_folded(v2_text, desc)) continue;
      Action added;
      added.group = g;
      added.from_v2 = false;
      added.matched = true;
      added.order = 1e9;
      added.data = {{"name", n.base}, {"desc", desc}};
      apply_qualifier(added.data, q);
      added.fold_fields();
      actions.push_back(std::move(added));
    }
  }
  // A v2 action v1 does not have in its group while v2 also has it in the group v1 lists it in is a copy filed
  // twice ("Wing Attack (Costs 2 Actions)" among an adult dragon's actions beside its legendary Wing Attack).
  std::vector<Action> kept;
  for (auto& x : actions) {
    if (x.from_v2 && !x.matched) {
      const std::string& f = x.base;
      auto it = v1_groups.find(f);
      const bool elsewhere = it != v1_groups.end() && !it->second.count(x.group) &&
                             std::any_of(actions.begin(), actions.end(), [&](const Action& y) {
                               return &y != &x && y.group != x.group && it->second.count(y.group) && y.base == f;
                             });
      if (elsewhere) continue;
    }
    kept.push_back(std::move(x));
  }
  actions = std::move(kept);
}

// v1's traits (`special_abilities`) that the v2 record lacks, by name and text.
void merge_v1_traits(json& traits, const json& v1, const std::string& v2_text) {
  const json& list = child(v1, "special_abilities");
  if (!list.is_array()) return;
  std::set<std::string> names;
  for (const auto& t : traits) names.insert(text::fold(str(t, "name")));
  for (const auto& a : list) {
    const std::string name = text::trim(str(a, "name"));
    const std::string desc = str(a, "desc");
    if (name.empty() && desc.empty()) continue;
    const std::string folded = text::fold(name);
    for (auto& t : traits) {
      const std::string own = text::fold(str(t, "name"));
      if (own == folded || own == text::fold(split_name(name).base)) take_fuller_v1_text(t, desc);
      // A name v2 cut where v1 goes on (Level Up's flesh guardian: "... to try to calm it" without "by making a DC
      // 15 Persuasion check"), with the same text: v1's name.
      if (text::goes_on_from(folded, own) && text::fold(str(t, "desc")) == text::fold(desc)) {
        t["name"] = name;
        names.insert(folded);
      }
    }
    if (names.count(folded) || names.count(text::fold(split_name(name).base))) continue;
    // v1 cut some names at a markup tag ("False" for "False Appearance", its text "[+]Appearance[/+] ...").
    if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return text::goes_on_from(n, folded); }))
      continue;
    if (!desc.empty() && contains_folded(v2_text, desc)) continue;
    traits.push_back({{"name", name}, {"desc", desc}});
    names.insert(folded);
  }
}

// The range v1's senses line gives a sense ("darkvision 120 ft., passive Perception 13" -> 120 for "darkvision").
std::optional<double> v1_range(const std::string& line, const std::string& sense) {
  static const std::map<std::string, std::unique_ptr<RE2>> kPatterns = [] {
    std::map<std::string, std::unique_ptr<RE2>> out;
    for (const char* s : {"darkvision", "blindsight", "tremorsense", "truesight"})
      out[s] = std::make_unique<RE2>(std::string("(?i)\\b") + s + "\\s+(\\d{1,6})\\s*(?:ft|feet|foot|')");
    return out;
  }();
  const auto it = kPatterns.find(sense);
  int range = 0;
  if (line.empty() || it == kPatterns.end() || !RE2::PartialMatch(line, *it->second, &range)) return std::nullopt;
  return range;
}

// v2 glued two numbers of a stat block's senses line together in some sense ranges ("darkvision 14120 ft." for v1's
// "passive Perception 14, darkvision 120 ft.", "blindsight 3010" for "30 ft. or 10 ft. while deafened"): a range
// whose digits are v1's range and another number of v1's line, one after the other, is v1's.
double unglued_range(double v2, std::optional<double> v1, const std::string& line) {
  if (!v1 || *v1 <= 0 || *v1 == v2 || v2 != std::floor(v2)) return v2;
  const std::string glued = std::to_string(static_cast<long long>(v2));
  const std::string own = std::to_string(static_cast<long long>(*v1));
  if (glued.size() <= own.size()) return v2;
  std::string other;
  if (glued.rfind(own, 0) == 0) {
    other = glued.substr(own.size());
  } else if (glued.compare(glued.size() - own.size(), own.size(), own) == 0) {
    other = glued.substr(0, glued.size() - own.size());
  } else {
    return v2;
  }
  static const RE2 kNumber(R"((\d+))");
  re2::StringPiece rest(line);
  for (std::string n; RE2::FindAndConsume(&rest, kNumber, &n);) {
    if (n == other) return *v1;
  }
  return v2;
}

// Black Flag's and Tome of Beasts 2023's v1 records give the stat block's passive Perception as `perception`
// (SRD 5.1's and the other books' give the Perception skill's bonus, beside a skill of that name). In 161 Black
// Flag stat blocks v2's passive Perception is 10 + the Wisdom modifier exactly, without the proficiency the book's
// number includes (the Adult Black Dragon: 17 for 22): v1's where it is higher than that bare number.
double passive_perception(const json& rec, const json* v1, double v2) {
  if (!v1 || child(child(rec, "skill_bonuses"), "perception").is_number()) return v2;
  const auto stated = num(*v1, "perception");
  const auto wisdom = num(child(rec, "modifiers"), "wisdom");
  if (!stated || !wisdom || v2 != 10 + *wisdom || *stated <= v2) return v2;
  return *stated;
}

// v1's senses line when it says what the structured senses cannot: a qualifier ("blindsight 60 ft. (blind beyond
// this radius)") or a sense the v2 fields have no place for (Black Flag's keensense).
std::string senses_detail(const std::string& line) {
  if (line.find('(') != std::string::npos) return line;
  for (const auto& part : text::split_commas(line)) {
    const std::string f = text::fold(part);
    // A sense has a range; "-" or "xx" is a placeholder, not a sense.
    if (f.find_first_of("0123456789") == std::string::npos) continue;
    bool known = false;
    for (const char* k : {"darkvision", "blindsight", "tremorsense", "truesight", "passive perception"}) {
      known = known || f.rfind(k, 0) == 0;
    }
    if (!known) return line;
  }
  return "";
}

}  // namespace

bool empty_stat_block(const json& rec) {
  if (num(rec, "challenge_rating").value_or(0) != 0 || !str(rec, "hit_dice").empty()) return false;
  const json& speed = child(rec, "speed");
  if (speed.is_object()) {
    for (const auto& [mode, v] : speed.items()) {
      if (v.is_number() && v.get<double>() > 0) return false;
    }
  }
  return true;
}

namespace {

// A list of saves or skills that is filler, not a stat block's: all `count` of them at +0 where that cannot be
// (a save below its ability's modifier; no creature has all eighteen skills). SRD 5.1's mounts and pack animals
// (Camel, Mule, Warhorse, ...) carry such lists in v2: every save and every skill +0, a Strength 18 horse
// included. A 2024 commoner's six +0 saves on six 10s are its saves, and stay.
bool all_zero_filler(const json& list, const json& abilities, size_t count) {
  if (!list.is_object() || list.size() < count) return false;
  for (const auto& [_, v] : list.items()) {
    if (!v.is_number() || v.get<double>() != 0) return false;
  }
  if (!abilities.is_object()) return true;
  for (const auto& [ability, score] : abilities.items()) {
    if (score.is_number() && list.contains(ability) && std::floor((score.get<double>() - 10) / 2) > 0) return true;
  }
  return false;
}

// The v2 record's actions, each in its group, in stat-block order.
std::vector<Action> v2_actions(const json& rec) {
  std::vector<Action> out;
  const json& acts = child(rec, "actions");
  if (!acts.is_array()) return out;
  for (const auto& a : acts) {
    Action x;
    const std::string t = str(a, "action_type");
    x.group = group_of(t);
    x.order = num(a, "order_in_statblock").value_or(0);
    x.data = {{"name", str(a, "name")}, {"desc", str(a, "desc")}};
    const json& usage = child(a, "usage_limits");
    if (usage.is_object()) {
      const std::string ut = str(usage, "type");
      const auto param = num(usage, "param");
      // RECHARGE (SRD 5.2's records) and RECHARGE_ON_ROLL both recharge on a d6 roll of `param` or higher.
      if ((ut == "RECHARGE_ON_ROLL" || ut == "RECHARGE") && param)
        x.data["usage"] = recharge_text(*param);
      else if (ut == "PER_DAY" && param)
        x.data["usage"] = text::format_number(*param) + "/Day";
      else if (ut == "RECHARGE_AFTER_REST")
        x.data["usage"] = "Recharges after a Short or Long Rest";
    }
    // A name that already states its usage ("Petrifying Gaze (Recharge 4-6)") is shown with it once.
    if (const std::string shown = str(x.data, "usage"); !shown.empty()) {
      std::string name = str(x.data, "name");
      const std::string folded_usage = text::fold(shown);
      const size_t open = name.rfind(" (");
      if (open != std::string::npos && text::fold(name.substr(open)) == folded_usage) {
        x.data["name"] = text::trim(name.substr(0, open));
      }
    }
    put_str(x.data, "limited_to", str(a, "limited_to_form"));  // "Wolf or Hybrid Form Only", "Requires Magic Rope"
    if (auto cost = num(a, "legendary_action_cost"); cost && t == "LEGENDARY_ACTION" && *cost > 1) {
      x.data["cost"] = *cost;
    }
    const json& attacks = child(a, "attacks");
    if (attacks.is_array() && !attacks.empty()) {
      json at = json::array();
      for (const auto& k : attacks) at.push_back(v2_attack(k));
      x.data["attacks"] = std::move(at);
    }
    x.fold_fields();
    out.push_back(std::move(x));
  }
  std::stable_sort(out.begin(), out.end(), [](const Action& a, const Action& b) {
    return a.group != b.group ? a.group < b.group : a.order < b.order;
  });
  return out;
}

}  // namespace

void map_creature(const json& rec, const json* v1, Entity& e) {
  auto& f = e.facets;
  auto& d = e.data;
  const json& size = child(rec, "size");
  const json& type = child(rec, "type");
  f.size = text::lower(key_of(size));
  f.type = text::lower(key_of(type));
  put_str(d, "size", name_of(size));
  put_str(d, "type", name_of(type));
  put_str(d, "subcategory", str(rec, "subcategory"));
  // v1's subtype is the stat block's tag ("goblinoid", "demon", "shapechanger"). v2 gives none for some creatures,
  // and for 25 of SRD 5.1 gives the heading the book prints the stat block under instead ("Demons",
  // "Lycanthropes", "Half-Dragon Template"): v1's wherever the two differ.
  if (const std::string tag = v1 ? text::trim(str(*v1, "subtype")) : std::string(); !tag.empty()) {
    if (text::fold(tag) != text::fold(str(d, "subcategory"))) d["subcategory"] = tag;
  }
  put_str(d, "alignment", str(rec, "alignment"));
  if (auto ac = num(rec, "armor_class")) {
    f.armor_class = static_cast<int>(*ac);
    d["armor_class"] = *f.armor_class;
  }
  put_str(d, "armor_detail", str(rec, "armor_detail"));
  if (auto hp = num(rec, "hit_points")) {
    f.hit_points = static_cast<int>(*hp);
    d["hit_points"] = *f.hit_points;
  }
  put_str(d, "hit_dice", str(rec, "hit_dice"));
  const json& speed = child(rec, "speed");
  if (speed.is_object()) {
    json s = json::object();
    for (auto it = speed.begin(); it != speed.end(); ++it) {
      if (it.key() != "unit" && it->is_number()) s[it.key()] = *it;
      if (it.key() == "hover" && it->is_boolean() && it->get<bool>()) s["hover"] = true;
    }
    put_if(d, "speed", s);
  }
  if (v1) put_str(d, "speed_note", text::trim(str(child(*v1, "speed"), "notes")));
  put_if(d, "ability_scores", child(rec, "ability_scores"));
  if (!all_zero_filler(child(rec, "saving_throws"), child(rec, "ability_scores"), 6))
    put_if(d, "saving_throws", child(rec, "saving_throws"));
  if (!all_zero_filler(child(rec, "skill_bonuses"), json(), 18))
    put_if(d, "skill_bonuses", child(rec, "skill_bonuses"));
  const json& ri = child(rec, "resistances_and_immunities");
  if (ri.is_object()) {
    for (const char* k :
         {"damage_vulnerabilities", "damage_resistances", "damage_immunities", "condition_immunities"}) {
      // The display text as the book words it; a few records give only the list ("bludgeoning, piercing").
      std::string display = str(ri, (std::string(k) + "_display").c_str());
      if (display.empty()) display = text::lower(text::join(named_list(child(ri, k)), ", "));
      put_str(d, k, display);
    }
  }
  // What v1 states where v2's record says nothing (v1's "False" and dashes are its own placeholders).
  if (v1) {
    for (const auto& [from, to] : {std::pair{"damage_vulnerabilities", "damage_vulnerabilities"},
                                   {"damage_resistances", "damage_resistances"},
                                   {"damage_immunities", "damage_immunities"},
                                   {"condition_immunities", "condition_immunities"},
                                   {"languages", "languages"},
                                   {"armor_desc", "armor_detail"}}) {
      const std::string v = text::trim(str(*v1, from));
      if (!d.contains(to) && v != "False" && !text::fold(v).empty()) d[to] = v;
    }
  }
  json senses = json::object();
  const std::string v1_senses = v1 ? str(*v1, "senses") : std::string();
  for (const char* k : {"darkvision_range", "blindsight_range", "tremorsense_range", "truesight_range"}) {
    const std::string sense = std::string(k).substr(0, std::string(k).size() - 6);
    auto v = num(rec, k);
    if (v && *v > 0) senses[sense] = unglued_range(*v, v1_range(v1_senses, sense), v1_senses);
  }
  if (auto pp = num(rec, "passive_perception")) senses["passive_perception"] = passive_perception(rec, v1, *pp);
  put_if(d, "senses", senses);
  if (v1) put_str(d, "senses_detail", senses_detail(text::trim(str(*v1, "senses"))));
  const json& langs = child(rec, "languages");
  put_str(d, "languages", langs.is_object() ? str(langs, "as_string") : name_of(langs));
  if (auto cr = num(rec, "challenge_rating")) {
    f.cr = *cr;
    d["challenge_rating"] = *cr;
    d["challenge_rating_text"] = model::cr_text(*cr);
  }
  if (auto xp = num(rec, "experience_points")) d["experience_points"] = *xp;
  if (auto pb = num(rec, "proficiency_bonus")) d["proficiency_bonus"] = *pb;
  if (auto init = num(rec, "initiative_bonus")) d["initiative_bonus"] = *init;

  json traits = json::array();
  const json& tr = child(rec, "traits");
  if (tr.is_array()) {
    for (const auto& t : tr) traits.push_back({{"name", str(t, "name")}, {"desc", str(t, "desc")}});
  }
  std::vector<Action> actions = v2_actions(rec);
  if (v1) {
    // Every text the v2 record holds, folded, to recognise a v1 entry v2 keeps under another name.
    std::string v2_text;
    for (const auto& t : traits) v2_text += text::fold(str(t, "desc")) + "\n";
    for (const auto& a : actions) v2_text += a.desc + "\n";
    merge_v1_traits(traits, *v1, v2_text);
    merge_v1_actions(actions, *v1, v2_text);
    put_str(d, "legendary_desc", text::trim(str(*v1, "legendary_desc")));
  }
  drop_legendary_copies(actions);
  std::vector<std::string> parts;
  for (const auto& t : traits) parts.push_back(str(t, "name") + ". " + str(t, "desc"));
  put_if(d, "traits", traits);
  // Grouped the way a stat block prints them; v1's additions after v2's entries of their group, in v1's order.
  std::stable_sort(actions.begin(), actions.end(), [](const Action& a, const Action& b) { return a.group < b.group; });
  for (auto& a : actions) {
    json attacks = reconciled_attacks(a.data.value("attacks", json::array()), str(a.data, "desc"));
    if (attacks.is_array() && !attacks.empty()) a.data["attacks"] = std::move(attacks);
    parts.push_back(str(a.data, "name") + ". " + str(a.data, "desc"));
    d[kGroups[a.group].field].push_back(std::move(a.data));
  }
  put_if(d, "environments", named_list(child(rec, "environments")));
  // The lore v1 keeps (Tome of Beasts 1-2, Creature Codex, SRD 5.1's NPCs): its lair actions and regional effects
  // too. v2's creatures have no description.
  if (v1) {
    const std::string lore = text::trim(str(*v1, "desc"));
    if (!lore.empty()) {
      d["desc"] = lore;
      parts.push_back(lore);
    }
  }
  e.text = text::join(parts, "\n");
}

}  // namespace lorekeeper::open5e::detail
