// OrcBrew import: maps a homebrew file exported by OrcPub / Dungeon Master's Vault (.orcbrew, EDN text read with
// lk_edn) onto the canonical model, and says exactly what it did. Nothing here touches the store: the caller (the
// CLI's `import`) writes the documents and entities, so a dry run and a real import report the same thing.
//
// File shapes accepted:
// - A multi-pack file: a map from pack name (string) to a pack. This is what OrcPub's "export all" writes.
// - A single-pack file: a pack at the top level (keyword keys such as :orcpub.dnd.e5/spells), what OrcPub's
//   per-source export writes. As OrcPub does, the pack is named after the :option-pack its entries share, else
//   after the file: the base name of `file_label` without its extension ("Homebrew Grimoire.orcbrew" ->
//   "Homebrew Grimoire"). A file-level warning says which.
// - An empty pack name ("") becomes "Unnamed Content", with a warning.
// - Either of those inside the versioned envelope newer OrcPub builds write ({:orcbrew/format-version 2
//   :orcbrew/content <packs>}); it is unwrapped, with a warning naming the version.
// A pack is a map from kind keyword (:orcpub.dnd.e5/spells, ...; the bare name :spells is accepted too) to a map
// from entity key (keyword) to entity map. Pack-level flags (:disabled?) are not kinds.
//
// Kinds and fields (see supported_kinds()). `data` uses the field names of the Open5e v2 mapper
// (docs/entity-model.md) and facets are normalised the same way, so imported entities are filtered, searched and
// rendered like synced ones. A field is read under its bare keyword or, failing that, under the same name in any
// namespace (the magic-item builder writes :orcpub.dnd.e5.magic-items/rarity). Every kind: name <- :name;
// data.desc <- :description, else :desc, :summary or :help.
// - spells -> spell. facets: level <- :level (0-9); school <- slug of :school; casting_time <-
//   normalize_casting_time of :casting-time up to its first comma ("1 reaction, which you take when..." ->
//   "reaction", the rest in data.reaction_condition); concentration <- :concentration or a :duration starting
//   "Concentration" (data.duration keeps the rest: "up to 1 minute", as Open5e words it); ritual <- :ritual;
//   classes <- :spell-lists {:wizard true} (and :classes) as folded names and keys. data: level, school
//   ("Evocation"), casting_time, range, components ("V, S, M" from {:verbal :somatic :material}), material,
//   duration, concentration, ritual, desc and higher_level (the text after "At Higher Levels."), classes (names).
// - monsters -> creature. facets: cr <- :challenge (numbers, or text "1/4", "CR 2"); type and size <- slugs of
//   :type and :size; armor_class <- :armor-class; hit_points <- :hit-points ({:mean} or {:die :die-count
//   :modifier} as the average, a number, or "10 (3d6)"). data: size, type, subcategory (:subtypes), alignment,
//   armor_class, armor_detail (:armor-notes), hit_points, hit_dice ("11d8+33"), speed ({walk, fly, ...} from
//   "30 ft., fly 60 ft. (hover)"), ability_scores (:str ... :cha or :abilities), saving_throws, skill_bonuses,
//   damage_vulnerabilities/resistances/immunities, condition_immunities, senses ({darkvision, ...,
//   passive_perception}), languages, challenge_rating, challenge_rating_text, experience_points,
//   proficiency_bonus, desc, then traits, actions, bonus_actions, reactions, legendary_actions (with cost from
//   "Costs 2 Actions") and lair_actions as {name, desc, usage}; legendary_desc and lair_desc from the
//   :description of {:description "..." :actions [...]}.
// - classes and subclasses -> class. facets: parent_key (subclasses, from :class). data: desc, hit_dice ("D10")
//   and hit_points from :hit-die, saving_throws from :profs {:save}, caster_type from :spellcasting
//   {:level-factor} (FULL, HALF, THIRD), features from :traits ({name, desc, levels}, by level), subclass_of.
// - races and subraces -> species. facets: parent_key (subraces, from :race). data: desc, subspecies_of, traits:
//   "Ability Score Increase" (:abilities), "Size", "Speed", "Darkvision", "Languages", then :traits.
// - backgrounds -> background. data: desc, benefits: "Skill Proficiencies" and "Tool Proficiencies" (:profs),
//   "Equipment" (:equipment), then :traits.
// - feats -> feat. facets: type <- :type. data: desc, prerequisite (:prerequisite or :prereqs), type, benefits:
//   "Ability Score Increase" (:ability-increases), then :traits.
// - languages -> language. data: desc and the entity's other scalar fields (type, script, ...).
// - magic-items -> magic-item. facets: type <- slug of :item-type (or :type); rarity <- slug of :rarity;
//   requires_attunement <- :attunement ([:any], [:wizard ...], true, text) or :requires-attunement. data:
//   category, rarity, requires_attunement, attunement_detail ("by a warlock or wizard"), cost_gp, weight, desc.
// - weapons -> weapon. facets: is_simple and type (simple/martial) <- :type or :simple?; damage_dice <-
//   :damage-die-count and :damage-die (or :damage); damage_types <- :damage-type; properties <- the :finesse?
//   :light? :heavy? :two-handed? :thrown? :reach? :loading? :ammunition? flags and :versatile; cost <- :cost
//   (gp, {:num :type} or "15 gp"); weight. data: category, damage_dice, damage_type, is_melee (not :ranged?),
//   range/long_range/distance_unit (:range {:min :max}), versatile_dice, properties, cost_gp, weight.
// - armor -> armor. facets: type <- :type (light, medium, heavy, shield); armor_class <- :base-ac; cost, weight.
//   data: category, armor_class ("13 + Dex modifier (max 2)"), ac_base, ac_add_dex_modifier,
//   ac_dex_modifier_max, stealth_disadvantage, strength_required (:min-str), cost_gp, weight.
// Every other kind (invocations, selections, boons, encounters, ...) is counted in PackReport::unsupported_kinds,
// never dropped silently.
//
// Keys, all stable across re-imports of the same pack:
// - document key: document_key_for(pack name) = "orcbrew-" + slug of the folded pack name
//   ("Homebrew Grimoire" -> "orcbrew-homebrew-grimoire"). The same pack name gives the same key in any file, so
//   importing a pack again can replace it. If two packs of one file get the same key, the later one gets "-2",
//   "-3", ... (in file order) and a warning.
// - entity key: entity_key_for(document key, OrcBrew key) = "<document key>_<slug of the OrcBrew key>"
//   ("orcbrew-homebrew-grimoire_magic-missile"), the shape of Open5e's "srd_fireball". Unique within a kind
//   across packs because the document key is. Within one document and kind (classes and subclasses share kind
//   class, races and subraces kind species) a key already taken gets "-2", "-3", ... and a warning.
// - url: "orcbrew://<file label>#<pack>/<kind>/<key>" (each part percent-encoded); the document's is
//   "orcbrew://<file label>#<pack>".
// Subclasses and subraces link to their parent (:class / :race): parent_key is the parent's entity key when the
// parent is in the same file (same pack first), "srd_<key>" for the SRD 5.1 classes and races OrcPub builds in
// (so a homebrew Wizard school is listed under the SRD Wizard), else the slug of the key, with a warning.
// Spell class lists (:spell-lists {:wizard true}) resolve the same way into data.classes (names) and
// facets.classes (folded names and keys).
//
// Damage is reported, never fatal (the map is an error only when the file is not a map at all):
// - an entry that cannot become an entity (nil, not a map, no usable key) is an ImportProblem; the rest of its
//   pack is still imported. A kind whose value is not a map (ImportProblem with an empty key) or a pack that is
//   not a map (empty kind and key) likewise. A vector of entity maps where a map of them is expected is imported
//   entry by entry (keyed by :key or the name), with a warning. A kind that is nil is a warning (nothing lost).
// - a field of the wrong type (a number where text is expected, a map where a list is, a string challenge
//   rating, ##NaN / ##Inf) is converted when the intent is clear ("1/4" -> 0.25, 42 -> "42") and ignored
//   otherwise; either way a warning "<kind>/<key>: ..." says what happened. A missing name falls back to the key
//   ("fire-bolt" -> "Fire Bolt") with a warning.
// - duplicate map keys (kept by the EDN reader with the last value) are file-level warnings with line and column.
//
// Entities: source_api "orcbrew"; raw = the entity map as JSON (to_json); text = plain text for lexical and
// semantic search (description, traits, actions, features...); data and facets as above. Documents: name = the
// pack name, publisher "Homebrew (OrcBrew)", game system "5e-2014" (OrcPub builds 5e 2014 characters),
// source_api "orcbrew".
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/edn/edn.hpp"
#include "lorekeeper/model/entity.hpp"

