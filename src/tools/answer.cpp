#include "answer.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/tools/render.hpp"
#include "queries.hpp"

namespace lorekeeper::tools {

using model::Entity;

json document_json(const model::Document& d) {
  json j = {{"key", d.key}, {"name", d.name}};
  if (!d.display_name.empty()) j["display_name"] = d.display_name;
  if (!d.publisher.empty()) j["publisher"] = d.publisher;
  if (!d.license.empty()) j["license"] = d.license;
  if (!d.game_system.empty()) j["game_system"] = d.game_system;
  return j;
}

json to_result(const Entity& e) {
  json r = e.data.is_object() ? e.data : json::object();
  r["key"] = e.key;
  r["name"] = e.name;
  r["kind"] = std::string(model::kind_name(e.kind));
  r["document"] = document_json(e.document);
  r["source_api"] = e.source_api;
  r["url"] = e.url;
  return r;
}

// One result as a summary: what identifies it and the kind's key facts (level and school, CR and type, rarity,
// category, cost), marked `summarized`, with its `_score` (search_all's groups are ordered across kinds by it);
// get_entity gives it in full. With `reasons`, also why it ranked there (`_matched`, a snippet of the text that
// matched); an answer without room for them leaves them out (see one_line).
json summary_of(const json& r, bool reasons) {
  // Every result names its source: the document (key, name, publisher, licence, game system), the source API and
  // the API URL it came from. The document's display name is left to the entry in full.
  json doc = json::object();
  for (const char* f : {"key", "name", "publisher", "license", "game_system"}) {
    if (r["document"].contains(f)) doc[f] = r["document"][f];
  }
  json s = {
      {"key", r["key"]}, {"name", r["name"]}, {"kind", r["kind"]}, {"document", doc}, {"source_api", r["source_api"]},
      {"url", r["url"]}, {"summarized", true}};
  // The kind's key facts: a spell's level, school and casting; a creature's CR, size and type; an item's
  // category, rarity and cost; a weapon's range, dice and damage; an armor's class. The rest is get_entity's.
  const std::string kind = r.value("kind", "");
  const auto keep = [&](const char* fact) {
    if (r.contains(fact) && !r[fact].is_null() && !r[fact].is_object()) s[fact] = r[fact];
  };
  for (const char* fact : {"level", "school", "concentration", "ritual", "casting_time", "challenge_rating", "size",
                           "type", "rarity", "requires_attunement", "category", "is_melee", "cost_gp", "subclass_of",
                           "subspecies_of", "section", "_score", "_other_editions"}) {
    keep(fact);
  }
  if (reasons) {
    for (const char* why : {"_matched", "_snippet"}) keep(why);
  }
  if (kind == "weapon") {
    keep("damage_dice");
    keep("damage_type");
  }
  if (kind == "armor") keep("armor_class");
  // A one-line result's snippet says why it matched in a phrase, not a paragraph: cut where a word ends.
  constexpr size_t kSummarySnippet = 80;
  if (s.contains("_snippet") && s["_snippet"].is_string() &&
      s["_snippet"].get<std::string>().size() > kSummarySnippet) {
    s["_snippet"] = text::cut_at_word(s["_snippet"].get<std::string>(), kSummarySnippet) + "...";
  }
  return s;
}

// Cuts every text field of `r` longer than `max_chars` where a word ends, marking the result `truncated`: one
// entity of any size (a homebrew description of megabytes) stays within an answer's budget.
bool clip_fields(json& r, size_t max_chars) {
  bool clipped = false;
  std::function<void(json&)> walk = [&](json& v) {
    if (v.is_string()) {
      std::string& t = v.get_ref<std::string&>();
      if (t.size() <= max_chars) return;
      t = text::cut_at_word(t, max_chars) + " […]";
      clipped = true;
    } else if (v.is_array() || v.is_object()) {
      for (auto& x : v) walk(x);
    }
  };
  walk(r);
  return clipped;
}

std::vector<std::string> clip_lists(json& r, size_t max_items) {
  std::vector<std::string> cut;
  std::function<void(json&, const std::string&)> walk = [&](json& v, const std::string& name) {
    if (v.is_array()) {
      if (v.size() > max_items) {
        cut.push_back((name.empty() ? std::string("a list") : name) + " (" + std::to_string(max_items) + " of " +
                      text::group_thousands(static_cast<long long>(v.size())) + ")");
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(max_items), v.end());
      }
      for (auto& x : v) walk(x, name);
    } else if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) walk(it.value(), it.key());
    }
  };
  walk(r, "");
  return cut;
}

