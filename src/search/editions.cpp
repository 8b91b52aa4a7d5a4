#include "lorekeeper/search/editions.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/search/ranker.hpp"

namespace lorekeeper::search {
namespace {

using model::Entity;
using model::Kind;

// Text read for the word overlap: a stat block or a spell is far shorter; a 10 MB homebrew description is cut.
constexpr size_t kTextBytes = 20000;

// Lower-case ASCII letter-and-digit runs of a folded name; a plural's final s is dropped ("Snakes" = "Snake").
std::vector<std::string> name_tokens(std::string_view name) {
  const std::string f = text::fold(name);
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.size() > 3 && cur.back() == 's' && cur[cur.size() - 2] != 's') cur.pop_back();
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (char c : f) {
    if (std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80)) {
      cur.push_back(c);
    } else {
      flush();
    }
  }
  flush();
  return out;
}

bool all_digits(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// How much of `t` the other name's words hold: 1 for the same word, 0.6 for a word inside a longer one.
double word_hit(const std::string& t, const std::vector<std::string>& other) {
  if (all_digits(t)) return 0;
  double best = 0;
  for (const auto& o : other) {
    if (o == t) return 1;
    if (t.size() >= 4 && o.size() >= 4 && (o.find(t) != std::string::npos || t.find(o) != std::string::npos)) {
      best = 0.6;
    }
  }
  return best;
}

const std::unordered_set<std::string>& stop_words() {
  static const std::unordered_set<std::string> words = {
      "the",  "and",  "its",  "this", "that",  "you",   "your", "can",  "any", "each", "which", "who", "whom", "has",
      "have", "into", "than", "then", "there", "their", "they", "them", "for", "with", "from",  "are", "not",  "one",
      "out",  "all",  "but",  "was",  "were",  "his",   "her",  "she",  "him", "also", "if",    "on",  "or",   "an"};
  return words;
}

// The distinct content words (three letters or more, not stop words) of an entity's text, sorted.
std::vector<std::string> text_words(const Entity& e) {
  const std::string_view body(e.text);
  const std::string f = text::fold(body.substr(0, text::utf8_boundary(body, std::min(body.size(), kTextBytes))));
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.size() >= 3 && !stop_words().count(cur)) out.push_back(cur);
    cur.clear();
  };
  for (char c : f) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      cur.push_back(c);
    } else {
      flush();
    }
  }
  flush();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double word_overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() || b.empty()) return 0;
  size_t shared = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const int c = a[i].compare(b[j]);
    if (c == 0)
      ++shared, ++i, ++j;
    else if (c < 0)
      ++i;
    else
      ++j;
  }
  return static_cast<double>(shared) / std::sqrt(static_cast<double>(a.size()) * static_cast<double>(b.size()));
}

double facet_agreement(const model::Facets& a, const model::Facets& b) {
  double sum = 0;
  int n = 0;
  auto same_text = [&](const std::string& x, const std::string& y) {
    if (x.empty() || y.empty()) return;
    sum += text::fold(x) == text::fold(y) ? 1 : 0;
    ++n;
  };
  auto same = [&](const auto& x, const auto& y) {
    if (!x || !y) return;
    sum += *x == *y ? 1 : 0;
    ++n;
  };
  same(a.level, b.level);
  same_text(a.school, b.school);
  same_text(a.type, b.type);
  same_text(a.size, b.size);
  same_text(a.rarity, b.rarity);
  same_text(a.damage_dice, b.damage_dice);
  same(a.is_simple, b.is_simple);
  same(a.armor_class, b.armor_class);
  if (a.cr && b.cr) {
    // Within a factor of four of each other on a (CR + 1/2) scale: CR 1/4 and 1/2 are close, 1 and 10 are not.
    const double d = std::fabs(std::log2((*a.cr + 0.5) / (*b.cr + 0.5)));
    sum += std::max(0.0, 1 - d / 2);
    ++n;
  }
  return n == 0 ? 0.5 : sum / n;
}

