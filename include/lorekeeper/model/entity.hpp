// The canonical entity model: every piece of content, whatever its source (Open5e v2, v1, OrcBrew), is an
// Entity of one Kind, attributed to one Document, with the typed facets the tools filter on.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lorekeeper::model {

using nlohmann::json;

enum class Kind {
  kSpell,
  kCreature,
  kClass,    // classes and subclasses (a subclass has parent_key = its class)
  kSpecies,  // species and subspecies (parent_key = the species)
  kBackground,
  kFeat,
  kWeapon,
  kArmor,
  kItem,  // mundane equipment
  kMagicItem,
  kRule,
  kRuleSection,  // a ruleset: a named group of rules ("Combat")
  kCondition,
  kDamageType,
  kWeaponProperty,
  kSkill,
  kAbilityScore,
  kSpellSchool,
  kLanguage,
  kAlignment,
  kSize,
  kCreatureType,
  kItemRarity,
  kItemCategory,
  kEnvironment,
};

// Every kind, in a fixed order (used for listings and status output).
const std::vector<Kind>& all_kinds();
// Stable identifier used in the store, URIs and tool output: "spell", "magic-item", "damage-type", ...
std::string_view kind_name(Kind k);
// Its plural, as answers say it: "spells", "magic-items", "species", "armor".
std::string_view kind_plural(Kind k);
// Parses a kind identifier; also accepts plurals, other words people use ("monster", "race", "subclass",
// "equipment") and '_' or a space for '-' ("magic_items", "Spells").
std::optional<Kind> parse_kind(std::string_view name);

struct Document {
  std::string key;           // "srd-2014"
  std::string name;          // "System Reference Document 5.1"
  std::string display_name;  // "5e 2014 Rules"
  std::string publisher;     // "Wizards of the Coast"
  std::string license;       // "cc-by-40, ogl-10a"
  std::string game_system;   // "5e-2014"
  std::string source_api;    // "open5e_v2", "open5e_v1", "orcbrew"
  std::string url;           // permalink
  std::string description;
};

// Typed facets: one column each in the store, so every tool filter is an indexed comparison.
struct Facets {
  std::optional<int> level;  // spell level 0-9
  std::string school;        // spell school key, lower-case ("evocation")
  std::optional<bool> concentration;
  std::optional<bool> ritual;
  std::string casting_time;  // normalised: "action", "bonus-action", "reaction", "1minute", ...
  std::optional<double> cr;  // creature challenge rating as a number
  std::string type;          // creature type key, item category key, armor category, feat type
  std::string size;          // size key ("medium")
  std::optional<int> armor_class;
  std::optional<int> hit_points;
  std::string rarity;  // magic item rarity key ("very-rare")
  std::optional<bool> requires_attunement;
  std::string damage_dice;  // weapon damage dice ("1d8")
  std::optional<bool> is_simple;
  std::optional<double> cost;             // in gold pieces
  std::optional<double> weight;           // in pounds
  std::string parent_key;                 // subclass -> class, subspecies -> species, rule -> rule section
  std::string section;                    // rule section key for rules (ruleset), lower-case
  std::vector<std::string> classes;       // spell class names and keys, lower-case ("wizard", "srd_wizard")
  std::vector<std::string> properties;    // weapon properties, lower-case ("finesse", "two-handed")
  std::vector<std::string> damage_types;  // damage type keys, lower-case (creatures: derived, model/derived.hpp)
  // Derived at ingest (model/derived.hpp) from creatures' and spells' text and data, weapons' data:
  std::vector<std::string> casts;           // folded names of the spells a creature casts
  std::vector<std::string> conditions;      // condition keys it can inflict ("paralyzed")
  std::vector<std::string> save_abilities;  // abilities of the saving throws it calls for ("dexterity")
  std::vector<std::string> attack_ranges;   // "melee", "ranged", "reach" (creatures and weapons)
  std::vector<std::string> movement;        // creature speeds besides walking: "burrow", "climb", "fly", "swim"
  std::vector<std::string> skills;          // creature skills it is proficient in ("stealth", "perception")
  std::vector<std::string> environments;    // creature environments, folded ("swamp or marsh"), or "anywhere"
  std::vector<std::string> traits;          // "legendary", "spellcaster", "heals", "summons", "teleports"
};

struct Entity {
  Kind kind = Kind::kSpell;
  std::string key;  // the source's key, unique within a kind ("srd_fireball")
  std::string name;
  Document document;
  std::string source_api;      // "open5e_v2", "open5e_v1", "orcbrew"
  std::string url;             // the API resource it came from
  std::string text;            // plain description text, for lexical search and embedding
  json data = json::object();  // canonical fields shown to users (kind-specific; see docs/entity-model.md)
  json raw = json::object();   // the full original record, untouched (two records: see kRawPrimary)
  Facets facets;
};

// An entity completed from a second record (a v2 creature from the /v1/monsters/ record of it) keeps both,
// untouched, in `raw`: {"open5e_v2": the record it was made from, "open5e_v1": the one that completed it}. Every
// other entity's raw is its one record.
inline constexpr const char* kRawPrimary = "open5e_v2";
inline constexpr const char* kRawSecondary = "open5e_v1";

}  // namespace lorekeeper::model

namespace lorekeeper::model {

// Normalises a casting time to the stored form: "1 Action" -> "action", "1 Bonus Action" -> "bonus-action",
// "Reaction" -> "reaction", "10 Minutes" -> "10minutes", "1 hour" -> "1hour". Case and spacing are ignored.
std::string normalize_casting_time(std::string_view s);
// A normalised casting time as people write it: "action" -> "1 action", "bonus-action" -> "1 bonus action",
// "10minutes" -> "10 minutes", "1hour" -> "1 hour". Anything else is returned unchanged.
std::string casting_time_text(std::string_view normalized);

// A key-like slug of a display name: "Two-Handed" -> "two-handed", "Very Rare" -> "very-rare".
std::string slug(std::string_view s);

// The game systems an edition preference may name.
inline constexpr std::string_view kDefaultPreferredEdition = "5e-2014";
bool is_preferred_edition(std::string_view game_system);

// The order in which the editions of one name are listed, the first being "the" entry when one is picked:
// documents of the `preferred` game system ("5e-2014" or "5e-2024") first, then those of the other 5e rules,
// then every other system (Level Up A5E, ...); within each, the System Reference Documents (published by Wizards
// of the Coast) before third-party books; then by document key. A strict weak order over documents.
bool edition_before(const Document& a, const Document& b, std::string_view preferred);

// Whether `a` comes before `b` in that order for its game system or for being an SRD, not for its key alone: two
// third-party books of one system are not editions one of the other (Deep Magic's Riptide and Spells That Don't
// Suck's are different spells), and neither is preferred.
bool edition_preferred(const Document& a, const Document& b, std::string_view preferred);

}  // namespace lorekeeper::model