namespace lorekeeper::orcbrew {

inline constexpr std::string_view kSourceApi = "orcbrew";
inline constexpr std::string_view kPublisher = "Homebrew (OrcBrew)";
inline constexpr std::string_view kGameSystem = "5e-2014";
// Most EDN values a file may hold (edn::ParseOptions::max_values): a realistic pack holds about 0.06 a byte (a 40 MB
// pack of 42,000 spells and monsters 2.45 million), so a pack of the largest file imported (64 MiB) fits, and a file
// of many tiny values ("[0 0 0 ...]") cannot make the reader take gigabytes.
inline constexpr size_t kMaxValues = 4'000'000;

// An OrcBrew kind the model has, and the model kind its entities become.
struct KindMapping {
  std::string_view orcbrew_kind;  // the name part of the kind keyword: "spells", "subclasses", "magic-items"
  model::Kind kind;
  std::string_view parent_kind;  // for subclasses and subraces, the kind of their parent ("classes", "races")
};

// Every supported kind, in a fixed order (for listings such as a dry run's legend).
const std::vector<KindMapping>& supported_kinds();
// The model kind for an OrcBrew kind name ("monsters" -> creature), if it is supported.
std::optional<model::Kind> model_kind_for(std::string_view orcbrew_kind);

// Something in the file that could not be imported, and why: an entity (kind and key set), a whole kind (key
// empty) or a whole pack (kind and key empty). `kind` is the OrcBrew kind name ("spells"; for a pack entry keyed
// by something other than a keyword, that key printed as EDN), `key` the OrcBrew key as written
// ("magic-missile"; "[3]" for the fourth element of a vector; the printed EDN of a key that is not a keyword).
struct ImportProblem {
  std::string pack, kind, key, reason;
};

// What happened to one pack.
struct PackReport {
  std::string pack_name;
  // The pack's document (always filled, also when nothing was imported, so a re-import can clear a pack that
  // became empty).
  model::Document document;
  std::map<std::string, int> imported_per_kind;  // OrcBrew kind name -> entities imported
  std::map<std::string, int> unsupported_kinds;  // OrcBrew kind name (qualified if foreign) -> entries not imported
  std::vector<ImportProblem> problems;
  std::vector<std::string> warnings;  // "<kind>/<key>: <what was converted or ignored>", or pack-level notes