double token_similarity(const std::vector<std::string>& ta, const std::vector<std::string>& tb) {
  if (ta.empty() || tb.empty()) return 0;
  auto sorted_a = ta, sorted_b = tb;
  std::sort(sorted_a.begin(), sorted_a.end());
  std::sort(sorted_b.begin(), sorted_b.end());
  if (sorted_a == sorted_b || text::join(ta, "") == text::join(tb, "")) return 1;
  double hits_a = 0, hits_b = 0;
  for (const auto& t : ta) hits_a += word_hit(t, tb);
  for (const auto& t : tb) hits_b += word_hit(t, ta);
  const double containment =
      std::min(1.0, std::max(hits_a, hits_b) / static_cast<double>(std::min(ta.size(), tb.size())));
  const double jaccard = (hits_a + hits_b) / static_cast<double>(ta.size() + tb.size());
  return 0.5 * containment + 0.5 * jaccard;
}

struct Candidate {
  const Entity* entity = nullptr;
  std::vector<std::string> name;   // name_tokens
  std::vector<std::string> words;  // text_words
  std::string parent_fold;         // folded name of the parent entry (subclass -> class); empty at top level
};

double score(const Candidate& a, const Candidate& b) {
  return 0.35 * token_similarity(a.name, b.name) + 0.40 * word_overlap(a.words, b.words) +
         0.25 * facet_agreement(a.entity->facets, b.entity->facets);
}

// Whether `b` may be `a` in another edition at all: a subclass of the same-named class, a top-level entry of a
// top-level one, an item of the same rarity when both have one.
bool comparable(const Candidate& a, const Candidate& b) {
  if (a.parent_fold != b.parent_fold) return false;
  const auto& ra = a.entity->facets.rarity;
  const auto& rb = b.entity->facets.rarity;
  return ra.empty() || rb.empty() || ra == rb;
}

// The names of one kind, by document, and each key's folded name.
struct NameIndex {
  std::map<std::string, std::unordered_set<std::string>> by_document;
  std::unordered_map<std::string, std::string> fold_of_key;
};

Result<NameIndex> index_names(store::Store& st, Kind kind) {
  auto names = st.names({kind});
  if (!names) return names.status();
  NameIndex idx;
  for (const auto& n : *names) {
    idx.by_document[n.document_key].insert(n.name_fold);
    idx.fold_of_key[n.key] = n.name_fold;
  }
  return idx;
}

bool are_editions(const NameIndex& idx, const std::string& a, const std::string& b) {
  const auto ia = idx.by_document.find(a);
  const auto ib = idx.by_document.find(b);
  if (ia == idx.by_document.end() || ib == idx.by_document.end()) return false;
  const auto& small = ia->second.size() <= ib->second.size() ? ia->second : ib->second;
  const auto& large = ia->second.size() <= ib->second.size() ? ib->second : ia->second;
  int shared = 0;
  for (const auto& n : small) shared += large.count(n) ? 1 : 0;
  return shared >= kEditionMinShared && shared >= kEditionMinShare * static_cast<double>(small.size());
}

// Every entry of one kind in one document, ready to be scored; read once per versions_of call.
struct DocumentEntries {
  std::vector<Entity> entities;    // not changed after loading: candidates point into it
  std::vector<std::string> folds;  // each entity's folded name
  // Each entity's candidate, made when a pool first needs it (most entries have a same-named twin and never do).
  std::vector<std::optional<Candidate>> candidates;

  const Candidate& candidate(size_t i, const NameIndex& idx) {
    if (!candidates[i]) {
      const Entity& e = entities[i];
      Candidate c;
      c.entity = &e;
      c.name = name_tokens(e.name);
      c.words = text_words(e);
      if (!e.facets.parent_key.empty()) {
        const auto p = idx.fold_of_key.find(e.facets.parent_key);
        c.parent_fold = p == idx.fold_of_key.end() ? e.facets.parent_key : p->second;
      }
      candidates[i] = std::move(c);
    }
    return *candidates[i];
  }
};
using LoadedDocuments = std::map<std::string, std::unique_ptr<DocumentEntries>>;

Result<DocumentEntries*> load_document(store::Store& st, Kind kind, const std::string& document,
                                       LoadedDocuments& loaded) {
  auto& slot = loaded[document];
  if (slot) return slot.get();
  store::Query q;
  q.kinds = {kind};
  q.document_keys = std::vector<std::string>{document};
  q.limit = 1000000;
  auto r = st.query(q);
  if (!r) return r.status();
  auto entries = std::make_unique<DocumentEntries>();
  entries->entities = std::move(r->entities);
  for (const auto& e : entries->entities) entries->folds.push_back(text::fold(e.name));
  entries->candidates.resize(entries->entities.size());
  slot = std::move(entries);
  return slot.get();
}

