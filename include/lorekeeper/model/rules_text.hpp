// Which sentences of a text state rules: what an answer keeps when it must shorten a text, so that a stat block or
// a feature cut to fit still carries every attack, save, DC, damage, condition and use, and loses its lore first.
#pragma once

#include <string_view>
#include <vector>

namespace lorekeeper::model {

// The sentences of `text`, in order, each with the punctuation and white space after it, so that together they are
// `text` again. A sentence ends at the end of a line, or at ". ", "! " or "? " followed by what starts a sentence (a
// capital, a digit, markup or a quote: "30 ft. of it" does not end one). A line of Markdown structure (a table row,
// a heading, a list item, a quote, an HTML tag) is one span, whatever it holds.
std::vector<std::string_view> sentence_spans(std::string_view text);

// Whether a sentence states rules, and so is kept when a text is shortened: it is white space, short (under 60
// characters: a label, "Stake to the Heart."), a line of Markdown structure, one that introduces what follows
// (ends with ":"), or it holds a number or a word of the game's mechanics (a DC, a saving throw, an attack,
// damage, an action, a spell, a condition, a damage type, an ability, a range or area, a duration, a use or
// recharge, a roll, what a creature can or must do, knows, dies of; plurals too). Broad on purpose: a sentence
// wrongly kept costs room, one wrongly dropped costs a rule.
bool states_rules(std::string_view sentence);

}  // namespace lorekeeper::model
