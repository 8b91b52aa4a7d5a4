// Maps records of the Open5e v2 API into the canonical entity model.
#pragma once

#include <map>
#include <optional>
#include <set>
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

// A spell's class lists as a /v1/spells/ record states them: the classes whose own list has it ("Sorcerer",
// "Wizard") and the subclasses that grant it ("Cleric: Light", "Warlock: Fiend").
struct V1SpellClasses {
  std::vector<std::string> classes;
  std::vector<std::string> subclass_grants;
  // v1's range and casting time, which say more than v2's for some spells ("Self (60-foot radius)" for "Self", "1
  // action, or 1 reaction that you take while falling" for "1 action"): taken where they go on from v2's.
  std::string range;
  std::string casting_time;
};

// What the mapper needs to know beyond one record: the documents (by key) and rule-section names.
struct MappingContext {
  std::string base_url = "https://api.open5e.com";
  std::map<std::string, Document> documents;
  std::map<std::string, std::string> rule_section_names;  // ruleset key -> name
  // document key -> folded rule name -> the keys of that document's rules of that name (note_ruleset)
  std::map<std::string, std::map<std::string, std::vector<std::string>>> rule_names;
  std::map<std::string, Document> v1_documents;  // v1 document slug -> the document to attribute to
  std::map<std::string, json> gear;              // weapon/armor key -> the /v2/items/ record for it
  std::vector<json> standalone_armor;            // /v2/items/ records that are armor without an armor record
  std::vector<json> services;                    // /v2/services/ records, stored as items (map_v2_service)
  std::map<std::string, json> v1_monsters;       // v2 creature key -> the /v1/monsters/ record of it
  // SRD 5.1 weapon key ("srd_whip") -> its properties as the SRD's weapon table gives them, from /v1/weapons/
  // ("finesse", "reach"; "thrown (range 20/60)"); see note_srd_weapon.
  std::map<std::string, std::vector<std::string>> srd_weapon_properties;
  // v1_note_key(v2 document, spell name) -> the spell's class lists as /v1/spells/ states them
  // (note_v1_spell).
  std::map<std::string, V1SpellClasses> v1_spell_classes;
  // (species or background, v1_note_key(v2 document, name)) -> the /v1/races/ or /v1/backgrounds/ record of that
  // name (note_v1_lore).
  std::map<std::pair<Kind, std::string>, json> v1_lore;
};

// Notes the names and keys of the rules a /v2/rulesets/ record lists, per document, for map_rule's repair of a
// misnamed rule (the rulesets are read before the rules).
void note_ruleset(const json& record, MappingContext& ctx);

// The v1 list read before v2's creatures for what their records lack: /v1/monsters/. v2's Tome of Beasts 3
// creatures have no actions (1 of 397), v2 drops the limit of use v1 keeps in an action's name ("Acid Spray
// (Recharge 6)"), the lore (Tome of Beasts 1-2, SRD 5.1's NPCs), sense qualifiers ("blind beyond this radius"),
// speed notes and the legendary-action preamble ("The aboleth can take 3 legendary actions, ...").
inline constexpr std::string_view kV1MonstersEndpoint = "v1/monsters";

// A merged entity's `raw`: {"open5e_v2": the v2 record, "open5e_v1": the v1 record that completed it}, both
// untouched (model::kRawPrimary, kRawSecondary). Other entities' raw is their one record.
inline constexpr const char* kRawV2 = model::kRawPrimary;
inline constexpr const char* kRawV1 = model::kRawSecondary;

// The key of the v2 creature a /v1/monsters/ record was converted to (`v2_converted_path`,
// "/v2/creatures/srd_aboleth/" -> "srd_aboleth"); empty without one.
std::string v2_key_of_v1_monster(const json& record);

