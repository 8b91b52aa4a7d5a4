#include "compare_tool.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/rules_text.hpp"
#include "lorekeeper/search/editions.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "queries.hpp"
#include "search_tools.hpp"
#include "tool_table.hpp"

namespace lorekeeper::tools::compare_tool {
namespace {

using model::Entity;
using search::Version;

constexpr size_t kMaxVersions = 8;     // versions compared in one answer (a name has a handful)
constexpr size_t kValueChars = 120;    // one field's value as shown
constexpr size_t kMaxDiffering = 40;   // differing fields listed; the rest counted
constexpr size_t kTextField = 160;     // a string longer than this is text, compared word by word
constexpr size_t kDiffWords = 600;     // words of each text compared
constexpr size_t kHunkWords = 12;      // words shown of each side of a change
constexpr size_t kMaxNameChars = 300;  // longer is not a name or key
constexpr size_t kMaxSame = 60;        // fields listed as the same in all versions
constexpr size_t kMaxNamedShown = 20;  // entry names listed per added / removed / reworded
constexpr size_t kMaxTextChanges = 8;
constexpr size_t kMaxEntryRows = 12;    // named-list comparisons (actions of one version, ...)
constexpr size_t kWordChars = 40;       // one word of a change as shown
constexpr size_t kNameChars = 60;       // an entry or field name as shown  // text fields compared word by word
constexpr size_t kMaxSentences = 300;   // sentences of each text compared
constexpr size_t kSentenceChars = 320;  // one sentence of a change as shown
constexpr size_t kShortText = 400;      // texts both this short are shown whole, before and after
// Two sentences of which this share of words is common are one sentence reworded, not one removed and one added.
constexpr double kReworded = 0.4;

// Fields listed first, in this order, when they differ; the others follow in the order of the data.
const std::vector<std::string>& leading_fields() {
  static const std::vector<std::string> fields = {"level",
                                                  "school",
                                                  "casting_time",
                                                  "range",
                                                  "area",
                                                  "components",
                                                  "material",
                                                  "duration",
                                                  "concentration",
                                                  "ritual",
                                                  "damage_roll",
                                                  "damage_types",
                                                  "saving_throw_ability",
                                                  "classes",
                                                  "challenge_rating_text",
                                                  "size",
                                                  "type",
                                                  "alignment",
                                                  "armor_class",
                                                  "hit_points",
                                                  "hit_dice",
                                                  "rarity",
                                                  "requires_attunement",
                                                  "category",
                                                  "damage_dice",
                                                  "cost",
                                                  "weight",
                                                  "properties"};
  return fields;
}

// Fields that repeat another one or never differ meaningfully, and the marks of corrected record errors (each
// edition's answer says its own).
bool skipped(const std::string& field) {
  return field == "challenge_rating" || field == "experience_points" || field == "corrections";
}

std::string scalar_text(const json& v) {
  if (v.is_string()) return text::trim(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return text::format_number(v.get<double>());
  return v.dump();
}

bool is_scalar(const json& v) { return v.is_string() || v.is_number() || v.is_boolean(); }

// Whether a creature's saving throw is a proficiency: 2024 and Black Flag stat blocks list every ability's save,
// 2014 ones only the proficient saves, so a save equal to its ability's modifier says nothing and is left out
// (else every one of them would differ between editions).
bool proficient_save(const json& data, const std::string& ability, const json& save) {
  const auto scores = data.find("ability_scores");
  if (!save.is_number() || scores == data.end() || !scores->is_object()) return true;
  const auto score = scores->find(ability);
  if (score == scores->end() || !score->is_number()) return true;
  return save.get<double>() != std::floor((score->get<double>() - 10) / 2);
}

// One entity's data, flattened for comparison: short fields (a nested object's scalars as "speed.walk"; lists
// joined), text fields (long strings), and named entries (actions, traits: name -> description).
struct Flat {
  std::map<std::string, std::string> fields;
  std::map<std::string, std::string> texts;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> entries;
  std::vector<std::string> order;  // fields and texts in the order met
};

Flat flatten(const json& data) {
  Flat f;
  auto put = [&](const std::string& field, std::string value) {
    if (value.empty()) return;
    if (value.size() > kTextField) {
      f.texts[field] = std::move(value);
    } else {
      f.fields[field] = std::move(value);
    }
    f.order.push_back(field);
  };
  if (!data.is_object()) return f;
  for (const auto& [key, v] : data.items()) {
    if (skipped(key) || v.is_null()) continue;
    if (is_scalar(v)) {
      put(key, scalar_text(v));
    } else if (v.is_object()) {
      for (const auto& [sub, sv] : v.items()) {
        if (sv.is_null() || (key == "saving_throws" && !proficient_save(data, sub, sv))) continue;
        put(key + "." + sub, is_scalar(sv) ? scalar_text(sv) : sv.dump());
      }
    } else if (v.is_array()) {
      const bool named = !v.empty() && std::all_of(v.begin(), v.end(), [](const json& x) {
        return x.is_object() && x.contains("name") && x["name"].is_string();
      });
      if (named) {
        auto& list = f.entries[key];
        for (const auto& x : v) list.emplace_back(x["name"].get<std::string>(), scalar_text(x.value("desc", json(""))));
        continue;
      }
      std::vector<std::string> parts;
      for (const auto& x : v) {
        if (is_scalar(x)) {
          parts.push_back(scalar_text(x));
        } else if (x.is_object()) {
          std::vector<std::string> values;
          for (const auto& [_, xv] : x.items()) {
            if (is_scalar(xv)) values.push_back(scalar_text(xv));
          }
          parts.push_back(text::join(values, " "));
        }
      }
      put(key, text::join(parts, key == "casting_options" ? "; " : ", "));
    }
  }
  return f;
}

// Values compare without case, spacing or a final full stop: "A tiny ball." and "a tiny ball" are the same, and
// so are "2d8 + 6" and "2d8+6" (no space beside a sign or punctuation counts).
std::string comparable(const std::string& v) {
  const std::string folded = text::fold(v);
  std::string f;
  auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80;
  };
  for (size_t i = 0; i < folded.size(); ++i) {
    if (folded[i] == ' ' && (f.empty() || !word(f.back()) || i + 1 == folded.size() || !word(folded[i + 1]))) continue;
    f += folded[i];
  }
  while (!f.empty() && f.back() == '.') f.pop_back();
  return f;
}

std::string cut(const std::string& v, size_t n) { return v.size() <= n ? v : text::cut_at_word(v, n) + " …"; }

std::vector<std::string> words_of(const std::string& s, size_t max_words, bool* truncated) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) {
      if (out.size() == max_words) {
        if (truncated) *truncated = true;
        break;
      }
      out.emplace_back(s.substr(i, j - i));
    }
    i = j;
  }
  return out;
}