namespace {

// The field of a kind that is lore rather than rules: shortened, then left out, before any rule text is cut. A
// creature's `desc` is the book's description (the stat block is its rules); every other kind's `desc` is its rules.
const char* lore_field(const json& r) { return r.value("kind", "") == "creature" ? "desc" : nullptr; }

}  // namespace

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

Detail detail_of(const json& args) {
  const std::string d = str_arg(args, "detail");
  return d == "summary" ? Detail::kSummary : d == "full" ? Detail::kFull : Detail::kStandard;
}

Whole whole_within(const json& r, size_t cap, size_t room, size_t floor,
                   const std::function<std::string(const json&)>& render, std::string_view whole_from) {
  // The lore goes first: at its shortest, then not at all; only then is rule text cut, halving the cap each time.
  const char* lore = lore_field(r);
  const bool has_lore =
      lore && r.contains(lore) && r[lore].is_string() && r[lore].get_ref<const std::string&>().size() > 0;
  enum class Lore { kKept, kShort, kLeftOut };
  for (Lore step = Lore::kKept;;) {
    Whole w{r, {}, false};
    bool lore_cut = false;
    if (step == Lore::kShort) {
      std::string& t = w.result[lore].get_ref<std::string&>();
      if (t.size() > kLoreShortChars) {
        t = text::cut_at_word(t, kLoreShortChars) + " […]";
        lore_cut = true;
      }
    } else if (step == Lore::kLeftOut) {
      w.result.erase(lore);
    }
    // Rule text is cut only once the lore is out of the way.
    const bool rules_may_be_cut = step == Lore::kLeftOut || !has_lore;
    const size_t field_cap = rules_may_be_cut ? cap : std::max(cap, kStandardFieldChars);
    if (step == Lore::kKept && has_lore && clip_fields(w.result[lore], field_cap)) lore_cut = true;
    const bool clipped = clip_fields(w.result, field_cap);
    if (render) w.text = render(w.result);
    w.fits = w.text.size() + w.result.dump().size() <= room;
    // Text at its shortest and still too long: the entry's lists are too long (a homebrew monster with a thousand
    // traits), and are cut to their first items, halving how many until it fits.
    std::vector<std::string> lists_cut;
    const bool at_floor = rules_may_be_cut && field_cap < floor;
    for (size_t items = kListItemsFloor * 64; at_floor && !w.fits && items >= kListItemsFloor; items /= 2) {
      json shorter = w.result;
      lists_cut = clip_lists(shorter, items);
      if (lists_cut.empty()) continue;
      std::string text = render ? render(shorter) : std::string();
      const bool fits = text.size() + shorter.dump().size() <= room;
      if (fits || items / 2 < kListItemsFloor) {
        w.result = std::move(shorter);
        w.text = std::move(text);
        w.fits = fits;
      }
    }
    if (w.fits || at_floor) {
      std::vector<std::string> parts;
      if (step == Lore::kLeftOut) parts.push_back("the description (" + std::string(lore) + ") is left out");
      if (lore_cut) parts.push_back("the description (" + std::string(lore) + ") is cut short ([…])");
      if (clipped) parts.push_back((lore_cut ? "other " : "") + std::string("long text is cut short ([…])"));
      if (!lists_cut.empty()) {
        // A list cut in the entry and in its source record is named once.
        std::vector<std::string> distinct;
        for (auto& l : lists_cut) {
          if (std::find(distinct.begin(), distinct.end(), l) == distinct.end()) distinct.push_back(std::move(l));
        }
        lists_cut = std::move(distinct);
        const size_t named = std::min<size_t>(lists_cut.size(), 5);
        std::string lists = text::join(std::vector<std::string>(lists_cut.begin(), lists_cut.begin() + named), ", ");
        if (lists_cut.size() > named) lists += " and " + std::to_string(lists_cut.size() - named) + " more";
        parts.push_back("long lists show their first items only: " + lists);
      }
      if (!parts.empty()) {
        w.result["truncated"] = "To fit the answer " + text::join(parts, "; ") + "; " + std::string(whole_from) + ".";
        if (render) w.text = render(w.result);
      }
      return w;
    }
    if (has_lore && step != Lore::kLeftOut) {
      step = step == Lore::kKept ? Lore::kShort : Lore::kLeftOut;
    } else {
      cap /= 2;
    }
  }
}

// Room left in a budget once `used` and `reserve` are spent.
std::string quoted_query(std::string_view query) {
  if (query.size() <= kQuotedQueryChars) return "\"" + std::string(query) + "\"";
  return "\"" + text::cut_at_word(query, kQuotedQueryChars) + " …\"";
}

size_t room_left(size_t budget, size_t used, size_t reserve) {
  return budget > used + reserve ? budget - used - reserve : 0;
}

size_t line_cost(const json& s) { return render_summary_line(s).size() + 3 + s.dump().size(); }

