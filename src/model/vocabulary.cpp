#include "lorekeeper/model/vocabulary.hpp"

namespace lorekeeper::model {

const std::vector<std::string>& casting_times() {
  static const std::vector<std::string> v = {"action",   "bonus-action", "reaction", "turn",   "round",  "1minute",
                                             "5minutes", "10minutes",    "1hour",    "4hours", "7hours", "8hours",
                                             "9hours",   "12hours",      "24hours",  "1week"};
  return v;
}

const std::vector<std::string>& spell_schools() {
  static const std::vector<std::string> v = {"abjuration", "conjuration", "divination", "enchantment",
                                             "evocation",  "illusion",    "necromancy", "transmutation"};
  return v;
}

const std::vector<std::string>& creature_types() {
  static const std::vector<std::string> v = {"aberration",  "beast", "celestial", "construct", "dragon",
                                             "elemental",   "fey",   "fiend",     "giant",     "humanoid",
                                             "monstrosity", "ooze",  "plant",     "undead"};
  return v;
}

const std::vector<std::string>& sizes() {
  static const std::vector<std::string> v = {"Tiny", "Small", "Medium", "Large", "Huge", "Gargantuan", "Titanic"};
  return v;
}

const std::vector<std::string>& rarities() {
  static const std::vector<std::string> v = {"common", "uncommon", "rare", "very rare", "legendary", "artifact"};
  return v;
}

}  // namespace lorekeeper::model