std::string span(const std::vector<std::string>& words, size_t from, size_t to) {
  std::vector<std::string> part;
  for (size_t i = from; i < to && part.size() < kHunkWords; ++i) part.push_back(cut(words[i], kWordChars));
  if (to - from > kHunkWords) part.back() += " …";
  return text::join(part, " ");
}

// At most kMaxNamedShown names, then how many more.
std::vector<std::string> first_named(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (size_t i = 0; i < names.size() && i < kMaxNamedShown; ++i) out.push_back(cut(names[i], kNameChars));
  return out;
}

std::string listed(const std::vector<std::string>& names) {
  std::vector<std::string> shown = first_named(names);
  shown.resize(names.size());  // the rest only counted
  return text::join_first(shown, kMaxNamedShown);
}

std::string label(const Version& v, const std::vector<Version>& all) {
  int same_doc = 0;
  for (const auto& o : all) same_doc += o.entity.document.key == v.entity.document.key ? 1 : 0;
  return same_doc > 1 ? v.entity.key : v.entity.document.key;
}

const char* basis_name(Version::Basis b) {
  switch (b) {
    case Version::Basis::kReference: return "reference";
    case Version::Basis::kSameName: return "same name";
    case Version::Basis::kRenamed: return "renamed";
  }
  return "";
}

