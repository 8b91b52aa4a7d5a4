#include "answer.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/model/rules_text.hpp"
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

// Whether a sentence of the kind's texts that states no rules (model::states_rules) is lore. A creature's traits
// and actions are a stat block's terse rules, where such a sentence is the book's colour; a class feature's,
// spell's, item's or background's plain words are rules themselves ("common folk hurry to get out of your way"),
// so their texts are only ever cut, never thinned.
bool thins_lore_sentences(const json& r) { return r.value("kind", "") == "creature"; }

// Whether a field is an API record an answer carries as it was sent (`source_record`, `source_record_v1`).
bool is_source_record(const std::string& key) { return key.rfind("source_record", 0) == 0; }

// A text at most this long keeps its sentences without rules (a trait of two sentences is left whole).
constexpr size_t kLoreSentencesFrom = 300;

// Where an entry's texts were shortened, as an answer names them: "desc, actions (Acid Breath, Bite)".
class Places {
 public:
  void add(const std::string& field, const std::string& entry) {
    auto it = std::find_if(fields_.begin(), fields_.end(), [&](const auto& f) { return f.first == field; });
    if (it == fields_.end()) it = fields_.insert(fields_.end(), {field, {}});
    if (!entry.empty() && std::find(it->second.begin(), it->second.end(), entry) == it->second.end()) {
      it->second.push_back(entry);
    }
  }
  bool empty() const { return fields_.empty(); }
  // At most five fields and five entries of each are named; the rest are counted.
  std::string str() const {
    constexpr size_t kNamed = 5;
    std::vector<std::string> out;
    for (size_t i = 0; i < fields_.size() && i < kNamed; ++i) {
      const auto& [field, entries] = fields_[i];
      out.push_back(entries.empty() ? field : field + " (" + text::join_first(entries, kNamed) + ")");
    }
    std::string s = text::join(out, ", ");
    if (fields_.size() > kNamed) s += " and " + std::to_string(fields_.size() - kNamed) + " more fields";
    return s;
  }

 private:
  std::vector<std::pair<std::string, std::vector<std::string>>> fields_;
};

// Shortens the texts of one result. With `thin` and `drop_lore`, a text longer than kLoreSentencesFrom loses its
// sentences that state no rules (model::states_rules), its first sentence kept; with `thin`, a text still longer
// than `cap` loses them too; then it is cut where a word ends. Each gap is marked "[…]". The API records an answer
// carries as they were sent (`source_record`) are only cut, never rewritten sentence by sentence.
class Shortener {
 public:
  // `source_cap` cuts the API records an answer carries (`source_record`), before and more than its own texts.
  // `thin`: the entry's texts may lose sentences that state no rules (thins_lore_sentences), all of them with
  // `drop_lore`, else those of a text longer than `cap` before it is cut.
  Shortener(bool thin, bool drop_lore, size_t cap, size_t source_cap)
      : thin_(thin), drop_lore_(drop_lore), cap_(cap), source_cap_(source_cap) {}

  void run(json& r) { walk(r, "", "", true); }

  Places lore_left_out;  // texts that lost sentences without rules
  Places cut;            // texts cut short

