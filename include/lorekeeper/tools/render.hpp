// Markdown renderings of tool results, in a fixed stat-block layout a model can quote.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace lorekeeper::tools {

// One result object (as returned in structuredContent) as a Markdown block: heading, source line, the
// kind's key fields, then its text.
std::string render_entity(const nlohmann::json& result);

// One line naming a result: "**Fireball** (spell, srd_fireball) — System Reference Document 5.1".
std::string render_summary_line(const nlohmann::json& result);

}  // namespace lorekeeper::tools
