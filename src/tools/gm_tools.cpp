#include "gm_tools.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/gm/dice.hpp"
#include "lorekeeper/gm/encounter_math.hpp"
#include "lorekeeper/model/challenge.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/model/entity.hpp"
#include "queries.hpp"
#include "search_tools.hpp"
#include "tool_table.hpp"

namespace lorekeeper::tools::gm_tools {

namespace {

using gm::RuleSet;

// Totals listed one by one in roll_dice's answer when there are at most this many.
constexpr long long kMaxTableRows = 40;
// build_encounter: random tries at a group, and candidates taken from a themed search.
constexpr int kBuildAttempts = 600;
// A built group's weaker kind is worth at least this share of its leader's XP: the DMG (2014) counts creatures far
// below a group's challenge out of the multiplier, and a CR 1 dragon with seven frogs (x2.5 for nine monsters) is
// a "hard" fight only by that arithmetic.
constexpr long long kFollowerXpShareDivisor = 10;
constexpr int kThemedCandidates = 100;
constexpr int kAllCandidates = 5000;
// 2014 has no ceiling above deadly: a deadly group stays within this multiple of the deadly threshold.
constexpr double kDeadlyCeiling = 1.5;
// A term of more dice than this shows its sum, not each face.
constexpr size_t kMaxFacesShown = 50;

// A seed for the n-th roll after the first (splitmix64 of seed and n), kept within 2^53 like the seeds callers give.
uint64_t mixed_seed(uint64_t seed, uint64_t n) {
  uint64_t z = seed + n * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (z ^ (z >> 31)) & ((1ULL << 53) - 1);
}

std::string percent(double p) {
  char buf[32];
  if (p > 0 && p < 0.0001) return "< 0.01%";
  if (p < 1 && p > 0.9999) return "> 99.99%";
  std::snprintf(buf, sizeof buf, "%.2f%%", p * 100.0);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

ojson schema_of(std::initializer_list<std::pair<const char*, ojson>> props, std::vector<std::string> required) {
  ojson p = ojson::object();
  for (const auto& [k, v] : props) p[k] = v;
  return {{"type", "object"}, {"properties", p}, {"required", required}};
}

const ojson kInt = {{"type", "integer"}};
const ojson kNum = {{"type", "number"}};
const ojson kStr = {{"type", "string"}};
const ojson kObj = {{"type", "object"}};

ojson answer_schema(const ojson& result) {
  return schema_of({{"result", result}, {"message", kStr}, {"filters", kObj}}, {"result"});
}

ParamSpec param(const char* name, ParamType type, const char* desc) {
  return {name, type, desc, {}, {}, {}, json(), false, {}};
}

std::vector<ParamSpec> party_params() {
  ParamSpec levels = param("party_levels", ParamType::kIntegerArray, "Each character's level, e.g. [3, 3, 3, 4].");
  levels.minimum = gm::kMinLevel;
  levels.maximum = gm::kMaxLevel;
  levels.max_items = gm::kMaxPartySize;
  ParamSpec size = param("party_size", ParamType::kInteger, "Characters in the party (with party_level).");
  size.minimum = 1;
  size.maximum = gm::kMaxPartySize;
  ParamSpec level = param("party_level", ParamType::kInteger, "Their level (with party_size).");
  level.minimum = gm::kMinLevel;
  level.maximum = gm::kMaxLevel;
  ParamSpec rules = param("rules", ParamType::kString,
                          "2014: XP thresholds and a multiplier for the number of monsters; 2024: XP budget per "
                          "character. Default: the server's preferred edition.");
  rules.enum_values = {"2014", "2024"};
  rules.aliases = {{"5e-2014", "2014"}, {"5e-2024", "2024"}, {"dmg2014", "2014"}, {"dmg2024", "2024"}};
  return {levels, size, level, rules};
}

ParamSpec filter_of(const std::vector<ParamSpec>& filters, const std::string& name) {
  for (const auto& p : filters) {
    if (p.name == name) return p;
  }
  return param(name.c_str(), ParamType::kString, "");
}

// ---------------------------------------------------------------------------------------------------------
// Shared by the encounter tools.

Result<std::vector<int>> party_of(const json& args) {
  const bool by_list = args.contains("party_levels");
  const bool by_size = args.contains("party_size") || args.contains("party_level");
  if (by_list && by_size) {
    return Status::invalid_argument("Give either party_levels or party_size with party_level, not both.");
  }
  std::vector<int> levels;
  if (by_list) {
    for (const auto& l : args["party_levels"]) levels.push_back(l.get<int>());
  } else if (args.contains("party_size") && args.contains("party_level")) {
    levels.assign(args["party_size"].get<size_t>(), args["party_level"].get<int>());
  } else if (by_size) {
    return Status::invalid_argument("party_size and party_level go together: give both.");
  } else {
    return Status::invalid_argument("Say who fights: party_levels (e.g. [3, 3, 3, 3]) or party_size and party_level.");
  }
  if (levels.empty()) return Status::invalid_argument("party_levels is empty: give each character's level.");
  return levels;
}

RuleSet rules_of(const json& args, std::string_view preferred_edition) {
  const std::string r = args.value("rules", "");
  if (r == "2014") return RuleSet::k2014;
  if (r == "2024") return RuleSet::k2024;
  return preferred_edition == "5e-2024" ? RuleSet::k2024 : RuleSet::k2014;
}

json thresholds_json(const gm::PartyBudget& b) {
  json t = json::object();
  for (const auto& th : b.thresholds) t[std::string(gm::difficulty_name(th.difficulty))] = th.xp;
  return t;
}

// A creature as the encounter tools show it.
struct Candidate {
  std::string key, name, document;
  double cr = 0;
  long long xp = 0;
  int rank = 0;  // in the search's order, best first
};

json creature_json(const Candidate& c, int count) {
  return {{"key", c.key},
          {"name", c.name},
          {"document", c.document},
          {"challenge_rating", c.cr},
          {"cr", model::cr_text(c.cr)},
          {"xp", c.xp},
          {"count", count}};
}

std::optional<Candidate> candidate_of(const json& r, int rank) {
  if (!r.contains("challenge_rating") || !r["challenge_rating"].is_number()) return std::nullopt;
  const double cr = r["challenge_rating"].get<double>();
  auto xp = model::xp_for_cr(cr);
  if (!xp) return std::nullopt;
  Candidate c;
  c.key = r.value("key", "");
  c.name = r.value("name", "");
  c.document = r.contains("document") && r["document"].is_object() ? r["document"].value("key", "") : "";
  c.cr = cr;
  c.xp = *xp;
  c.rank = rank;
  return c;
}

json assessment_json(const gm::EncounterAssessment& a) {
  return {{"rules", std::string(gm::rule_set_name(a.rules))},
          {"monster_count", a.monster_count},
          {"base_xp", a.base_xp},
          {"multiplier", a.multiplier},
          {"adjusted_xp", a.adjusted_xp},
          {"difficulty", std::string(gm::difficulty_name(a.difficulty))},
          {"thresholds", thresholds_json(a.budget)},
          {"explanation", a.explanation}};
}

std::string creature_line(const Candidate& c, int count) {
  return std::to_string(count) + " \u00D7 **" + c.name + "** (CR " + model::cr_text(c.cr) + ", " +
         text::group_thousands(c.xp) + " XP, `" + c.key + "`)";
}

}  // namespace

std::vector<ToolSpec> specs(const std::vector<ParamSpec>& creature_filters) {
  std::vector<ToolSpec> out;
  {
    ParamSpec notation = param("notation", ParamType::kString,
                               "Dice notation: terms joined by + or -, e.g. \"2d6+3\", \"4d6kh3\" (keep highest 3), "
                               "\"2d20kl1\", \"d%\", \"8d6\". Up to 1000 dice of up to 1000 sides.");
    notation.required = true;
    notation.max_length = gm::kMaxNotationLength;
    ParamSpec mode = param("mode", ParamType::kString, "Roll each plain 1d20 with advantage or disadvantage.");
    mode.enum_values = {"normal", "advantage", "disadvantage"};
    mode.default_value = "normal";
    mode.aliases = {{"adv", "advantage"}, {"dis", "disadvantage"}, {"none", "normal"}};
    ParamSpec target =
        param("target", ParamType::kInteger, "Also give the exact chance that the total is at least this.");
    target.minimum = -1e9;
    target.maximum = 1e9;
    ParamSpec times = param("times", ParamType::kInteger, "How many rolls to make.");
    times.minimum = 1;
    times.maximum = 20;
    times.default_value = 1;
    ParamSpec seed =
        param("seed", ParamType::kInteger, "Seed of the rolls; the same seed gives the same dice. Default: a new one.");
    seed.minimum = 0;
    seed.maximum = 9007199254740991.0;  // 2^53 - 1: every JSON reader keeps it exact
    const ojson stats =
        schema_of({{"min", kInt},
                   {"max", kInt},
                   {"mean", kNum},
                   {"stddev", kNum},
                   {"mode", kInt},
                   {"percentiles", kObj},
                   {"at_least", schema_of({{"target", kInt}, {"probability", kNum}}, {"target", "probability"})},
                   {"table", {{"type", "array"}, {"items", kObj}}}},
                  {"min", "max", "mean", "stddev", "mode", "percentiles"});
    const ojson result = schema_of(
        {{"notation", kStr}, {"seed", kInt}, {"rolls", {{"type", "array"}, {"items", kObj}}}, {"odds", stats}},
        {"notation", "seed", "rolls", "odds"});
    out.push_back({"roll_dice",
                   "Roll dice",
                   "Roll dice in standard notation and give the exact odds (by convolution, not simulation): range, "
                   "mean, percentiles and the chance of reaching a target. E.g. {\"notation\": \"8d6\", \"target\": "
                   "30} answers \"what are the odds 8d6 beats 30?\".",
                   {notation, mode, target, times, seed},
                   answer_schema(result)});
  }
  std::vector<ParamSpec> party = party_params();
  {
    std::vector<ParamSpec> fields = {
        param("key", ParamType::kString, "The creature's key (from a search)."),
        param("name", ParamType::kString, "Or its name; the preferred edition when several share it."),
        {"cr",
         ParamType::kFraction,
         "Or only its challenge rating, for a creature not in the store.",
         {},
         0,
         30,
         json(),
         false,
         {}},
        {"count", ParamType::kInteger, "How many (default 1).", {}, 1, gm::kMaxMonsters, json(1), false, {}}};
    ParamSpec creatures = param("creatures", ParamType::kObjectArray,
                                "The creatures in the fight, e.g. [{\"name\": \"Goblin\", \"count\": 4}, {\"key\": "
                                "\"srd_bugbear\"}].");
    creatures.fields = fields;
    creatures.required = true;
    creatures.max_items = gm::kMaxMonsterGroups;
    std::vector<ParamSpec> params = party;
    params.insert(params.begin(), creatures);
    params.push_back(filter_of(creature_filters, "documents"));
    params.push_back(filter_of(creature_filters, "game_system"));
    const ojson result = schema_of({{"rules", kStr},
                                    {"party_levels", {{"type", "array"}, {"items", kInt}}},
                                    {"creatures", {{"type", "array"}, {"items", kObj}}},
                                    {"monster_count", kInt},
                                    {"base_xp", kInt},
                                    {"multiplier", kNum},
                                    {"adjusted_xp", kInt},
                                    {"difficulty", kStr},
                                    {"thresholds", kObj},
                                    {"explanation", kStr},
                                    {"under_other_rules", kObj}},
                                   {"rules", "party_levels", "creatures", "base_xp", "difficulty", "thresholds"});
    out.push_back({"evaluate_encounter", "Evaluate an encounter",
                   "How hard a fight is for a party under the 2014 or 2024 rules, with the XP arithmetic shown. "
                   "Creatures by key, name or challenge rating.",
                   params, answer_schema(result)});
  }
  {
    ParamSpec difficulty = param("difficulty", ParamType::kString,
                                 "Target difficulty: easy, medium, hard or deadly (2014); low, moderate or high "
                                 "(2024). Default: medium / moderate.");
    difficulty.enum_values = {"easy", "medium", "hard", "deadly", "low", "moderate", "high"};
    ParamSpec theme = param("theme", ParamType::kString,
                            "What the encounter is about, in words, ranked like search_creature's search: \"swamp "
                            "hag coven\", \"undead in a crypt\".");
    ParamSpec environment = param(
        "environment", ParamType::kString,
        "Only creatures whose records list this environment (e.g. \"swamp\", \"mountain\", "
        "\"underworld\"); SRD 5.1, Tome of Beasts and Creature Codex records list them. Records that list "
        "(nearly) every environment come in only when fewer than 5 creatures list it, or when no group of those fits.");
    ParamSpec max_creatures = param("max_creatures", ParamType::kInteger, "Most creatures in one group.");
    max_creatures.minimum = 1;
    max_creatures.maximum = 30;
    max_creatures.default_value = 8;
    ParamSpec alternatives = param("alternatives", ParamType::kInteger, "Groups to propose.");
    alternatives.minimum = 1;
    alternatives.maximum = 6;
    alternatives.default_value = 3;
    ParamSpec seed = param("seed", ParamType::kInteger,
                           "Seed of the choice; the same seed, data and arguments give the same groups.");
    seed.minimum = 0;
    seed.maximum = 9007199254740991.0;
    std::vector<ParamSpec> params = party;
    params.push_back(difficulty);
    params.push_back(theme);
    params.push_back(environment);
    for (const char* f : {"type", "size", "cr_min", "cr_max", "documents", "game_system", "environment"}) {
      params.push_back(filter_of(creature_filters, f));
    }
    params.push_back(max_creatures);
    params.push_back(alternatives);
    params.push_back(seed);
    const ojson result = schema_of({{"rules", kStr},
                                    {"party_levels", {{"type", "array"}, {"items", kInt}}},
                                    {"difficulty", kStr},
                                    {"thresholds", kObj},
                                    {"target", kObj},
                                    {"groups", {{"type", "array"}, {"items", kObj}}},
                                    {"candidates", kInt},
                                    {"seed", kInt}},
                                   {"rules", "party_levels", "difficulty", "thresholds", "target", "groups", "seed"});
    out.push_back({"build_encounter", "Build an encounter",
                   "Propose groups of creatures for a party at a difficulty (2014 or 2024 rules), optionally on a "
                   "theme and under search_creature's filters, each with its XP arithmetic and keys.",
                   params, answer_schema(result)});
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// roll_dice

// How to write what a notation the parser refused seems to want, in words it used: "4d6 drop lowest" is
// "4d6dl1", "1d20+5 advantage" is mode "advantage". Empty when it uses no such word.
std::string notation_hint(const std::string& notation) {
  const auto words = text::folded_words(notation);
  auto has = [&](std::initializer_list<const char*> any) {
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
      return std::any_of(any.begin(), any.end(), [&](const char* a) { return w == a; });
    });
  };
  std::string hint;
  if (has({"drop", "drops", "keep", "keeps", "highest", "lowest", "best", "worst"}))
    hint += " Keep or drop dice with kh, kl, dh or dl and a count: \"4d6kh3\" or \"4d6dl1\" (4d6, drop the lowest).";
  if (has({"advantage", "disadvantage", "adv", "dis"}))
    hint +=
        " For advantage or disadvantage give mode \"advantage\" or \"disadvantage\" (each plain 1d20 is rolled "
        "twice), or write \"2d20kh1\".";
  return hint;
}

ToolResult roll_dice(const json& args) {
  const std::string mode = args.value("mode", "normal");
  const gm::Advantage adv = mode == "advantage"      ? gm::Advantage::kAdvantage
                            : mode == "disadvantage" ? gm::Advantage::kDisadvantage
                                                     : gm::Advantage::kNone;
  const std::string notation = args.value("notation", "");
  auto expr = gm::parse_dice(notation, adv);
  if (!expr) return error_result("Parameter 'notation': " + expr.status().message() + "." + notation_hint(notation));
  auto dist = gm::distribution(*expr);
  if (!dist) return error_result("Parameter 'notation': " + dist.status().message() + ".");
  const bool seeded = args.contains("seed");
  const uint64_t seed = seeded ? args["seed"].get<uint64_t>() : gm::random_seed() & ((1ULL << 53) - 1);
  const int times = args.value("times", 1);
  const std::string canonical = expr->to_string();

  json rolls = json::array();
  std::string text =
      "**" + canonical + "**" + (canonical != text::trim(notation) ? " (" + notation + ")" : "") + "\n\n";
  // The first roll uses the seed itself, so it is the same whatever `times` is; later rolls use seeds mixed from it
  // (splitmix64), which neighbouring seeds do not share.
  for (int i = 0; i < times; ++i) {
    auto r = gm::roll(*expr, i == 0 ? seed : mixed_seed(seed, static_cast<uint64_t>(i)));
    if (!r) return error_result(r.status().message());
    json terms = json::array();
    std::string shown;
    for (size_t t = 0; t < r->terms.size(); ++t) {
      const auto& term = expr->terms[t];
      const auto& tr = r->terms[t];
      json j = {{"term", (term.sign < 0 ? "-" : "") + term.to_string()}, {"subtotal", tr.subtotal}};
      std::string part;
      if (!term.is_constant() && tr.faces.size() > kMaxFacesShown) {
        // Hundreds of dice are a sum to the reader, not a list: the term's subtotal stands for them.
        j["dice"] = tr.faces.size();
        part = "[" + std::to_string(tr.faces.size()) + " dice: " + text::group_thousands(tr.subtotal) + "]";
      } else if (!term.is_constant()) {
        j["faces"] = tr.faces;
        json dropped = json::array();
        std::vector<std::string> faces;
        for (size_t d = 0; d < tr.faces.size(); ++d) {
          faces.push_back(tr.kept[d] ? std::to_string(tr.faces[d]) : "~~" + std::to_string(tr.faces[d]) + "~~");
          if (!tr.kept[d]) dropped.push_back(tr.faces[d]);
        }
        if (!dropped.empty()) j["dropped"] = dropped;
        part = "[" + text::join(faces, ", ") + "]";
      } else {
        part = std::to_string(term.constant);
      }
      shown += (t == 0 ? (term.sign < 0 ? "-" : "") : (term.sign < 0 ? " - " : " + ")) + part;
      terms.push_back(std::move(j));
    }
    rolls.push_back({{"total", r->total}, {"terms", terms}});
    text += (times > 1 ? std::to_string(i + 1) + ". " : "Rolled ") + "**" + std::to_string(r->total) + "**: " + shown +
            "\n";
  }
  text += "\nSeed " + std::to_string(seed) + ": give it again" + (times > 1 ? " with the same times" : "") +
          " for the same dice.\n\n";

  json percentiles = json::object();
  for (double q : gm::kStandardQuantiles) percentiles[fixed(q * 100, 0)] = dist->percentile(q);
  json odds = {{"min", dist->min},         {"max", dist->max()},   {"mean", dist->mean()},
               {"stddev", dist->stddev()}, {"mode", dist->mode()}, {"percentiles", percentiles}};
  text += "Exact odds: totals " + std::to_string(dist->min) + " to " + std::to_string(dist->max()) + ", mean " +
          fixed(dist->mean(), 2) + " (standard deviation " + fixed(dist->stddev(), 2) + "), median " +
          std::to_string(dist->percentile(0.5)) + "; " +
          percent(dist->at_most(dist->percentile(0.95)) - dist->at_most(dist->percentile(0.05) - 1)) +
          " of rolls fall between " + std::to_string(dist->percentile(0.05)) + " and " +
          std::to_string(dist->percentile(0.95)) + ".\n";
  if (args.contains("target")) {
    const long long target = args["target"].get<long long>();
    const double p = dist->at_least(target);
    odds["at_least"] = {{"target", target}, {"probability", p}};
    text += "Chance of " + std::to_string(target) + " or more: **" + percent(p) + "** (more than " +
            std::to_string(target) + ": " + percent(dist->at_least(target + 1)) + ").\n";
  }
  if (dist->max() - dist->min + 1 <= kMaxTableRows) {
    json table = json::array();
    text += "\n| total | exactly | at least |\n|---|---|---|\n";
    for (long long t = dist->min; t <= dist->max(); ++t) {
      table.push_back({{"total", t}, {"exactly", dist->exactly(t)}, {"at_least", dist->at_least(t)}});
      text +=
          "| " + std::to_string(t) + " | " + percent(dist->exactly(t)) + " | " + percent(dist->at_least(t)) + " |\n";
    }
    odds["table"] = table;
  }
  ToolResult out;
  out.text = text;
  out.structured = {{"result", {{"notation", canonical}, {"seed", seed}, {"rolls", rolls}, {"odds", odds}}},
                    {"filters", args}};
  auto plain = gm::parse_dice(notation, gm::Advantage::kNone);
  if (mode != "normal" && plain && plain->to_string() == canonical) {
    out.structured["message"] = "There is no plain 1d20 in the notation: " + mode + " changed nothing.";
    out.text = out.structured["message"].get<std::string>() + "\n\n" + out.text;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// evaluate_encounter

ToolResult evaluate_encounter(const json& args, const CreatureSearch& search, std::string_view preferred_edition) {
  auto levels = party_of(args);
  if (!levels) return error_result(levels.status().message());
  const RuleSet rules = rules_of(args, preferred_edition);
  std::vector<gm::MonsterGroup> groups;
  json creatures = json::array();
  std::vector<std::string> lines;
  const json& given = args["creatures"];
  if (given.empty()) return error_result("Parameter 'creatures' is empty: name at least one creature.");
  for (size_t i = 0; i < given.size(); ++i) {
    const json& c = given[i];
    const std::string where = "Creature " + std::to_string(i + 1);
    const int count = c.value("count", 1);
    const int ways = (c.contains("key") ? 1 : 0) + (c.contains("name") ? 1 : 0) + (c.contains("cr") ? 1 : 0);
    if (ways != 1) return error_result(where + ": give exactly one of key, name or cr.");
    if (c.contains("cr")) {
      const double cr = c["cr"].get<double>();
      auto xp = model::xp_for_cr(cr);
      if (!xp) {
        return error_result(where + ": challenge rating " + text::format_number(cr) +
                            " is not in the XP table (0, 1/8, 1/4, 1/2, 1-30).");
      }
      groups.push_back({cr, count});
      creatures.push_back({{"challenge_rating", cr}, {"cr", model::cr_text(cr)}, {"xp", *xp}, {"count", count}});
      lines.push_back(std::to_string(count) + " \u00D7 a CR " + model::cr_text(cr) + " creature (" +
                      text::group_thousands(*xp) + " XP)");
      continue;
    }
    const std::string wanted = c.contains("key") ? c["key"].get<std::string>() : c["name"].get<std::string>();
    json sargs = {{"search", wanted}, {"limit", 5}};
    for (const char* f : {"documents", "game_system"}) {
      if (args.contains(f)) sargs[f] = args[f];
    }
    auto found = search(sargs);
    if (!found) return error_result(found.status().message());
    const json* hit = nullptr;
    for (const auto& r : *found) {
      const bool exact = r.value("key", "") == wanted || (r.contains("_matched") && r["_matched"].is_array() &&
                                                          !r["_matched"].empty() && r["_matched"][0] == "exact name");
      if (exact) {
        hit = &r;
        break;
      }
    }
    if (hit == nullptr) {
      std::vector<std::string> close;
      for (const auto& r : *found) close.push_back(r.value("name", "") + " (`" + r.value("key", "") + "`)");
      return error_result(where + ": no creature has the " + (c.contains("key") ? "key" : "name") + " '" + wanted +
                          "'" + (close.empty() ? "." : ". Closest: " + text::join(close, ", ") + "."));
    }
    auto cand = candidate_of(*hit, 0);
    if (!cand) {
      return error_result(where + ": " + hit->value("name", wanted) + " (`" + hit->value("key", "") +
                          "`) has no challenge rating in the XP table; give its cr instead.");
    }
    groups.push_back({cand->cr, count});
    creatures.push_back(creature_json(*cand, count));
    lines.push_back(creature_line(*cand, count));
  }
  auto a = gm::assess(rules, *levels, groups);
  if (!a) return error_result(a.status().message());
  json result = assessment_json(*a);
  result["party_levels"] = *levels;
  result["creatures"] = creatures;
  const RuleSet other = rules == RuleSet::k2014 ? RuleSet::k2024 : RuleSet::k2014;
  auto b = gm::assess(other, *levels, groups);
  // Under 2024 "low" is any fight within the low budget: how much of it the fight spends says how low (25 XP of a
  // 2,000 XP budget is barely a fight).
  const auto low_share = [](const gm::EncounterAssessment& x) {
    if (x.difficulty != gm::Difficulty::kLow || x.budget.thresholds.empty()) return std::string();
    return " (" + text::group_thousands(x.adjusted_xp) + " XP of the " +
           text::group_thousands(x.budget.thresholds.front().xp) + " XP low budget)";
  };
  std::string text = "**" + std::string(gm::difficulty_name(a->difficulty)) + "** under the " +
                     std::string(gm::rule_set_name(rules)) + " rules" + low_share(*a) + ".\n\n";
  for (const auto& l : lines) text += "- " + l + "\n";
  text += "\n" + a->explanation + "\n";
  if (b) {
    result["under_other_rules"] = {{"rules", std::string(gm::rule_set_name(other))},
                                   {"difficulty", std::string(gm::difficulty_name(b->difficulty))},
                                   {"adjusted_xp", b->adjusted_xp}};
    text += "\nUnder the " + std::string(gm::rule_set_name(other)) +
            " rules: " + std::string(gm::difficulty_name(b->difficulty)) + low_share(*b) + ".\n";
  }
  ToolResult out;
  out.text = text;
  out.structured = {{"result", result}, {"filters", args}};
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// build_encounter

namespace {

// Draws below `n` without the bias of a modulo (the same on every standard library).
uint64_t draw(std::mt19937_64& g, uint64_t n) {
  const uint64_t floor = (0 - n) % n;  // 2^64 mod n
  uint64_t x;
  do x = g();
  while (x < floor);
  return x % n;
}

struct Group {
  std::vector<std::pair<const Candidate*, int>> members;
  gm::EncounterAssessment assessment;
};

}  // namespace

ToolResult build_encounter(const json& args, const CreatureSearch& search, std::string_view preferred_edition) {
  auto levels = party_of(args);
  if (!levels) return error_result(levels.status().message());
  const RuleSet rules = rules_of(args, preferred_edition);
  const std::string wanted = args.value("difficulty", rules == RuleSet::k2014 ? "medium" : "moderate");
  auto difficulty = gm::parse_difficulty(rules, wanted);
  if (!difficulty) return error_result("Parameter 'difficulty': " + difficulty.status().message() + ".");
  auto budget = gm::party_budget(rules, *levels);
  if (!budget) return error_result(budget.status().message());

  // The XP a group must land in: 2014 compares adjusted XP with the band from the difficulty's threshold to the
  // next one; 2024 compares XP with the band above the next lower budget up to the difficulty's budget.
  long long lo = 0, hi = 0;
  const auto& th = budget->thresholds;
  for (size_t i = 0; i < th.size(); ++i) {
    if (th[i].difficulty != *difficulty) continue;
    if (rules == RuleSet::k2014) {
      lo = th[i].xp;
      hi = i + 1 < th.size() ? th[i + 1].xp - 1 : static_cast<long long>(th[i].xp * kDeadlyCeiling);
    } else {
      hi = th[i].xp;
      lo = i > 0 ? th[i - 1].xp + 1 : (th[i].xp + 1) / 2;
    }
  }
  const std::string measure = rules == RuleSet::k2014 ? "adjusted XP" : "XP";
  const std::string target_text = text::group_thousands(lo) + " to " + text::group_thousands(hi) + " " + measure;

  const std::string theme = text::trim(args.value("theme", ""));
  const bool themed = !theme.empty();
  json sargs = {{"limit", themed ? kThemedCandidates : kAllCandidates}};
  if (themed) sargs["search"] = theme;
  for (const char* f : {"type", "size", "cr_min", "cr_max", "documents", "game_system", "environment"}) {
    if (args.contains(f)) sargs[f] = args[f];
  }
  auto found = search(sargs);
  if (!found) return error_result(found.status().message());
  std::vector<Candidate> pool;
  // One edition of each name (variety, not the same goblin three times): the edition the preferred order puts first,
  // at the place of the name's best-ranked edition.
  std::map<std::string, size_t> slot_of_name;
  std::vector<model::Document> documents;
  const std::string environment =
      args.contains("environment") ? model::environment_asked(args.value("environment", "")).value_or("") : "";
  // Where a record says a creature lives: the environment asked among a few, or among so many that the list means
  // "anywhere" (140 records list all of them: a swamp is no home of the Quasit's more than any other place).
  enum class Home { kNo, kThere, kAnywhere };
  using model::kAnywhereFrom;
  auto home = [&](const json& r) {
    if (environment.empty()) return Home::kThere;
    if (!r.contains("environments")) return Home::kNo;
    // The record's environments as its facet holds them (model::environment_values): the names, then kAnywhere.
    const std::vector<std::string> places = model::environment_values(r["environments"]);
    if (std::none_of(places.begin(), places.end(), [&](const std::string& p) {
          return p != model::kAnywhere && model::environment_matches(p, environment);
        })) {
      return Home::kNo;
    }
    return places.back() == model::kAnywhere ? Home::kAnywhere : Home::kThere;
  };
  // Creatures that live anywhere come in only when too few live there (fewer than kFewHomes names).
  constexpr size_t kFewHomes = 5;
  size_t homed = 0;
  for (const auto& r : *found) homed += home(r) == Home::kThere;
  int anywhere_left_out = 0;
  auto fill_pool = [&](bool with_anywhere) {
    pool.clear();
    documents.clear();
    slot_of_name.clear();
    anywhere_left_out = 0;
    for (const auto& r : *found) {
      const Home h = home(r);
      if (h == Home::kNo) continue;
      if (h == Home::kAnywhere && !with_anywhere) {
        ++anywhere_left_out;
        continue;
      }
      auto c = candidate_of(r, static_cast<int>(pool.size()));
      if (!c) continue;
      model::Document doc;
      if (r.contains("document") && r["document"].is_object()) {
        doc.key = r["document"].value("key", "");
        doc.name = r["document"].value("name", "");
        doc.publisher = r["document"].value("publisher", "");
        doc.game_system = r["document"].value("game_system", "");
      }
      auto [it, fresh] = slot_of_name.emplace(text::fold(c->name), pool.size());
      if (fresh) {
        pool.push_back(std::move(*c));
        documents.push_back(std::move(doc));
      } else if (model::edition_before(doc, documents[it->second], preferred_edition)) {
        c->rank = pool[it->second].rank;
        pool[it->second] = std::move(*c);
        documents[it->second] = std::move(doc);
      }
    }
  };
  fill_pool(homed < kFewHomes);

  const int party_size = static_cast<int>(levels->size());
  const int max_creatures = args.value("max_creatures", 8);
  const int alternatives = args.value("alternatives", 3);
  const bool seeded = args.contains("seed");
  const uint64_t seed = seeded ? args["seed"].get<uint64_t>() : gm::random_seed() & ((1ULL << 53) - 1);
  std::mt19937_64 gen(seed);
  // A themed search ranks the pool: draws favour its head (the square of a uniform draw).
  auto pick = [&]() -> const Candidate& {
    const uint64_t n = pool.size();
    if (!themed) return pool[draw(gen, n)];
    const double u = static_cast<double>(draw(gen, 1ULL << 20)) / static_cast<double>(1ULL << 20);
    return pool[std::min<uint64_t>(n - 1, static_cast<uint64_t>(u * u * static_cast<double>(n)))];
  };
  auto measured = [&](const std::vector<std::pair<const Candidate*, int>>& members) -> std::optional<Group> {
    std::vector<gm::MonsterGroup> g;
    for (const auto& [c, n] : members) g.push_back({c->cr, n});
    auto a = gm::assess(rules, *levels, g);
    if (!a || a->adjusted_xp < lo || a->adjusted_xp > hi) return std::nullopt;
    return Group{members, std::move(*a)};
  };

  std::vector<Group> groups;
  std::set<std::string> leaders;  // each group is led by a different creature
  auto build_groups = [&]() {
    for (int attempt = 0; attempt < kBuildAttempts && static_cast<int>(groups.size()) < alternatives && !pool.empty();
         ++attempt) {
      const Candidate& a = pick();
      if (leaders.count(a.key)) continue;
      std::vector<std::optional<Group>> fits;
      if (attempt % 2 == 0) {
        // One kind of creature, as many as it takes.
        for (int n = 1; n <= max_creatures; ++n) fits.push_back(measured({{&a, n}}));
      } else {
        // A leader and a weaker kind around it.
        const Candidate& b = pick();
        if (b.key == a.key || b.xp >= a.xp || b.xp * kFollowerXpShareDivisor < a.xp) continue;
        for (int lead = 1; lead <= 2; ++lead) {
          for (int n = 1; lead + n <= max_creatures; ++n) fits.push_back(measured({{&a, lead}, {&b, n}}));
        }
      }
      std::vector<Group*> ok;
      for (auto& f : fits) {
        if (f) ok.push_back(&*f);
      }
      if (ok.empty()) continue;
      groups.push_back(std::move(*ok[draw(gen, ok.size())]));
      leaders.insert(a.key);
    }
  };
  build_groups();
  // No group of the creatures that name the place: those that live anywhere are drawn on too, and the answer says so.
  const int only_there = anywhere_left_out;
  if (groups.empty() && anywhere_left_out > 0) {
    fill_pool(true);
    build_groups();
  }

  json result = {{"rules", std::string(gm::rule_set_name(rules))},
                 {"party_levels", *levels},
                 {"difficulty", std::string(gm::difficulty_name(*difficulty))},
                 {"thresholds", thresholds_json(*budget)},
                 {"target", {{"min", lo}, {"max", hi}, {"measure", measure}}},
                 {"candidates", static_cast<int>(pool.size())},
                 {"seed", seed}};
  std::string text = "Encounters for " + std::to_string(party_size) + " character" + (party_size == 1 ? "" : "s") +
                     (party_size == 1 ? " (level " : " (levels ") +
                     [&] {
                       std::vector<std::string> l;
                       for (int v : *levels) l.push_back(std::to_string(v));
                       return text::join(l, ", ");
                     }() +
                     "), " + std::string(gm::difficulty_name(*difficulty)) + " under the " +
                     std::string(gm::rule_set_name(rules)) + " rules: " + target_text + ".\n";
  json out_groups = json::array();
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    json members = json::array();
    text += "\n### Option " + std::to_string(i + 1) + "\n\n";
    for (const auto& [c, n] : g.members) {
      members.push_back(creature_json(*c, n));
      text += "- " + creature_line(*c, n) + " — " + c->document + "\n";
    }
    json j = assessment_json(g.assessment);
    j["creatures"] = members;
    out_groups.push_back(std::move(j));
    text += "\n" + g.assessment.explanation + "\n";
  }
  result["groups"] = out_groups;

  std::string message;
  if (groups.empty()) {
    if (pool.empty()) {
      message = found->empty() && environment.empty()
                    ? "No creature matches these filters" + std::string(themed ? " and theme" : "") +
                          ": relax type, size, cr_min/cr_max, documents or game_system."
                : !environment.empty()
                    ? "No matching creature lists the environment '" + text::trim(args.value("environment", "")) +
                          "' (the creature records of most documents list no environment): drop environment and put "
                          "it in theme instead."
                    : "None of the matching creatures has a challenge rating in the XP table.";
    } else {
      const bool easiest = *difficulty == th.front().difficulty;
      const bool hardest = *difficulty == th.back().difficulty;
      const auto weakest = std::min_element(pool.begin(), pool.end(), [](auto& x, auto& y) { return x.xp < y.xp; });
      const auto strongest = std::max_element(pool.begin(), pool.end(), [](auto& x, auto& y) { return x.xp < y.xp; });
      const long long weakest_alone = static_cast<long long>(
          static_cast<double>(weakest->xp) * (rules == RuleSet::k2014 ? gm::multiplier_2014(1, party_size) : 1.0));
      const long long strongest_most =
          static_cast<long long>(static_cast<double>(strongest->xp) * max_creatures *
                                 (rules == RuleSet::k2014 ? gm::multiplier_2014(max_creatures, party_size) : 1.0));
      if (weakest_alone > hi) {
        message = "Even the weakest matching creature, " + weakest->name + " (CR " + model::cr_text(weakest->cr) +
                  ", " + text::group_thousands(weakest_alone) + " " + measure + " alone), is past " +
                  text::group_thousands(hi) + ": lower cr_min" + (hardest ? " or" : ", choose a harder difficulty or") +
                  " bring a stronger party.";
      } else if (strongest_most < lo) {
        message = "Even " + std::to_string(max_creatures) + " of the strongest matching creature, " + strongest->name +
                  " (CR " + model::cr_text(strongest->cr) + "), come to " + text::group_thousands(strongest_most) +
                  " " + measure + ", short of " + text::group_thousands(lo) + ": raise cr_max or max_creatures" +
                  (easiest ? "." : ", or choose an easier difficulty.");
      } else {
        message = "No group of up to " + std::to_string(max_creatures) + " of the " + std::to_string(pool.size()) +
                  " matching creatures lands in " + target_text +
                  ": raise max_creatures, widen the CR range or try another seed.";
      }
    }
    text += "\nNo group found. " + message + "\n";
  } else if (static_cast<int>(groups.size()) < alternatives) {
    message = "Only " + std::to_string(groups.size()) + " of the " + std::to_string(alternatives) +
              " groups asked for were found among " + std::to_string(pool.size()) + " matching creatures.";
    text += "\n" + message + "\n";
  }
  if (only_there > 0) {
    const std::string place = "'" + args.value("environment", "") + "'";
    const std::string note =
        anywhere_left_out > 0
            ? std::to_string(anywhere_left_out) + " creature record(s) that list (nearly) every environment (" +
                  std::to_string(kAnywhereFrom) + " or more) were left out: they live anywhere, not especially in " +
                  place + "."
            : "No group of the creatures whose records name " + place + " fits, so the " + std::to_string(only_there) +
                  " record(s) that list (nearly) every environment were drawn on too.";
    message = message.empty() ? note : message + " " + note;
    text += "\n" + note + "\n";
  }
  text += "\nSeed " + std::to_string(seed) +
          ": the same seed with the same arguments and data gives these groups again. get_entity(key) shows a stat "
          "block.\n";
  ToolResult out;
  out.text = text;
  out.structured = {{"result", result}, {"filters", args}};
  if (!message.empty()) out.structured["message"] = message;
  return out;
}

std::vector<ToolDef> rows(const std::vector<ParamSpec>& creature_filters) {
  std::vector<ToolSpec> tools = specs(creature_filters);  // roll_dice, evaluate_encounter, build_encounter
  // The encounter tools read creatures as search_creature finds them, filters and ranking included.
  auto creatures_of = [](const ToolCall& c) -> CreatureSearch {
    return [&c](const json& sargs) -> Result<std::vector<json>> {
      auto built = creature_query(sargs);
      if (!built) return built.status();
      store::Query q = *built;
      // A document that is not known is an error here: a fight's creatures cannot come from it.
      auto docs = required_documents(*c.st, sargs);
      if (!docs) return docs.status();
      q.document_keys = docs->keys;
      auto found = find(*c.st, q, str_arg(sargs, "search"), int_arg(sargs, "limit").value_or(20), c.match, c.ctx);
      if (!found) return found.status();
      return std::move(found->results);
    };
  };
  std::vector<ToolDef> out;
  ToolDef dice{std::move(tools[0])};
  dice.needs_store = [](const json&) { return false; };
  dice.run = [](const ToolCall& c) { return roll_dice(c.args); };
  out.push_back(std::move(dice));
  ToolDef evaluate{std::move(tools[1])};
  evaluate.empty_store = EmptyStoreAnswer::kError;  // its answer is one object
  evaluate.run = [creatures_of](const ToolCall& c) {
    return evaluate_encounter(c.args, creatures_of(c), c.ctx.preferred_edition);
  };
  out.push_back(std::move(evaluate));
  ToolDef build{std::move(tools[2])};
  build.empty_store = EmptyStoreAnswer::kError;
  build.ranks = build.notice_heads_text = true;
  build.run = [creatures_of](const ToolCall& c) {
    return build_encounter(c.args, creatures_of(c), c.ctx.preferred_edition);
  };
  out.push_back(std::move(build));
  return out;
}

}  // namespace lorekeeper::tools::gm_tools
