#include "lorekeeper/model/attunement.hpp"

#include <re2/re2.h>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::model {

AttunementRestriction attunement_restriction(std::string_view detail) {
  AttunementRestriction out;
  std::string t = text::trim(text::lower(detail));
  while (!t.empty() && (t.back() == '.' || t.back() == ')')) t.pop_back();
  if (!t.empty() && t.front() == '(') t.erase(0, 1);
  for (const char* lead : {"requires attunement", "attunement"}) {
    if (t.rfind(lead, 0) == 0) {
      t = text::trim(t.substr(std::char_traits<char>::length(lead)));
      break;
    }
  }
  if (t.empty()) return out;
  if (t.rfind("by ", 0) != 0) {
    out.condition = t;
    return out;
  }
  t = t.substr(3);
  static const RE2 kAlignment(R"(^(?:a |an )?creature of (\w+) alignment$)");
  std::string alignment;
  if (RE2::FullMatch(t, kAlignment, &alignment)) {
    out.alignment = alignment;
    return out;
  }
  // "a sorcerer, warlock, or wizard", "a cleric or paladin", "a dwarf or a creature attuned to a belt of dwarvenkind".
  for (size_t at; (at = t.find(", or ")) != std::string::npos;) t.replace(at, 5, ", ");
  for (size_t at; (at = t.find(" or ")) != std::string::npos;) t.replace(at, 4, ", ");
  for (std::string part : text::split_commas(t)) {
    for (const char* article : {"a ", "an "}) {
      if (part.rfind(article, 0) == 0) part.erase(0, std::char_traits<char>::length(article));
    }
    part = text::trim(part);
    if (!part.empty()) out.by.push_back(part);
  }
  return out;
}

}  // namespace lorekeeper::model
