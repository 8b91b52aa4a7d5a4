// Cross-references that answer the next question about an entity: the creatures that cast a spell, what inflicts a
// condition, the spell entries a creature's spellcasting names. Read from the derived facets
// (model/derived.hpp). Private to lk_tools: get_entity adds them to its answer.
#pragma once

#include <string>

#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools {

// {"cast_by": {...}} for a spell, {"inflicted_by": {...}} for a condition, {"casts": [...]} for a creature that
// casts spells; an empty object otherwise. Each list holds at most a few entries (name, key, document), those of the
// entity's own game system first, with the total and the filter that lists them all.
json related(store::Store& st, const model::Entity& e);

// The Markdown lines for related(): "**Cast by:** Lich (`srd_lich`), ..."; empty for an empty object.
std::string render_related(const json& related);

}  // namespace lorekeeper::tools
