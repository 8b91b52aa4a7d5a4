// Text helpers shared by the store, the tools and the mappers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lorekeeper::text {

// Folds text for matching: Unicode NFKD, combining marks removed, case-folded, apostrophes dropped, runs of
// whitespace and the punctuation people type inconsistently ('-', '_', '.', ',', '/', ...) collapsed to one
// space, trimmed. "Ångström's  Fire-Ball" -> "angstroms fire ball". Invalid UTF-8 becomes U+FFFD first.
std::string fold(std::string_view s);

// The words of fold(s), in order ("Goblin Boss" -> {"goblin", "boss"}).
std::vector<std::string> folded_words(std::string_view s);

// ASCII lower-case copy.
std::string lower(std::string_view s);

// Lower case with the first letter upper case (ASCII): "slashing" -> "Slashing", "REST" -> "Rest".
std::string capitalised(std::string_view s);

std::string trim(std::string_view s);

// Whether `s` is `start` followed by more words: a space after it, and `start` not empty ("acid spray recharge 6"
// goes on from "acid spray"; "acid sprays" does not). Compares as given: fold both first to compare folded.
bool goes_on_from(std::string_view s, std::string_view start);

// The parts of `s` between commas, trimmed, empty ones dropped ("Bard, Cleric ,,Paladin" -> {"Bard", "Cleric",
// "Paladin"}).
std::vector<std::string> split_commas(std::string_view s);

// Edit distance over bytes (insertions, deletions, substitutions and swaps of adjacent characters, each one
// edit: optimal string alignment), capped: returns max_distance + 1 once the distance exceeds it.
int edit_distance(std::string_view a, std::string_view b, int max_distance);

// Joins with a separator.
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// Joins the first `n` parts, then says how many more there are: {"a", "b", "c"}, 2 -> "a, b and 1 more".
std::string join_first(const std::vector<std::string>& parts, size_t n, std::string_view sep = ", ");

// Appends the UTF-8 encoding of code point `c` (at most U+10FFFF; callers reject surrogates themselves).
void append_utf8(std::string& out, char32_t c);

// Replaces invalid UTF-8 sequences with U+FFFD so the result is always valid UTF-8.
std::string sanitize_utf8(std::string_view s);

// An English ordinal: 1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd".
std::string ordinal(int n);

// Formats a number without a trailing ".0" (150.0 -> "150", 2.5 -> "2.5").
std::string format_number(double v);

// An integer with its thousands separated by commas: 12700 -> "12,700", -1500 -> "-1,500".
std::string group_thousands(long long v);

// The largest position at or before `pos` (at most s.size()) that does not fall inside a UTF-8 character: where
// `s` may be cut.
size_t utf8_boundary(std::string_view s, size_t pos);

// The first at most `max_bytes` of `s`, cut where a word ends when one ends in the second half of that length,
// else at the last whole character; `s` itself when it is no longer. Callers add their own mark ("...", " […]").
std::string cut_at_word(std::string_view s, size_t max_bytes);

}  // namespace lorekeeper::text