  int imported() const;          // sum of imported_per_kind
  int unsupported() const;       // sum of unsupported_kinds
  int skipped_entities() const;  // problems that name an entity (non-empty key)
};

// The result of mapping one file.
struct FileImport {
  // One document per pack that imported at least one entity, in file order.
  std::vector<model::Document> documents;
  std::vector<model::Entity> entities;  // grouped by pack, in file order
  std::vector<PackReport> packs;        // one per pack, in file order
  // File-level notes: duplicate map keys (with line and column), single-pack naming, the envelope, top-level
  // keys that are not pack names (their content is not imported), a file without packs.
  std::vector<std::string> warnings;
  size_t duplicate_map_keys = 0;  // as counted by the EDN reader (read_orcbrew only)
};

// Stable document key of a pack: "orcbrew-" + slug of the folded name ("Tasha's Extras" -> "orcbrew-tashas-extras");
// "orcbrew-" + 8 hex digits of a hash of the name when the name has no ASCII letters or digits ("" included).
std::string document_key_for(const std::string& pack_name);
// Stable entity key: "<document_key>_<slug of the folded OrcBrew key>" (slug empty: a hash, as above).
std::string entity_key_for(const std::string& document_key, std::string_view orcbrew_key);

// Maps a parsed file. InvalidArgument (naming `file_label`) only when `root` is not a map, or is a versioned
// envelope without a map of packs inside; every other problem is in the report. `file_label` names the file in
// URLs and messages, and names a single-pack file's pack when its entries share no :option-pack.
Result<FileImport> map_orcbrew(const edn::Value& root, const std::string& file_label);

// Parses `text` (a byte order mark, ##NaN and ##Inf are accepted) and maps it. EDN errors are InvalidArgument
// "<file_label>: line L, column C: ..." (also for a file of more than kMaxValues values); duplicate map keys become
// file-level warnings. Memory: the text is freed
// once parsed (move it in), and each entry of the parsed tree once it is mapped, so a large pack's text, tree and
// entities are not all held at once.
Result<FileImport> read_orcbrew(std::string text, const std::string& file_label);

// EDN -> JSON, deterministic: nil -> null; keywords and symbols -> their qualified text without ':'
// ("orcpub.dnd.e5/spells"); big integers -> their digits as a string; NaN and infinities -> null; characters ->
// one-character strings; lists, vectors and sets -> arrays; maps -> objects whose keys are the text of string,
// keyword and symbol keys and the printed EDN of any other key (a later equal key overwrites an earlier one);
// tagged values -> their value.
nlohmann::json to_json(const edn::Value& value);

// The report as JSON (for `import --json`): {"file", "packs": [{"pack", "document_key", "imported": {kind: n},
// "imported_total", "unsupported": {kind: n}, "problems": [{"kind", "key", "reason"}], "warnings": [...]}],
// "warnings": [...], "entities", "documents"}.
nlohmann::json report_json(const FileImport& import, const std::string& file_label);

}  // namespace lorekeeper::orcbrew
