// Markdown renderings of tool results, in a fixed stat-block layout a model can quote.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace lorekeeper::tools {

// One result object (as returned in structuredContent) as a Markdown block: heading, source line, the
// kind's key fields, then its text.
std::string render_entity(const nlohmann::json& result);

// The kind's key facts for a one-line summary: "3rd-level evocation", "CR 1/4 Small humanoid", "rare, requires
// attunement", "martial melee weapon, 1d8", "AC 14 + Dex modifier (max 2)", "15 gp"; "" when it has none.
std::string key_facts(const nlohmann::json& result);

// One line naming a result: "**Fireball** (spell, srd_fireball) — System Reference Document 5.1".
std::string render_summary_line(const nlohmann::json& result);

}  // namespace lorekeeper::tools