// The table of a longest common subsequence of `a` and `b`: cell [i][j] holds its length over a[i..] and b[j..]
// (at most a few hundred items a side, so the lengths fit 16 bits).
std::vector<std::vector<uint16_t>> common_subsequence(const std::vector<std::string>& a,
                                                      const std::vector<std::string>& b) {
  std::vector<std::vector<uint16_t>> lcs(a.size() + 1, std::vector<uint16_t>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;) {
    for (size_t j = b.size(); j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? static_cast<uint16_t>(lcs[i + 1][j + 1] + 1) : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  return lcs;
}

// Walks the alignment of `a` and `b` their common_subsequence table `lcs` gives, calling `gap(i0, i, j0, j)` for
// each run of items that differ (a[i0..i) removed, b[j0..j) added), in order, while it returns true.
template <typename Gap>
void for_each_gap(const std::vector<std::string>& a, const std::vector<std::string>& b,
                  const std::vector<std::vector<uint16_t>>& lcs, Gap&& gap) {
  const size_t n = a.size(), m = b.size();
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ++i, ++j;
      continue;
    }
    const size_t i0 = i, j0 = j;
    while ((i < n || j < m) && !(i < n && j < m && a[i] == b[j])) {
      if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
        ++i;
      } else {
        ++j;
      }
    }
    if (!gap(i0, i, j0, j)) return;
  }
}

std::vector<std::string> sentences_of(const std::string& s) {
  std::vector<std::string> out;
  for (auto span : model::sentence_spans(s)) {
    std::string t = text::trim(span);
    if (t.empty()) continue;
    if (out.size() == kMaxSentences) break;
    out.push_back(std::move(t));
  }
  return out;
}

// The items of `a` that `b` lacks, each as often as `a` has it more.
std::vector<std::string> lacking(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::multiset<std::string> pool(b.begin(), b.end());
  std::vector<std::string> out;
  for (const auto& x : a) {
    auto it = pool.find(x);
    if (it == pool.end()) {
      out.push_back(x);
    } else {
      pool.erase(it);
    }
  }
  return out;
}

// The share of words two sentences (their folded words) have in common (2 x common / all).
double word_overlap(const std::vector<std::string>& wa, const std::vector<std::string>& wb) {
  if (wa.empty() && wb.empty()) return 1;
  const size_t common = wa.size() - lacking(wa, wb).size();
  return 2.0 * static_cast<double>(common) / static_cast<double>(wa.size() + wb.size());
}

// The words of `s` that hold a digit ("3rd", "2d8", "60"), as written, without the punctuation around them.
std::vector<std::string> numbers_in(const std::string& s) {
  std::vector<std::string> out;
  bool truncated = false;
  for (auto w : words_of(s, kDiffWords, &truncated)) {
    while (!w.empty() && std::ispunct(static_cast<unsigned char>(w.back()))) w.pop_back();
    while (!w.empty() && std::ispunct(static_cast<unsigned char>(w.front()))) w.erase(w.begin());
    if (std::any_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      out.push_back(std::move(w));
    }
  }
  return out;
}

}  // namespace

