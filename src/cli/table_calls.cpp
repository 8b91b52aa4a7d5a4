#include "table_calls.hpp"

#include <cctype>
#include <charconv>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::cli {
namespace {

using json = nlohmann::json;

std::optional<int> whole_number(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// The most characters and the levels a party may have, as the encounter tools take them.
constexpr int kMaxParty = 100;
constexpr int kMinLevel = 1;
constexpr int kMaxLevel = 20;

// "3,3,3,4" -> [3,3,3,4]; "4x5" -> [5,5,5,5]. Empty parts ("3,,4"), a count past kMaxParty and a level outside
// 1-20 are not a party.
std::optional<std::vector<int>> party_levels(const std::string& party) {
  const std::string p = text::lower(text::trim(party));
  std::vector<int> levels;
  if (const size_t x = p.find('x'); x != std::string::npos) {
    const auto n = whole_number(text::trim(p.substr(0, x)));
    const auto level = whole_number(text::trim(p.substr(x + 1)));
    if (!n || !level || *n == 0 || *n > kMaxParty) return std::nullopt;
    levels.assign(static_cast<size_t>(*n), *level);
  } else {
    size_t at = 0;
    while (true) {
      const size_t comma = p.find(',', at);
      const auto level = whole_number(text::trim(p.substr(at, comma == std::string::npos ? comma : comma - at)));
      if (!level) return std::nullopt;
      levels.push_back(*level);
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (levels.size() > static_cast<size_t>(kMaxParty)) return std::nullopt;
  }
  for (int level : levels) {
    if (level < kMinLevel || level > kMaxLevel) return std::nullopt;
  }
  return levels;
}

// A word that is only a count ("4", "4x", "x4"); the shell splits "4 goblin" unquoted into two.
std::optional<int> bare_count(const std::string& word, bool* suffix) {
  std::string_view w = word;
  *suffix = !w.empty() && (w.front() == 'x' || w.front() == 'X');
  if (*suffix) w.remove_prefix(1);
  if (!w.empty() && (w.back() == 'x' || w.back() == 'X')) w.remove_suffix(1);
  return whole_number(w);
}

// The creatures of the command line with a bare count joined to the name it counts: "4" "goblin" is "4 goblin",
// "goblin" "x4" is "goblin x4".
std::vector<std::string> joined_counts(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (size_t i = 0; i < words.size(); ++i) {
    bool suffix = false;
    if (!bare_count(words[i], &suffix)) {
      out.push_back(words[i]);
    } else if (suffix && !out.empty()) {
      out.back() += " " + words[i];
    } else if (!suffix && i + 1 < words.size()) {
      out.push_back(words[i] + " " + words[i + 1]);
      ++i;
    } else {
      out.push_back(words[i]);  // a count of nothing: read as a creature, and refused as one
    }
  }
  return out;
}

// One creature of the command line as evaluate_encounter takes it: a count and a name, key or challenge rating.
std::optional<json> creature(const std::string& spec) {
  std::string s = text::trim(spec);
  int count = 1;
  const auto take_count = [&](std::string_view word) {
    std::string_view w = word;
    if (!w.empty() && (w.back() == 'x' || w.back() == 'X')) w.remove_suffix(1);
    if (!w.empty() && (w.front() == 'x' || w.front() == 'X')) w.remove_prefix(1);
    return whole_number(w);
  };
  // A count first ("4 goblin", "4x goblin") or last ("goblin x4").
  if (const size_t space = s.find(' '); space != std::string::npos) {
    if (const auto n = take_count(std::string_view(s).substr(0, space)); n && s.compare(0, 2, "cr") != 0) {
      count = *n;
      s = text::trim(s.substr(space + 1));
    } else if (const size_t last = s.rfind(' '); last != std::string::npos) {
      const std::string_view tail = std::string_view(s).substr(last + 1);
      if (!tail.empty() && (tail.front() == 'x' || tail.front() == 'X')) {
        if (const auto m = take_count(tail)) {
          count = *m;
          s = text::trim(s.substr(0, last));
        }
      }
    }
  } else if (const size_t x = s.find_first_of("xX");
             x != std::string::npos && x > 0 && whole_number(std::string_view(s).substr(0, x))) {
    count = *whole_number(std::string_view(s).substr(0, x));  // "4xgoblin"
    s = text::trim(s.substr(x + 1));
  }
  if (s.empty() || count < 1) return std::nullopt;
  json c = {{"count", count}};
  const std::string lower = text::lower(s);
  if (lower.rfind("cr ", 0) == 0 || lower.rfind("cr=", 0) == 0 || lower.rfind("cr:", 0) == 0) {
    const std::string cr = text::trim(s.substr(3));
    if (cr.empty()) return std::nullopt;
    if (const auto n = whole_number(cr)) {
      c["cr"] = *n;
    } else {
      c["cr"] = cr;  // "1/2": the tool reads fractions
    }
  } else if (s.find('_') != std::string::npos && s.find(' ') == std::string::npos) {
    c["key"] = s;
  } else {
    c["name"] = s;
  }
  return c;
}

}  // namespace

ToolCall roll_call(const RollRequest& request) {
  json args = {{"notation", request.notation}};
  if (request.target) args["target"] = *request.target;
  if (request.times) args["times"] = *request.times;
  if (!request.mode.empty()) args["mode"] = request.mode;
  if (request.seed) args["seed"] = *request.seed;
  return {"roll_dice", std::move(args)};
}

Result<ToolCall> encounter_call(const EncounterRequest& request) {
  const auto levels = party_levels(request.party);
  if (!levels) {
    return Status::invalid_argument("--party '" + request.party +
                                    "' is not a party: give each character's level, 1-20 (\"3,3,3,4\"), or a count "
                                    "and a level (\"4x5\"), at most " +
                                    std::to_string(kMaxParty) + " characters");
  }
  json args = {{"party_levels", *levels}};
  if (!request.rules.empty()) args["rules"] = request.rules;
  if (!request.documents.empty()) args["documents"] = request.documents;
  if (!request.creatures.empty()) {
    if (!request.difficulty.empty() || !request.theme.empty() || !request.environment.empty() || request.seed) {
      return Status::invalid_argument(
          "--difficulty, --theme, --environment and --seed build fights; with creatures given the fight is "
          "evaluated: leave out either");
    }
    json creatures = json::array();
    for (const auto& spec : joined_counts(request.creatures)) {
      auto c = creature(spec);
      if (!c) {
        return Status::invalid_argument("'" + spec +
                                        "' is not a creature: give a name (\"goblin\"), a count and a name (\"4 "
                                        "goblin\", \"goblin x4\"), a key (\"srd_bugbear\") or a challenge rating "
                                        "(\"cr 1/2\")");
      }
      creatures.push_back(std::move(*c));
    }
    args["creatures"] = std::move(creatures);
    return ToolCall{"evaluate_encounter", std::move(args)};
  }
  if (!request.difficulty.empty()) args["difficulty"] = request.difficulty;
  if (!request.theme.empty()) args["theme"] = request.theme;
  if (!request.environment.empty()) args["environment"] = request.environment;
  if (request.seed) args["seed"] = *request.seed;
  return ToolCall{"build_encounter", std::move(args)};
}

ToolCall spells_call(const SpellsRequest& request) {
  json args = {{"class", request.class_name}, {"level", request.level}};
  if (!request.subclass.empty()) args["subclass"] = request.subclass;
  if (!request.rules.empty()) args["game_system"] = request.rules;
  if (request.modifier) args["ability_modifier"] = *request.modifier;
  if (!request.documents.empty()) args["documents"] = request.documents;
  return {"class_spells", std::move(args)};
}

ToolCall odds_call(const OddsRequest& request) {
  json args = json::object();
  const std::pair<const char*, const std::optional<int>*> numbers[] = {
      {"attack_bonus", &request.bonus}, {"target_ac", &request.ac},    {"attacks", &request.attacks},
      {"crit_range", &request.crit},    {"save_dc", &request.save_dc}, {"save_bonus", &request.save_bonus}};
  for (const auto& [name, value] : numbers) {
    if (*value) args[name] = **value;
  }
  if (!request.creature.empty()) args["creature"] = request.creature;
  if (!request.action.empty()) args["action"] = request.action;
  if (!request.damage.empty()) args["damage"] = request.damage;
  if (!request.mode.empty()) args["mode"] = request.mode;
  if (request.table) args["ac_table"] = true;
  if (!request.documents.empty()) args["documents"] = request.documents;
  return {"attack_odds", std::move(args)};
}

}  // namespace lorekeeper::cli
