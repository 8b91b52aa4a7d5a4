// Search hints: for the SRD's entities, one line of how players describe an entity without its name ("a winged
// horse" for Pegasus, "vanish from sight, unseen" for Invisibility). The stored texts are rules text, and
// creature stat blocks carry no description at all, so what a thing looks like or is called in folklore is
// often nowhere in them. The hint goes into the entity's passages, next to its name, and into the store's
// full-text index beside the name and text, so the meaning-based and the lexical rankings both find it.
//
// The bundled hints are data/search-hints.tsv (format in docs/formats/search-hints.md), compiled into the
// binary. A hint is found by kind and name, so entries of the same name in other documents share it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/model/entity.hpp"

namespace lorekeeper::model {

class Hints {
 public:
  // Parses tab-separated lines `kind<TAB>name<TAB>hint` after a header line. Fails, naming the line, on a
  // line without three fields, an unknown kind, an empty name or hint, or a second hint for the same entry.
  static Result<Hints> parse(std::string_view tsv);

  // The hints compiled into the binary, parsed on first use. The file is checked by the tests; were it ever
  // malformed, this is empty and the failure is logged once.
  static const Hints& bundled();

  // The hint of the entity of `kind` named `name` (ignoring case and accents), or "" when there is none. A
  // magic item variant without a hint of its own takes its family's: "Vorpal Sword (Longsword)" and
  // "Wand of the War Mage +2" look up "Vorpal Sword" and "Wand of the War Mage".
  std::string_view find(Kind kind, std::string_view name) const;

  size_t size() const { return by_entry_.size(); }
  // Identifies the content: 16 hex digits of the SHA-256 of the parsed text ("" for no hints). A store records
  // the stamp of the hints in its full-text index and refreshes them when it differs.
  const std::string& stamp() const { return stamp_; }

 private:
  std::string_view exact(Kind kind, std::string_view name) const;

  std::unordered_map<std::string, std::string> by_entry_;  // "<kind>\t<folded name>" -> hint
  std::string stamp_;
};

}  // namespace lorekeeper::model