 private:
  void walk(json& v, const std::string& field, const std::string& entry, bool own_text) {
    if (v.is_string()) {
      shorten(v.get_ref<std::string&>(), field, entry, own_text);
    } else if (v.is_array()) {
      for (auto& x : v) {
        const std::string name =
            x.is_object() && x.contains("name") && x["name"].is_string() ? x["name"].get<std::string>() : "";
        walk(x, field, name.empty() ? entry : name, own_text);
      }
    } else if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string& key = it.key();
        // A nested object's fields are named by the field that holds them ("actions", not "desc").
        const std::string f = field.empty() ? key : field;
        walk(it.value(), f, entry, own_text && !is_source_record(key));
      }
    }
  }

  void shorten(std::string& t, const std::string& field, const std::string& entry, bool own_text) {
    const size_t cap = own_text ? cap_ : std::min(cap_, source_cap_);
    // A text many times its cap is first cut to a few times it, so that reading its sentences costs what the
    // answer can show, not what the text holds.
    if (cap != SIZE_MAX && t.size() > 4 * cap) t = text::cut_at_word(t, 4 * cap);
    if (own_text && thin_ && (drop_lore_ ? t.size() > kLoreSentencesFrom : t.size() > cap)) {
      if (leave_out_lore(t)) (drop_lore_ ? lore_left_out : cut).add(field, entry);
    }
    if (t.size() > cap) {
      t = text::cut_at_word(t, cap) + " […]";
      cut.add(field, entry);
    }
  }

  // Leaves out the sentences of `t` after its first that state no rules, each run of them marked "[…]" where it
  // was (its line breaks kept, so Markdown around it stays as it was); true when one was left out.
  static bool leave_out_lore(std::string& t) {
    const auto spans = model::sentence_spans(t);
    if (spans.size() < 2) return false;
    std::string kept(spans.front());
    bool gap = false, changed = false;
    for (size_t i = 1; i < spans.size(); ++i) {
      const std::string_view span = spans[i];
      if (model::states_rules(span)) {
        kept += span;
        gap = false;
        continue;
      }
      size_t breaks = 0;
      while (breaks < span.size() && span[span.size() - 1 - breaks] == '\n') ++breaks;
      if (!gap) {
        if (!kept.empty() && kept.back() != ' ' && kept.back() != '\n') kept += ' ';
        kept += "[…]";
        gap = changed = true;
        if (breaks == 0) kept += ' ';
      }
      if (breaks > 0) {
        while (!kept.empty() && kept.back() == ' ') kept.pop_back();
        kept.append(breaks, '\n');
        gap = false;
      }
    }
    if (!changed) return false;
    while (!kept.empty() && (kept.back() == ' ' || kept.back() == '\n')) kept.pop_back();
    t = std::move(kept);
    return true;
  }

  bool thin_;
  bool drop_lore_;
  size_t cap_;
  size_t source_cap_;
};

// The longest text of `v`: of the entry's own fields, or of the API records it carries (`source_record`).
size_t longest_text(const json& v, bool own, bool in_source = false) {
  size_t longest = 0;
  if (v.is_string()) return own != in_source ? v.get_ref<const std::string&>().size() : 0;
  if (v.is_array()) {
    for (const auto& x : v) longest = std::max(longest, longest_text(x, own, in_source));
  } else if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      longest = std::max(longest, longest_text(it.value(), own, in_source || is_source_record(it.key())));
    }
  }
  return longest;
}

}  // namespace

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

Detail detail_of(const json& args) {
  const std::string d = str_arg(args, "detail");
  return d == "summary" ? Detail::kSummary : d == "full" ? Detail::kFull : Detail::kStandard;
}