SentenceChanges sentence_changes(const std::string& from, const std::string& to, size_t max_changes) {
  const auto a = sentences_of(from), b = sentences_of(to);
  std::vector<std::string> fa, fb;
  for (const auto& x : a) fa.push_back(comparable(x));
  for (const auto& x : b) fb.push_back(comparable(x));
  std::vector<SentenceChange> all;
  // Each sentence's folded words, read once when it is first compared.
  std::map<std::pair<int, size_t>, std::vector<std::string>> words;
  auto words_in = [&](int side, size_t k) -> const std::vector<std::string>& {
    auto it = words.find({side, k});
    if (it == words.end()) it = words.emplace(std::pair{side, k}, text::folded_words(side == 0 ? a[k] : b[k])).first;
    return it->second;
  };
  auto pair_up = [&](const std::vector<size_t>& removed, const std::vector<size_t>& added) {
    std::vector<bool> used(added.size(), false);
    for (size_t r : removed) {
      size_t best = added.size();
      double best_overlap = kReworded;
      for (size_t k = 0; k < added.size(); ++k) {
        if (used[k]) continue;
        const double o = word_overlap(words_in(0, r), words_in(1, added[k]));
        if (o >= best_overlap) best = k, best_overlap = o;
      }
      if (best < added.size()) {
        used[best] = true;
        all.push_back({a[r], b[added[best]], {}, {}});
      } else {
        all.push_back({a[r], {}, {}, {}});
      }
    }
    for (size_t k = 0; k < added.size(); ++k) {
      if (!used[k]) all.push_back({{}, b[added[k]], {}, {}});
    }
  };
  for_each_gap(fa, fb, common_subsequence(fa, fb), [&](size_t i0, size_t i, size_t j0, size_t j) {
    std::vector<size_t> removed, added;
    for (size_t k = i0; k < i; ++k) removed.push_back(k);
    for (size_t k = j0; k < j; ++k) added.push_back(k);
    pair_up(removed, added);
    return true;
  });
  // Past `max_changes`, the reworded sentences first, then removed and added ones in turn, so that a text rewritten
  // whole shows the start of both; those chosen stay in the order of the texts.
  std::vector<bool> chosen(all.size(), all.size() <= max_changes);
  if (all.size() > max_changes) {
    size_t taken = 0;
    for (size_t k = 0; k < all.size() && taken < max_changes; ++k) {
      if (!all[k].before.empty() && !all[k].after.empty()) chosen[k] = true, ++taken;
    }
    size_t next_removed = 0, next_added = 0;
    for (bool removed_turn = true; taken < max_changes; removed_turn = !removed_turn) {
      size_t& next = removed_turn ? next_removed : next_added;
      while (next < all.size() &&
             (chosen[next] || (removed_turn ? !all[next].after.empty() : !all[next].before.empty()))) {
        ++next;
      }
      if (next < all.size()) {
        chosen[next] = true;
        ++taken;
      } else if (next_removed >= all.size() && next_added >= all.size()) {
        break;
      }
    }
  }
  SentenceChanges out;
  for (size_t k = 0; k < all.size(); ++k) {
    auto& c = all[k];
    if (!chosen[k]) {
      ++out.more;
      continue;
    }
    if (!c.before.empty() && !c.after.empty()) {
      const auto nb = numbers_in(c.before), na = numbers_in(c.after);
      c.numbers_before = lacking(nb, na);
      c.numbers_after = lacking(na, nb);
      // A few numbers name a change; many are a table's, and the sentences show them.
      constexpr size_t kMaxNumbers = 6;
      if (c.numbers_before.size() > kMaxNumbers || c.numbers_after.size() > kMaxNumbers) {
        c.numbers_before.clear();
        c.numbers_after.clear();
      }
    }
    c.before = cut(c.before, kSentenceChars);
    c.after = cut(c.after, kSentenceChars);
    out.changes.push_back(std::move(c));
  }
  return out;
}

TextChange text_change(const std::string& from, const std::string& to, size_t max_hunks) {
  TextChange out;
  const auto a = words_of(from, kDiffWords, &out.truncated);
  const auto b = words_of(to, kDiffWords, &out.truncated);
  if (a.empty() && b.empty()) return out;
  // Longest common subsequence of folded words (at most kDiffWords x kDiffWords cells).
  std::vector<std::string> fa, fb;
  for (const auto& w : a) fa.push_back(comparable(w));
  for (const auto& w : b) fb.push_back(comparable(w));
  const size_t n = a.size(), m = b.size();
  const auto lcs = common_subsequence(fa, fb);
  out.similarity = 2.0 * lcs[0][0] / static_cast<double>(n + m);
  if (max_hunks == 0) return out;
  for_each_gap(fa, fb, lcs, [&](size_t i0, size_t i, size_t j0, size_t j) {
    out.hunks.emplace_back(span(a, i0, i), span(b, j0, j));
    return out.hunks.size() < max_hunks;
  });
  return out;
}