// The entries of a document whose name has no entry in another document: the candidates of a renaming.
class Pool {
 public:
  Pool(DocumentEntries& all, const std::string& other, const NameIndex& idx) {
    const auto it = idx.by_document.find(other);
    for (size_t i = 0; i < all.entities.size(); ++i) {
      if (it != idx.by_document.end() && it->second.count(all.folds[i])) continue;
      candidates_.push_back(&all.candidate(i, idx));
    }
  }

  struct Best {
    const Candidate* candidate = nullptr;  // nullptr when no candidate is comparable
    double score = -1;
    double runner_up = -1;  // the next candidate's score
  };
  Best best_for(const Candidate& x) const {
    Best b;
    for (const Candidate* c : candidates_) {
      if (!comparable(x, *c)) continue;
      const double s = score(x, *c);
      if (s > b.score) {
        b.runner_up = b.score;
        b.candidate = c, b.score = s;
      } else if (s > b.runner_up) {
        b.runner_up = s;
      }
    }
    return b;
  }

  const Candidate* find(const std::string& key) const {
    for (const Candidate* c : candidates_) {
      if (c->entity->key == key) return c;
    }
    return nullptr;
  }

 private:
  std::vector<const Candidate*> candidates_;
};

// The counterpart of `from` among the entries of `to_doc`, with its score; nullopt when none is clear enough.
Result<std::optional<std::pair<Entity, double>>> counterpart(store::Store& st, const Entity& from,
                                                             const std::string& to_doc, const NameIndex& idx,
                                                             LoadedDocuments& loaded) {
  using Found = std::optional<std::pair<Entity, double>>;
  auto from_entries = load_document(st, from.kind, from.document.key, loaded);
  if (!from_entries) return from_entries.status();
  auto to_entries = load_document(st, from.kind, to_doc, loaded);
  if (!to_entries) return to_entries.status();
  const Pool here(**from_entries, to_doc, idx);
  const Pool there(**to_entries, from.document.key, idx);
  const Candidate* x = here.find(from.key);
  if (x == nullptr) return Found();
  const Pool::Best best = there.best_for(*x);
  if (best.candidate == nullptr || best.score < kCounterpartMinScore) return Found();
  // Each must be the other's best: several 2014 variants never all claim one 2024 entry.
  if (here.best_for(*best.candidate).candidate != x) return Found();
  // A match on text and facets alone (no shared name word) must stand clear of the next candidate: entries with
  // the same boilerplate text ("Net +1", "Musket +1") are not each other's renames.
  if (token_similarity(x->name, best.candidate->name) == 0 && best.score - best.runner_up < kCounterpartMinLead) {
    return Found();
  }
  return Found(std::make_pair(*best.candidate->entity, best.score));
}

}  // namespace

double name_similarity(std::string_view a, std::string_view b) {
  return token_similarity(name_tokens(a), name_tokens(b));
}

double counterpart_score(const Entity& a, const Entity& b) {
  Candidate ca{&a, name_tokens(a.name), text_words(a), {}};
  Candidate cb{&b, name_tokens(b.name), text_words(b), {}};
  return score(ca, cb);
}

