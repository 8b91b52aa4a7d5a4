// Which sentences of a text state rules: what an answer keeps when it must shorten a text, so that a stat block or
// a feature cut to fit still carries every attack, save, DC, damage, condition and use, and loses its lore first.
#pragma once

#include <string_view>
#include <vector>

namespace lorekeeper::model {

// The sentences of `text`, in order, each with the punctuation and white space after it, so that together they are
// `text` again. A sentence ends at a newline, or at ". ", "! " or "? " followed by what starts a sentence (a
// capital, a digit, markup or a quote: "30 ft. of it" does not end one). A Markdown line (a table row, a heading,
// a list item) is a sentence of its own.
std::vector<std::string_view> sentence_spans(std::string_view text);

// Whether a sentence states rules: it holds a number or a die, or a word of the game's mechanics (a DC, a saving
// throw, an attack, damage, hit points, an action, a condition, a damage type, an ability, a range or area, a
// duration, a use or recharge, a roll, a check, what a creature can or must do), or it is a Markdown table row or
// heading. Broad on purpose: a sentence wrongly kept costs room, one wrongly dropped costs a rule.
bool states_rules(std::string_view sentence);

}  // namespace lorekeeper::model