ToolSpec spec() {
  auto param = [](const char* n, ParamType type, const char* description) {
    ParamSpec p;
    p.name = n;
    p.type = type;
    p.description = description;
    return p;
  };
  ParamSpec name = param("name", ParamType::kString,
                         "The entity's name or key (\"Fireball\", \"srd_androsphinx\"); its versions in every edition "
                         "are found, renamed ones too (Feeblemind and Befuddlement).");
  name.required = true;
  ParamSpec kind = param("kind", ParamType::kString, "Kind of entity, when the name is used by several (\"Shield\").");
  for (model::Kind k : model::all_kinds()) kind.enum_values.emplace_back(model::kind_name(k));
  ParamSpec documents = param("documents", ParamType::kStringArray,
                              "Only versions of these documents (\"srd-2014\", \"srd-2024\", \"a5e-ag\", \"bfrd\"); "
                              "omitted: every edition. An entry given by key is always shown.");
  documents.max_length = kMaxDocumentNameLength;
  ojson version = {{"type", "object"},
                   {"properties",
                    {{"key", {{"type", "string"}}},
                     {"name", {{"type", "string"}}},
                     {"document", {{"type", "string"}}},
                     {"game_system", {{"type", "string"}}},
                     {"match", {{"type", "string"}, {"enum", {"reference", "same name", "renamed"}}}},
                     {"score", {{"type", "number"}}}}},
                   {"required", {"key", "name", "document", "match"}}};
  ojson array_of_objects = {{"type", "array"}, {"items", {{"type", "object"}}}};
  ojson output = object_answer_schema({{"type", "object"},
                                       {"properties",
                                        {{"kind", {{"type", "string"}}},
                                         {"versions", {{"type", "array"}, {"items", version}}},
                                         {"differences", array_of_objects},
                                         {"same", {{"type", "object"}}},
                                         {"entries", array_of_objects},
                                         {"text_changes", array_of_objects}}},
                                       {"required", {"kind", "versions", "differences"}}});
  return {"compare_editions",
          "Compare editions",
          "An entity's versions across editions and documents (2014 and 2024 SRD, Level Up, Black Flag, ...) side by "
          "side: the fields that differ, actions added or removed, and the text that changed (name \"Fireball\").",
          {name, kind, documents},
          output};
}

