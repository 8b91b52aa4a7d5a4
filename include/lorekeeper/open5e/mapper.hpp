// Maps records of the Open5e v2 API into the canonical entity model.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/model/entity.hpp"

namespace lorekeeper::open5e {

using model::Document;
using model::Entity;
using model::json;
using model::Kind;

// A v2 list endpoint the store is filled from, and the kind its records become.
struct Endpoint {
  std::string_view path;  // "spells" (under /v2/)
  Kind kind;
};

// Every v2 endpoint LoreKeeper reads, in load order: documents first, rule sections before rules.
const std::vector<Endpoint>& v2_endpoints();
// The v1 endpoints read for what v2 lacks (Tome of Heroes and Level Up magic items, weapons and armor).
// Their records are kept only for documents that have no v2 entity of the same kind, so nothing is stored
// twice under v1 and v2 names.
const std::vector<Endpoint>& v1_endpoints();

// What the mapper needs to know beyond one record: the documents (by key) and rule-section names.
struct MappingContext {
  std::string base_url = "https://api.open5e.com";
  std::map<std::string, Document> documents;
  std::map<std::string, std::string> rule_section_names;  // ruleset key -> name
  // document key -> folded rule name -> the keys of that document's rules of that name (note_ruleset)
  std::map<std::string, std::map<std::string, std::vector<std::string>>> rule_names;
  std::map<std::string, Document> v1_documents;            // v1 document slug -> the document to attribute to
  std::map<std::string, json> gear;                        // weapon/armor key -> the /v2/items/ record for it
  std::vector<json> standalone_armor;                      // /v2/items/ records that are armor without an armor record
  std::map<std::string, std::string> legendary_preambles;  // v2 creature key -> its v1 `legendary_desc`
  // SRD 5.1 weapon key ("srd_whip") -> its properties as the SRD's weapon table gives them, from /v1/weapons/
  // ("finesse", "reach"; "thrown (range 20/60)"); see note_srd_weapon.
  std::map<std::string, std::vector<std::string>> srd_weapon_properties;
  // SRD 5.1 spell key ("srd_bless") -> the classes whose SRD spell list has it, from /v1/spells/ (note_srd_spell).
  std::map<std::string, std::vector<std::string>> srd_spell_classes;
};

// Notes the names and keys of the rules a /v2/rulesets/ record lists, per document, for map_rule's repair of a
// misnamed rule (the rulesets are read before the rules).
void note_ruleset(const json& record, MappingContext& ctx);

// The v1 list read only for what v2's records lack: /v1/monsters/, for the legendary-action preamble ("The
// aboleth can take 3 legendary actions, ...") v2's creatures do not carry.
inline constexpr std::string_view kV1MonstersEndpoint = "v1/monsters";

// Notes a /v1/monsters/ record's legendary-action preamble in ctx.legendary_preambles under the key of the v2
// creature it was converted to (`v2_converted_path`, "/v2/creatures/srd_aboleth/"). Returns false for a record
// without a preamble or without a v2 path.
bool note_legendary_preamble(const json& record, MappingContext& ctx);

// The v1 list read before v2's weapons for the SRD 5.1 weapon table's property lists. v2's SRD 5.1 weapons lack
// or misstate properties for 16 of 37 weapons (every Heavy weapon lacks Heavy, the Whip Finesse, the Handaxe
// Thrown, the Light Crossbow Two-Handed; the Trident is Two-Handed; the Sling's ammunition range is the Light
// Crossbow's); v1's records of the same SRD ("wotc-srd") have the table's lists.
inline constexpr std::string_view kV1WeaponsEndpoint = "v1/weapons";

// Notes a /v1/weapons/ record of SRD 5.1 (document "wotc-srd") in ctx.srd_weapon_properties under the key of its
// v2 record ("srd_" + slug). A v2 SRD 5.1 weapon (and a magic item's base weapon) whose properties disagree with
// the noted list in names or stated details takes the noted list, keeping v2's spelling of a name and v2's detail
// where the table states none ("Special (Lance)"). Returns false, noting nothing, for another document's record,
// one without properties (a list that says nothing removes nothing) or a malformed one.
bool note_srd_weapon(const json& record, MappingContext& ctx);
// The v1 list read before v2's spells for the SRD 5.1 class spell lists: v2's SRD 5.1 spells name no Paladin (31
// spells of the SRD's Paladin list, Find Steed and Branding Smite with no class at all); v1's `dnd_class` names it.
inline constexpr std::string_view kV1SpellsEndpoint = "v1/spells";

// The SRD 5.1 spellcasting classes, as /v1/spells/ names them.
inline constexpr std::string_view kSrd51SpellClasses[] = {"Bard",   "Cleric",   "Druid",   "Paladin",
                                                          "Ranger", "Sorcerer", "Warlock", "Wizard"};

// Notes a /v1/spells/ record of SRD 5.1 (document "wotc-srd") in ctx.srd_spell_classes under the key of its v2
// record ("srd_" + slug): the classes its `dnd_class` names that its `archetype` does not (v1 also names the
// classes whose subclass grants the spell, "Paladin: Vengeance" for Bane and Hold Person, which are not on the
// Paladin's list), of kSrd51SpellClasses. A v2 SRD 5.1 spell gains the noted classes it lacks; none is taken
// away. Returns false, noting nothing, for another document's record or one that names no class.
bool note_srd_spell(const json& record, MappingContext& ctx);

// A stored weapon's properties as note_srd_weapon notes them ("thrown (range 20/60)"): what a sync that cannot
// read /v1/weapons/ keeps.
std::vector<std::string> noted_properties(const Entity& weapon);

// A /v2/items/ record of a weapon or armor of the same name ("Longsword"; "Plate Armor" for armor "Plate")
// describes the same thing as that /v2/weapons/ or /v2/armor/ record: notes it in ctx.gear (its cost, weight and
// text go to that entity) and returns true, and it is not stored as an item, so nothing is stored twice. An item
// that only links to one (the 2014 "Staff" arcane focus links to Quarterstaff) is an item of its own. An item
// of category armor or shield with no armor record (SRD 5.1's Shield) is noted in ctx.standalone_armor and
// returns true: it is stored as armor (map_standalone_armor), with the armor endpoint.
bool note_gear_item(const json& record, MappingContext& ctx);

// A record noted in ctx.standalone_armor as an armor entity (its key, document and URL stay the item's): category
// from the item's ("shield"), the Armor Class its description states ("increases your Armor Class by 2" is a +2
// bonus), cost, weight and description.
Result<Entity> map_standalone_armor(const json& record, const MappingContext& ctx);

// Text as the API should have sent it: escaped line breaks ("\\n" as two characters, seen in the SRD 5.1 tools)
// become line breaks, CRLF becomes LF, and more than one empty line becomes one; a cross-reference left over from
// the source's markup ("Cover|XPHB|Total Cover", "Sphere [Area of Effect]|XPHB|Sphere", "Short Rest|XPHB|Short or
// Long Rest", seen in SRD 5.2 creatures) becomes the words it displays ("Total Cover", "Sphere",
// "Short or Long Rest"). Only the core books' codes (PHB, MM, DMG and their 2024 X- forms) are read as
// references, so other uses of "|" (tables) are left alone. A link to another SRD entry left in SRD 5.1 rule texts
// ("the srd:web spell", "srd:unseen-attackers-and-targets") becomes the words it stands for ("the web spell",
// "unseen attackers and targets"). Every mapped record's text and string fields pass through it.
std::string clean_markup(std::string_view text);

// A /v2/documents/ record as a Document.
Result<Document> map_v2_document(const json& record);

// A /v1/documents/ record as the Document its content is attributed to: the v2 document when v2 has the same
// publication (v1 "toh" is v2 "toh", "taldorei" is "tdcs", "wotc-srd" is "srd-2014"), else a v1 document.
Result<Document> map_v1_document(const json& record, const MappingContext& ctx);

// Maps one v1 record (magic item, weapon or armor) into an Entity with source_api "open5e_v1".
Result<Entity> map_v1_record(const Endpoint& endpoint, const json& record, const MappingContext& ctx);

// A reference record (condition, damage type, skill, ability, alignment, creature type) that carries one
// description per document (Level Up, SRD 5.1, SRD 5.2) as one entity per document: each in its own document (so
// document and game-system filters apply), with only that document's description, keyed like the document's other
// records ("srd_grappled" for SRD 5.1, "srd-2024_grappled", "a5e-ag_grappled"; a description of the record's own
// document keeps the record's key). Any other entity is returned as it is, alone.
std::vector<Entity> split_by_document(Entity entity, const MappingContext& ctx);

// Maps one record of `endpoint` into an Entity (a creature with a preamble in ctx.legendary_preambles gets it as
// `legendary_desc`). Errors (InvalidArgument) name what is missing or malformed;
// the caller skips such records and reports them.
Result<Entity> map_v2_record(const Endpoint& endpoint, const json& record, const MappingContext& ctx);

}  // namespace lorekeeper::open5e
