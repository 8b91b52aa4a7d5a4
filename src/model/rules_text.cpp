#include "lorekeeper/model/rules_text.hpp"

#include <re2/re2.h>

#include <cctype>
#include <string>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"

namespace lorekeeper::model {
namespace {

// The words of the game's mechanics, besides the conditions, damage types and abilities of derived.hpp: a sentence
// that holds one of them as a word states rules.
constexpr std::string_view kRulesWords[] = {
    "dc",        "saving throw", "save",         "saves",       "attack",   "attacks",    "hit",        "hits",
    "damage",    "advantage",    "disadvantage", "action",      "actions",  "reaction",   "bonus",      "penalty",
    "spell",     "spells",       "cast",         "casts",       "casting",  "cantrip",    "slot",       "slots",
    "level",     "levels",       "check",        "checks",      "modifier", "rest",       "regain",     "regains",
    "expend",    "recharge",     "speed",        "armor class", "ac",       "feet",       "foot",       "ft",
    "range",     "radius",       "cone",         "cube",        "sphere",   "cylinder",   "emanation",  "concentration",
    "turn",      "turns",        "round",        "rounds",      "minute",   "minutes",    "hour",       "hours",
    "day",       "target",       "targets",      "duration",    "roll",     "rolls",      "die",        "dice",
    "succeed",   "succeeds",     "fail",         "fails",       "failure",  "success",    "must",       "can",
    "cannot",    "gain",         "gains",        "lose",        "loses",    "instead",    "use",        "uses",
    "charge",    "charges",      "initiative",   "temporary",   "move",     "moves",      "movement",   "opportunity",
    "reach",     "grapple",      "shove",        "escape",      "sense",    "darkvision", "blindsight", "tremorsense",
    "truesight", "ability",      "skill",        "inspiration", "effect",   "effects",    "ends",       "until",
    "while",     "once",         "twice",        "each",        "half",     "double",
};
// Stems: a sentence that holds a word starting with one of them ("immun": "immune", "immunity") states rules.
constexpr std::string_view kRulesStems[] = {"proficien", "resistan", "immun",    "vulnerab",
                                            "attun",     "heal",     "teleport", "summon"};

struct Words {
  RE2 re;
  static std::string pattern() {
    std::string alternatives;
    auto add = [&](std::string_view w) {
      if (!alternatives.empty()) alternatives += '|';
      alternatives += RE2::QuoteMeta(std::string(w));
    };
    for (auto w : kRulesWords) add(w);
    for (const auto& w : condition_names()) add(w);
    for (const auto& w : damage_type_names()) add(w);
    for (const auto& w : ability_names()) add(w);
    std::string stems;
    for (auto w : kRulesStems) stems += (stems.empty() ? "" : "|") + RE2::QuoteMeta(std::string(w));
    return "(?:^|[^a-z])(?:(?:" + alternatives + ")(?:[^a-z]|$)|(?:" + stems + "))";
  }
  Words() : re(pattern(), RE2::Quiet) {}
};

const Words& words() {
  static const Words w;
  return w;
}

bool starts_sentence(char c) {
  return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '*' ||
         c == '_' || c == '"' || c == '(' || c == '[' || c == '|' || c == '#' || static_cast<unsigned char>(c) >= 0x80;
}

}  // namespace

std::vector<std::string_view> sentence_spans(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    size_t end = std::string_view::npos;
    if (text[i] == '\n') {
      end = i + 1;
      while (end < text.size() && text[end] == '\n') ++end;
    } else if ((text[i] == '.' || text[i] == '!' || text[i] == '?') && i + 1 < text.size() && text[i + 1] == ' ') {
      size_t next = i + 1;
      while (next < text.size() && text[next] == ' ') ++next;
      if (next < text.size() && starts_sentence(text[next])) end = next;
    }
    if (end == std::string_view::npos) continue;
    out.push_back(text.substr(start, end - start));
    start = end;
    i = end - 1;
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

bool states_rules(std::string_view sentence) {
  size_t first = 0;
  while (first < sentence.size() && (sentence[first] == ' ' || sentence[first] == '\t')) ++first;
  if (first < sentence.size() && (sentence[first] == '|' || sentence[first] == '#')) return true;
  for (char c : sentence) {
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
  }
  return RE2::PartialMatch(text::lower(sentence), words().re);
}

}  // namespace lorekeeper::model
