// The versions of one entity across editions and documents: the entries of its kind with the same name (the 2014
// and 2024 Fireball, Level Up's), and the counterpart a renamed entry has in another edition of its document
// (Feeblemind -> Befuddlement, Androsphinx -> Sphinx of Valor, Half-Orc -> Orc). docs/SEARCH.md "Editions of one
// entry" describes the matching and its measured misses.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

struct Version {
  enum class Basis {
    kReference,  // the entity asked about
    kSameName,   // same kind, same name (after text::fold)
    kRenamed,    // the counterpart of a version in another edition of its document, or named as that counterpart
  };
  model::Entity entity;
  Basis basis = Basis::kSameName;
  double score = 1.0;          // kRenamed: the counterpart score (counterpart_score), 0-1
  std::string counterpart_of;  // kRenamed: the key of the version it was matched against
  std::string named_as;        // kRenamed: the counterpart's key, for an entry that only shares its name
};

struct EditionOptions {
  std::string preferred_edition{model::kDefaultPreferredEdition};  // orders the versions (model::edition_before)
  // Only versions of these documents (the reference is always kept); nullopt: every document.
  std::optional<std::vector<std::string>> documents;
  bool match_renamed = true;
};

// Two documents are editions of each other for a kind when they share at least kEditionMinShared names of that kind
// and at least kEditionMinShare of the smaller one's names: srd-2014 and srd-2024, either SRD and Level Up or Black
// Flag, Tome of Beasts and its 2023 edition; never two books that merely share a few monsters.
inline constexpr int kEditionMinShared = 3;
inline constexpr double kEditionMinShare = 0.25;
// A renamed counterpart is accepted at this score, when each is the other's best among the entries that have no
// same-named entry in the other document.
inline constexpr double kCounterpartMinScore = 0.45;
// ... and, when their names share no word, by this much over the next candidate.
inline constexpr double kCounterpartMinLead = 0.05;

// Every version of `reference` (of its kind): the reference first, then the others in edition order. Entries of a
// document that is an edition of a version's document and has no entry of that name are searched for a renamed
// counterpart (match_renamed). Reads the store only.
Result<std::vector<Version>> versions_of(store::Store& st, const model::Entity& reference,
                                         const EditionOptions& options = {});

// How alike two names are, 0-1: 1 when they have the same words in any order or the same letters ("Crossbow, hand"
// and "Hand Crossbow", "Sea Horse" and "Seahorse"), else by shared words (a word inside a longer one, as "sphinx"
// in "Androsphinx", counts 0.6; numbers do not count).
double name_similarity(std::string_view a, std::string_view b);

// How likely `b` is `a` renamed, 0-1: 0.35 of name_similarity, 0.40 of the overlap of the words of their text,
// 0.25 of the agreement of their facets (level, school, type, size, rarity, damage dice, CR closeness, ...).
double counterpart_score(const model::Entity& a, const model::Entity& b);

// One entry of a ranked list, as edition grouping sees it: its kind, its folded name and its document (held by the
// caller for the call).
struct RankedEdition {
  model::Kind kind = model::Kind::kSpell;
  std::string name_fold;
  const model::Document* document = nullptr;
};

// One place of a grouped answer: indexes into the ranked list.
struct EditionPlace {
  size_t best = 0;             // the best-ranked edition: the place's rank, score and reasons
  size_t shown = 0;            // the edition shown (model::edition_preferred; of equal standing, the best-ranked)
  std::vector<size_t> others;  // the other editions, in ranked order
};

// The editions of one name (same kind; the same words in any order, so Black Flag's "Snake, Flying" is the SRD's
// "Flying Snake") take one place, at the best rank any of them reached, in ranked order; at
// most `limit` places. Editions ranked below the cut still join their name's place. A place holds one entry per
// document: entries of one name in one document are different things (the 2014 SRD has three rules named
// "Speed"), each with a place of its own.
std::vector<EditionPlace> group_editions(const std::vector<RankedEdition>& ranked, size_t limit,
                                         std::string_view preferred);

}  // namespace lorekeeper::search
