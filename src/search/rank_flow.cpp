#include "rank_flow.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

#include "facet_index.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/hints.hpp"
#include "lorekeeper/model/vocabulary.hpp"
#include "lorekeeper/search/editions.hpp"

namespace lorekeeper::search {

using model::Entity;
using model::Kind;
using store::Query;

namespace {

// The names of the entries of `filters`' kinds and documents that are variants of `name`: the name, then a qualifier
// in parentheses ("Vorpal Sword (Longsword)" of "Vorpal Sword"), each once, in name order.
Result<std::vector<std::string>> variant_names(store::Store& st, const Query& filters, const std::string& name) {
  const std::string fold = text::fold(name);
  auto named = st.names_starting(fold, filters.kinds);
  if (!named) return named.status();
  std::set<std::string> names;
  for (const auto& e : *named) {
    if (filters.document_keys && std::find(filters.document_keys->begin(), filters.document_keys->end(),
                                           e.document_key) == filters.document_keys->end()) {
      continue;
    }
    // (The folded name drops the parentheses: the qualifier is read from the name itself.)
    if (e.name.size() <= name.size() + 2 || text::fold(e.name.substr(0, name.size())) != fold) continue;
    const std::string rest = text::trim(e.name.substr(name.size()));
    if (!rest.empty() && rest.front() == '(' && rest.back() == ')') names.insert(e.name);
  }
  return std::vector<std::string>(names.begin(), names.end());
}

// Cosine similarity under which a passage is not taken as meaning the same as the query (all-MiniLM-L6-v2
// puts unrelated English texts around 0-0.25); chosen on the eval set (docs/SEARCH.md).
constexpr float kSemanticFloor = 0.34f;
// A match on words of the text alone must also be this close in meaning, so "stock market prices" does not
// return the entries that happen to mention a market and prices.
constexpr float kTextHitMeaningFloor = 0.25f;
// An empty answer names up to this many entries as near misses, those at least this close in meaning.
constexpr size_t kNearMisses = 3;
constexpr float kNearMissFloor = 0.2f;
// Entries holding every word of the query, when there are at most this many, are what those words point at (a
// name of a place or person, a coined term) and are kept whatever the model makes of the words.
constexpr size_t kSpecificTextHits = 3;
// Partial word matches (Recall for descriptions, in rank): for queries of at least this many meaningful words that
// no text hit matches, the best this many hits that hold at least this many of the words; chosen on the description
// tuning set (docs/SEARCH.md).
constexpr int kPartialMinTerms = 5;  // with four, half is two: no hit holds fewer and two
constexpr size_t kPartialDepth = 40;
constexpr int kPartialMinWords = 2;
// What an entry's score is multiplied by when its size is two sizes or more from the one the query names.
constexpr double kSizeContradiction = 0.5;
// How deep a facet's ranking goes, and what a facet adds to a lexical score when there is no meaning index.
constexpr size_t kFacetDepth = 100;
constexpr double kLexicalFacetBoost = 0.1;
// What the order of a facet's entries by the query's words weighs against their order by meaning (rank_facets);
// chosen on the tuning sets over 0.25, 0.5, 0.75 and 1 (docs/SEARCH.md).
constexpr double kFacetWordsWeight = 0.5;

// A short excerpt of `text` around the first of `terms` it contains (case-insensitive), else its beginning.
std::string snippet(const std::string& text, const std::vector<std::string>& terms) {
  constexpr size_t kBefore = 60, kLength = 180;
  const std::string low = text::lower(text);
  size_t at = std::string::npos;
  for (const auto& t : terms) {
    const size_t p = low.find(t);
    if (p != std::string::npos && p < at) at = p;
  }
  size_t start = at == std::string::npos || at < kBefore ? 0 : at - kBefore;
  while (start > 0 && text[start - 1] != ' ' && text[start - 1] != '\n') --start;
  size_t end = std::min(text.size(), start + kLength);
  while (end < text.size() && end > start && text[end] != ' ' && text[end] != '\n') --end;
  if (end <= start) end = std::min(text.size(), start + kLength);
  std::string out = text.substr(start, end - start);
  for (auto& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return (start > 0 ? "..." : "") + out + (end < text.size() ? "..." : "");
}

}  // namespace

bool only_kind_and_document_filters(const Query& q) {
  return !store::has_attribute_filters(q) && q.name_exact.empty() && q.name_contains.empty();
}

RankFlow::RankFlow(store::Store& st, Query q, const std::string& search, int limit, const RankOptions& options)
    : st_(st),
      q_(std::move(q)),
      limit_(limit),
      options_(options),
      embeddings_(options.embeddings ? *options.embeddings : none_),
      s_(text::trim(search)),
      lexical_(options.ranking != Ranking::kSemantic || options.match == Match::kNamesOnly) {}

Result<Ranked> RankFlow::run() {
  if (s_.empty()) return list_by_filters();
  // Meaning takes part: embed the query meanwhile (about 5 ms of encoder work the lexical matching overlaps).
  const bool semantic = options_.ranking != Ranking::kLexical && options_.match == Match::kNamesAndText &&
                        embeddings_.semantic() != nullptr;
  ix_ = semantic ? embeddings_.semantic()->index() : nullptr;
  if (ix_) embeddings_.prefetch(s_);
  LOREKEEPER_RETURN_IF_ERROR(find_exact_name());
  // An exact name is answered with that entry, every edition of it, and nothing else (02-lookup-tools-early.md:
  // "If name parameter exactly matches, return single result").
  if (!exact_results_.empty() && options_.on_exact == OnExactName::kOnlyIt) {
    out_.hits = std::move(exact_results_);
    out_.total = out_.exact_total;
    out_.how = "exact name";
    out_.semantic = ix_ != nullptr;
    LOREKEEPER_RETURN_IF_ERROR(say_variants());
    return std::move(out_);
  }
  for (const auto& e : editions_) exact_ids_.insert({static_cast<int>(e.kind), e.key});
  qf_ = text::fold(s_);
  words_ = text::folded_words(s_);
  if (words_.empty()) return std::move(out_);
  LOREKEEPER_RETURN_IF_ERROR(check_excluded_name());
  LOREKEEPER_RETURN_IF_ERROR(match_names());
  LOREKEEPER_RETURN_IF_ERROR(match_text());
  if (ix_) offer_partial_matches();  // each is checked against the query's meaning (rank_by_meaning)
  LOREKEEPER_RETURN_IF_ERROR(match_close_names());
  LOREKEEPER_RETURN_IF_ERROR(check_gibberish());
  LOREKEEPER_RETURN_IF_ERROR(rank_by_meaning());
  // The facets the query names, each as a ranking of the entries that have it (hybrid only: the single rankings
  // stay what they measure).
  if (options_.ranking == Ranking::kHybrid && options_.match == Match::kNamesAndText && !excluded_name_) {
    facets_ = understand(s_, q_);
  }
  LOREKEEPER_RETURN_IF_ERROR(ix_ ? fuse() : score_lexically());
  sort_scored();
  LOREKEEPER_RETURN_IF_ERROR(place());
  LOREKEEPER_RETURN_IF_ERROR(say_disagreement());
  out_.total = static_cast<int>(exact_ids_.size() + scored_.size());
  out_.how = !exact_ids_.empty()        ? "exact name"
             : contains_total_ > 0      ? "name contains"
             : typo_                    ? "close name"
             : !semantic_order_.empty() ? "meaning"
                                        : "text";
  out_.semantic = ix_ != nullptr || gibberish_;
  return std::move(out_);
}

Result<Ranked> RankFlow::list_by_filters() {
  q_.limit = limit_;
  auto r = st_.query(q_);
  if (!r) return r.status();
  for (auto& e : r->entities) out_.hits.push_back({std::move(e), std::nullopt, {}, {}, {}});
  out_.total = r->total;
  out_.how = "filters";
  return std::move(out_);
}

Status RankFlow::find_exact_name() {
  // Whether the query is some entity's name or key at all, asked of the in-memory name list: most searches are
  // not, and need no exact-name query under their filters.
  auto is_name = lexical_ ? st_.has_name_or_key(s_) : Result<bool>(false);
  if (!is_name) return is_name.status();
  is_name_ = *is_name;
  // Every edition of the name, in edition order, before any cut: the first `limit` of them are shown.
  if (is_name_) {
    auto editions = editions_named(st_, q_, s_, options_.preferred_edition);
    if (!editions) return editions.status();
    editions_ = std::move(*editions);
  }
  out_.exact_total = static_cast<int>(editions_.size());
  for (const auto& e : editions_) {
    if (static_cast<int>(exact_results_.size()) >= limit_) break;
    exact_results_.push_back({e, 1.0, {"exact name"}, {}, {}});
  }
  return Status::ok();
}

Status RankFlow::say_variants() {
  // Entries named as variants of it ("Vorpal Sword (Longsword)", the 2014 SRD's form) are other entries, named so
  // the answer does not seem to be all there is. (Under attribute filters, which the name list cannot check, none
  // are named.)
  if (!only_kind_and_document_filters(q_)) return Status::ok();
  auto variants = variant_names(st_, q_, s_);
  if (!variants) return variants.status();
  if (variants->empty()) return Status::ok();
  constexpr size_t kShown = 8;
  std::vector<std::string> shown(variants->begin(),
                                 variants->begin() + static_cast<std::ptrdiff_t>(std::min(kShown, variants->size())));
  if (variants->size() > kShown) shown.push_back("and " + std::to_string(variants->size() - kShown) + " more");
  out_.note = "Also named as variants of it: " + text::join(shown, ", ") + " (search a variant's name for it).";
  return Status::ok();
}

Status RankFlow::check_excluded_name() {
  // The query is exactly the name of an entry the filters exclude ("Fireball" with level 1): say so, and offer
  // only what the filters allow that contains every word of it ("heal" with level 1 gives the spells that
  // heal), ordered by meaning too. What resembles a name in meaning alone is that entry's kin (Burning Hands for
  // Fireball), not what was asked for.
  if (!is_name_ || !exact_results_.empty() || only_kind_and_document_filters(q_)) return Status::ok();
  Query unfiltered;
  unfiltered.kinds = q_.kinds;
  unfiltered.document_keys = q_.document_keys;
  unfiltered.name_exact = s_;
  unfiltered.limit = 1;
  auto named_elsewhere = st_.query(unfiltered);
  if (!named_elsewhere) return named_elsewhere.status();
  if (named_elsewhere->total > 0) {
    excluded_name_ = true;
    out_.note = "\"" + named_elsewhere->entities.front().name +
                "\" is the name of an entry these filters exclude; the results are other matches.";
  }
  return Status::ok();
}

void RankFlow::offer(Kind kind, const std::string& key, double score, const char* how) {
  const EntityId id{static_cast<int>(kind), key};
  if (exact_ids_.count(id)) return;
  Lexical& c = merged_[id];
  c.score = std::max(c.score, score);
  c.how.insert(how);
}

RankFlow::Lexical* RankFlow::offer_text_hit(const store::Store::TextHit& h, double score) {
  if (h.in_body) offer(h.kind, h.key, score, "text");
  if (h.in_hint()) offer(h.kind, h.key, score, "hint");
  // (An exact name is never a candidate: only the entries offered count their words.)
  const auto at = merged_.find({static_cast<int>(h.kind), h.key});
  if (at == merged_.end()) return nullptr;
  at->second.words = std::max(at->second.words, h.matched_terms);
  return &at->second;
}

Status RankFlow::match_names() {
  Query contains = q_;
  contains.name_contains = words_;
  contains.limit = 500;
  auto named =
      lexical_ ? st_.match_names(contains) : Result<std::vector<store::NameEntry>>(std::vector<store::NameEntry>{});
  if (!named) return named.status();
  contains_total_ = static_cast<int>(named->size());
  // A name the query gives but for a plural's final "s" is the one meant ("opportunity attack" is Opportunity
  // Attacks, not the Multiattack a hint of it ranks higher).
  std::set<std::string> plural_names;
  for (const auto& e : *named) {
    const std::string nf = text::fold(e.name);
    if (nf == qf_ + "s" || qf_ == nf + "s") {
      plural_names.insert(nf);
      corrected_.insert({static_cast<int>(e.kind), e.key});
    }
    const double coverage =
        std::min(1.0, nf.empty() ? 0 : static_cast<double>(qf_.size()) / static_cast<double>(nf.size()));
    double score = 0.5 + 0.4 * coverage;
    if (nf.rfind(qf_, 0) == 0) score += 0.05;              // the name starts with the query
    if (nf.find(qf_) != std::string::npos) score += 0.04;  // the words appear together, in order
    offer(e.kind, e.key, std::min(score, 0.99), "name");
  }
  if (plural_names.size() > 1) corrected_.clear();  // both "x" and "xs" named: neither is singled out
  names_matched_ = !merged_.empty();
  return Status::ok();
}

Status RankFlow::match_text() {
  // Text search over the words that carry meaning (they also place the snippets); a hit must contain at least half
  // of them, so a query of gibberish plus common words finds nothing rather than whatever mentions "spell".
  meaningful_ = meaningful_words(s_);
  if (options_.match != Match::kNamesOnly && lexical_) terms_ = meaningful_;
  auto text_hits = st_.text_search(q_, terms_, 100);
  if (!text_hits) return text_hits.status();
  text_hits_ = std::move(*text_hits);
  needed_ = static_cast<int>(excluded_name_ ? terms_.size() : (terms_.size() + 1) / 2);
  // (Not under an excluded name: an entry that mentions it is not the one asked for.)
  if (!terms_.empty() && !excluded_name_) {
    for (const auto& h : text_hits_) {
      if (h.matched_terms == static_cast<int>(terms_.size())) specific_.insert({static_cast<int>(h.kind), h.key});
    }
    if (specific_.size() > kSpecificTextHits) specific_.clear();
  }
  double best = 0;
  for (const auto& h : text_hits_) {
    if (h.matched_terms < needed_) continue;
    if (best == 0) best = h.rank;
    const double rel = best > 0 ? h.rank / best : 0;
    if (rel < 0.25) break;  // below the relevance floor: left out rather than padding the answer
    if (Lexical* c = offer_text_hit(h, 0.1 + 0.5 * rel)) {
      c->hint_share = std::max(c->hint_share, std::min(1.0, static_cast<double>(h.hint_terms) / std::max(1, needed_)));
    }
  }
  return Status::ok();
}

void RankFlow::offer_partial_matches() {
  // Recall for descriptions: a 15-25 word description of a thing shares only some of its words with the record,
  // often fewer than half, and then no entry holds the half a text hit needs. The best of those partial matches
  // (two words or more, by BM25) are then weak candidates, each still to be near the query in meaning (below).
  // (Offered beside text hits too, they displaced answers the meaning ranking had right.)
  const bool no_text_hit = std::none_of(text_hits_.begin(), text_hits_.end(),
                                        [&](const store::Store::TextHit& h) { return h.matched_terms >= needed_; });
  if (static_cast<int>(terms_.size()) < kPartialMinTerms || excluded_name_ || !no_text_hit) return;
  double best_partial = 0;
  size_t taken = 0;
  for (const auto& h : text_hits_) {  // (none holds the words a text hit needs)
    if (taken >= kPartialDepth) break;
    if (h.matched_terms < kPartialMinWords) continue;
    if (best_partial == 0) best_partial = h.rank;
    ++taken;
    const bool offered = merged_.count({static_cast<int>(h.kind), h.key}) > 0;
    // Scored under a half-word hit's 0.1 and up.
    if (Lexical* c = offer_text_hit(h, 0.02 + 0.06 * h.rank / best_partial); c != nullptr && !offered) {
      c->partial = true;
    }
  }
}

Status RankFlow::match_close_names() {
  // Close spellings of a name, when no name matched and the words do not all occur together in some entry's
  // text (then the query describes something rather than misspells a name, and comparing it with every name
  // would cost more than the rest of the search); never for an excluded name, which is spelt right.
  const bool described =
      terms_.size() >= 2 && std::any_of(text_hits_.begin(), text_hits_.end(), [&](const store::Store::TextHit& h) {
        return h.matched_terms == static_cast<int>(terms_.size());
      });
  if (!lexical_ || excluded_name_ || names_matched_ || described || !exact_results_.empty() || qf_.size() < 4 ||
      words_.size() > 4) {
    return Status::ok();
  }
  const int budget = std::max(1, static_cast<int>(qf_.size()) / 3);
  // Every name of the kinds and documents asked for within the budget, nearest first (then by name); the ten
  // nearest that have entries under the other filters are offered.
  std::map<std::string, std::pair<int, std::string>> within;  // folded name -> edit distance, a stored name
  Status visited = st_.for_each_name(q_.kinds, [&](const store::NameEntry& n) {
    if (q_.document_keys &&
        std::find(q_.document_keys->begin(), q_.document_keys->end(), n.document_key) == q_.document_keys->end()) {
      return true;
    }
    const int d = text::edit_distance(qf_, n.name_fold, budget);
    if (d <= budget) within.emplace(n.name_fold, std::make_pair(d, n.name));
    return true;
  });
  if (!visited.is_ok()) return visited;
  // A misspelling seldom changes the first letter: at one edit distance, a name that begins as the query does is
  // nearer ("ocultist" is Occultist before Cultist), by half an edit.
  std::vector<std::tuple<double, std::string, std::string>> nearest;  // distance, folded name, stored name
  for (const auto& [fold, close] : within) {
    const double other_start = !fold.empty() && fold[0] != qf_[0] ? 0.5 : 0.0;
    nearest.emplace_back(close.first + other_start, fold, close.second);
  }
  std::sort(nearest.begin(), nearest.end());
  struct Close {
    double distance;
    std::vector<store::NameEntry> entries;
  };
  std::vector<Close> offered;
  constexpr size_t kCloseNames = 10, kCloseTries = 50;
  for (size_t i = 0; i < nearest.size() && i < kCloseTries && offered.size() < kCloseNames; ++i) {
    Query by_name = q_;
    by_name.name_exact = std::get<2>(nearest[i]);
    by_name.limit = 20;
    auto hits = st_.match_names(by_name);
    if (!hits) return hits.status();
    if (!hits->empty()) offered.push_back({std::get<0>(nearest[i]), std::move(*hits)});
  }
  // A name nearer than every other, within two edits, is the one misspelt ("firbal", "cury wounds", "rouge"). A
  // name further off is a close name among others, not a correction: "red dragn" is not the Red Hag, nor
  // "concentration" Conjuration, nor "eldritch knight" the Eldritch Trickster.
  constexpr double kMaxCorrection = 2;
  const bool unique_nearest = !offered.empty() && offered[0].distance <= kMaxCorrection &&
                              (offered.size() == 1 || offered[1].distance > offered[0].distance);
  for (size_t i = 0; i < offered.size(); ++i) {
    for (const auto& e : offered[i].entries) {
      // 0.6-0.85, the nearest highest (a first letter changed counts half an edit more).
      offer(e.kind, e.key, 0.85 - 0.25 * offered[i].distance / (std::max(1, budget) + 0.5), "close name");
      if (unique_nearest && i == 0) corrected_.insert({static_cast<int>(e.kind), e.key});
    }
  }
  typo_ = !offered.empty();
  return Status::ok();
}

Status RankFlow::check_gibberish() {
  // Nothing matched by name or text: unless some meaningful word of the query occurs somewhere in the corpus, the
  // query is gibberish ("zxcvbnm asdfgh") and any nearest passage would be noise.
  if (!ix_ || !merged_.empty() || !exact_results_.empty()) return Status::ok();
  auto known = st_.any_text_match(meaningful_);
  if (!known) return known.status();
  if (!*known) {
    ix_ = nullptr;
    gibberish_ = true;  // meaning was ready but not asked
  }
  return Status::ok();
}

Result<const Entity*> RankFlow::load(const EntityId& id) {
  auto at = loaded_.find(id);
  if (at == loaded_.end()) {
    auto got = st_.get(id.second, static_cast<Kind>(id.first), false);
    if (!got) return got.status();
    if (got->empty()) return static_cast<const Entity*>(nullptr);
    at = loaded_.emplace(id, std::move(got->front())).first;
  }
  return &at->second;
}

Status RankFlow::rank_by_meaning() {
  if (!ix_) return Status::ok();
  // The filter mask is made while the encoder works, then the likeliest results are read (most of them are shown
  // in the end).
  auto made = allowed_mask(st_, *ix_, q_);
  if (!made) return made.status();
  mask_ = std::move(*made);
  if (!embeddings_.ready(s_)) {
    std::vector<std::pair<double, EntityId>> likeliest;
    for (const auto& [id, c] : merged_) likeliest.push_back({c.score, id});
    const size_t n =
        std::min(likeliest.size(), static_cast<size_t>(std::max(0, limit_ - static_cast<int>(exact_results_.size()))));
    std::partial_sort(likeliest.begin(), likeliest.begin() + static_cast<std::ptrdiff_t>(n), likeliest.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < n && !embeddings_.ready(s_); ++i) {
      auto e = load(likeliest[i].second);
      if (!e) return e.status();
    }
  }
  const std::vector<float>& qv = embeddings_.embed(s_);
  // A query the model could not embed (NaN from a damaged model) is answered by names and words alone.
  if (qv.size() != static_cast<size_t>(ix_->dims())) {
    ix_ = nullptr;
    return Status::ok();
  }
  // Lexical hits on words of the text or hint alone that are far from the query's meaning are dropped, unless
  // they are the few entries that hold all of the query's words, or the query is one word that names nothing
  // (no name holds it, nor is near it, nor is it the name of an excluded entry) and the texts hold: the model
  // makes little of a bare word ("surprise" is under the floor for the rules of surprise).
  const bool one_word = terms_.size() == 1 && !names_matched_ && !typo_ && !excluded_name_;
  for (auto it = merged_.begin(); it != merged_.end();) {
    const auto at = it->second.description_only() && !specific_.count(it->first) && !one_word
                        ? ix_->find(static_cast<Kind>(it->first.first), it->first.second)
                        : std::nullopt;
    if (at && ix_->similarity(*at, qv.data()) < kTextHitMeaningFloor) {
      it = merged_.erase(it);
    } else {
      ++it;
    }
  }
  // The nearest passages to the query among the entities the filters allow.
  std::vector<VectorIndex::Hit> below_floor;
  for (const auto& h : ix_->top_k(qv.data(), &mask_, 100)) {
    if (h.score < kSemanticFloor) {
      if (h.score >= kNearMissFloor && below_floor.size() < kNearMisses) below_floor.push_back(h);
      if (h.score < kNearMissFloor || below_floor.size() >= kNearMisses) break;
      continue;
    }
    const auto& ref = ix_->entity(h.entity);
    const EntityId id{static_cast<int>(ref.kind), ref.key};
    if (exact_ids_.count(id)) continue;
    // Under an excluded name, meaning orders what the words found and adds nothing.
    if (excluded_name_ && !merged_.count(id)) continue;
    semantic_order_.push_back(id);
  }
  // Nothing at all: the nearest that came close are named, so a question in words the model does not tie to the
  // text ("Dex cap", "breastplate") is not met with silence.
  if (semantic_order_.empty() && merged_.empty() && exact_results_.empty() && !excluded_name_) {
    for (const auto& h : below_floor) {
      const auto& ref = ix_->entity(h.entity);
      auto e = load({static_cast<int>(ref.kind), ref.key});
      if (!e) return e.status();
      if (*e != nullptr) out_.near_misses.push_back({**e, h.score});
    }
  }
  return Status::ok();
}

Status RankFlow::rank_facets() {
  // Ranks the entries with each facet (skipped when a confident text winner would take their weight away).
  for (const QueryFacet& f : facets_) {
    std::vector<EntityId> ranking;
    if (ix_) {
      // The entries with the facet that the filters allow, nearest in meaning first. The call's own filters hold
      // whatever the facet names: another value of a filtered field ("flies" under `movement` swim) ranks the
      // entries with both, never one without the filter's value.
      std::vector<uint8_t> has(ix_->size(), 0);
      for (size_t v = 0; v < f.values.size(); ++v) {
        auto m = facet_mask(st_, *ix_, f, v);
        if (!m) return m.status();
        for (size_t i = 0; i < has.size(); ++i) has[i] |= (**m)[i];
      }
      for (size_t i = 0; i < has.size(); ++i) has[i] &= mask_[i];
      const std::vector<float>& qv = embeddings_.embed(s_);
      const std::optional<std::vector<float>> blended = facet_direction(qv, f, embeddings_);
      for (const auto& h : ix_->top_k(blended ? blended->data() : qv.data(), &has, kFacetDepth)) {
        // The floor is the query's own: a label orders the entries, it does not admit one far from the words.
        // Ordered by the query alone, the first under the floor ends the ranking.
        const float to_query = blended ? ix_->similarity(h.entity, qv.data()) : h.score;
        if (to_query < kTextHitMeaningFloor) {
          if (!blended) break;
          continue;
        }
        const auto& ref = ix_->entity(h.entity);
        EntityId id{static_cast<int>(ref.kind), ref.key};
        if (!exact_ids_.count(id)) ranking.push_back(std::move(id));
      }
      // The entries with the facet that also matched the query's words are a second order of them, fused with the
      // order by meaning: where the two agree an entry leads the facet ("stealthy hunters that attack by
      // surprise": the Assassin has the Stealth skill and the words, while dozens with the skill are nearer in
      // meaning alone).
      std::vector<std::pair<double, EntityId>> worded;
      for (const auto& [id, c] : merged_) {
        const auto at = ix_->find(static_cast<Kind>(id.first), id.second);
        const bool most_words = !c.description_only() || 2 * c.words > static_cast<int>(terms_.size());
        if (at && has[*at] && most_words && !exact_ids_.count(id)) worded.push_back({c.score, id});
      }
      if (!worded.empty()) {
        std::stable_sort(worded.begin(), worded.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        std::map<EntityId, double> standing;
        for (size_t i = 0; i < ranking.size(); ++i) standing[ranking[i]] += 1 / (kRrfK + static_cast<double>(i) + 1);
        for (size_t i = 0; i < worded.size(); ++i) {
          standing[worded[i].second] += kFacetWordsWeight / (kRrfK + static_cast<double>(i) + 1);
        }
        std::vector<std::pair<double, EntityId>> order;
        order.reserve(standing.size());
        for (auto& [id, score] : standing) order.push_back({score, id});
        std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        ranking.clear();
        for (auto& [score, id] : order) ranking.push_back(std::move(id));
      }
    } else {
      // Without meaning, the lexical candidates with the facet, in their lexical order.
      std::set<EntityId> members;
      for (size_t v = 0; v < f.values.size(); ++v) {
        LOREKEEPER_RETURN_IF_ERROR(st_.for_each_matching_key(narrowed(q_, f, v), [&](Kind kind, std::string_view key) {
          const EntityId id{static_cast<int>(kind), std::string(key)};
          if (merged_.count(id)) members.insert(id);
        }));
      }
      std::vector<std::pair<double, EntityId>> ordered;
      for (const auto& id : members) ordered.push_back({merged_[id].score, id});
      std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      for (auto& [score, id] : ordered) ranking.push_back(std::move(id));
    }
    if (ranking.empty()) continue;
    with_facet_.insert(ranking.begin(), ranking.end());
    facet_rankings_.push_back(std::move(ranking));
    out_.understood.push_back(f);
  }
  return Status::ok();
}

Status RankFlow::score_lexically() {
  LOREKEEPER_RETURN_IF_ERROR(rank_facets());
  // Lexical scores are 0.1-0.99: an entry with every facet named gains a tenth. (Partial matches, offered when the
  // meaning could then not be had, are not answers by words alone.)
  for (auto& [id, c] : merged_) {
    if (c.partial) continue;
    double boost = 0;
    for (const auto& r : facet_rankings_) {
      if (std::find(r.begin(), r.end(), id) != r.end()) boost += kLexicalFacetBoost / facet_rankings_.size();
    }
    std::vector<std::string> how(c.how.begin(), c.how.end());
    if (boost > 0) how.push_back("facet");
    scored_.push_back({std::min(0.99, c.score + boost), id, std::move(how)});
  }
  return Status::ok();
}

Status RankFlow::fuse() {
  // Fusion of the lexical ranking (by its score; the lexical score itself breaks ties, so strong name matches keep
  // their order) and the semantic one (by cosine), with the evidence of a confident full-text winner.
  std::vector<std::pair<double, EntityId>> lex;
  for (const auto& [id, c] : merged_) lex.push_back({c.score, id});
  std::stable_sort(lex.begin(), lex.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [score, id] : lex) lexical_order_.push_back(id);
  FusionInput in;
  in.hybrid = options_.ranking == Ranking::kHybrid;
  for (const auto& [score, id] : lex) {
    const Lexical& m = merged_[id];
    in.lexical.push_back({id,
                          !m.description_only() ? Evidence::kName
                          : m.partial           ? Evidence::kPartial
                          : m.by_hint()         ? Evidence::kHint
                                                : Evidence::kText,
                          m.hint_share});
  }
  in.semantic = semantic_order_;
  // The text winner: the best full-text hit, with its other editions and the variants that share its text (the
  // seven Muffled armors of one description), up to the best hit of another name and text. Its lead is the larger
  // of two: in relevance (BM25) over the best other hit, and in the query's words it holds, beyond one, over any
  // other hit (thirteen of a description's nineteen words against the next entry's ten: a lead BM25 can hide when
  // the other's text is shorter).
  if (in.hybrid) {
    std::string winner_name, winner_text;
    double winner_rank = 0, other_rank = 0;
    int winner_words = 0;
    for (const auto& h : text_hits_) {
      if (h.matched_terms < needed_) continue;
      auto e = load({static_cast<int>(h.kind), h.key});
      if (!e) return e.status();
      if (*e == nullptr) continue;
      const std::string name = text::fold((*e)->name);
      if (winner_name.empty()) {
        winner_name = name;
        winner_text = (*e)->text;
        winner_rank = h.rank;
      }
      if (name != winner_name && ((*e)->text.empty() || (*e)->text != winner_text)) {
        other_rank = h.rank;
        break;
      }
      in.text_winner.insert({static_cast<int>(h.kind), h.key});
      winner_words = std::max(winner_words, h.matched_terms);
    }
    int other_words = 0;
    for (const auto& h : text_hits_) {
      if (h.matched_terms >= needed_ && !in.text_winner.count({static_cast<int>(h.kind), h.key})) {
        other_words = std::max(other_words, h.matched_terms);
      }
    }
    in.text_confidence = text_lead_confidence(winner_rank, other_rank);
    // (One word more says little: it may be the most common of them.)
    if (winner_words > other_words + 1) {
      in.text_confidence = std::max(in.text_confidence, text_lead_confidence(winner_words - 1, other_words));
    }
  }
  if (in.text_confidence < 1) {
    LOREKEEPER_RETURN_IF_ERROR(rank_facets());
    in.facets = facet_rankings_;
  }
  std::map<EntityId, Candidate> fused;
  for (const auto& [id, score] : search::fuse(in)) fused[id] = {score, id, {}};
  for (const auto& [score, id] : lex) {
    const Lexical& m = merged_[id];
    fused[id].how.assign(m.how.begin(), m.how.end());
  }
  for (const auto& id : semantic_order_) fused[id].how.push_back("meaning");
  for (const auto& id : with_facet_) fused[id].how.push_back("facet");
  LOREKEEPER_RETURN_IF_ERROR(weigh_sizes(fused));
  for (auto& [id, c] : fused) {
    // The misspelt name outranks what merely resembles the query in meaning.
    if (corrected_.count(id)) c.score = 0.999;
    scored_.push_back(std::move(c));
  }
  return Status::ok();
}

Status RankFlow::weigh_sizes(std::map<EntityId, Candidate>& fused) {
  // A size the query names counts against the entries two sizes or more from it, whatever else they share with it
  // ("a tiny dragon that steals coins" is not the Gargantuan Ancient Gold Dragon its words and meaning favour). The
  // sizes named are taken together ("small or Medium"); sizes named two or more apart ("small goblins riding large
  // wolves") describe several creatures, and none is held against anyone.
  QueryFacet named;
  for (const QueryFacet& f : facets_) {
    if (f.field != "size") continue;
    if (named.values.empty()) named = f;
    for (const auto& v : f.values) {
      if (std::find(named.values.begin(), named.values.end(), v) == named.values.end()) named.values.push_back(v);
    }
  }
  if (named.values.empty()) return Status::ok();
  auto fits = size_masks(st_, *ix_, named);
  if (!fits) return fits.status();
  if (!fits->named_together) return Status::ok();
  for (auto& [id, c] : fused) {
    const auto at = ix_->find(static_cast<Kind>(id.first), id.second);
    if (at && fits->sized[*at] && !fits->near[*at]) c.score *= kSizeContradiction;
  }
  return Status::ok();
}

void RankFlow::sort_scored() {
  std::stable_sort(scored_.begin(), scored_.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    const bool ca = corrected_.count(a.id) > 0, cb = corrected_.count(b.id) > 0;
    if (ca != cb) return ca;
    const auto la = merged_.find(a.id), lb = merged_.find(b.id);
    const double sa = la == merged_.end() ? 0 : la->second.score, sb = lb == merged_.end() ? 0 : lb->second.score;
    if (sa != sb) return sa > sb;
    return a.id < b.id;
  });
}

Status RankFlow::place() {
  out_.hits = std::move(exact_results_);
  // Each place shown: the candidate it shows, the candidate that ranked it and the other editions.
  struct Place {
    size_t shown;
    size_t best;
    std::vector<size_t> others;
  };
  std::vector<Place> places;
  // The grouped candidates' names and documents, by index in `scored_`.
  std::vector<std::optional<store::NameEntry>> entries;
  if (options_.group_editions) {
    // Grouped from the name list alone (names and documents in memory), so only the entries shown are read.
    std::vector<EntityId> ids;
    ids.reserve(scored_.size());
    for (const auto& c : scored_) ids.push_back(c.id);
    auto listed = st_.name_entries(ids);
    if (!listed) return listed.status();
    entries = std::move(*listed);
    std::map<std::string, model::Document, std::less<>> documents;
    std::vector<RankedEdition> ranked;
    ranked.reserve(scored_.size());
    for (size_t i = 0; i < scored_.size(); ++i) {
      RankedEdition r;
      r.kind = static_cast<Kind>(scored_[i].id.first);
      const std::string document_key = entries[i] ? entries[i]->document_key : std::string();
      auto at = documents.find(document_key);
      if (at == documents.end()) {
        auto doc = st_.document(document_key);
        if (!doc) return doc.status();
        model::Document known;
        known.key = document_key;
        at = documents.emplace(document_key, doc->value_or(std::move(known))).first;
      }
      r.document = &at->second;
      // An entry gone since it was ranked has a place of its own, skipped when read.
      r.name_fold = entries[i] ? entries[i]->name_fold : "\x1f" + scored_[i].id.second;
      ranked.push_back(std::move(r));
    }
    // (Every place: an entry deleted since it was ranked is skipped when read, and the next place shown.)
    for (auto& p : group_editions(ranked, ranked.size(), options_.preferred_edition)) {
      places.push_back({p.shown, p.best, std::move(p.others)});
    }
  } else {
    for (size_t i = 0; i < scored_.size(); ++i) places.push_back({i, i, {}});
  }
  for (const auto& place : places) {
    if (static_cast<int>(out_.hits.size()) >= limit_) break;
    const Candidate& c = scored_[place.best];
    // The shown edition, or, when it was deleted since it was ranked, the next of its place that still exists.
    size_t shown = place.shown;
    auto e = load(scored_[shown].id);
    if (!e) return e.status();
    for (size_t o : place.others) {
      if (*e != nullptr) break;
      shown = o;
      e = load(scored_[shown].id);
      if (!e) return e.status();
    }
    if (*e == nullptr) continue;
    const Entity& entity = **e;
    Hit hit{entity, c.score, c.how, {}, {}};
    for (size_t o : place.others) {
      if (o != shown && entries[o]) hit.other_editions.push_back({entries[o]->key, entries[o]->document_key});
    }
    auto matched = [&](const char* how) { return std::find(c.how.begin(), c.how.end(), how) != c.how.end(); };
    if (matched("hint") && !matched("text")) {
      // The words were found in the search hint, which says so better than the start of the text.
      hit.snippet = std::string(st_.hints().find(entity.kind, entity.name));
    } else if ((matched("text") || matched("meaning") || matched("facet")) && !entity.text.empty()) {
      hit.snippet = snippet(entity.text, meaningful_);
    }
    out_.hits.push_back(std::move(hit));
  }
  return Status::ok();
}

Status RankFlow::say_disagreement() {
  // Words and meaning that disagree outright (each ranking's first is outside the other's first ten, and the words
  // matched no name) are said, with which of the two the first result follows: the reader can weigh the other.
  if (options_.ranking != Ranking::kHybrid || out_.hits.empty() || lexical_order_.empty() || semantic_order_.empty() ||
      !corrected_.empty() || !merged_[lexical_order_.front()].description_only() ||
      !rankings_disagree(lexical_order_, semantic_order_)) {
    return Status::ok();
  }
  // The editions of one name are one entry (as the answer places them): compared by kind and folded name.
  auto by_name = [&](const std::vector<EntityId>& order) -> Result<std::vector<EntityId>> {
    const std::vector<EntityId> first(order.begin(),
                                      order.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(order.size(), 10)));
    auto listed = st_.name_entries(first);
    if (!listed) return listed.status();
    std::vector<EntityId> names;
    for (size_t i = 0; i < first.size(); ++i) {
      names.push_back({first[i].first, (*listed)[i] ? (*listed)[i]->name_fold : "\x1f" + first[i].second});
    }
    return names;
  };
  auto words_names = by_name(lexical_order_);
  if (!words_names) return words_names.status();
  auto meaning_names = by_name(semantic_order_);
  if (!meaning_names) return meaning_names.status();
  if (!rankings_disagree(*words_names, *meaning_names)) return Status::ok();
  auto words_first = load(lexical_order_.front());
  if (!words_first) return words_first.status();
  auto meaning_first = load(semantic_order_.front());
  if (!meaning_first) return meaning_first.status();
  if (*words_first == nullptr || *meaning_first == nullptr) return Status::ok();
  const std::string shown = text::fold(out_.hits.front().entity.name);
  const auto named = [](const Entity* e) { return e->name + " (`" + e->key + "`)"; };
  std::string said;
  if (shown == text::fold((*words_first)->name)) {
    said = "The query's words and its meaning disagree: the first result is the best match by words; by meaning, " +
           named(*meaning_first) + " comes first.";
  } else if (shown == text::fold((*meaning_first)->name)) {
    said = "The query's words and its meaning disagree: the first result is the nearest in meaning; by words, " +
           named(*words_first) + " comes first.";
  }
  if (!said.empty()) out_.note = out_.note.empty() ? said : out_.note + " " + said;
  return Status::ok();
}

}  // namespace lorekeeper::search