Result<std::vector<Version>> versions_of(store::Store& st, const Entity& reference, const EditionOptions& options) {
  using Basis = Version::Basis;
  const Kind kind = reference.kind;
  std::vector<Version> out;
  out.push_back({reference, Basis::kReference, 1.0, {}, {}});
  std::set<std::string> covered = {reference.document.key};
  std::set<std::string> keys = {reference.key};
  // The entries named `name` (not merely keyed so), each document then covered.
  auto add_named = [&](const std::string& name, Basis basis, double score, const std::string& of,
                       const std::string& counterpart_key) -> Status {
    store::Query q;
    q.kinds = {kind};
    auto named = editions_named(st, q, name, options.preferred_edition);
    if (!named) return named.status();
    const std::string fold = text::fold(name);
    for (auto& e : *named) {
      if (keys.count(e.key) || text::fold(e.name) != fold) continue;
      keys.insert(e.key);
      covered.insert(e.document.key);
      std::string named_as = basis == Basis::kRenamed && e.key != counterpart_key ? counterpart_key : "";
      out.push_back({std::move(e), basis, score, of, std::move(named_as)});
    }
    return Status::ok();
  };
  if (Status s = add_named(reference.name, Basis::kSameName, 1.0, {}, {}); !s.is_ok()) return s;

  if (options.match_renamed) {
    auto idx = index_names(st, kind);
    if (!idx) return idx.status();
    auto docs = st.documents();
    if (!docs) return docs.status();
    // The documents without a version, in edition order: the SRDs' match, the most reliable, is made first.
    std::vector<model::Document> others;
    for (const auto& d : *docs) {
      if (covered.count(d.document.key) || !idx->by_document.count(d.document.key)) continue;
      if (options.documents &&
          std::find(options.documents->begin(), options.documents->end(), d.document.key) == options.documents->end()) {
        continue;
      }
      others.push_back(d.document);
    }
    std::stable_sort(others.begin(), others.end(), [&](const model::Document& a, const model::Document& b) {
      return model::edition_before(a, b, options.preferred_edition);
    });
    LoadedDocuments loaded;
    for (const auto& doc : others) {
      if (covered.count(doc.key)) continue;
      // From each version found so far whose document is an edition of this one, until a counterpart is found.
      for (size_t i = 0; i < out.size(); ++i) {
        if (!are_editions(*idx, out[i].entity.document.key, doc.key)) continue;
        const Entity from = out[i].entity;  // a copy: `out` grows below
        auto found = counterpart(st, from, doc.key, *idx, loaded);
        if (!found) return found.status();
        if (!*found) continue;
        const auto& [entity, score] = **found;
        if (!keys.count(entity.key)) {
          keys.insert(entity.key);
          covered.insert(entity.document.key);
          out.push_back({entity, Basis::kRenamed, score, from.key, {}});
        }
        if (Status s = add_named(entity.name, Basis::kRenamed, score, from.key, entity.key); !s.is_ok()) return s;
        break;
      }
    }
  }
  if (options.documents) {
    const auto& allowed = *options.documents;
    out.erase(std::remove_if(out.begin() + 1, out.end(),
                             [&](const Version& v) {
                               return std::find(allowed.begin(), allowed.end(), v.entity.document.key) == allowed.end();
                             }),
              out.end());
  }
  std::stable_sort(out.begin() + 1, out.end(), [&](const Version& a, const Version& b) {
    return model::edition_before(a.entity.document, b.entity.document, options.preferred_edition);
  });
  return out;
}

namespace {

// A name's words in sorted order: Black Flag's "Snake, Flying" and "Wolf, Dire" are the SRD's "Flying Snake" and
// "Dire Wolf".
std::string word_set(std::string_view name_fold) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : name_fold) {
    if (std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) {
      word += c;
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  std::sort(words.begin(), words.end());
  return text::join(words, " ");
}

}  // namespace

std::vector<EditionPlace> group_editions(const std::vector<RankedEdition>& ranked, size_t limit,
                                         std::string_view preferred) {
  std::vector<EditionPlace> out;
  // (kind, the name's words) -> the places of that name, in ranked order: one name in one document names different
  // entries (the 2014 SRD's "Speed" of movement, of races and of monsters), each a place of its own.
  std::map<std::pair<model::Kind, std::string>, std::vector<size_t>> places;
  auto holds_document = [&](const EditionPlace& p, const std::string& document) {
    if (ranked[p.shown].document->key == document) return true;
    return std::any_of(p.others.begin(), p.others.end(), [&](size_t o) { return ranked[o].document->key == document; });
  };
  for (size_t i = 0; i < ranked.size(); ++i) {
    std::vector<size_t>& named = places[{ranked[i].kind, word_set(ranked[i].name_fold)}];
    const std::string& document = ranked[i].document->key;
    const auto at =
        std::find_if(named.begin(), named.end(), [&](size_t n) { return !holds_document(out[n], document); });
    if (at == named.end()) {
      if (out.size() >= limit) continue;
      named.push_back(out.size());
      out.push_back({i, i, {}});
      continue;
    }
    EditionPlace& p = out[*at];
    if (model::edition_preferred(*ranked[i].document, *ranked[p.shown].document, preferred)) {
      p.others.push_back(p.shown);
      p.shown = i;
    } else {
      p.others.push_back(i);
    }
  }
  for (auto& p : out) std::sort(p.others.begin(), p.others.end());
  return out;
}

}  // namespace lorekeeper::search