LineCosts line_costs(const std::vector<json>& results) {
  LineCosts c;
  c.full_after.assign(results.size() + 1, 0);
  c.compact_after.assign(results.size() + 1, 0);
  for (const auto& r : results) {
    c.full.push_back(line_cost(summary_of(r, true)));
    c.compact.push_back(line_cost(summary_of(r, false)));
  }
  for (size_t i = results.size(); i-- > 0;) {
    c.full_after[i] = c.full_after[i + 1] + c.full[i];
    c.compact_after[i] = c.compact_after[i + 1] + c.compact[i];
  }
  return c;
}

// Result i as one line: with its reasons while the budget holds them and the compact lines of the results after
// it; compact past that, so a list of many results stays within the budget as long as its compact lines do.
json one_line(const json& r, size_t i, const LineCosts& c, size_t budget, size_t used) {
  return summary_of(r, used + c.full[i] + c.compact_after[i + 1] <= budget);
}

// Assembles a list answer: Markdown of each result within the budget, summaries past it.
ToolResult list_answer(std::vector<json> results, const std::string& header, std::string message, int total,
                       const json& filters, Detail detail) {
  ToolResult out;
  const size_t budget = detail == Detail::kFull ? kFullBudget : kStandardBudget;
  // What the envelope costs: the header, notes and filters, with room for the notes added below.
  size_t used = header.size() + message.size() + filters.dump().size() + 400;
  std::string body;
  std::vector<json> shown;
  size_t summarized = 0;
  // What each result costs as one line (its Markdown line and its summary object): the results after one shown
  // in full keep the room their lines with reasons take, so the results in full never push the answer past the
  // budget. One-line results are never dropped: past the budget they lose their reasons, and an answer with more
  // compact lines than the budget holds is that much larger.
  const LineCosts costs = line_costs(results);
  for (size_t i = 0; i < results.size(); ++i) {
    json& r = results[i];
    const bool in_full = detail == Detail::kFull || (detail == Detail::kStandard && i < kStandardInFull);
    if (in_full) {
      // The first result is always shown in full, its long fields cut shorter until it fits; it keeps its text
      // before the lines after it keep their reasons. The others in full yield to the lines with reasons.
      const size_t reserve = i == 0 ? costs.compact_after[1] : costs.full_after[i + 1];
      Whole w = whole_within(
          r, detail == Detail::kFull ? kFullFieldChars : kStandardFieldChars, room_left(budget, used, reserve),
          i == 0 ? kFirstFieldFloor : SIZE_MAX, [](const json& c) { return render_entity(c) + "\n---\n\n"; },
          "get_entity(key) gives the entry whole");
      if (w.fits || i == 0) {
        used += w.text.size() + w.result.dump().size();
        body += w.text;
        shown.push_back(std::move(w.result));
        continue;
      }
    }
    // Results are never dropped: past the budget they are one line each (a few hundred characters).
    json s = one_line(r, i, costs, budget, used);
    std::string line = "- " + render_summary_line(s) + "\n";
    used += line.size() + s.dump().size();
    if (detail != Detail::kSummary) ++summarized;
    body += line;
    shown.push_back(std::move(s));
  }
  if (summarized > 0) {
    std::string note =
        std::to_string(summarized) + " result(s) are shown as one line; get_entity(key) gives one in full";
    note += detail == Detail::kFull ? "." : ", detail \"full\" more of them.";
    message = message.empty() ? note : message + " " + note;
  }
  out.text = header + "\n";
  if (!message.empty()) out.text += message + "\n";
  out.text += "\n" + body;
  out.structured = {{"result", std::move(shown)}, {"total", total}, {"filters", filters}};
  if (!message.empty()) out.structured["message"] = message;
  return out;
}

// "class" -> "classes", "species" and "armor" unchanged, "spell" -> "spells", "weapon property" -> "weapon properties".
std::string plural_of(const std::string& noun) {
  auto ends_with = [&](std::string_view tail) {
    return noun.size() >= tail.size() && noun.compare(noun.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends_with("species") || ends_with("armor")) return noun;
  if (!noun.empty() && (noun.back() == 's' || noun.back() == 'x')) return noun + "es";
  // "property" -> "properties", "rarity" -> "rarities"; "day" -> "days".
  if (noun.size() >= 2 && noun.back() == 'y' &&
      std::string_view("aeiou").find(noun[noun.size() - 2]) == std::string_view::npos) {
    return noun.substr(0, noun.size() - 1) + "ies";
  }
  return noun + "s";
}

std::string plural(const std::string& kind_label, int n) {
  return std::to_string(n) + " " + (n == 1 ? kind_label : plural_of(kind_label));
}

}  // namespace lorekeeper::tools
