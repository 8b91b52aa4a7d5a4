#include "lorekeeper/open5e/field_map.hpp"

#include <array>

namespace lorekeeper::open5e {
namespace {

constexpr std::string_view kUnitFeet = "the unit of the number beside it, shown with it (\"30 ft.\", \"150 feet\")";
constexpr std::string_view kActionLists =
    "actions|bonus_actions|reactions|legendary_actions|mythic_actions|lair_actions";
constexpr std::string_view kOtherEntity = "the description of a record that is an entity of its own";
constexpr std::string_view kKeyOfNamed = "a key; the answer names what it is the key of";
constexpr std::string_view kV2Numbers =
    "the numbers of v2's entry of the same name, which the answer shows (v1's differ only where v1 errs: "
    "`srd_vampire-spawn` Claws +61)";
constexpr std::string_view kShieldBonus =
    "a shield adds its bonus alone: Tome of Heroes' Kite Shield record says \"11 + Dex modifier +2\", shown \"+2\"";
constexpr std::string_view kStatBlockV2 =
    "the stat block's number or list is the v2 record's, which the answer shows; v1's differs only where a record "
    "errs (`a5e-mm_tarrasque` size Titanic)";
constexpr std::string_view kRaceParagraphs = "each \"***Name.*** text\" paragraph is a trait of that name";
constexpr std::string_view kGoldAndPounds = "a number: a cost in gold pieces (\"5 sp\" is 0.5), a weight in pounds";
constexpr std::string_view kGluedRange =
    "v1's range where v2 glued it to another number of v1's senses line (\"darkvision 14120 ft.\" for 120 beside "
    "passive Perception 14)";
constexpr std::string_view kV1SpellText =
    "v1's text of the same spell: v2's record's is the answer's (the same words, but for a few paraphrases: "
    "srd_mirror-image)";
constexpr std::string_view kV2Benefits =
    "the v2 record's benefits say what the background gives, in the book's newer wording; v1 gives the older draft";
constexpr std::string_view kDefault2014Thunder =
    "the damage type the attack's own text names: 532 of 538 SRD 5.1 attack records say Thunder (`srd_acolyte` "
    "Club is bludgeoning)";

std::vector<RecordMap> build() {
  using F = Fate;
  // A /v1/weapons/ record, an entity of its own or of a v2 weapon's document and name.
  const std::vector<FieldRule> v1_weapon = {
      {"category", F::kReworded, "category", "\"simple\" or \"martial\", and is_melee"},
      {"cost", F::kReworded, "cost_gp", kGoldAndPounds},
      {"damage_dice", F::kKept, "damage_dice"},
      {"damage_type", F::kKept, "damage_type"},
      {"weight", F::kReworded, "weight", kGoldAndPounds},
      {"properties", F::kReworded, "properties", "each property's name and detail: \"versatile (1d10)\""}};
  // A /v1/armor/ record, likewise.
  const std::vector<FieldRule> v1_armor = {
      {"category", F::kShownAs, "category", "light, medium, heavy or shield"},
      {"base_ac", F::kCorrected, "ac_base", kShieldBonus},
      {"plus_dex_mod", F::kShownAs, "ac_add_dex_modifier", "\"+ Dex modifier\" in armor_class"},
      {"plus_max", F::kKept, "ac_dex_modifier_max"},
      {"plus_flat_mod", F::kKept, "armor_class"},
      {"ac_string", F::kCorrected, "armor_class", kShieldBonus},
      {"cost", F::kReworded, "cost_gp", kGoldAndPounds},
      {"stealth_disadvantage", F::kShownAs, "stealth_disadvantage", "\"Stealth: disadvantage\""},
      {"strength_requirement", F::kKept, "strength_required"}};
  return {
      {"*",
       "*",
       {{"key", F::kHeader},
        {"slug", F::kHeader},
        {"name", F::kHeader},
        {"document", F::kHeader},
        {"document.gamesystem", F::kShownAs, "document", "the key of the document's game system (`5e-2014`)"},
        {"document.publisher", F::kShownAs, "document",
         "the publisher of the entity's document, named in every answer's `document` (a reference kind's "
         "description is an entity of the description's document, whose publisher may differ from the record's)"},
        {"document.permalink", F::kDropped, {}, "the web page of the document; the document is named"},
        {"document__slug", F::kHeader},
        {"document__title", F::kHeader},
        {"document__url", F::kDropped, {}, "the web page of the document; the document is named"},
        {"document__license_url", F::kDropped, {}, "the web page of the document's licence; the licence is named"},
        {"crossreferences", F::kDropped, {}, "links to the records it names, which are entities of their own"}}},

      {"open5e_v2",
       "spell",
       {{"level", F::kKept, "level"},
        {"school", F::kKept, "school"},
        {"casting_time", F::kKept, "casting_time"},
        {"reaction_condition", F::kKept, "reaction_condition"},
        {"range_text", F::kKept, "range"},
        {"range", F::kShownAs, "range", "the range in feet; `range` is the book's words (\"Sight\", \"Unlimited\")"},
        {"range_unit", F::kShownAs, "range", kUnitFeet, "range_text"},
        {"verbal", F::kShownAs, "components", "\"V\" in components"},
        {"somatic", F::kShownAs, "components", "\"S\" in components"},
        {"material", F::kShownAs, "components", "\"M\" in components"},
        {"material_specified", F::kKept, "material"},
        {"material_cost", F::kKept, "material_cost"},
        {"material_consumed", F::kKept, "material_consumed"},
        {"duration", F::kKept, "duration"},
        {"concentration", F::kShownAs, "concentration", "\"Concentration\" before the duration"},
        {"ritual", F::kShownAs, "ritual", "\"(ritual)\" after the level"},
        {"desc", F::kKept, "desc"},
        {"higher_level", F::kKept, "higher_level"},
        {"classes", F::kCorrected, "classes|subclass_grants",
         "from /v1/spells/ for every document: a class v1 names only through a subclass's grant is under "
         "subclass_grants (SRD 5.1 Burning Hands: Cleric through the Light domain)"},
        {"classes[].key", F::kShownAs, "classes", kKeyOfNamed},
        {"damage_roll", F::kKept, "damage_roll|healing_roll|roll"},
        {"damage_types", F::kKept, "damage_types"},
        {"saving_throw_ability", F::kKept, "saving_throw_ability"},
        {"attack_roll", F::kShownAs, "attack_roll", "\"Attack roll\" among the spell's facts"},
        {"target_type", F::kKept, "target_type"},
        {"target_count", F::kKept, "target_count"},
        {"shape_type", F::kKept, "area"},
        {"shape_size", F::kKept, "area"},
        {"shape_size_unit", F::kShownAs, "area", kUnitFeet, "shape_size"},
        {"casting_options", F::kKept,
         "casting_options|damage_roll|healing_roll|roll|duration|range|target_count|area|concentration"},
        {"casting_options[].type", F::kShownAs, "casting_options",
         "which casting an option is for (a ritual, a slot level), shown as the option's heading"}}},

      {"open5e_v2",
       "creature",
       {{"type", F::kKept, "type"},
        {"size", F::kKept, "size"},
        {"subcategory", F::kCorrected, "subcategory",
         "v1's subtype where it differs: for 25 SRD 5.1 creatures v2 gives the heading the book prints the stat "
         "block under (Demons, Lycanthropes, Half-Dragon Template) instead of its tag (demon, human, shapechanger)"},
        {"alignment", F::kKept, "alignment"},
        {"armor_class", F::kKept, "armor_class"},
        {"armor_detail", F::kKept, "armor_detail"},
        {"hit_points", F::kKept, "hit_points"},
        {"hit_dice", F::kKept, "hit_dice"},
        {"speed", F::kKept, "speed"},
        {"speed.unit", F::kShownAs, "speed", kUnitFeet},
        {"speed_all",
         F::kDropped,
         {},
         "every movement mode, with what any creature has without a speed of its own (climbing, swimming and "
         "crawling at half its walking speed); `speed` holds the creature's own"},
        {"ability_scores", F::kKept, "ability_scores"},
        {"modifiers", F::kDropped, {}, "the ability modifiers, computed from ability_scores and shown beside them"},
        {"saving_throws", F::kKept, "saving_throws"},
        {"saving_throws_all",
         F::kDropped,
         {},
         "every ability's save, proficient or not; saving_throws holds the proficient ones"},
        {"skill_bonuses", F::kKept, "skill_bonuses"},
        {"skill_bonuses_all",
         F::kDropped,
         {},
         "every skill's bonus, proficient or not; skill_bonuses holds the proficient ones"},
        {"resistances_and_immunities", F::kKept,
         "damage_vulnerabilities|damage_resistances|damage_immunities|condition_immunities"},
        {"resistances_and_immunities.damage_vulnerabilities", F::kShownAs, "damage_vulnerabilities",
         "the types the display text names, in the API's vocabulary; the display text is kept"},
        {"resistances_and_immunities.damage_resistances", F::kShownAs, "damage_resistances",
         "the types the display text names, in the API's vocabulary (\"damage from nonmagical weapons\" lists "
         "bludgeoning, piercing and slashing); the display text is kept"},
        {"resistances_and_immunities.damage_immunities", F::kShownAs, "damage_immunities",
         "the types the display text names, in the API's vocabulary; the display text is kept"},
        {"resistances_and_immunities.condition_immunities", F::kShownAs, "condition_immunities",
         "the conditions the display text names, in the API's vocabulary; the display text is kept"},
        {"darkvision_range", F::kCorrected, "senses.darkvision", kGluedRange},
        {"blindsight_range", F::kCorrected, "senses.blindsight", kGluedRange},
        {"tremorsense_range", F::kCorrected, "senses.tremorsense", kGluedRange},
        {"truesight_range", F::kCorrected, "senses.truesight", kGluedRange},
        {"normal_sight_range",
         F::kDropped,
         {},
         "how far anyone sees in clear conditions (two miles), the same for every creature"},
        {"passive_perception", F::kCorrected, "senses.passive_perception",
         "v1's passive Perception where v2's is the bare 10 + Wisdom modifier below it: in 161 Black Flag stat "
         "blocks v2 leaves out the proficiency the book's number includes (the Adult Black Dragon: 17 for 22)"},
        {"languages", F::kKept, "languages"},
        {"languages.data[].desc", F::kDropped, {}, kOtherEntity},
        {"challenge_rating", F::kKept, "challenge_rating"},
        {"experience_points", F::kKept, "experience_points"},
        {"proficiency_bonus", F::kKept, "proficiency_bonus"},
        {"initiative_bonus", F::kKept, "initiative_bonus"},
        {"traits", F::kKept, "traits"},
        {"traits[].desc", F::kCorrected, "traits",
         "v1's text where v2's lost part of it: Level Up's kobold sorcerer's spell list reads \"1/Day Each: ., "
         "expeditious retreat\", where v1's names charm person"},
        {"actions", F::kKept, kActionLists},
        {"actions[].name", F::kReworded, kActionLists,
         "the name without a limit of use v1's name adds to it, which is the entry's usage"},
        {"actions[].action_type", F::kShownAs, kActionLists,
         "the list the entry is in (actions, bonus_actions, reactions, legendary_actions, ...)"},
        {"actions[].order_in_statblock", F::kShownAs, kActionLists, "the order the entries are listed in"},
        {"actions[].legendary_action_cost", F::kShownAs, "legendary_actions",
         "`cost`, shown \"(Costs 2 Actions)\" above 1"},
        {"actions[].usage_limits", F::kCorrected, kActionLists,
         "`usage`, or v1's limit where v1's name for the action states it (the Doppelrat's \"recharges after 10 "
         "minutes\" for v2's 144/Day)"},
        {"actions[].usage_limits.type", F::kShownAs, kActionLists, "`usage` in words: \"Recharge 5-6\", \"3/Day\""},
        {"actions[].limited_to_form", F::kKept, kActionLists},
        {"actions[].attacks[].name", F::kReworded, kActionLists, "the action's name; the API adds \" attack\""},
        {"actions[].attacks[].distance_unit", F::kShownAs, kActionLists, kUnitFeet},
        {"actions[].attacks[].damage_type", F::kCorrected, kActionLists, kDefault2014Thunder},
        {"actions[].attacks[].extra_damage_type", F::kCorrected, kActionLists, kDefault2014Thunder},
        {"actions[].attacks[].attack_type", F::kShownAs, kActionLists, "`attack_type`: \"Melee Weapon Attack\""},
        {"environments", F::kKept, "environments"},
        {"environments[].key", F::kShownAs, "environments", kKeyOfNamed},
        {"category",
         F::kDropped,
         {},
         "the part of the book the stat block is printed in (Monsters, Animals); type says what it is"},
        {"creaturesets",
         F::kDropped,
         {},
         "the API's grouping of some stat blocks (common mounts); not a property of the creature"},
        {"illustration", F::kDropped, {}, "an image file and its credit; answers are text"}}},

      // The /v1/monsters/ record a v2 creature is completed from (docs/entity-model.md, "creature"): what v2 lacks is
      // taken from it; the stat block's numbers are the v2 record's.
      {"open5e_v1 monster",
       "creature",
       {{"desc", F::kKept, "desc"},
        {"actions", F::kReworded, "actions|bonus_actions|reactions|legendary_actions",
         "v2's text of an entry both records have is kept (v1's lists of spells are laid out as one line)"},
        {"bonus_actions", F::kReworded, "bonus_actions|actions|legendary_actions",
         "v2's text of an entry both records have is kept"},
        {"reactions", F::kReworded, "reactions", "v2's text of an entry both records have is kept"},
        {"legendary_actions", F::kReworded, "legendary_actions", "v2's text of an entry both records have is kept"},
        {"legendary_desc", F::kKept, "legendary_desc"},
        {"special_abilities", F::kReworded, "traits", "v2's text of a trait both records have is kept"},
        {"senses", F::kSuperseded, "senses_detail|senses",
         "the senses line is v2's fields (darkvision_range, ...); v1's line is kept as senses_detail where it says "
         "more (\"blind beyond this radius\", keensense)"},
        {"actions[].attack_bonus", F::kSuperseded, kActionLists, kV2Numbers},
        {"actions[].damage_bonus", F::kSuperseded, kActionLists, kV2Numbers},
        {"actions[].damage_dice", F::kSuperseded, kActionLists, kV2Numbers},
        {"special_abilities[].damage_dice", F::kSuperseded, "traits", kV2Numbers},
        {"subtype", F::kKept, "subcategory"},
        {"speed", F::kSuperseded, "speed", kStatBlockV2},
        {"size", F::kSuperseded, "size", kStatBlockV2},
        {"type", F::kSuperseded, "type", kStatBlockV2},
        {"alignment", F::kSuperseded, "alignment", kStatBlockV2},
        {"armor_class", F::kSuperseded, "armor_class", kStatBlockV2},
        {"armor_desc", F::kKept, "armor_detail"},
        {"hit_points", F::kSuperseded, "hit_points", kStatBlockV2},
        {"hit_dice", F::kSuperseded, "hit_dice", kStatBlockV2},
        {"strength", F::kSuperseded, "ability_scores", kStatBlockV2},
        {"dexterity", F::kSuperseded, "ability_scores", kStatBlockV2},
        {"constitution", F::kSuperseded, "ability_scores", kStatBlockV2},
        {"intelligence", F::kSuperseded, "ability_scores", kStatBlockV2},
        {"wisdom", F::kSuperseded, "ability_scores", kStatBlockV2},
        {"charisma", F::kSuperseded, "ability_scores", kStatBlockV2},
        {"strength_save", F::kSuperseded, "saving_throws", kStatBlockV2},
        {"dexterity_save", F::kSuperseded, "saving_throws", kStatBlockV2},
        {"constitution_save", F::kSuperseded, "saving_throws", kStatBlockV2},
        {"intelligence_save", F::kSuperseded, "saving_throws", kStatBlockV2},
        {"wisdom_save", F::kSuperseded, "saving_throws", kStatBlockV2},
        {"charisma_save", F::kSuperseded, "saving_throws", kStatBlockV2},
        {"skills", F::kSuperseded, "skill_bonuses", kStatBlockV2},
        {"perception", F::kSuperseded, "skill_bonuses|senses.passive_perception",
         "the Perception skill's bonus (SRD 5.1, Tome of Beasts 1-3, Creature Codex) or the passive score (Black "
         "Flag, Tome of Beasts 2023), shown where v2's passive Perception is the bare 10 + Wisdom modifier below "
         "it; where v1's is lower (8 stat blocks), or v2's is not that bare number (tob-2023_fraughashar), neither "
         "record proves the other wrong, and v2's is kept"},
        {"damage_vulnerabilities", F::kSuperseded, "damage_vulnerabilities", kStatBlockV2},
        {"damage_resistances", F::kSuperseded, "damage_resistances", kStatBlockV2},
        {"damage_immunities", F::kSuperseded, "damage_immunities", kStatBlockV2},
        {"condition_immunities", F::kSuperseded, "condition_immunities", kStatBlockV2},
        {"languages", F::kSuperseded, "languages", kStatBlockV2},
        {"challenge_rating", F::kSuperseded, "challenge_rating", kStatBlockV2},
        {"cr", F::kSuperseded, "challenge_rating", kStatBlockV2},
        {"environments",
         F::kDropped,
         {},
         "SRD 5.1's places in v1's words (settlement, caverns, underdark) for those v2's environments name (urban, "
         "caves, underworld); v2's list is kept"},
        {"group",
         F::kDropped,
         {},
         "the heading the book prints the stat block under (Demons, Lycanthropes, NPCs); the stat block's own tag is "
         "the subtype"},
        {"spell_list",
         F::kDropped,
         {},
         "links to the spells its spellcasting text names, which are entities of their own"},
        {"page_no", F::kDropped, {}, "the page of the printed book"},
        {"img_main", F::kDropped, {}, "an image file; answers are text"},
        {"v2_converted_path", F::kHeader}}},

      // A /v1/spells/ record: it lends the v2 spell of the same name its class lists (docs/entity-model.md, "spell").
      {"open5e_v1 spell",
       "spell",
       {{"desc", F::kSuperseded, "desc|higher_level", kV1SpellText},
        {"higher_level", F::kSuperseded, "higher_level|desc", kV1SpellText},
        {"range", F::kReworded, "range|area", "v2's range and area, or v1's range where it goes on from v2's"},
        {"target_range_sort", F::kDropped, {}, "a number the API sorts ranges by"},
        {"components", F::kKept, "components"},
        {"requires_verbal_components", F::kShownAs, "components", "\"V\" in components"},
        {"requires_somatic_components", F::kShownAs, "components", "\"S\" in components"},
        {"requires_material_components", F::kShownAs, "components", "\"M\" in components"},
        {"material", F::kSuperseded, "material", kV1SpellText},
        {"ritual", F::kShownAs, {}, "\"(ritual)\" after the level, from v2's record"},
        {"can_be_cast_as_ritual", F::kShownAs, {}, "\"(ritual)\" after the level, from v2's record"},
        {"concentration", F::kShownAs, {}, "\"Concentration\" before the duration, from v2's record"},
        {"requires_concentration", F::kShownAs, {}, "\"Concentration\" before the duration, from v2's record"},
        {"duration", F::kSuperseded, "duration",
         "v2's duration, after \"Concentration\" where it is one (v1's \"Up to 1 minute\")"},
        {"casting_time", F::kReworded, "casting_time|reaction_condition",
         "v2's casting time and trigger, or v1's casting time where it goes on from v2's"},
        {"level", F::kShownAs, "level", "the level as a number (\"4th-level\" is 4)"},
        {"level_int", F::kKept, "level"},
        {"spell_level", F::kKept, "level"},
        {"school", F::kKept, "school"},
        {"page", F::kDropped, {}, "the page of the printed book"},
        {"dnd_class", F::kCorrected, "classes|subclass_grants",
         "the classes whose own list has the spell; a class v1 names only through a subclass's grant is under "
         "subclass_grants, \"Ritual Caster\" (a feat) is no class, \"Sorceror\" is the Sorcerer"},
        {"spell_lists", F::kShownAs, "classes", "the class lists' keys; classes names them"},
        {"archetype", F::kReworded, "subclass_grants", "each grant as \"Class: Subclass\""},
        {"circles", F::kReworded, "subclass_grants", "each terrain as \"Druid: Terrain\""}}},

      // The /v1/races/ record of a v2 species that has no traits (Tome of Heroes' Shade).
      {"open5e_v1 race",
       "species",
       {{"desc", F::kKept, "desc"},
        {"asi_desc", F::kReworded, "traits", kRaceParagraphs},
        {"age", F::kReworded, "traits", kRaceParagraphs},
        {"alignment", F::kReworded, "traits", kRaceParagraphs},
        {"size", F::kReworded, "traits", kRaceParagraphs},
        {"speed_desc", F::kReworded, "traits", kRaceParagraphs},
        {"languages", F::kReworded, "traits", kRaceParagraphs},
        {"vision", F::kReworded, "traits", kRaceParagraphs},
        {"traits", F::kReworded, "traits", kRaceParagraphs},
        {"asi", F::kShownAs, "traits", "said by the Ability Score Increase trait"},
        {"size_raw", F::kShownAs, "traits", "said by the Size trait"},
        {"speed", F::kShownAs, "traits", "said by the Speed trait"}}},

      // The /v1/backgrounds/ record of a v2 background that has no description (Level Up's).
      {"open5e_v1 background",
       "background",
       {{"desc", F::kKept, "desc"},
        {"skill_proficiencies", F::kSuperseded, "benefits", kV2Benefits},
        {"equipment", F::kSuperseded, "benefits", kV2Benefits},
        {"feature", F::kSuperseded, "benefits", kV2Benefits},
        {"feature_desc", F::kSuperseded, "benefits", kV2Benefits},
        {"suggested_characteristics", F::kSuperseded, "benefits", kV2Benefits}}},

      // A rule of SRD 5.1 no v2 record holds, cut from a /v1/sections/ chapter (raw is the whole chapter).
      {"open5e_v1",
       "rule",
       {{"desc", F::kShownAs, "desc",
         "the section, cut at its headings: each part no v2 record holds is a rule of its own, the text before the "
         "first heading under the section's name (Fidelity.EveryPartOfEverySrd51SectionV1HoldsIsInAnAnswer finds "
         "every part in an SRD 5.1 answer)"},
        {"parent", F::kShownAs, "chapter", "the part of the SRD the section is in (Rules, Gameplay Mechanics)"}}},

      {"open5e_v2",
       "class",
       {{"desc", F::kKept, "desc"},
        {"subclass_of", F::kKept, "subclass_of"},
        {"subclass_of.key", F::kShownAs, "subclass_of", kKeyOfNamed},
        {"hit_dice", F::kKept, "hit_dice"},
        {"hit_points", F::kKept, "hit_points"},
        {"hit_points.hit_dice_name", F::kReworded, "hit_points", "said by hit_points_at_higher_levels"},
        {"caster_type", F::kKept, "caster_type"},
        {"saving_throws", F::kCorrected, "saving_throws",
         "the abilities the class's Core Traits table names where it has one: SRD 5.2's records give the Fighter "
         "Dexterity and Strength, the Monk Dexterity and Wisdom, where the table (and the book) says Strength and "
         "Constitution, Strength and Dexterity"},
        {"features", F::kKept, "features|class_table"},
        {"features[].key", F::kShownAs, "features", kKeyOfNamed},
        {"features[].feature_type", F::kShownAs, "features|class_table",
         "whether the feature is a feature or a column of the class table"},
        {"features[].gained_at[].detail", F::kReworded, "features", "what the feature gives at that level"}}},

      {"open5e_v2",
       "species",
       {{"desc", F::kKept, "desc"},
        {"traits", F::kKept, "traits"},
        {"traits[].order", F::kShownAs, "traits", "the order the traits are listed in"},
        {"subspecies_of", F::kShownAs, "subspecies_of", "the parent species, named"},
        {"is_subspecies", F::kShownAs, "subspecies_of", "said by subspecies_of"}}},

      {"open5e_v2", "background", {{"desc", F::kKept, "desc"}, {"benefits", F::kKept, "benefits"}}},

      {"open5e_v2",
       "feat",
       {{"desc", F::kKept, "desc"},
        {"benefits", F::kKept, "benefits"},
        {"prerequisite", F::kKept, "prerequisite"},
        {"has_prerequisite", F::kShownAs, "prerequisite", "said by prerequisite"},
        {"type", F::kKept, "type"}}},

      {"open5e_v2",
       "weapon",
       {{"damage_dice", F::kKept, "damage_dice"},
        {"damage_type", F::kKept, "damage_type"},
        {"is_simple", F::kShownAs, "category", "category \"simple\" or \"martial\""},
        {"range", F::kKept, "range"},
        {"long_range", F::kKept, "long_range"},
        {"distance_unit", F::kShownAs, "distance_unit", kUnitFeet, "range"},
        {"properties", F::kCorrected, "properties",
         "SRD 5.1 weapons keep the properties of the SRD's weapons table where the record differs (v2's Trident is "
         "Two-Handed)"},
        {"properties[].property.desc", F::kDropped, {}, kOtherEntity}}},

      {"open5e_v2",
       "armor",
       {{"category", F::kCorrected, "category", "a shield's category is shield (SRD 5.2's Shield record says heavy)"},
        {"ac_display", F::kKept, "armor_class"},
        {"ac_base", F::kKept, "ac_base"},
        {"ac_add_dexmod", F::kShownAs, "ac_add_dex_modifier", "\"+ Dex modifier\" in armor_class"},
        {"ac_cap_dexmod", F::kKept, "ac_dex_modifier_max"},
        {"grants_stealth_disadvantage", F::kShownAs, "stealth_disadvantage", "\"Stealth: disadvantage\""},
        {"strength_score_required", F::kKept, "strength_required"},
        // SRD 5.1's Shield, an item stored as armor:
        {"desc", F::kKept, "desc"},
        {"size", F::kKept, "size"},
        {"weight", F::kKept, "weight"},
        {"weight_unit", F::kShownAs, "weight_unit", "shown \"lb.\"", "weight"},
        {"cost", F::kKept, "cost_gp"}}},

      {"open5e_v2",
       "item",
       {{"desc", F::kKept, "desc"},
        {"category", F::kKept, "category"},
        {"size", F::kKept, "size"},
        {"weight", F::kKept, "weight"},
        {"weight_unit", F::kShownAs, "weight_unit", "shown \"lb.\"", "weight"},
        {"cost", F::kKept, "cost_gp"},
        {"detail", F::kShownAs, "cost_per", "what a service's cost is for: \"per day\" (\"1 day\" reads so)"},
        {"weapon", F::kKept, "weapon|base_weapon"},
        {"weapon.properties[].property.desc", F::kDropped, {}, kOtherEntity},
        {"weapon.distance_unit", F::kShownAs, "weapon|base_weapon", kUnitFeet}}},

      {"open5e_v2",
       "magic-item",
       {{"desc", F::kKept, "desc"},
        {"category", F::kKept, "category"},
        {"rarity", F::kKept, "rarity"},
        {"rarity.rank", F::kDropped, {}, "the rarity's place in the order common ... artifact; the rarity is named"},
        {"size", F::kKept, "size"},
        {"weight", F::kKept, "weight"},
        {"weight_unit", F::kShownAs, "weight_unit", "shown \"lb.\"", "weight"},
        {"cost", F::kKept, "cost_gp"},
        {"requires_attunement", F::kShownAs, "requires_attunement", "\"requires attunement\""},
        {"attunement_detail", F::kKept, "attunement_detail"},
        {"weapon", F::kKept, "weapon|base_weapon"},
        {"weapon.properties", F::kCorrected, "weapon|base_weapon",
         "SRD 5.1 weapons keep the properties of the SRD's weapons table where the record differs"},
        {"weapon.properties[].property.desc", F::kDropped, {}, kOtherEntity},
        {"weapon.distance_unit", F::kShownAs, "weapon|base_weapon", kUnitFeet},
        {"armor", F::kKept, "armor|base_armor"}}},

      {"open5e_v2",
       "rule",
       {{"desc", F::kKept, "desc"},
        {"ruleset", F::kShownAs, "section", "the section the rule belongs to, named"},
        {"index",
         F::kDropped,
         {},
         "the rule's position in its section; get_entity of the section lists its rules in order"},
        {"initialHeaderLevel", F::kDropped, {}, "the Markdown heading level the website renders the rule at"}}},

      {"open5e_v2",
       "rule-section",
       {{"desc", F::kKept, "desc"},
        {"rules", F::kKept, "rules"},
        {"rules[].key", F::kShownAs, "rules", kKeyOfNamed},
        {"rules[].ruleset", F::kShownAs, "rules", "the section itself"},
        {"rules[].document", F::kHeader},
        {"rules[].desc", F::kDropped, {}, "each rule is an entity of its own; the section lists them by name"},
        {"rules[].index", F::kShownAs, "rules", "the order the rules are listed in"},
        {"rules[].initialHeaderLevel", F::kDropped, {}, "the Markdown heading level the website renders the rule at"}}},

      {"open5e_v1",
       "magic-item",
       {{"type", F::kKept, "category"},
        {"desc", F::kKept, "desc"},
        {"rarity", F::kKept, "rarity"},
        {"requires_attunement", F::kReworded, "requires_attunement|attunement_detail",
         "requires_attunement, and who may attune in attunement_detail"}}},

      {"open5e_v1", "weapon", v1_weapon},

      {"open5e_v1", "armor", v1_armor},

      // v1's records of the documents and kinds v2 has: no entity of their own, checked against the v2 entity of their
      // name (or the variants v2 splits them into, or the rule holding their text).
      {"open5e_v1 covered",
       "magic-item",
       {{"type", F::kSuperseded, "category",
         "v2's category; v1's type also names the base items a variant is made of (\"Armor (medium or heavy)\"), "
         "each of which v2 makes an entity with its base armor or weapon"},
        {"desc", F::kReworded, "desc",
         "the item's text; where v2 splits the record into variants (\"Ioun Stone\" into \"Ioun Stone "
         "(Absorption)\", ...), each variant's text has its part"},
        {"rarity", F::kSuperseded, "rarity",
         "v2's rarity, of each variant where v2 splits the record (v1: \"varies\", \"uncommon, rare, very rare\")"},
        {"requires_attunement", F::kReworded, "requires_attunement|attunement_detail",
         "requires_attunement, and who may attune in attunement_detail"}}},
      {"open5e_v1 covered", "weapon", v1_weapon},
      {"open5e_v1 covered", "armor", v1_armor},
      // A /v1/classes/ record (without its archetypes) of a v2 class, or an archetype of a v2 subclass, of the same
      // document and name: read for what v2 lacks (docs/entity-model.md).
      {"open5e_v1 class",
       "class",
       {{"desc", F::kReworded, "desc|features",
         "the book's text as Markdown: the introduction (`desc`, v1's where v2 has none) and the features, each a "
         "headed part (v1's where v2 has no feature holding it: SRD 5.1's Wizard's Spellbook)"},
        {"hit_dice", F::kSuperseded, "hit_dice", "v2's hit die (\"D12\" for v1's \"1d12\")"},
        {"hp_at_1st_level", F::kReworded, "hit_points|features", "the Hit Points feature"},
        {"hp_at_higher_levels", F::kReworded, "hit_points|features", "the Hit Points feature"},
        {"prof_armor", F::kReworded, "features", "the Proficiencies feature"},
        {"prof_weapons", F::kReworded, "features", "the Proficiencies feature"},
        {"prof_tools", F::kReworded, "features", "the Proficiencies feature"},
        {"prof_saving_throws", F::kReworded, "saving_throws|features", "the Proficiencies feature"},
        {"prof_skills", F::kReworded, "features", "the Proficiencies feature"},
        {"equipment", F::kReworded, "features", "the Equipment feature"},
        {"table", F::kSuperseded, "class_table",
         "v2's class table: the same levels and columns (v1's is the book's table as Markdown: \"1st\", \"+2\")"},
        {"spellcasting_ability", F::kReworded, "features", "the Spellcasting feature names it"},
        {"subtypes_name",
         F::kDropped,
         {},
         "what the book calls the class's subclasses (\"Primal Paths\"); the answer lists them (`subclasses`)"}}},
      {"open5e_v1 covered",
       "feat",
       {{"desc", F::kSuperseded, "benefits",
         "v2's text; v1's Level Up feats are an earlier text of the Adventurer's Guide's v2 has (a flavour line, other "
         "wording)"},
        {"prerequisite",
         F::kSuperseded,
         {},
         "v2's prerequisite, where it has one (v1 prefixes \"Prerequisite:\" or \"Requires\", says \"*N/A*\" "
         "for none, and holds two Level Up feats' first benefit)"},
        {"effects_desc", F::kSuperseded, "benefits", "v2's benefits (Level Up's earlier text)"}}},
      {"open5e_v1 covered", "reference", {{"desc", F::kKept, "desc"}}},
      {"open5e_v1 covered",
       "rule",
       {{"desc", F::kKept, "desc"},
        {"parent", F::kShownAs, "section", "the part of the SRD the plane is described in, the rule's section"}}},

      // The reference kinds (conditions, damage types, skills, abilities, alignments, creature types, ...): one
      // record per name with a description per document; each description is an entity in its own document.
      {"open5e_v2",
       "reference",
       {{"desc", F::kKept, "desc"},
        {"descriptions", F::kPerDocument, "desc",
         "each description is the entity of its document (`srd_grappled`, `srd-2024_grappled`)"},
        {"descriptions[].gamesystem", F::kShownAs, "desc", "the game system of the entity's document"},
        {"skills", F::kKept, "skills"},
        {"skills[].key", F::kShownAs, "skills", kKeyOfNamed},
        {"skills[].ability", F::kShownAs, "skills", "the ability itself"},
        {"skills[].document", F::kShownAs, "skills", "the skill's document; the skill is an entity of its own"},
        {"skills[].descriptions", F::kDropped, {}, kOtherEntity},
        {"icon", F::kDropped, {}, "an icon image for the condition; answers are text"},
        {"*", F::kKept}}},
  };
}

const std::array<std::string_view, 13> kReferenceKinds = {
    "ability-score", "alignment", "condition", "creature-type", "damage-type",  "environment",    "item-category",
    "item-rarity",   "language",  "size",      "skill",         "spell-school", "weapon-property"};

const RecordMap* find_map(std::string_view source, std::string_view kind) {
  for (const auto& m : field_maps()) {
    if (m.source == source && m.kind == kind) return &m;
  }
  return nullptr;
}

const FieldRule* find_rule(const RecordMap* map, std::string_view path) {
  if (!map) return nullptr;
  for (const auto& r : map->rules) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

// "actions[].attacks[].name" -> "actions[].attacks[]" -> "actions[].attacks" -> "actions[]" -> "actions" -> "".
std::string_view parent_path(std::string_view path) {
  if (path.size() >= 2 && path.substr(path.size() - 2) == "[]") return path.substr(0, path.size() - 2);
  const size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}

// A Markdown table cell: the bars a `why` may hold escaped.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string answer_fields(std::string_view to) {
  std::string out;
  if (to.empty()) return out;
  size_t start = 0;
  while (start <= to.size()) {
    const size_t bar = to.find('|', start);
    const std::string_view one = to.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    if (!out.empty()) out += ", ";
    out += "`" + std::string(one) + "`";
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
}

}  // namespace

std::string_view fate_name(Fate fate) {
  switch (fate) {
    case Fate::kKept: return "kept";
    case Fate::kReworded: return "reworded";
    case Fate::kShownAs: return "shown as";
    case Fate::kPerDocument: return "per document";
    case Fate::kCorrected: return "corrected";
    case Fate::kSuperseded: return "v2's kept";
    case Fate::kHeader: return "header";
    case Fate::kDropped: return "dropped";
  }
  return "?";
}

const std::vector<RecordMap>& field_maps() {
  static const std::vector<RecordMap> kMaps = build();
  return kMaps;
}

bool is_reference_kind(std::string_view kind) {
  for (auto k : kReferenceKinds) {
    if (k == kind) return true;
  }
  return false;
}

const FieldRule* field_rule(std::string_view source, std::string_view kind, std::string_view path) {
  const RecordMap* own = find_map(source, is_reference_kind(kind) ? "reference" : kind);
  const RecordMap* shared = find_map("*", "*");
  for (std::string_view p = path; !p.empty(); p = parent_path(p)) {
    if (const FieldRule* r = find_rule(own, p)) return r;
    if (const FieldRule* r = find_rule(shared, p)) return r;
  }
  const bool top_level = path.find_first_of(".[") == std::string_view::npos;
  return top_level ? find_rule(own, "*") : nullptr;
}

std::string field_map_markdown() {
  std::string out;
  for (const auto& m : field_maps()) {
    out += "#### ";
    if (m.source == "*") {
      out += "Every record";
    } else {
      out += std::string(m.kind == "reference" ? "reference kinds" : m.kind) + " (" +
             (m.source == "open5e_v1 monster"   ? std::string("the /v1/monsters/ record of a v2 creature")
              : m.source == "open5e_v1 covered" ? std::string("the v1 record of a v2 entity's document and name")
              : m.source == "open5e_v2"         ? std::string("Open5e v2")
                                                : std::string("Open5e v1")) +
             ")";
    }
    out += "\n\n| field | fate | in the answer | why |\n|---|---|---|---|\n";
    for (const auto& r : m.rules) {
      out += "| ";
      const bool any = r.path == "*";
      out += (any ? std::string("any other field") : "`" + cell(r.path) + "`") + " | " +
             std::string(fate_name(r.fate)) + " | ";
      if (any) {
        out += "its own name";
      } else if (r.fate == Fate::kHeader) {
        out += "key, name, document";
      } else {
        out += answer_fields(r.to);
      }
      out += " | " + cell(r.why);
      if (!r.needs.empty())
        out += (r.why.empty() ? "" : "; ") + std::string("only beside `") + std::string(r.needs) + "`";
      out += " |\n";
    }
    out += "\n";
  }
  return out;
}

}  // namespace lorekeeper::open5e
