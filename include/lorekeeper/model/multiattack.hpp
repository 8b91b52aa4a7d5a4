// A stat block's Multiattack as a routine of its actions, when the sentence that says "makes" states one plainly: "The
// dragon makes three attacks: one with its bite and two with its claws", "The owlbear makes two Rend attacks", "The
// captain makes two ranged attacks with its daggers". A choice ("Greatclub or Javelin attacks", "in any
// combination"), a count per head or a routine whose parts do not add up to the stated number is not read: the
// caller shows the text instead of a guess.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lorekeeper::model {

struct RoutinePart {
  std::string action;  // as `actions` names it
  int count = 0;
};

// The routine `multiattack` states over the creature's `actions` (their names); nullopt when it states none
// plainly. A name matches in any case and plural ("claws" for Claw, "daggers" for Dagger).
std::optional<std::vector<RoutinePart>> multiattack_routine(std::string_view multiattack,
                                                            const std::vector<std::string>& actions);

// Whether the text offers something besides the routine it states first: another routine ("Or the captain makes
// two ranged attacks"), an extra or a replacing attack ("it can also make", "can replace one attack", "in place
// of"), an alternative ("Alternatively"). A routine read from such a text is its first option, not the only one.
bool multiattack_offers_more(std::string_view multiattack);

// A Multiattack that leaves the choice of attack to the creature: "makes two attacks, using Greatsword or Heavy
// Crossbow in any combination", "makes two Greatclub or Javelin attacks": how many, and the two actions.
struct RoutineChoice {
  int count = 0;
  std::vector<std::string> options;  // as `actions` names them
};
std::optional<RoutineChoice> multiattack_choice(std::string_view multiattack, const std::vector<std::string>& actions);

}  // namespace lorekeeper::model
