#include "lorekeeper/model/rules_text.hpp"

#include <re2/re2.h>

#include <cctype>
#include <string>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"

namespace lorekeeper::model {
namespace {

// The words of the game's mechanics, besides the conditions, damage types and abilities of derived.hpp: a sentence
// that holds one of them as a word (or its plural) states rules.
constexpr std::string_view kRulesWords[] = {
    "dc",           "saving throw", "save",          "attack",     "hit",         "damage",       "advantage",
    "disadvantage", "action",       "reaction",      "bonus",      "penalty",     "spell",        "cast",
    "casting",      "cantrip",      "slot",          "level",      "check",       "modifier",     "rest",
    "regain",       "expend",       "recharge",      "speed",      "armor class", "ac",           "feet",
    "foot",         "ft",           "range",         "radius",     "cone",        "cube",         "sphere",
    "cylinder",     "emanation",    "concentration", "turn",       "round",       "minute",       "hour",
    "day",          "target",       "duration",      "roll",       "die",         "dies",         "dice",
    "dead",         "death",        "succeed",       "fail",       "failure",     "success",      "must",
    "can",          "cannot",       "gain",          "lose",       "instead",     "use",          "charge",
    "initiative",   "temporary",    "move",          "movement",   "opportunity", "reach",        "grapple",
    "shove",        "escape",       "sense",         "darkvision", "blindsight",  "tremorsense",  "truesight",
    "ability",      "skill",        "inspiration",   "effect",     "ends",        "until",        "while",
    "once",         "twice",        "each",          "half",       "double",      "prerequisite", "know",
    "known",        "learn",        "language",      "weapon",     "armor",       "shield",       "friendly",
    "hostile",      "terrain",      "obscured",      "cover",      "light",       "darkness",     "sunlight",
    "form",         "revert",       "reverts",       "weakness",   "kill",        "destroy",      "destroyed",
    "choose",       "choice",       "option",        "feature",    "proficiency", "trait",        "creature",
    "object",
};
// Stems: a sentence that holds a word starting with one of them ("immun": "immune", "immunity") states rules.
constexpr std::string_view kRulesStems[] = {"proficien", "resistan", "immun",     "vulnerab",  "attun",  "heal",
                                            "teleport",  "summon",   "polymorph", "transform", "invisib"};

// Shorter sentences are kept whatever they say: a label ("Armor of Shadows"), a short rule ("Stake to the Heart.").
constexpr size_t kShortSentence = 60;

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
    return "(?:^|[^a-z])(?:(?:" + alternatives + ")(?:s|es)?(?:[^a-z]|$)|(?:" + stems + "))";
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

// A line that is Markdown structure rather than prose: a table row, a heading, a list item, a quote, an HTML tag.
bool structural(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i >= line.size()) return false;
  const char c = line[i];
  if (c == '|' || c == '#' || c == '>' || c == '<') return true;
  if ((c == '-' || c == '*' || c == '+') && i + 1 < line.size() && line[i + 1] == ' ') return true;
  size_t d = i;
  while (d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
  return d > i && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ';
}

}  // namespace

std::vector<std::string_view> sentence_spans(std::string_view text) {
  std::vector<std::string_view> out;
  size_t line_start = 0;
  while (line_start < text.size()) {
    // The line with the newlines after it.
    size_t end = text.find('\n', line_start);
    end = end == std::string_view::npos ? text.size() : end;
    while (end < text.size() && text[end] == '\n') ++end;
    const std::string_view line = text.substr(line_start, end - line_start);
    if (structural(line)) {
      out.push_back(line);
    } else {
      size_t start = 0;
      for (size_t i = 0; i < line.size(); ++i) {
        if ((line[i] != '.' && line[i] != '!' && line[i] != '?') || i + 1 >= line.size() || line[i + 1] != ' ') {
          continue;
        }
        size_t next = i + 1;
        while (next < line.size() && line[next] == ' ') ++next;
        if (next >= line.size() || !starts_sentence(line[next])) continue;
        out.push_back(line.substr(start, next - start));
        start = next;
        i = next - 1;
      }
      if (start < line.size()) out.push_back(line.substr(start));
    }
    line_start = end;
  }
  return out;
}

bool states_rules(std::string_view sentence) {
  const std::string trimmed = text::trim(sentence);
  if (trimmed.size() < kShortSentence || structural(sentence)) return true;
  const char last = trimmed.back();
  if (last == ':') return true;  // it introduces what follows
  for (char c : trimmed) {
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
  }
  return RE2::PartialMatch(text::lower(trimmed), words().re);
}

}  // namespace lorekeeper::model
