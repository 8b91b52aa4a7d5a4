// How the tools' answers are assembled: entities as result objects, their one-line summaries, and list answers
// that stay within a budget of characters. Private to lk_tools.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools {

// Answer budgets, in characters of text plus structuredContent. A host gives its model one of the two (Claude Code
// the structured content, most others the text), so a model reads about half of a budget: a default (`detail`
// standard) answer about 16,000 characters (4,000-5,000 tokens), a `detail` full one about 40,000 (10,000-13,000
// tokens, under the 25,000-token limit hosts enforce on a tool result).
inline constexpr size_t kStandardBudget = 32000;
inline constexpr size_t kFullBudget = 80000;
// Results a standard answer shows in full when they fit; the others are one line each.
inline constexpr size_t kStandardInFull = 3;
// The room the first result always has, whatever the lines after it take: a stat block's rules whole.
inline constexpr size_t kFirstResultRoom = kStandardBudget / 2;
// The shortest a text field of the first result is cut to while it does not fit (it is shown in full whatever
// the room; get_entity gives the rest).
inline constexpr size_t kFirstFieldFloor = 100;
// The longest a text field is cut to first when an entry does not fit whole, per detail; shorter again (half as
// long each time) while it does not.
inline constexpr size_t kStandardFieldChars = 3000;
inline constexpr size_t kFullFieldChars = 20000;
// search_all's results in all (its `limit` is per kind).
inline constexpr int kMaxAllResults = 50;

// A document as results name it (key, name, display name, publisher, licence, game system).
json document_json(const model::Document& d);
// An entity as a result object: its data with key, name, kind, document, source API and URL.
json to_result(const model::Entity& e);

// How much of each result an answer shows (the search tools' `detail`).
enum class Detail { kSummary, kStandard, kFull };
Detail detail_of(const json& args);

// One result as a summary: what identifies it, its source, the kind's key facts, `_score` and other editions,
// marked `summarized`; with `reasons`, also `_matched` and a short `_snippet`.
json summary_of(const json& r, bool reasons = true);

// Cuts every list of `r` (at any depth) longer than `max_items` to its first `max_items`; returns each cut list
// as "<field> (<kept> of <all>)".
std::vector<std::string> clip_lists(json& r, size_t max_items);
// The fewest items a list is cut to when an entry's text at its shortest still does not fit its answer.
inline constexpr size_t kListItemsFloor = 4;

// A creature's description (its lore) when shortened before any rule text is cut.
inline constexpr size_t kLoreShortChars = 600;

double round3(double v);

// One result as whole as `room` allows for its Markdown (`render`) and JSON together. While they do not fit, in
// this order: its lore (a creature's description) cut to kLoreShortChars, then left out; the API records it carries
// (`source_record`) cut, down to `floor` characters a text; a creature's longer texts thinned of the sentences that
// state no rules (model::states_rules), so that every attack, save, DC, damage, condition and use stays (other
// kinds' plain words are rules, and are only cut); its texts cut where a word ends, the sentences that state no
// rules first, at most `cap` characters and no more than the room or three quarters of its longest text first,
// then three quarters of that again and again until the cap falls below `floor`; then, unless `floor` is SIZE_MAX
// (a result that can be one line instead), its lists cut to their first 256, 128, ... kListItemsFloor items
// (clip_lists). `fits` says whether it ended within `room`. A result shortened says in `truncated` (shown in its
// Markdown) what was left out or cut and where ("text is cut short ([…]) in actions (Acid Breath)"), ending with
// `whole_from`: where the rest is ("get_entity(key) gives the entry whole").
struct Whole {
  json result;
  std::string text;
  bool fits = false;
};
Whole whole_within(const json& r, size_t cap, size_t room, size_t floor,
                   const std::function<std::string(const json&)>& render, std::string_view whole_from);

// Room left in a budget once `used` and `reserve` are spent.
size_t room_left(size_t budget, size_t used, size_t reserve);

// The longest query an answer's text repeats; a longer one is quoted to there, where a word ends, with " …" (the
// caller sent it: a 2,000-word description need not come back in the header).
inline constexpr size_t kQuotedQueryChars = 120;
// `query` in double quotes, cut as kQuotedQueryChars says.
std::string quoted_query(std::string_view query);

// What one-line results cost, in characters of their Markdown line and their summary, with their reasons and
// without them.
struct LineCosts {
  std::vector<size_t> full;           // per result, with its reasons
  std::vector<size_t> compact;        // per result, without them
  std::vector<size_t> full_after;     // the lines with reasons of the results from i on
  std::vector<size_t> compact_after;  // the compact lines of the results from i on: what those after one keep
};
LineCosts line_costs(const std::vector<json>& results);
// One summary's cost: its Markdown line and its JSON.
size_t line_cost(const json& summary);

// Result i as one line: with its reasons while the budget holds them and the compact lines of the results after
// it; compact past that.
json one_line(const json& r, size_t i, const LineCosts& c, size_t budget, size_t used);

// A list answer: the first results in full (per `detail`) and the others as one line each, within the budget;
// results are never dropped. `message` gains a note when results are shown as one line.
ToolResult list_answer(std::vector<json> results, const std::string& header, std::string message, int total,
                       const json& filters, Detail detail);

// "class" -> "classes", "species" and "armor" unchanged, "spell" -> "spells"; plural("spell", 3) is "3 spells".
std::string plural_of(const std::string& noun);
std::string plural(const std::string& kind_label, int n);

}  // namespace lorekeeper::tools
