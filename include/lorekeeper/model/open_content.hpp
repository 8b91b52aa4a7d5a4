// What the open licences leave out: names no open document can describe, so no document here has them.
#pragma once

#include <string_view>
#include <vector>

namespace lorekeeper::model {

// The creatures SRD 5.1's Legal Information designates Product Identity of Wizards of the Coast, not Open Game
// Content ("beholder, gauth, carrion crawler, tanar'ri, baatezu, displacer beast, githyanki, githzerai, mind
// flayer, illithid, umber hulk, yuan-ti"; the section `legal-information` of Open5e's /v1/sections/). SRD 5.2
// leaves them out as well.
const std::vector<std::string_view>& product_identity_creatures();

// The product identity name `query` names (its folded words equal to one, or to its plural), else empty:
// "Mind Flayers" -> "mind flayer".
std::string_view product_identity_name(std::string_view query);

}  // namespace lorekeeper::model