Whole whole_within(const json& r, size_t cap, size_t room, size_t floor,
                   const std::function<std::string(const json&)>& render, std::string_view whole_from) {
  // Each step shortens more than the one before; the first that fits is the answer (the order: answer.hpp).
  const char* lore = lore_field(r);
  const bool has_lore =
      lore && r.contains(lore) && r[lore].is_string() && !r[lore].get_ref<const std::string&>().empty();
  enum class Lore { kKept, kShort, kLeftOut };
  struct Step {
    Lore lore;
    bool drop_lore_sentences;
    size_t cap;
    size_t source_cap = SIZE_MAX;
  };
  // One step, its lists cut to their first `items` first (SIZE_MAX: whole), so that what the note names is what is
  // shown.
  auto attempt = [&](const Step& step, size_t items) {
    Whole w{r, {}, false};
    std::vector<std::string> parts;
    if (step.lore == Lore::kShort) {
      std::string& t = w.result[lore].get_ref<std::string&>();
      if (t.size() > kLoreShortChars) {
        t = text::cut_at_word(t, kLoreShortChars) + " […]";
        parts.push_back("the description (" + std::string(lore) + ") is cut short ([…])");
      }
    } else if (step.lore == Lore::kLeftOut && has_lore) {
      w.result.erase(lore);
      parts.push_back("the description (" + std::string(lore) + ") is left out");
    }
    std::vector<std::string> lists_cut;
    if (items != SIZE_MAX) {
      // A list cut in the entry and in its source record is named once.
      for (auto& l : clip_lists(w.result, items)) {
        if (std::find(lists_cut.begin(), lists_cut.end(), l) == lists_cut.end()) lists_cut.push_back(std::move(l));
      }
    }
    Shortener shortener(thins_lore_sentences(r), step.drop_lore_sentences, step.cap, step.source_cap);
    shortener.run(w.result);
    if (!shortener.lore_left_out.empty()) {
      parts.push_back("sentences that state no rules are left out ([…]) of " + shortener.lore_left_out.str());
    }
    if (!shortener.cut.empty()) parts.push_back("text is cut short ([…]) in " + shortener.cut.str());
    if (!lists_cut.empty())
      parts.push_back("long lists show their first items only: " + text::join_first(lists_cut, 5));
    if (!parts.empty()) {
      w.result["truncated"] = "To fit the answer " + text::join(parts, "; ") + "; " + std::string(whole_from) + ".";
    }
    if (render) w.text = render(w.result);
    w.fits = w.text.size() + w.result.dump().size() <= room;
    return std::pair{std::move(w), !lists_cut.empty()};
  };
  std::vector<Step> steps = {{Lore::kKept, false, SIZE_MAX}};
  if (has_lore) {
    steps.push_back({Lore::kShort, false, SIZE_MAX});
    steps.push_back({Lore::kLeftOut, false, SIZE_MAX});
  }
  const Lore rules_lore = has_lore ? Lore::kLeftOut : Lore::kKept;
  // Where cutting starts: at most `cap`, and no longer than the room or three quarters of the longest text, so
  // that an entry a little over its room loses a little. Each cut is three quarters of the one before.
  const auto first_cap = [&](bool own) { return std::min({cap, room, longest_text(r, own) * 3 / 4}); };
  // The API records an answer carries are cut before a word of the entry's own text.
  size_t source_cap = SIZE_MAX;
  for (size_t c = first_cap(false); c >= floor && c > 0; c = c * 3 / 4) {
    steps.push_back({rules_lore, false, SIZE_MAX, c});
    source_cap = c;
  }
  if (thins_lore_sentences(r)) steps.push_back({rules_lore, true, SIZE_MAX, source_cap});
  for (size_t c = first_cap(true);; c = c * 3 / 4) {
    steps.push_back({rules_lore, true, c, std::min(c, source_cap)});
    if (c < floor || c == 0) break;
  }
  for (const Step& step : steps) {
    auto [w, lists_cut] = attempt(step, SIZE_MAX);
    if (w.fits) return std::move(w);
    if (step.cap >= floor) continue;
    // A result that may be shown as one line instead (floor SIZE_MAX) is never shown with its lists cut.
    if (floor == SIZE_MAX) return std::move(w);
    // Text at its shortest and still too long: the entry's lists are too long (a homebrew monster with a thousand
    // traits), and are cut to their first items, halving how many until it fits.
    Whole best = std::move(w);
    for (size_t items = kListItemsFloor * 64; items >= kListItemsFloor; items /= 2) {
      auto [shorter, cut] = attempt(step, items);
      if (!cut) continue;
      best = std::move(shorter);
      if (best.fits) break;
    }
    return best;
  }
  return attempt(steps.back(), SIZE_MAX).first;
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
      // The first result is always shown in full, shortened until it fits; it keeps its text before the lines
      // after it keep their reasons, and has kFirstResultRoom however many lines follow. The others in full yield
      // to the lines with reasons.
      const size_t reserve = i == 0 ? costs.compact_after[1] : costs.full_after[i + 1];
      size_t room = room_left(budget, used, reserve);
      if (i == 0) room = std::max(room, detail == Detail::kFull ? kFullBudget / 2 : kFirstResultRoom);
      // The first is cut only as far as its room needs; the others in full are shown so or as one line.
      Whole w = whole_within(
          r,
          i == 0                    ? SIZE_MAX
          : detail == Detail::kFull ? kFullFieldChars
                                    : kStandardFieldChars,
          room, i == 0 ? kFirstFieldFloor : SIZE_MAX, [](const json& c) { return render_entity(c) + "\n---\n\n"; },
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
  // A kind's name has its plural in the kinds' table.
  for (model::Kind k : model::all_kinds()) {
    if (model::kind_name(k) == noun) return std::string(model::kind_plural(k));
  }
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
