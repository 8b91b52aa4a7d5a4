#include "lorekeeper/model/multiattack.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::model {

namespace {

// "one" .. "ten", "1" .. "10"; 0 for anything else.
int count_word(const std::string& w) {
  static const std::array<const char*, 10> kWords = {"one", "two",   "three", "four", "five",
                                                     "six", "seven", "eight", "nine", "ten"};
  for (size_t i = 0; i < kWords.size(); ++i) {
    if (w == kWords[i]) return static_cast<int>(i) + 1;
  }
  if (w.size() == 1 && w[0] >= '1' && w[0] <= '9') return w[0] - '0';
  if (w == "10") return 10;
  return 0;
}

// The action `written` names ("claws", "rend", "its bite"), singular or plural; empty when none.
std::string action_named(std::string written, const std::vector<std::string>& actions) {
  written = text::fold(written);
  for (const char* article : {"its ", "their ", "his ", "her "}) {
    if (written.rfind(article, 0) == 0) written.erase(0, std::char_traits<char>::length(article));
  }
  for (const auto& a : actions) {
    const std::string f = text::fold(a);
    if (f.empty()) continue;
    if (written == f || written == f + "s" || written == f + "es" ||
        (f.size() > 1 && f.back() == 's' && written + "s" == f)) {
      return a;
    }
  }
  return "";
}

// Lower case with single spaces (not folded: the routine's colon, commas and full stop are its structure).
std::string spaced_lower(std::string_view text_in) {
  std::string all;
  for (char c : text::lower(text_in)) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    if (c == ' ' && (all.empty() || all.back() == ' ')) continue;
    all.push_back(c);
  }
  return all;
}

// What follows "makes" (or "can make") up to the end of its sentence; empty when the text says neither.
std::string routine_sentence(const std::string& all) {
  size_t makes = all.find(" makes ");
  size_t skip = 7;
  if (const size_t can = all.find(" can make ");
      can != std::string::npos && (makes == std::string::npos || can < makes)) {
    makes = can;
    skip = 10;
  }
  if (makes == std::string::npos) return "";
  const size_t end = all.find('.', makes);
  return all.substr(makes + skip, end == std::string::npos ? std::string::npos : end - makes - skip);
}

}  // namespace

bool multiattack_offers_more(std::string_view multiattack) {
  const std::string all = spaced_lower(multiattack);
  for (const char* more : {". or ", " or it makes", " or it can", "alternatively", "instead", "in place of", "replace",
                           "can also make", "only one of which", " or make "}) {
    if (all.find(more) != std::string::npos) return true;
  }
  // After the sentence that states the routine, another "make" is another attack or another way to spend the action
  // ("If that attack hits, the grick can make one beak attack").
  const std::string routine = routine_sentence(all);
  const size_t at = routine.empty() ? std::string::npos : all.find(routine);
  return at != std::string::npos && all.find("make", at + routine.size()) != std::string::npos;
}

std::optional<RoutineChoice> multiattack_choice(std::string_view multiattack, const std::vector<std::string>& actions) {
  const std::string sentence = routine_sentence(spaced_lower(multiattack));
  // "two attacks, using greatsword or heavy crossbow in any combination", "two greatclub or javelin attacks".
  static const RE2 kUsing(R"(^(\w+) attacks, using (.+) (?:or|and) (.+) in any combination$)");
  static const RE2 kEither(R"(^(\w+) (.+) or (.+) attacks$)");
  std::string count, a, b;
  if (!RE2::FullMatch(sentence, kUsing, &count, &a, &b) && !RE2::FullMatch(sentence, kEither, &count, &a, &b)) {
    return std::nullopt;
  }
  RoutineChoice out{count_word(count), {action_named(a, actions), action_named(b, actions)}};
  if (out.count == 0 || out.options[0].empty() || out.options[1].empty()) return std::nullopt;
  return out;
}

std::optional<std::vector<RoutinePart>> multiattack_routine(std::string_view multiattack,
                                                            const std::vector<std::string>& actions) {
  // The sentence that states the routine: the first that says "makes".
  const std::string all = spaced_lower(multiattack);
  std::string sentence = routine_sentence(all);
  if (sentence.empty()) return std::nullopt;
  // What it uses besides its attacks ("and uses Roar", "and can use Entangling Rope") is not an attack.
  for (const char* also : {", and it uses ", " and it uses ", " and uses ", " and can use ", ", and it can use "}) {
    if (const size_t at = sentence.find(also); at != std::string::npos) sentence.erase(at);
  }
  if (sentence.find(" or ") != std::string::npos || sentence.find("any combination") != std::string::npos ||
      sentence.find(" per ") != std::string::npos || sentence.find(" each ") != std::string::npos ||
      sentence.find("only one") != std::string::npos) {
    return std::nullopt;
  }
  // "one with its bite and two with its claws", "one bite attack, one claw attack, and one tail attack": the parts of
  // a list, each a count and an action.
  const auto list_of = [&](std::string list, bool with_form) -> std::optional<std::vector<RoutinePart>> {
    for (const char* joint : {", and ", " and "}) {
      for (size_t at; (at = list.find(joint)) != std::string::npos;)
        list.replace(at, std::char_traits<char>::length(joint), ", ");
    }
    static const RE2 kWith(R"(^(\w+) with (.+)$)");
    static const RE2 kNamedPart(R"(^(\w+) (.+?) attacks?$)");
    std::vector<RoutinePart> parts;
    for (const auto& part : text::split_commas(list)) {
      std::string n, name;
      if (!(with_form && RE2::FullMatch(part, kWith, &n, &name)) && !RE2::FullMatch(part, kNamedPart, &n, &name)) {
        return std::nullopt;
      }
      const int c = count_word(n);
      const std::string a = action_named(name, actions);
      if (c == 0 || a.empty()) return std::nullopt;
      parts.push_back({a, c});
    }
    if (parts.empty()) return std::nullopt;
    return parts;
  };
  static const RE2 kCounted(R"(^(\w+) ((?:melee |ranged |weapon )*)attacks?(?:: (.+)| with (.+))?$)");
  std::string count, kinds, parts, with;
  std::vector<RoutinePart> routine;
  int total = 0;
  if (RE2::FullMatch(sentence, kCounted, &count, &kinds, &parts, &with)) {
    // "makes three attacks: ...", "makes two ranged attacks with its daggers": the number is stated.
    total = count_word(count);
    if (!with.empty()) {
      const std::string a = action_named(with, actions);
      if (a.empty()) return std::nullopt;
      routine.push_back({a, total});
    } else if (!parts.empty()) {
      auto listed = list_of(parts, true);
      if (!listed) return std::nullopt;
      routine = std::move(*listed);
    } else {
      return std::nullopt;  // "makes two attacks." names no action
    }
  } else if (auto listed = list_of(sentence, false)) {
    // "makes three Rend attacks", "makes one Bite attack and one Tail attack": the number is the parts'.
    routine = std::move(*listed);
    for (const auto& p : routine) total += p.count;
  } else {
    return std::nullopt;
  }
  int sum = 0;
  for (const auto& p : routine) sum += p.count;
  if (total == 0 || sum != total) return std::nullopt;
  return routine;
}

}  // namespace lorekeeper::model
