// Shared by the mapper's sources (mapper.cpp: documents, dispatch and the character kinds; creatures.cpp: creatures;
// gear.cpp: weapons, armor, items and magic items, v2 and v1; rules.cpp: rules and rule sections). Private to
// lk_open5e.
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
// A /v2/services/ record's fields (map_v2_service).
void map_service(const json& rec, Entity& e);
void map_magic_item(const json& rec, Entity& e, const MappingContext& ctx);
// An item noted in ctx.standalone_armor, as armor (map_standalone_armor).
void map_item_armor(const json& rec, Entity& e, const MappingContext& ctx);

// Rules and rule sections (rules.cpp): a rule's section and chapter, and its name repaired (note_ruleset).
void map_rule(const json& rec, Entity& e, const MappingContext& ctx);
void map_rule_section(const json& rec, Entity& e);

// A creature (creatures.cpp) from its v2 record, completed from the /v1/monsters/ record converted to it (`v1`,
// null when there is none): the actions, traits, limits of use, lore, senses and speed notes v2 lacks, and attacks
// that agree with their text.
void map_creature(const json& rec, const json* v1, Entity& e);
// A creature record that is a placeholder, not a stat block: challenge 0 with no hit dice and no speed of any kind.
// Three SRD 5.1 records are (srd_gnome-deep-svirfneblin and srd_elf-drow beside the complete
// srd_deep-gnome-svirfneblin and srd_drow; srd_donkey, which SRD 5.1 has no stat block for); shown, they read as
// a Drow with speed 0 worth 0 XP. Every real stat block has hit dice or a speed.
bool empty_stat_block(const json& rec);

// Every mapped entity's text and string fields through clean_markup (mapper.cpp).
void clean_entity(Entity& e);

// v1 gear records (gear.cpp).
void map_v1_magic_item(const json& rec, Entity& e);
void map_v1_weapon(const json& rec, Entity& e);
void map_v1_armor(const json& rec, Entity& e);

}  // namespace lorekeeper::open5e::detail
