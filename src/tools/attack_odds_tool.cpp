#include "attack_odds_tool.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/gm/attack_math.hpp"
#include "lorekeeper/gm/dice.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/model/multiattack.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "queries.hpp"
#include "search_tools.hpp"
#include "specs.hpp"
#include "tool_table.hpp"

namespace lorekeeper::tools::attack_odds_tool {

using model::Entity;
using model::Kind;

namespace {

// ACs either side of the target in the optional table.
constexpr int kAcTableSpread = 4;
// Dice a damage roll may hold: a critical hit doubles them, within gm::kMaxDice.
constexpr int kMaxDamageDice = gm::kMaxDice / 2;

std::string percent(double p) { return text::format_number(std::round(p * 1000) / 10) + "%"; }
std::string probability(double p) { return text::format_number(std::round(p * 10000) / 10000); }
std::string amount(double v) { return text::format_number(std::round(v * 100) / 100); }
std::string signed_number(int v) { return (v >= 0 ? "+" : "") + std::to_string(v); }

gm::RollMode mode_of(const json& args) {
  const std::string m = str_arg(args, "mode");
  return m == "advantage"      ? gm::RollMode::kAdvantage
         : m == "disadvantage" ? gm::RollMode::kDisadvantage
                               : gm::RollMode::kNormal;
}

// One attack as a row of the answer: what it is, its chances and its mean damage.
struct AttackRow {
  std::string action;
  int bonus = 0;
  std::string damage;  // dice notation; empty when none is known
  std::string damage_type;
  gm::AttackChance chance;
  std::optional<gm::DamageMean> mean;
  double expected = 0;
  // Damage added by riders ("plus 2 (1d4) piercing damage if the attack roll had advantage"), with its condition.
  struct Rider {
    std::string damage, damage_type, condition;
    gm::DamageMean mean;
  };
  std::vector<Rider> riders;
  double expected_with_riders = 0;
  std::string usage;          // "Recharge 5-6", "3/Day"
  bool bonus_action = false;  // from the stat block's bonus actions
};

// The lowest natural roll that hits: 2 at least (a natural 1 misses), at most the critical range.
int lowest_hitting_face(int bonus, int ac, int crit_range) { return std::clamp(ac - bonus, 2, crit_range); }

json row_json(const AttackRow& r, int ac, int crit_range, gm::RollMode mode, bool table) {
  json j = {{"action", r.action},
            {"to_hit", r.bonus},
            {"hit", r.chance.hit},
            {"critical_hit", r.chance.crit},
            {"miss", r.chance.miss},
            {"any_hit", r.chance.any_hit()},
            {"natural_roll_to_hit", lowest_hitting_face(r.bonus, ac, crit_range)}};
  if (!r.damage.empty()) j["damage"] = r.damage;
  if (!r.damage_type.empty()) j["damage_type"] = r.damage_type;
  if (r.mean) {
    j["damage_on_hit"] = r.mean->on_hit;
    j["damage_on_critical_hit"] = r.mean->on_crit;
    j["expected_damage"] = r.expected;
  }
  if (!r.riders.empty()) {
    json riders = json::array();
    for (const auto& x : r.riders) {
      json one = {{"damage", x.damage}, {"damage_on_hit", x.mean.on_hit}};
      if (!x.damage_type.empty()) one["damage_type"] = x.damage_type;
      if (!x.condition.empty()) one["condition"] = x.condition;
      riders.push_back(one);
    }
    j["riders"] = riders;
    if (r.riders.size() == 1) j["expected_damage_with_riders"] = r.expected_with_riders;
  }
  if (!r.usage.empty()) j["usage"] = r.usage;
  if (table) {
    json rows = json::array();
    for (int a = std::max(1, ac - kAcTableSpread); a <= ac + kAcTableSpread; ++a) {
      rows.push_back({{"ac", a}, {"any_hit", gm::attack_chance(r.bonus, a, mode, crit_range).any_hit()}});
    }
    j["ac_table"] = rows;
  }
  return j;
}

// "+6 to hit: a natural 9 or more hits AC 15 (60%), a natural 20 is a critical hit (5%)."
std::string row_line(const AttackRow& r, int ac, int crit_range) {
  const int face = lowest_hitting_face(r.bonus, ac, crit_range);
  std::string line = "- **" + r.action + "**" + (r.usage.empty() ? "" : " (" + r.usage + ")") + ": " +
                     signed_number(r.bonus) + " to hit; hits on a natural " + std::to_string(face) +
                     (face < 20 ? " or more" : "") + ": **" + percent(r.chance.any_hit()) + "** (critical " +
                     percent(r.chance.crit) + " on a natural " + std::to_string(crit_range) +
                     (crit_range < 20 ? "-20" : "") + "), miss " + percent(r.chance.miss);
  if (r.mean) {
    line += ". Damage " + r.damage + (r.damage_type.empty() ? "" : " " + text::lower(r.damage_type)) + ": " +
            amount(r.mean->on_hit) + " a hit, " + amount(r.mean->on_crit) + " a critical hit; expected **" +
            amount(r.expected) + "** an attack (" + probability(r.chance.hit) + " × " + amount(r.mean->on_hit) + " + " +
            probability(r.chance.crit) + " × " + amount(r.mean->on_crit) + ")";
  }
  for (const auto& x : r.riders) {
    line += "; plus " + x.damage + (x.damage_type.empty() ? "" : " " + text::lower(x.damage_type)) +
            (x.condition.empty() ? "" : " " + x.condition);
  }
  if (r.riders.size() == 1) line += " (expected with it: " + amount(r.expected_with_riders) + ")";
  if (r.riders.size() > 1) line += " (the riders are not added: the text says when each applies)";
  return line + ".\n";
}

// The condition the text sets for a rider, read from the words after "plus N (dice) type damage": "if the attack
// roll had Advantage"; empty when it sets none.
std::string rider_condition(const std::string& desc, const std::string& dice) {
  const std::string lower = text::lower(desc);
  const std::string want = text::lower(dice);
  // Each "plus N (dice) type damage" of the text; the one whose dice are this rider's.
  for (size_t plus = lower.find("plus "); plus != std::string::npos; plus = lower.find("plus ", plus + 5)) {
    const size_t damage = lower.find(" damage", plus);
    if (damage == std::string::npos) break;
    std::string between = lower.substr(plus, damage - plus);
    between.erase(std::remove(between.begin(), between.end(), ' '), between.end());
    if (between.find("(" + want + ")") == std::string::npos) continue;
    const size_t end = lower.find('.', damage);
    const std::string after =
        text::trim(lower.substr(damage + 7, end == std::string::npos ? std::string::npos : end - damage - 7));
    for (const char* lead : {"if ", "while ", "when ", "against ", "to ", "instead"}) {
      if (after.rfind(lead, 0) == 0) return after;
    }
    return "";
  }
  return "";
}

using Round = std::vector<std::pair<const AttackRow*, int>>;  // attacks of a round and how many of each

// A round's odds: the distribution of its hits and its expected damage, as JSON and as a line of `text`.
json round_of(const Round& round, const std::string& from, std::string* text) {
  std::vector<double> p;
  double expected = 0, with_riders = 0;
  json parts = json::array();
  std::vector<std::string> said;
  for (const auto& [r, n] : round) {
    for (int i = 0; i < n; ++i) p.push_back(r->chance.any_hit());
    expected += n * r->expected;
    with_riders += n * r->expected_with_riders;
    parts.push_back({{"action", r->action}, {"count", n}});
    said.push_back(std::to_string(n) + " × " + r->action);
  }
  const std::vector<double> hits = gm::hits_distribution(p);
  json out = {{"attacks", parts}, {"from", from}, {"hits", hits}, {"at_least_one", 1 - hits.front()}};
  const bool any_damage =
      std::any_of(round.begin(), round.end(), [](const auto& x) { return x.first->mean.has_value(); });
  if (any_damage) out["expected_damage"] = expected;
  if (with_riders != expected) out["expected_damage_with_riders"] = with_riders;
  const std::string label = from == "multiattack" ? "**Its Multiattack**"
                            : from == "multiattack, first option"
                                ? "**Its Multiattack as first stated** (the text allows other options: read it below)"
                            : from == "multiattack choice" ? "-"
                            : p.size() > 1                 ? "**The attacks**"
                                                           : "**One attack**";
  *text += (from == "multiattack choice" ? "" : "\n") + label + " (" + text::join(said, ", ") +
           "): at least one hits **" + percent(1 - hits.front()) + "**";
  if (p.size() > 1) {
    std::vector<std::string> by;
    for (size_t k = 0; k < hits.size(); ++k) by.push_back(std::to_string(k) + ": " + percent(hits[k]));
    *text += "; hits " + text::join(by, ", ");
  }
  if (any_damage) {
    *text += "; expected damage **" + amount(expected) + "**" +
             (with_riders != expected ? " (" + amount(with_riders) + " with every rider)" : "");
  }
  *text += ".\n";
  return out;
}

// "a natural 13 or more succeeds", "no roll succeeds", "every roll succeeds".
std::string save_face_text(int needed) {
  if (needed > 20) return "no roll succeeds";
  if (needed <= 1) return "every roll succeeds";
  return "a natural " + std::to_string(needed) + " or more succeeds";
}

Result<AttackRow> row_of(const std::string& action, int bonus, const std::string& damage, const std::string& type,
                         int ac, gm::RollMode mode, int crit_range) {
  AttackRow r;
  r.action = action;
  r.bonus = bonus;
  r.damage = damage;
  r.damage_type = type;
  r.chance = gm::attack_chance(bonus, ac, mode, crit_range);
  if (!damage.empty()) {
    auto mean = gm::damage_mean(damage);
    if (!mean)
      return Status::invalid_argument("the damage '" + damage + "' cannot be read: " + mean.status().message());
    r.mean = *mean;
    r.expected = gm::expected_damage(r.chance, *mean);
  }
  r.expected_with_riders = r.expected;
  return r;
}

// The creature `given` names (a key, or a name in the call's documents, the preferred edition first).
Result<Entity> creature_of(store::Store& st, const std::string& given, const store::Query& scope,
                           std::string_view preferred) {
  if (given.find('_') != std::string::npos && given.find(' ') == std::string::npos) {
    auto got = st.get(text::lower(given), Kind::kCreature, false);
    if (!got) return got.status();
    if (!got->empty()) {
      const Entity& e = got->front();
      const bool in_documents =
          !scope.document_keys || std::find(scope.document_keys->begin(), scope.document_keys->end(), e.document.key) !=
                                      scope.document_keys->end();
      if (!in_documents || (!scope.game_system.empty() && e.document.game_system != scope.game_system)) {
        return Status::invalid_argument("Parameter 'creature': " + e.key + " is in " + e.document.key + " (" +
                                        e.document.game_system +
                                        "), which the documents or game system chosen leave out.");
      }
      return std::move(got->front());
    }
  }
  store::Query q = scope;
  q.kinds = {Kind::kCreature};
  auto named = search::editions_named(st, q, given, preferred);
  if (!named) return named.status();
  if (named->empty()) {
    auto close = closest_names(st, q, given, 5);
    return Status::invalid_argument(
        "Parameter 'creature': no creature is named '" + given + "'" +
        (scope.document_keys || !scope.game_system.empty() ? " in the documents chosen" : "") + "." +
        (close.empty() ? "" : " Closest names: " + text::join(close, ", ") + "."));
  }
  auto got = st.get(named->front().key, Kind::kCreature, false);
  if (!got) return got.status();
  if (got->empty()) return Status::not_found("The creature '" + named->front().key + "' is not in the store.");
  return std::move(got->front());
}

// The attacks of a creature's actions and bonus actions: one row per different attack of an action (a javelin's
// melee and ranged forms are one row when they hit and hurt alike).
Result<std::vector<AttackRow>> creature_rows(const Entity& c, int ac, gm::RollMode mode, int crit_range) {
  std::vector<AttackRow> rows;
  for (const char* group : {"actions", "bonus_actions"}) {
    for (const auto& a : c.data.value(group, json::array())) {
      const std::string name = a.value("name", "");
      const std::string desc = a.value("desc", "");
      // A save effect some records file with a to-hit ("Spit Poison ... DC 15 Constitution saving throw") is no
      // attack roll.
      const std::string lower = text::lower(desc);
      if (lower.find("to hit") == std::string::npos && lower.find("attack roll") == std::string::npos &&
          lower.find("attack:") == std::string::npos && lower.find("saving throw") != std::string::npos) {
        continue;
      }
      std::vector<std::pair<int, std::string>> seen;
      for (const auto& at : a.value("attacks", json::array())) {
        if (!at.contains("to_hit_mod") || !at["to_hit_mod"].is_number_integer()) continue;
        const int bonus = at["to_hit_mod"].get<int>();
        std::string damage = at.value("damage", "");
        if (std::find(seen.begin(), seen.end(), std::make_pair(bonus, damage)) != seen.end()) continue;
        // Damage the text states only after a DC is the save's, not the hit's ("Hit: The target must make a DC 15
        // Constitution saving throw, taking 45 (10d8) poison damage"): the hit itself deals none of it.
        bool save_damage = false;
        if (const size_t dc = desc.find("DC "); dc != std::string::npos && !damage.empty()) {
          std::string before = desc.substr(0, dc), after = desc.substr(dc);
          for (std::string* t : {&before, &after}) t->erase(std::remove(t->begin(), t->end(), ' '), t->end());
          if (before.find("(" + damage + ")") == std::string::npos &&
              after.find("(" + damage + ")") != std::string::npos) {
            save_damage = true;
            damage.clear();
          }
        }
        seen.emplace_back(bonus, damage);
        auto row = row_of(seen.size() > 1 ? name + " (" + at.value("melee_or_ranged", "second form") + ")" : name,
                          bonus, damage, at.value("damage_type", ""), ac, mode, crit_range);
        if (!row) continue;  // a record's damage that is no dice notation: the attack is shown without it below
        row->usage = a.value("usage", "");
        if (save_damage)
          row->usage += std::string(row->usage.empty() ? "" : ", ") + "a hit calls for a save: see saves (save_bonus)";
        if (std::string(group) == "bonus_actions") {
          row->bonus_action = true;
          row->usage = row->usage.empty() ? "bonus action" : row->usage + ", bonus action";
        }
        for (const auto& x : at.value("extra_damage", json::array())) {
          const std::string dice = x.value("damage", "");
          auto mean = gm::damage_mean(dice);
          if (!mean) continue;
          AttackRow::Rider rider{dice, x.value("damage_type", ""), rider_condition(desc, dice), *mean};
          row->riders.push_back(std::move(rider));
        }
        // Several riders may exclude each other (one while bloodied, one not): only a lone rider is added.
        if (row->riders.size() == 1) row->expected_with_riders += gm::expected_damage(row->chance, row->riders[0].mean);
        rows.push_back(std::move(*row));
      }
    }
  }
  return rows;
}

// The ability a save names, in full: "DEX", "Dex" and "Dexterity" are Dexterity.
std::string ability_named(const std::string& written) {
  const std::string w = text::lower(written);
  for (const std::string& a : model::ability_names()) {
    if (w.size() >= 3 && a.rfind(w, 0) == 0) return text::capitalised(a);
  }
  return written;
}

// The end of the sentence that holds position `at`, and of the next one when it states the failure ("Failure: 59
// (17d6) Fire damage.", "On a failed save, ..."): where a save's damage is written.
size_t save_window_end(const std::string& desc, size_t at) {
  size_t end = desc.find(". ", at);
  if (end == std::string::npos) return desc.size();
  const std::string next = text::lower(desc.substr(end + 2, 24));
  for (const char* lead : {"failure", "on a failed", "a target that fails", "a creature that fails", "success"}) {
    if (next.rfind(lead, 0) == 0) {
      const size_t further = desc.find(". ", end + 2);
      // "Failure: ... Success: Half damage." reads both.
      const size_t last = further == std::string::npos ? desc.size() : further;
      const std::string after = text::lower(desc.substr(last == desc.size() ? last : last + 2, 8));
      if (after.rfind("success", 0) == 0) {
        const size_t end2 = desc.find(". ", last + 2);
        return end2 == std::string::npos ? desc.size() : end2;
      }
      return last;
    }
  }
  return end;
}

// A creature's saving-throw effects in its actions, bonus actions, reactions and legendary actions: "DC 21
// Dexterity saving throw, taking 63 (18d6) fire damage ... half as much" (2014), "Dexterity Saving Throw: DC 21
// ... Failure: 59 (17d6) Fire damage. Success: Half damage." (2024), "DC 21 DEX save" (Black Flag), "(DC 16 Dex
// half)" (Tome of Beasts 3). The damage is what the save's own sentence (and its Failure sentence) states, not a
// hit's; a save the creature makes itself ("the tarrasque must succeed on") is none of the target's.
json creature_saves(const Entity& c, int save_bonus, std::string* text) {
  // The whole match, then the DC and the ability ("DC 21 Dexterity", "DC 21 DEX"), or the ability and the DC.
  static const std::string kAbilities = text::join(model::ability_names(), "|");
  static const RE2 kDcFirst("((?i)DC (\\d+) (" + kAbilities + "|str|dex|con|int|wis|cha)\\b)");
  static const RE2 kDcLast("((?i)(" + kAbilities + ") saving throw: DC (\\d+))");
  static const RE2 kDamage(R"((\d+) \((\d+d\d+(?: ?[+-] ?\d+)?)\) ([A-Za-z]+) damage)");
  const std::vector<std::string> own = text::folded_words(c.name);
  const std::string self = own.empty() ? "" : "the " + own.back() + " must";
  json out = json::array();
  for (const char* group : {"actions", "bonus_actions", "reactions", "legendary_actions"}) {
    for (const auto& a : c.data.value(group, json::array())) {
      const std::string desc = a.value("desc", "");
      std::string dc_text, ability;
      re2::StringPiece input(desc), found;
      if (!RE2::PartialMatch(input, kDcFirst, &found, &dc_text, &ability) &&
          !RE2::PartialMatch(input, kDcLast, &found, &ability, &dc_text)) {
        continue;
      }
      const size_t at = static_cast<size_t>(found.data() - desc.data());
      // The sentence of the DC: a save the creature makes itself is skipped.
      const size_t sentence_start = [&] {
        const size_t dot = desc.rfind(". ", at);
        return dot == std::string::npos ? 0 : dot + 2;
      }();
      if (!self.empty() && text::fold(desc.substr(sentence_start, at - sentence_start)).find(self) != std::string::npos)
        continue;
      const int dc = std::stoi(dc_text.substr(0, 3));
      ability = ability_named(ability);
      const gm::SaveChance chance = gm::save_chance(dc, save_bonus, gm::RollMode::kNormal);
      const std::string before = text::lower(desc.substr(0, at));
      const bool after_hit = before.find("hit:") != std::string::npos || before.find("to hit") != std::string::npos ||
                             before.find("attack roll") != std::string::npos;
      json row = {{"action", a.value("name", "")},
                  {"dc", dc},
                  {"ability", ability},
                  {"fail", chance.fail},
                  {"success", chance.success}};
      if (a.contains("usage")) row["usage"] = a["usage"];
      if (after_hit) row["after_a_hit"] = true;
      std::string line = "- **" + a.value("name", "") + "**" +
                         (a.contains("usage") ? " (" + a.value("usage", "") + ")" : "") + ": " +
                         (after_hit ? "after a hit, " : "") + "DC " + std::to_string(dc) + " " + ability +
                         " save with " + signed_number(save_bonus) + ": fails **" + percent(chance.fail) + "**";
      // The damage of the save's own sentences, every type of it.
      const size_t window_end = save_window_end(desc, at);
      const std::string window = desc.substr(at, window_end - at);
      re2::StringPiece rest(window);
      std::string shown_n, dice, type;
      double on_fail = 0, on_half = 0;
      json parts = json::array();
      std::vector<std::string> said;
      const auto add_damage = [&] {
        dice.erase(std::remove(dice.begin(), dice.end(), ' '), dice.end());
        auto mean = gm::damage_mean(dice);
        if (!mean) return;
        on_fail += mean->on_hit;
        on_half += mean->halved;
        parts.push_back({{"damage", dice}, {"damage_type", type}});
        said.push_back(dice + " " + text::lower(type));
      };
      while (RE2::FindAndConsume(&rest, kDamage, &shown_n, &dice, &type)) add_damage();
      if (parts.empty()) {
        // Tome of Beasts 3 puts the save after its damage: "27 (5d10) radiant (DC 16 Dex half)".
        static const RE2 kBefore(R"((\d+) \((\d+d\d+(?: ?[+-] ?\d+)?)\) ([A-Za-z]+)(?: damage)? ?\($)");
        const std::string prefix = desc.substr(sentence_start, at - sentence_start);
        if (RE2::PartialMatch(prefix, kBefore, &shown_n, &dice, &type)) add_damage();
      }
      if (!parts.empty()) {
        const bool half = text::lower(window).find("half") != std::string::npos;
        const double expected = chance.fail * on_fail + (half ? chance.success * on_half : 0.0);
        row["damage"] = parts;
        row["half_on_success"] = half;
        row["expected_damage"] = expected;
        line += "; " + text::join(said, " plus ") + " (" + amount(on_fail) + " on a failure" +
                (half ? ", half on a success" : ", none on a success") + "): expected **" + amount(expected) + "**";
      }
      out.push_back(row);
      *text += line + ".\n";
    }
  }
  return out;
}

}  // namespace

ToolSpec spec() {
  auto integer = [](const char* name, const char* desc, double lo, double hi) {
    return ParamSpec{name, ParamType::kInteger, desc, {}, lo, hi, json(), false, {}};
  };
  auto string = [](const char* name, const char* desc, size_t max) {
    ParamSpec p{name, ParamType::kString, desc, {}, {}, {}, json(), false, {}};
    p.max_length = max;
    return p;
  };
  ParamSpec mode{"mode",
                 ParamType::kString,
                 "The attack rolls with advantage or disadvantage (or the save of save_dc; a creature's save effects "
                 "are rolled normally).",
                 {"normal", "advantage", "disadvantage"},
                 {},
                 {},
                 "normal",
                 false,
                 {{"adv", "advantage"}, {"dis", "disadvantage"}, {"none", "normal"}}};
  ParamSpec crit = integer("crit_range",
                           "The lowest natural roll that is a critical hit: 20, or 19 or 18 for "
                           "features that widen it.",
                           2, 20);
  crit.default_value = 20;
  ParamSpec half{"half_on_success",
                 ParamType::kBoolean,
                 "With save_dc: a success takes half the damage.",
                 {},
                 {},
                 {},
                 true,
                 false,
                 {}};
  ParamSpec table{"ac_table",
                  ParamType::kBoolean,
                  "Also the chance to hit each AC from 4 below the target to 4 above.",
                  {},
                  {},
                  {},
                  false,
                  false,
                  {}};
  ParamSpec damage = string("damage",
                            "With attack_bonus or save_dc: the damage dice (\"2d8+4\"); a critical hit rolls "
                            "the dice twice.",
                            200);
  return {
      "attack_odds",
      "Attack and save odds",
      "Exact odds (no simulation) of attack rolls against an AC and of saving throws against a DC, and the damage "
      "they deal on average: for an attack_bonus (with damage), or for a creature's attacks read from its stat "
      "block (each attack, and its Multiattack routine when the text states one plainly); attacks counts them, "
      "giving the distribution of hits and the chance at least one hits ({\"creature\": \"ogre\", \"target_ac\": "
      "15} or {\"attack_bonus\": 5, \"target_ac\": 16, \"attacks\": 3}). save_dc with save_bonus (or a "
      "creature with save_bonus: its breath weapons and other saves) gives the chance to fail.",
      {integer("attack_bonus", "The attack roll's bonus (+5 is 5).", -20, 40),
       string("creature", "A creature by key or name: its attacks are read from its stat block.", 200),
       string("action", "With creature: only this action (\"Greatclub\").", 100),
       integer("target_ac", "The target's armor class.", 1, 50), mode,
       integer("attacks",
               "How many such attacks (a round's or several attackers'): the distribution of hits. With "
               "a creature, attacks of `action`.",
               1, 20),
       crit, damage, integer("save_dc", "A saving throw's DC (with save_bonus).", 1, 50),
       integer("save_bonus", "The target's saving throw bonus, against save_dc or a creature's save effects.", -20, 40),
       half, table, documents_param(), game_system_param()},
      object_answer_schema({{"type", "object"},
                            {"properties",
                             {{"attacks", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                              {"round", {{"type", "object"}}},
                              {"saves", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}})};
}

ToolResult attack_odds(store::Store* st, const json& args, const std::optional<std::vector<std::string>>& document_keys,
                       std::string_view preferred_edition) {
  const auto bonus = int_arg(args, "attack_bonus");
  const std::string creature = text::trim(str_arg(args, "creature"));
  const std::string action = text::trim(str_arg(args, "action"));
  const auto ac = int_arg(args, "target_ac");
  const auto count = int_arg(args, "attacks");
  const int crit_range = int_arg(args, "crit_range").value_or(20);
  const std::string damage = text::trim(str_arg(args, "damage"));
  const auto save_dc = int_arg(args, "save_dc");
  const auto save_bonus = int_arg(args, "save_bonus");
  const gm::RollMode mode = mode_of(args);
  const bool table = bool_arg(args, "ac_table").value_or(false);

  // Which question the arguments ask.
  if (bonus && !creature.empty()) return error_result("Give attack_bonus or creature, not both.");
  if (!bonus && creature.empty() && !save_dc) {
    return error_result(
        "Give attack_bonus and target_ac (an attack), creature and target_ac (a creature's attacks), or save_dc and "
        "save_bonus (a saving throw).");
  }
  if ((bonus || (!creature.empty() && !save_bonus)) && !ac)
    return error_result("Parameter 'target_ac' is required: the target's armor class.");
  if (!action.empty() && creature.empty())
    return error_result("Parameter 'action' names an action of a creature: give creature too.");
  if (!creature.empty() && !damage.empty()) {
    return error_result(
        "A creature's damage is read from its stat block: leave out damage, or give attack_bonus instead.");
  }
  if (!creature.empty() && save_dc) {
    return error_result(
        "A creature's save DCs are read from its stat block: give save_bonus (the target's) without save_dc.");
  }
  if (save_dc && !save_bonus)
    return error_result("Parameter 'save_bonus' is required with save_dc: the target's saving throw bonus.");
  if (count && !creature.empty() && action.empty()) {
    return error_result(
        "With a creature, attacks counts the attacks of one action: name it in action (or leave "
        "attacks out for its Multiattack).");
  }
  if (!damage.empty()) {
    auto parsed = gm::parse_dice(damage);
    if (!parsed) return error_result("Parameter 'damage': " + parsed.status().message() + ".");
    int dice = 0;
    for (const auto& t : parsed->terms) dice += t.count;
    if (dice > kMaxDamageDice) {
      return error_result("Parameter 'damage' rolls " + std::to_string(dice) + " dice; at most " +
                          std::to_string(kMaxDamageDice) + " (a critical hit doubles them).");
    }
  }

  json result = json::object();
  std::string text;
  const std::string mode_text = mode == gm::RollMode::kAdvantage      ? " with advantage"
                                : mode == gm::RollMode::kDisadvantage ? " with disadvantage"
                                                                      : "";
  std::vector<AttackRow> rows;
  Round round;
  std::vector<Round> choice_rounds;  // a Multiattack that leaves the choice: one round per choice
  std::string round_from;
  std::vector<std::string> notes;
  std::string creature_saves_text;  // after the attacks
  std::string multiattack_words;    // after the round

  if (bonus) {
    auto row = row_of("Attack", *bonus, damage, "", *ac, mode, crit_range);
    if (!row) return error_result("Parameter 'damage': " + row.status().message());
    rows.push_back(std::move(*row));
    round.push_back({&rows.front(), count.value_or(1)});
    round_from = count ? "attacks" : "one attack";
    text += "## " + signed_number(*bonus) + " to hit against AC " + std::to_string(*ac) + mode_text + "\n\n";
  } else if (!creature.empty()) {
    store::Query scope;
    scope.document_keys = document_keys;
    scope.game_system = str_arg(args, "game_system");
    if (st == nullptr) return error_result("A creature's attacks are read from the store, and there is none.");
    auto c = creature_of(*st, creature, scope, preferred_edition);
    if (!c) return error_result(c.status().message());
    result["creature"] = {{"key", c->key}, {"name", c->name}, {"document", c->document.key}};
    text += "## " + c->name + " (" + c->document.name + ", " + c->document.game_system + ")" +
            (ac ? " against AC " + std::to_string(*ac) : "") + mode_text + "\n\n";
    if (ac) {
      auto all = creature_rows(*c, *ac, mode, crit_range);
      if (!all) return error_result(all.status().message());
      rows = std::move(*all);
      // The Multiattack is read over every attack (before `action` narrows them), each name once.
      std::string multiattack;
      for (const auto& a : c->data.value("actions", json::array())) {
        if (text::fold(a.value("name", "")).rfind("multiattack", 0) == 0) multiattack = a.value("desc", "");
      }
      std::vector<std::string> names;
      for (const auto& r : rows) {
        if (std::find(names.begin(), names.end(), r.action) == names.end()) names.push_back(r.action);
      }
      const auto routine = multiattack.empty() ? std::nullopt : model::multiattack_routine(multiattack, names);
      const bool offers_more = !multiattack.empty() && model::multiattack_offers_more(multiattack);
      if (!multiattack.empty()) {
        result["multiattack"] = multiattack;
        multiattack_words = "\nIts Multiattack, as the stat block states it: \"" + multiattack + "\"\n";
      }
      if (!action.empty()) {
        const std::string want = text::fold(action);
        std::vector<AttackRow> kept;
        for (auto& r : rows) {
          if (text::fold(r.action).rfind(want, 0) == 0) kept.push_back(std::move(r));
        }
        if (kept.empty()) {
          return error_result("Parameter 'action': " + c->name + " has no attack named '" + action + "'." +
                              (names.empty() ? " Its stat block has no attack rolls."
                                             : " Its attacks: " + text::join(names, ", ") + "."));
        }
        rows = std::move(kept);
      }
      // The row an action's name stands for in a routine: its action's, before a bonus action of the same name.
      const auto row_named = [&](const std::string& n) -> const AttackRow* {
        const AttackRow* found = nullptr;
        for (const auto& r : rows) {
          if (r.action == n && (found == nullptr || (found->bonus_action && !r.bonus_action))) found = &r;
        }
        return found;
      };
      // The round: the action asked for, the Multiattack routine, or one attack.
      if (!action.empty()) {
        int n = count.value_or(1);
        bool from_routine = false;
        if (!count && routine) {
          for (const auto& p : *routine) {
            if (p.action == rows.front().action) n = p.count, from_routine = true;
          }
        }
        round.push_back({&rows.front(), n});
        round_from = count ? "attacks" : from_routine ? "multiattack" : "one attack";
      } else if (routine) {
        for (const auto& p : *routine) {
          if (const AttackRow* r = row_named(p.action)) round.push_back({r, p.count});
        }
        round_from = offers_more ? "multiattack, first option" : "multiattack";
      } else if (multiattack.empty() && !rows.empty()) {
        // One attack a turn: the best of its actions (a bonus action is besides it), by the damage it is sure of.
        const AttackRow* best = nullptr;
        for (const auto& r : rows) {
          if (!r.bonus_action && (best == nullptr || r.expected > best->expected)) best = &r;
        }
        if (best != nullptr) {
          round.push_back({best, 1});
          round_from = "one attack";
          notes.push_back(c->name + " has no Multiattack: a round is one attack, counted here as its best (" +
                          best->action + ").");
        }
      } else if (auto choice = model::multiattack_choice(multiattack, names); choice && !rows.empty()) {
        for (const auto& option : choice->options) {
          if (const AttackRow* r = row_named(option)) choice_rounds.push_back({{r, choice->count}});
        }
      } else if (!rows.empty()) {
        notes.push_back("Its Multiattack does not state a routine plainly (\"" + multiattack +
                        "\"): no round is counted; give action and attacks for one.");
      }
      if (rows.empty()) notes.push_back(c->name + "'s stat block has no attack rolls with a bonus to hit.");
    }
    if (save_bonus) {
      std::string saves_text;
      json saves = creature_saves(*c, *save_bonus, &saves_text);
      result["saves"] = saves;
      creature_saves_text =
          saves.empty() ? "\nNo action of its stat block calls for a saving throw with a DC.\n"
                        : "\n**Saving throws** (the target's bonus " + signed_number(*save_bonus) + "):\n" + saves_text;
    }
  }

  if (!rows.empty()) {
    json list = json::array();
    text += "**Attacks:**\n";
    for (const auto& r : rows) {
      list.push_back(row_json(r, *ac, crit_range, mode, table));
      text += row_line(r, *ac, crit_range);
    }
    result["attacks"] = list;
    if (table) {
      text += "\nChance to hit by AC (" + rows.front().action + "):";
      for (int a = std::max(1, *ac - kAcTableSpread); a <= *ac + kAcTableSpread; ++a) {
        text += " AC " + std::to_string(a) + " " +
                percent(gm::attack_chance(rows.front().bonus, a, mode, crit_range).any_hit()) +
                (a < *ac + kAcTableSpread ? "," : ".\n");
      }
    }
  }
  if (!round.empty()) {
    result["round"] = round_of(round, round_from, &text);
  } else if (!choice_rounds.empty()) {
    json options = json::array();
    text += "\nIts Multiattack leaves the choice of attack; each choice made every time:\n";
    for (const auto& option : choice_rounds) options.push_back(round_of(option, "multiattack choice", &text));
    result["round_options"] = options;
  }
  if (!round.empty() || !choice_rounds.empty()) text += multiattack_words;
  text += creature_saves_text;
  if (save_dc) {
    const gm::SaveChance chance = gm::save_chance(*save_dc, *save_bonus, mode);
    json save = {{"dc", *save_dc}, {"bonus", *save_bonus}, {"fail", chance.fail}, {"success", chance.success}};
    text += std::string(text.empty() ? "" : "\n") + "## A DC " + std::to_string(*save_dc) + " save with " +
            signed_number(*save_bonus) + mode_text + "\n\nFails **" + percent(chance.fail) + "** (" +
            save_face_text(*save_dc - *save_bonus) + "; a save has no automatic success or failure), succeeds " +
            percent(chance.success);
    if (!damage.empty()) {
      auto mean = gm::damage_mean(damage);
      if (!mean) return error_result("Parameter 'damage': " + mean.status().message());
      const bool half = bool_arg(args, "half_on_success").value_or(true);
      const double expected = chance.fail * mean->on_hit + (half ? chance.success * mean->halved : 0.0);
      save["damage"] = damage;
      save["half_on_success"] = half;
      save["expected_damage"] = expected;
      text += ". Damage " + damage + ": " + amount(mean->on_hit) + " on a failure" +
              (half ? ", half on a success" : "") + "; expected **" + amount(expected) + "**";
    }
    text += ".\n";
    result["saves"] = json::array({save});
  }
  for (const auto& n : notes) text += "\n" + n + "\n";
  ToolResult r;
  r.text = text;
  r.structured = {{"result", result}, {"total", static_cast<int>(rows.size())}, {"filters", args}};
  if (!notes.empty()) r.structured["message"] = text::join(notes, " ");
  return r;
}

ToolDef row() {
  ToolDef d = documents_row(spec(), [](const ToolCall& c, const DocFilter& docs) {
    return attack_odds(c.st, c.args, docs.keys, c.ctx.preferred_edition);
  });
  // Odds for a bonus or a DC given need no store (and no documents); a creature's are read from it.
  d.needs_store = [](const json& args) { return args.contains("creature"); };
  return d;
}

}  // namespace lorekeeper::tools::attack_odds_tool
