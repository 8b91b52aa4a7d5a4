// Shared by the mapper's sources (mapper.cpp: documents, dispatch and the creature and character kinds; gear.cpp:
// weapons, armor, items and magic items, v2 and v1; rules.cpp: rules and rule sections). Private to lk_open5e.
#pragma once

#include <optional>
#include <string>

#include "lorekeeper/open5e/mapper.hpp"

namespace lorekeeper::open5e::detail {

// The name (or key) of a {name, key} object, or the string itself.
std::string name_of(const json& v);
std::string key_of(const json& v);
// Sets data[field] unless the value is null, an empty string, or an empty array or object.
void put_if(json& data, const char* field, const json& value);
void put_str(json& data, const char* field, const std::string& value);
// The names of a list of {name, ...} objects or strings.
json named_list(const json& arr, const char* name_field = "name");

// v2 gear records (gear.cpp). The weapon and armor mappers read e.document, so it is set first. A weapon's (or
// an item's base weapon's) properties are repaired from ctx.srd_weapon_properties (note_srd_weapon).
void map_weapon(const json& rec, Entity& e, const MappingContext& ctx);
void map_armor(const json& rec, Entity& e);
// Cost, weight and text of a weapon or armor from the /v2/items/ record noted for it (note_gear_item).
void add_gear_info(Entity& e, const MappingContext& ctx);
void map_item_common(const json& rec, Entity& e, const MappingContext& ctx);
void map_magic_item(const json& rec, Entity& e, const MappingContext& ctx);
// An item noted in ctx.standalone_armor, as armor (map_standalone_armor).
void map_item_armor(const json& rec, Entity& e, const MappingContext& ctx);

// Rules and rule sections (rules.cpp): a rule's section and chapter, and its name repaired (note_ruleset).
void map_rule(const json& rec, Entity& e, const MappingContext& ctx);
void map_rule_section(const json& rec, Entity& e);

// v1 gear records (gear.cpp).
void map_v1_magic_item(const json& rec, Entity& e);
void map_v1_weapon(const json& rec, Entity& e);
void map_v1_armor(const json& rec, Entity& e);

}  // namespace lorekeeper::open5e::detail