// Notes a /v1/monsters/ record in ctx.v1_monsters under the key of the v2 creature it was converted to. The v2
// creature is completed from it (map_v2_record; docs/entity-model.md says what is taken). Returns false for a
// record without a v2 path.
bool note_v1_monster(const json& record, MappingContext& ctx);

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
// The v1 list read before v2's spells for the class spell lists: v2's SRD 5.1 spells name no Paladin (31 spells
// of the SRD's Paladin list; Find Steed and Branding Smite have no class at all) and put the spells a subclass grants
// on the class's own list (Burning Hands on the Cleric's, from the Light domain); 950 third-party spells have no
// class in v2 (Deep Magic, Level Up, Tome of Heroes, Warlock Archives, Kobold Press) or lose the Sorcerer (Deep
// Magic Extended spells it "Sorceror"). v1's `dnd_class` names the classes, `archetype` the subclass grants.
inline constexpr std::string_view kV1SpellsEndpoint = "v1/spells";

// /v1/races/, /v1/backgrounds/ and /v1/classes/ hold what some v2 records of the same name lack: Tome of Heroes'
// Shade has no traits in v2, Level Up's backgrounds no description, SRD 5.1's twelve subclasses no introduction and
// its classes no sidebars, Tome of Heroes' Path of Hellfire no features. They are read before the v2 lists.
inline constexpr std::string_view kV1RacesEndpoint = "v1/races";
inline constexpr std::string_view kV1BackgroundsEndpoint = "v1/backgrounds";
inline constexpr std::string_view kV1ClassesEndpoint = "v1/classes";
// /v1/magicitems/ is read ahead too, for the text v2 cut short (SRD 5.1's Deck of Many Things stops at the Skull).
inline constexpr std::string_view kV1MagicItemsEndpoint = "v1/magicitems";

// Notes a /v1/races/ (kind kSpecies) or /v1/backgrounds/ (kBackground) record, or each archetype of a /v1/classes/
// record (kClass), in ctx.v1_lore for the v2 record of the same name in the v2 document of its (the archetype's)
// v1 document (kV1Documents). A v2 species without traits then takes the race's: each "***Name.*** text" paragraph
// of its asi_desc, age, alignment, size, speed_desc, languages, vision and traits; a v2 background without a
// description takes v1's; a v2 subclass without one takes its archetype's introduction (the text before its
// first heading: "For some barbarians, rage is a means to an end ..."); a v2 magic item (kMagicItem) whose text v1's
// goes on from takes v1's. An entity completed so keeps both records in its raw. Returns false, noting nothing, for a
// record without a name or of a document without v2 records.
bool note_v1_lore(const json& rec, Kind kind, MappingContext& ctx);

// The SRD 5.1 spellcasting classes, as /v1/spells/ names them.
inline constexpr std::string_view kSrd51SpellClasses[] = {"Bard",   "Cleric",   "Druid",   "Paladin",
                                                          "Ranger", "Sorcerer", "Warlock", "Wizard"};

// The v2 document of each v1 document whose spells, races or backgrounds v2 also has (the v1 documents'
// `v2_related_key`; v1's "a5e" spells and backgrounds are v2's Level Up Adventurer's Guide).
inline constexpr std::pair<std::string_view, std::string_view> kV1Documents[] = {
    {"wotc-srd", "srd-2014"}, {"dmag", "deepm"}, {"dmag-e", "deepmx"}, {"a5e", "a5e-ag"}, {"toh", "toh"}, {"kp", "kp"},
    {"o5e", "open5e"},        {"warlock", "wz"}, {"taldorei", "tdcs"}};

// A text's words, folded (text::fold), joined by single spaces: texts compared whatever their markup.
std::string text_words(std::string_view text);

// Adds the words of a name (text_words: "Witch Hunter's Armor": witch, hunters, armor).
void add_name_words(std::string_view name, std::set<std::string>& words);