ToolResult compare_editions(store::Store& st, const json& args,
                            const std::optional<std::vector<std::string>>& documents,
                            std::string_view preferred_edition, const Suggest& suggest) {
  const std::string given = text::trim(args.value("name", ""));
  if (given.empty()) return error_result("Parameter 'name': give the name or key of an entity.");
  if (given.size() > kMaxNameChars) {
    return error_result("Parameter 'name': " + std::to_string(given.size()) +
                        " characters; a name or key has at most " + std::to_string(kMaxNameChars) + ".");
  }
  std::optional<model::Kind> kind;
  if (args.contains("kind")) kind = model::parse_kind(args["kind"].get<std::string>());
  // The reference: the entry with that key, else the first edition of that name (model::edition_before).
  auto by_key = st.get(given, kind, false);
  if (!by_key) return error_result("The store could not be read: " + by_key.status().message());
  std::vector<Entity> candidates = std::move(*by_key);
  if (candidates.empty()) {
    store::Query q;
    if (kind) q.kinds = {*kind};
    auto named = search::editions_named(st, q, given, preferred_edition);
    if (!named) return error_result("The store could not be read: " + named.status().message());
    candidates = std::move(*named);
    // By name, the reference is an edition of the documents asked for (a key names its entry whatever they are).
    if (documents) {
      std::stable_partition(candidates.begin(), candidates.end(), [&](const Entity& e) {
        return std::find(documents->begin(), documents->end(), e.document.key) != documents->end();
      });
    }
  }
  if (candidates.empty()) {
    std::string msg = "No entry is named or keyed '" + given + "'" +
                      (kind ? " among " + std::string(model::kind_name(*kind)) + " entries" : "") + ".";
    const auto close = suggest(kind ? std::vector<model::Kind>{*kind} : std::vector<model::Kind>{}, given);
    if (!close.empty()) msg += " Closest names: " + text::join(close, ", ") + ".";
    return error_result(msg);
  }
  // A name several kinds use is compared for the first kind (in the kinds' order), the others named.
  std::stable_sort(candidates.begin(), candidates.end(), [](const Entity& a, const Entity& b) {
    return static_cast<int>(a.kind) < static_cast<int>(b.kind);
  });
  const Entity reference = candidates.front();
  std::set<std::string> other_kinds;
  for (const auto& c : candidates) {
    if (c.kind != reference.kind) other_kinds.insert(std::string(model::kind_name(c.kind)));
  }
  search::EditionOptions options;
  options.preferred_edition = std::string(preferred_edition);
  options.documents = documents;
  auto found = search::versions_of(st, reference, options);
  if (!found) return error_result("The store could not be read: " + found.status().message());
  std::vector<Version> versions = std::move(*found);
  const size_t total = versions.size();
  if (versions.size() > kMaxVersions) versions.resize(kMaxVersions);

  const std::string kind_text(model::kind_name(reference.kind));
  json result = {{"kind", kind_text},      {"versions", json::array()}, {"differences", json::array()},
                 {"same", json::object()}, {"entries", json::array()},  {"text_changes", json::array()}};
  std::vector<std::string> labels;
  std::string out = "## " + reference.name + " — " + std::to_string(total) + " version" + (total == 1 ? "" : "s") +
                    "\n\n**Versions:**\n";
  for (const auto& v : versions) {
    labels.push_back(label(v, versions));
    json row = {{"key", v.entity.key},
                {"name", v.entity.name},
                {"document", v.entity.document.key},
                {"game_system", v.entity.document.game_system},
                {"match", basis_name(v.basis)}};
    std::string line = "- `" + labels.back() + "`: " + v.entity.name + " (`" + v.entity.key + "`, " +
                       (v.entity.document.name.empty() ? v.entity.document.key : v.entity.document.name) +
                       (v.entity.document.game_system.empty() ? "" : ", " + v.entity.document.game_system) + ")";
    if (v.basis == Version::Basis::kRenamed) {
      row["score"] = std::round(v.score * 100) / 100;
      row["counterpart_of"] = v.counterpart_of;
      if (v.named_as.empty()) {
        line += " — renamed counterpart of `" + v.counterpart_of + "` (match score " +
                text::format_number(std::round(v.score * 100) / 100) + ")";
      } else {
        row["named_as"] = v.named_as;
        line += " — named as `" + v.named_as + "`, the renamed counterpart";
      }
    }
    result["versions"].push_back(std::move(row));
    out += line + "\n";
  }
  if (total > versions.size()) out += "- and " + std::to_string(total - versions.size()) + " more\n";
  if (!other_kinds.empty()) {
    out += "\nAlso named '" + given + "': " + text::join({other_kinds.begin(), other_kinds.end()}, ", ") +
           " (pass kind to compare those).\n";
  }
  if (versions.size() == 1) {
    out += "\nNo other edition or document has this entry" +
           std::string(documents ? " among the documents asked for" : "") + ".\n";
    ToolResult r;
    r.text = out;
    r.structured = {{"result", std::move(result)}, {"total", 1}, {"filters", args}};
    return r;
  }

  std::vector<Flat> flats;
  for (const auto& v : versions) flats.push_back(flatten(v.entity.data));
  // Every field, leading ones first, then as met.
  std::vector<std::string> fields;
  std::set<std::string> seen;
  auto consider = [&](const std::string& f) {
    if (seen.insert(f).second) fields.push_back(f);
  };
  for (const auto& f : leading_fields()) {
    for (const auto& fl : flats) {
      if (fl.fields.count(f) || fl.texts.count(f)) consider(f);
    }
  }
  for (const auto& fl : flats) {
    for (const auto& f : fl.order) consider(f);
  }

  std::string differs_text, same_text;
  size_t differing = 0;
  std::vector<std::string> text_fields;
  for (const auto& field : fields) {
    bool is_text = false;
    for (const auto& fl : flats) is_text = is_text || fl.texts.count(field);
    if (is_text) {
      text_fields.push_back(field);
      continue;
    }
    // Versions grouped by equal value; a version without the field shows "—".
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // shown value, labels
    std::map<std::string, size_t> group_of;
    for (size_t i = 0; i < flats.size(); ++i) {
      const auto it = flats[i].fields.find(field);
      const std::string value = it == flats[i].fields.end() ? "" : it->second;
      const std::string key = comparable(value);
      auto [g, fresh] = group_of.emplace(key, groups.size());
      if (fresh) groups.push_back({value.empty() ? "—" : cut(value, kValueChars), {}});
      groups[g->second].second.push_back(labels[i]);
    }
    if (groups.size() == 1) {
      if (result["same"].size() < kMaxSame) {
        result["same"][field] = groups.front().first;
        same_text += (same_text.empty() ? "" : "; ") + field + " " + cut(groups.front().first, 40);
      }
      continue;
    }
    if (++differing > kMaxDiffering) continue;
    json values = json::object();
    for (size_t i = 0; i < flats.size(); ++i) {
      const auto it = flats[i].fields.find(field);
      values[versions[i].entity.key] = it == flats[i].fields.end() ? json() : json(cut(it->second, kValueChars));
    }
    result["differences"].push_back({{"field", field}, {"values", std::move(values)}});
    std::vector<std::string> parts;
    for (const auto& [value, which] : groups) parts.push_back(value + " (" + text::join(which, ", ") + ")");
    differs_text += "- **" + cut(field, kNameChars) + "**: " + text::join(parts, " · ") + "\n";
  }
  if (differing > 0) {
    out += "\n**Differs** (" + std::to_string(differing) + " fields):\n" + differs_text;
  } else {
    out += "\n**Fields:** none differs.\n";
  }
  if (differing > kMaxDiffering) out += "- and " + std::to_string(differing - kMaxDiffering) + " more fields\n";

  // Named entries (actions, traits, ...) against the reference: added, removed, reworded.
  std::set<std::string> entry_fields;
  for (const auto& fl : flats) {
    for (const auto& [f, _] : fl.entries) entry_fields.insert(f);
  }
  std::string entries_text;
  size_t entry_rows_left = 0;
  for (const auto& field : entry_fields) {
    std::map<std::string, std::string> ref;
    if (auto it = flats[0].entries.find(field); it != flats[0].entries.end()) {
      for (const auto& [n, d] : it->second) ref[comparable(n)] = d;
    }
    for (size_t i = 1; i < flats.size(); ++i) {
      std::vector<std::string> added, removed, reworded;
      std::set<std::string> here;
      if (auto it = flats[i].entries.find(field); it != flats[i].entries.end()) {
        for (const auto& [n, d] : it->second) {
          here.insert(comparable(n));
          const auto r = ref.find(comparable(n));
          if (r == ref.end()) {
            added.push_back(n);
          } else if (comparable(r->second) != comparable(d)) {
            reworded.push_back(n);
          }
        }
      }
      if (auto it = flats[0].entries.find(field); it != flats[0].entries.end()) {
        for (const auto& [n, _] : it->second) {
          if (!here.count(comparable(n))) removed.push_back(n);
        }
      }
      if (added.empty() && removed.empty() && reworded.empty()) continue;
      if (result["entries"].size() == kMaxEntryRows) {
        ++entry_rows_left;
        continue;
      }
      result["entries"].push_back({{"field", field},
                                   {"from", versions[0].entity.key},
                                   {"to", versions[i].entity.key},
                                   {"added", first_named(added)},
                                   {"removed", first_named(removed)},
                                   {"reworded", first_named(reworded)}});
      std::vector<std::string> parts;
      if (!added.empty()) parts.push_back("added " + listed(added));
      if (!removed.empty()) parts.push_back("removed " + listed(removed));
      if (!reworded.empty()) parts.push_back("reworded " + listed(reworded));
      entries_text += "- **" + cut(field, kNameChars) + "** (" + labels[0] + " → " + labels[i] +
                      "): " + text::join(parts, "; ") + "\n";
    }
  }
  if (entry_rows_left) entries_text += "- and " + std::to_string(entry_rows_left) + " more lists that differ\n";
  if (!entries_text.empty()) out += "\n**Entries:**\n" + entries_text;

  // Text fields against the reference, shortly: how much is kept and the first changes.
  // A field long in one version may be short in another: both are its value.
  const auto value_of = [](const Flat& fl, const std::string& field) {
    if (auto t = fl.texts.find(field); t != fl.texts.end()) return t->second;
    if (auto f = fl.fields.find(field); f != fl.fields.end()) return f->second;
    return std::string();
  };
  std::string texts_text;
  size_t texts_left = 0;
  for (const auto& field : text_fields) {
    const std::string from = value_of(flats[0], field);
    for (size_t i = 1; i < flats.size(); ++i) {
      const std::string to = value_of(flats[i], field);
      if (comparable(from) == comparable(to)) continue;
      if (result["text_changes"].size() == kMaxTextChanges) {
        ++texts_left;
        continue;
      }
      const TextChange change = text_change(from, to, 0);  // its share of words kept; the sentences say what
      const SentenceChanges sentences = sentence_changes(from, to);
      json changed = json::array();
      std::string lines;
      for (const auto& c : sentences.changes) {
        json j = json::object();
        if (!c.before.empty()) j["before"] = c.before;
        if (!c.after.empty()) j["after"] = c.after;
        if (!c.numbers_before.empty() || !c.numbers_after.empty()) {
          j["numbers"] = {{"before", c.numbers_before}, {"after", c.numbers_after}};
        }
        changed.push_back(std::move(j));
        std::string line = c.before.empty()  ? "added: “" + c.after + "”"
                           : c.after.empty() ? "removed: “" + c.before + "”"
                                             : "“" + c.before + "” → “" + c.after + "”";
        if (!c.numbers_before.empty() || !c.numbers_after.empty()) {
          line += " (numbers: " + (c.numbers_before.empty() ? std::string("—") : text::join(c.numbers_before, ", ")) +
                  " → " + (c.numbers_after.empty() ? std::string("—") : text::join(c.numbers_after, ", ")) + ")";
        }
        lines += "  - " + line + "\n";
      }
      if (sentences.more > 0) lines += "  - and " + std::to_string(sentences.more) + " more changed sentences\n";
      const int kept = static_cast<int>(std::lround(change.similarity * 100));
      json entry = {{"field", field},
                    {"from", versions[0].entity.key},
                    {"to", versions[i].entity.key},
                    {"similarity", std::round(change.similarity * 100) / 100},
                    {"sentences", std::move(changed)},
                    {"truncated", change.truncated},
                    {"more_sentences", sentences.more}};
      // Short texts are read best whole, one after the other.
      const bool whole = from.size() <= kShortText && to.size() <= kShortText;
      if (whole) {
        entry["before"] = from;
        entry["after"] = to;
        const auto quoted = [](const std::string& t) {
          return text::trim(t).empty() ? std::string("(none)") : "“" + text::trim(t) + "”";
        };
        lines = "  - before: " + quoted(from) + "\n  - after: " + quoted(to) + "\n";
      }
      result["text_changes"].push_back(std::move(entry));
      texts_text += "- **" + cut(field, kNameChars) + "** (" + labels[0] + " → " + labels[i] + ", " +
                    std::to_string(kept) + " % of words kept" +
                    (change.truncated ? " in the first " + std::to_string(kDiffWords) + " words" : "") + "):\n" + lines;
    }
  }
  if (texts_left) texts_text += "- and " + std::to_string(texts_left) + " more texts that differ\n";
  if (!texts_text.empty()) out += "\n**Text changed:**\n" + texts_text;
  if (!same_text.empty()) out += "\n**Same in all:** " + same_text + "\n";
  out += "\nFull text of each: get_entity with its key.\n";
  ToolResult r;
  r.text = std::move(out);
  r.structured = {{"result", std::move(result)}, {"total", static_cast<int>(total)}, {"filters", args}};
  return r;
}

ToolDef row() {
  return documents_row(spec(), [](const ToolCall& c, const DocFilter& docs) {
    const Suggest suggest = [&c](const std::vector<model::Kind>& kinds, const std::string& given) {
      // compare_editions finds a name in any document (`documents` only narrows the versions shown).
      store::Query filters;
      filters.kinds = kinds;
      return closest_names(*c.st, filters, given, 5);
    };
    return compare_editions(*c.st, c.args, docs.keys, c.ctx.preferred_edition, suggest);
  });
}

}  // namespace lorekeeper::tools::compare_tool