// Whether a v2 record's name covers a v1 record's of the same kind and document: the same name, or a variant v2 splits
// the v1 record into, whose name holds every word of v1's but those naming what a variant is made of or how strong
// it is ("Agile Breastplate" for "Agile Armor", "Greatsword of Volsung" for "Sword of Volsung", "Ioun Stone
// (Agility)" for "Ioun Stone"; any for "Weapon, +1, +2, or +3").
bool name_covers(std::string_view v2_name, std::string_view v1_name);
// Whether the v2 record of `v2_name` is the v1 record's of `v1_name` (or a variant of it): it covers it, and no
// other of the v1 names of its list and document (`v1_names`) covers it more closely ("Molten Hellfire Breastplate"
// is the Molten Hellfire Armor's, not the Hellfire Armor's). A v1 record no v2 record is is one v2 lacks (Vault of
// Magic's Armor of Spite and Hellfire Armor, SRD 5.1's Berserker Axe).
bool name_is_v1s(std::string_view v2_name, std::string_view v1_name, const std::vector<std::string>& v1_names);

// Whether a /v1/armor/ record is the Armor Class of a class feature, a spell or no armor (SRD 5.1's Unarmored Defense,
// Mage Armor, Unarmored): not armor; v2 has it in the feature's, the spell's or the rule's text.
bool v1_armor_is_a_formula(const json& rec);

// The v2 document of a v1 document (kV1Documents); empty for one v2 has no records of.
std::string_view v2_document_of_v1(std::string_view v1_document);

// The key a v1 record is noted under for the v2 record of the same name: its v2 document and its folded name.
std::string v1_note_key(std::string_view document, std::string_view name);

// Notes a /v1/spells/ record's class lists in ctx.v1_spell_classes for the v2 spell of the same name in the v2
// document of its v1 document (kV1Documents): the classes `dnd_class` names that `archetype` does not name as a
// subclass's grant ("Cleric: Light" for Burning Hands), "Sorceror" read as Sorcerer and "Ritual Caster" (a feat)
// left out, and the grants. The v2 spell's classes become its own classes that no grant names, then the noted
// classes it lacks; the grants are its `subclass_grants`; its range and casting time where v1's go on from v2's.
// Returns false, noting nothing, for a record of a document without v2 spells, without a name, or naming no class,
// grant, range or casting time.
bool note_v1_spell(const json& record, MappingContext& ctx);

// The v1 list of SRD 5.1's rule chapters, read after v2's rules for the rules v2 lacks: SRD 5.1's Healing, Dropping
// to 0 Hit Points, Death Saving Throws, Stabilizing a Creature, Instant Death, Temporary Hit Points, Short Rest and
// Long Rest are in no v2 record.
inline constexpr std::string_view kV1SectionsEndpoint = "v1/sections";

// Lower-case letters and digits of `text` only: what the coverage of a v1 section's text is judged on (v1's texts
// lose spaces at line ends, "theday").
std::string squashed(std::string_view text);

// The rules of a /v1/sections/ record of SRD 5.1 ("wotc-srd") that no v2 record holds: the section's Markdown cut at
// its headings, each heading with its text up to the next heading, kept when the first 120 squashed characters of
// that text are not in `covered` (the squashed texts of SRD 5.1's v2 rules, rule sections and conditions). Each is a
// rule of srd-2014 with source_api "open5e_v1", keyed "srd_<section slug>_<heading slug>", in the v2 rule section of
// the same slug where there is one ("Damage and Healing"), else in a section named as v1 names it ("Rest").
std::vector<Entity> map_v1_section(const json& record, const MappingContext& ctx, const std::string& covered);

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

// /v2/services/ lists what SRD 5.2 prices that is no thing: lifestyles, food and lodging, hirelings, messengers,
// stabling and spellcasting. It is read before v2's lists; each record is stored as an item of category "Service"
// with the items endpoint (its key, document and URL its own), its cost in cost_gp and what the cost is for in
// cost_per ("per day", "per mile"; the record's "1 day" reads "per day").
inline constexpr std::string_view kV2ServicesEndpoint = "v2/services";
Result<Entity> map_v2_service(const json& record, const MappingContext& ctx);

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

// Maps one record of `endpoint` into an Entity (a creature with a record in ctx.v1_monsters is completed from it,
// and its raw holds both records). Errors (InvalidArgument) name what is missing or malformed;
// the caller skips such records and reports them.
Result<Entity> map_v2_record(const Endpoint& endpoint, const json& record, const MappingContext& ctx);

}  // namespace lorekeeper::open5e
