#include "lorekeeper/search/understand.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::search {

using model::Kind;

namespace {

// A rule: any of `terms` (words separated by spaces; a word ending in '*' matches any word it begins) names the
// facet `field` = any of `values`, for entries of `kinds`.
struct Rule {
  const char* field;
  std::vector<std::string> values;
  std::vector<std::string> terms;
  std::vector<Kind> kinds;
  // Said in a protective sense ("resistance to fire", "protect from being frightened"), the words name what is
  // warded against, not what the entry does.
  bool protective_sense_negates = false;
};

const std::vector<Kind> kCreature{Kind::kCreature};
const std::vector<Kind> kSpell{Kind::kSpell};
const std::vector<Kind> kWeapon{Kind::kWeapon};
const std::vector<Kind> kArmor{Kind::kArmor};
const std::vector<Kind> kMagicItem{Kind::kMagicItem};
const std::vector<Kind> kCreatureOrWeapon{Kind::kCreature, Kind::kWeapon};
const std::vector<Kind> kCreatureOrSpell{Kind::kCreature, Kind::kSpell};

std::vector<Rule> make_rules() {
  std::vector<Rule> r;
  auto add = [&](const char* field, std::vector<std::string> values, std::vector<std::string> terms,
                 const std::vector<Kind>& kinds, bool protective = false) {
    r.push_back({field, std::move(values), std::move(terms), kinds, protective});
  };
  // Movement (a creature's speeds).
  add("movement", {"fly"}, {"fly", "flies", "flying", "flyer*", "flier*", "winged", "airborne", "soar*"}, kCreature);
  add("movement", {"swim"}, {"swim*", "aquatic", "underwater"}, kCreature);
  add("movement", {"climb"}, {"climb*"}, kCreature);
  add("movement", {"burrow"}, {"burrow*", "tunnel*", "dig", "digs", "digging"}, kCreature);
  // Attacks by range (creatures' attacks, weapons).
  add("attack_range", {"ranged"},
      {"ranged", "at range", "from range", "distance", "afar", "shoot*", "projectile*", "long range", "missile*"},
      kCreatureOrWeapon);
  add("attack_range", {"melee"}, {"melee", "close combat", "hand to hand", "up close"}, kCreatureOrWeapon);
  add("attack_range", {"reach"}, {"with reach", "long reach", "reach weapon*"}, kCreatureOrWeapon);
  // Weapon properties.
  add("property", {"thrown"}, {"thrown", "throw", "throwing", "throwable"}, kWeapon);
  add("property", {"finesse"}, {"finesse"}, kWeapon);
  add("property", {"light"}, {"light"}, kWeapon);
  add("property", {"heavy"}, {"heavy"}, kWeapon);
  add("property", {"two-handed"}, {"two handed", "two hands", "twohanded"}, kWeapon);
  add("property", {"versatile"}, {"versatile"}, kWeapon);
  // Armor by category.
  add("type", {"light"}, {"light armor*", "light armour*"}, kArmor);
  add("type", {"medium"}, {"medium armor*", "medium armour*"}, kArmor);
  add("type", {"heavy"}, {"heavy armor*", "heavy armour*"}, kArmor);
  add("type", {"shield"}, {"shield", "shields"}, kArmor);
  // Damage dealt (creatures' attacks and effects, spells, weapons).
  const std::vector<Kind> dealers{Kind::kCreature, Kind::kSpell, Kind::kWeapon};
  add("damage_type", {"fire"}, {"fire", "flame*", "burn*", "fiery", "blaz*", "inferno*"}, dealers, true);
  add("damage_type", {"cold"}, {"cold", "frost*", "ice", "icy", "freez*", "chill*"}, dealers, true);
  add("damage_type", {"lightning"}, {"lightning", "electric*", "shock*"}, dealers, true);
  add("damage_type", {"thunder"}, {"thunder*", "sonic"}, dealers, true);
  add("damage_type", {"acid"}, {"acid*", "corrosive", "corrode*"}, dealers, true);
  add("damage_type", {"poison"}, {"poison", "poisons", "poisonous", "venom*", "toxic"}, dealers, true);
  add("damage_type", {"necrotic"}, {"necrotic", "drain* life", "life drain*", "drain* the life", "life force"}, dealers,
      true);
  add("damage_type", {"radiant"}, {"radiant"}, dealers, true);
  add("damage_type", {"psychic"}, {"psychic"}, dealers, true);
  add("damage_type", {"force"}, {"force damage"}, dealers, true);
  add("damage_type", {"bludgeoning"}, {"bludgeoning"}, dealers, true);
  add("damage_type", {"piercing"}, {"piercing"}, dealers, true);
  add("damage_type", {"slashing"}, {"slashing"}, dealers, true);
  // Conditions inflicted on others.
  add("condition", {"paralyzed"}, {"paraly*", "paralys*"}, kCreatureOrSpell, true);
  add("condition", {"petrified"}, {"petrif*", "to stone", "into stone"}, kCreatureOrSpell, true);
  add("condition", {"frightened"}, {"frighten*", "fear", "fears", "terrif*", "scare", "scares", "scary"},
      kCreatureOrSpell, true);
  add("condition", {"charmed"}, {"charm", "charms", "charming", "charmed", "beguil*"}, kCreatureOrSpell, true);
  add("condition", {"blinded"}, {"blind", "blinds", "blinding", "blinded"}, kCreatureOrSpell, true);
  add("condition", {"deafened"}, {"deafen*", "deaf"}, kCreatureOrSpell, true);
  add("condition", {"poisoned"}, {"poisoned", "poisons"}, kCreatureOrSpell, true);
  add("condition", {"stunned"}, {"stun", "stuns", "stunning", "stunned"}, kCreatureOrSpell, true);
  add("condition", {"prone"}, {"prone", "knock* down", "knock* over", "trip", "trips"}, kCreatureOrSpell, true);
  add("condition", {"grappled"}, {"grappl*", "grab*"}, kCreatureOrSpell, true);
  add("condition", {"unconscious"}, {"unconscious", "put to sleep", "knock* out"}, kCreatureOrSpell, true);
  add("condition", {"exhaustion"}, {"exhaust*"}, kCreatureOrSpell, true);
  add("condition", {"incapacitated"}, {"incapacitat*"}, kCreatureOrSpell, true);
  add("condition", {"invisible"}, {"invisib*", "unseen", "vanish*"}, kCreatureOrSpell, true);
  // What the conditions mean, as a player says it: unable to move (restrained, grappled, paralyzed), or to act.
  add("condition", {"restrained", "grappled", "paralyzed"},
      {"restrain*", "entangl*", "ensnar*", "immobiliz*", "from moving", "cant move", "cannot move", "hold in place",
       "in place", "stop* moving"},
      kCreatureOrSpell, true);
  add("condition", {"incapacitated", "stunned", "paralyzed"},
      {"from acting", "cant act", "cannot act", "stop* acting", "unable to act"}, kCreatureOrSpell, true);
  // Saving throws called for.
  for (const auto& [ability, short_name] : std::vector<std::pair<std::string, std::string>>{{"strength", "str"},
                                                                                            {"dexterity", "dex"},
                                                                                            {"constitution", "con"},
                                                                                            {"intelligence", "int"},
                                                                                            {"wisdom", "wis"},
                                                                                            {"charisma", "cha"}}) {
    add("save_ability", {ability}, {ability + " sav*", short_name + " sav*"}, kCreatureOrSpell);
  }
  // Spells' own facets.
  add("concentration", {"false"}, {"no concentration", "without concentration", "not concentration"}, kSpell);
  add("concentration", {"true"}, {"concentration"}, kSpell);
  add("ritual", {"true"}, {"ritual", "rituals"}, kSpell);
  add("level", {"0"}, {"cantrip*"}, kSpell);
  add("casting_time", {"bonus-action"}, {"bonus action*"}, kSpell);
  add("casting_time", {"reaction"}, {"reaction", "reactions"}, kSpell);
  add("trait", {"heals"},
      {"heal", "heals", "healing", "restore* health", "restore* hit points", "regain* hit points", "cure wounds",
       "mend* wounds"},
      kSpell);
  add("trait", {"summons"}, {"summon*", "conjure*", "call* forth"}, kSpell);
  add("trait", {"teleports"}, {"teleport*"}, kSpell);
  add("school", {"abjuration"}, {"abjuration"}, kSpell);
  add("school", {"conjuration"}, {"conjuration"}, kSpell);
  add("school", {"divination"}, {"divination"}, kSpell);
  add("school", {"enchantment"}, {"enchantment"}, kSpell);
  add("school", {"evocation"}, {"evocation"}, kSpell);
  add("school", {"illusion"}, {"illusion", "illusions", "illusory"}, kSpell);
  add("school", {"necromancy"}, {"necromancy", "necromantic"}, kSpell);
  add("school", {"transmutation"}, {"transmutation"}, kSpell);
  // Creatures' traits, types and sizes.
  add("skill", {"stealth"}, {"stealth*", "sneak*", "lurk*", "ambush*"}, kCreature);
  add("skill", {"perception"}, {"perceptive", "keen senses", "watchful"}, kCreature);
  add("trait", {"legendary"}, {"legendary"}, kCreature);
  add("trait", {"spellcaster"}, {"spellcaster*", "spellcasting", "cast* spells", "caster", "casters"}, kCreature);
  add("type", {"aberration"}, {"aberration*"}, kCreature);
  add("type", {"beast"}, {"beast", "beasts", "animal", "animals"}, kCreature);
  add("type", {"celestial"}, {"celestial*", "angel*"}, kCreature);
  add("type", {"construct"}, {"construct", "constructs", "golem*"}, kCreature);
  add("type", {"dragon"}, {"dragon", "dragons"}, kCreature);
  add("type", {"elemental"}, {"elemental", "elementals"}, kCreature);
  add("type", {"fey"}, {"fey", "faerie*", "fairy", "fairies"}, kCreature);
  add("type", {"fiend"}, {"fiend*", "demon*", "devil*"}, kCreature);
  add("type", {"humanoid"}, {"humanoid*"}, kCreature);
  add("type", {"monstrosity"}, {"monstrosit*"}, kCreature);
  add("type", {"ooze"}, {"ooze", "oozes"}, kCreature);
  add("type", {"plant"}, {"plant", "plants"}, kCreature);
  add("type", {"undead"}, {"undead", "dead"}, kCreature);
  for (const char* size : {"tiny", "small", "large", "huge", "gargantuan"}) add("size", {size}, {size}, kCreature);
  // Magic items by rarity.
  add("rarity", {"very-rare"}, {"very rare"}, kMagicItem);
  add("rarity", {"uncommon"}, {"uncommon"}, kMagicItem);
  add("rarity", {"rare"}, {"rare"}, kMagicItem);
  add("rarity", {"legendary"}, {"legendary"}, kMagicItem);
  add("rarity", {"artifact"}, {"artifact", "artifacts"}, kMagicItem);
  // The kinds a search spans (equipment's three, search_all's every kind), by the words for them.
  add("kind", {"armor"}, {"armor", "armors", "armour", "armours", "shield", "shields"}, kArmor);
  add("kind", {"weapon"}, {"weapon", "weapons"}, kWeapon);
  add("kind", {"magic item"}, {"magic item", "magic items"}, kMagicItem);
  add("kind", {"spell"}, {"spell", "spells"}, kSpell);
  add("kind", {"creature"}, {"creature", "creatures", "monster", "monsters"}, kCreature);
  return r;
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> kRules = make_rules();
  return kRules;
}

// The words of folded text: runs of letters and digits (bytes of multi-byte characters count as letters), so
// punctuation left by text::fold ("fly?", "\"cantrip\"", "[concentration]") does not hide a word.
std::vector<std::string> split_words(const std::string& folded) {
  std::vector<std::string> out;
  std::string w;
  for (char c : folded) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && !std::isalnum(u) && c != '*') {  // '*' ends a rule's prefix pattern ("swim*")
      if (!w.empty()) out.push_back(std::move(w));
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

bool word_matches(const std::string& pattern, const std::string& word) {
  if (!pattern.empty() && pattern.back() == '*') return word.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0;
  return pattern == word;
}

// Where the words of `term` occur in `words`: the index of the first word, or none.
std::optional<size_t> find_term(const std::vector<std::string>& term, const std::vector<std::string>& words,
                                size_t from = 0) {
  if (term.empty() || words.size() < term.size()) return std::nullopt;
  for (size_t i = from; i + term.size() <= words.size(); ++i) {
    bool all = true;
    for (size_t j = 0; j < term.size() && all; ++j) all = word_matches(term[j], words[i + j]);
    if (all) return i;
  }
  return std::nullopt;
}

// Whether one of `cues` is among the `window` words before `at`, within its clause: the look back stops at a word
// that opens another clause ("spells against undead that deal fire damage": "against" is not about the fire).
bool cue_before(const std::vector<std::string>& words, size_t at, size_t window, const std::vector<std::string>& cues) {
  static const std::vector<std::string> kClause = {"which", "but",     "while",    "then",   "deal",
                                                   "deals", "dealing", "inflict*", "cause*", "causing"};
  for (size_t n = 0; n < window && n < at; ++n) {
    const std::string& w = words[at - 1 - n];
    for (const auto& c : cues) {
      if (word_matches(c, w)) return true;
    }
    if (std::find(kClause.begin(), kClause.end(), w) != kClause.end()) return false;
  }
  return false;
}

// "resistance to", "protect ... from", "immune to", "against", "ward off", "cure", "remove", "end".
bool protective_before(const std::vector<std::string>& words, size_t at) {
  static const std::vector<std::string> kProtective = {"resist*", "immun*", "protect*", "against", "ward*",
                                                       "safe",    "cure*",  "remov*",   "end",     "ends",
                                                       "ending",  "proof",  "shelter*", "shield*"};
  return cue_before(words, at, 5, kProtective);
}

// "doesn't need concentration", "cannot fly", "without ritual" (text::fold drops the apostrophes).
bool negated_before(const std::vector<std::string>& words, size_t at) {
  static const std::vector<std::string> kNegation = {"not",     "no",    "dont",  "doesnt", "cannot", "cant",
                                                     "without", "non",   "never", "isnt",   "arent",  "wont",
                                                     "nor",     "lacks", "lack",  "lacking"};
  return cue_before(words, at, 3, kNegation);
}

// "a swarm of tiny bats", "a pack of small dogs": the size is the members', not the swarm's (a swarm's stat block has
// the size of the whole).
bool collective_before(const std::vector<std::string>& words, size_t at) {
  static const std::vector<std::string> kCollective = {"swarm*",  "flock*", "pack",     "packs", "horde*", "school",
                                                       "schools", "colony", "colonies", "cloud", "clouds", "mass"};
  return cue_before(words, at, 3, kCollective);
}

// Whether the caller's filters already say this: the same value of a single-valued filter (another value is
// still read: "flies" with movement "swim" ranks the swimmers that also fly higher), or any value of a filter
// that excludes the others (a level, a type, ...).
bool filtered_already(const store::Query& q, const std::string& field, const std::vector<std::string>& values) {
  const auto same = [&](const std::string& v) {
    return !v.empty() && std::find(values.begin(), values.end(), v) != values.end();
  };
  if (field == "movement") return same(q.movement);
  if (field == "skill") return same(q.skill);
  if (field == "attack_range") return same(q.attack_range);
  if (field == "damage_type") return same(q.damage_type);
  if (field == "condition") return same(q.condition);
  if (field == "save_ability") return same(q.save_ability);
  if (field == "concentration") return q.concentration.has_value();
  if (field == "ritual") return q.ritual.has_value();
  if (field == "level") return q.level || q.level_min || q.level_max;
  if (field == "casting_time") return !q.casting_time.empty();
  if (field == "type") return !q.type.empty();
  if (field == "size") return !q.size.empty();
  if (field == "school") return !q.school.empty();
  if (field == "rarity") return !q.rarity.empty();
  if (field == "kind") return q.kinds.size() == 1;
  return false;
}

}  // namespace

std::string QueryFacet::label() const {
  const std::string v = text::join(values, " or ");
  if (field == "movement") return v + " speed";
  if (field == "skill") return v + " skill";
  if (field == "attack_range") return v + " attack";
  if (field == "property") return v + " (weapon property)";
  if (field == "damage_type") return v + " damage";
  if (field == "condition") return "inflicts " + v;
  if (field == "save_ability") return v + " saving throw";
  if (field == "concentration") return v == "true" ? "concentration" : "no concentration";
  if (field == "ritual") return "ritual";
  if (field == "level") return v == "0" ? "cantrip" : "level " + v;
  if (field == "casting_time") return "cast as a " + (v == "bonus-action" ? std::string("bonus action") : v);
  if (field == "trait") return v;
  if (field == "type" && kinds == kArmor) return v == "shield" ? "shield" : v + " armor";
  if (field == "type") return v + " (creature type)";
  if (field == "size") return v + " (size)";
  if (field == "school") return v + " (school)";
  if (field == "rarity") return (v == "very-rare" ? std::string("very rare") : v) + " (rarity)";
  if (field == "kind") return v;
  return field + " " + v;
}

bool QueryFacet::graded() const {
  static const std::set<std::string, std::less<>> kGraded = {"condition",    "damage_type", "movement", "skill",
                                                             "attack_range", "property",    "trait"};
  return kGraded.count(field) > 0;
}

std::vector<QueryFacet> understand(std::string_view query, const store::Query& filters) {
  std::vector<QueryFacet> out;
  const std::vector<std::string> words = split_words(text::fold(query));
  if (words.empty()) return out;
  struct Found {
    size_t at;
    QueryFacet facet;
  };
  std::vector<Found> found;
  // Words taken by a longer term: "light armor" is armor's category, not the light weapon property; "no
  // concentration" is not "concentration". Terms of several words are matched first.
  std::vector<bool> taken(words.size(), false);
  std::vector<bool> rule_found(rules().size(), false);
  for (const bool several_words : {true, false}) {
    for (size_t ri = 0; ri < rules().size(); ++ri) {
      const Rule& rule = rules()[ri];
      if (rule_found[ri]) continue;
      std::vector<Kind> kinds;
      for (Kind k : rule.kinds) {
        if (filters.kinds.empty() || std::find(filters.kinds.begin(), filters.kinds.end(), k) != filters.kinds.end()) {
          kinds.push_back(k);
        }
      }
      if (kinds.empty() || filtered_already(filters, rule.field, rule.values)) continue;
      // "kind" names one of several kinds searched: with one kind it says nothing.
      if (std::string_view(rule.field) == "kind" && filters.kinds.size() == 1) continue;
      for (const std::string& t : rule.terms) {
        const std::vector<std::string> term = split_words(t);
        if ((term.size() > 1) != several_words) continue;
        std::optional<size_t> at = find_term(term, words);
        const auto free = [&](size_t i) {
          return std::none_of(taken.begin() + static_cast<std::ptrdiff_t>(i),
                              taken.begin() + static_cast<std::ptrdiff_t>(i + term.size()), [](bool b) { return b; });
        };
        // A negated yes/no facet is its opposite ("doesn't require concentration"); any other negated facet is
        // not read ("a dragon that cannot fly").
        const bool yes_no = rule.values.size() == 1 && (rule.values[0] == "true" || rule.values[0] == "false");
        const bool size = std::string_view(rule.field) == "size";
        while (at && (!free(*at) || (rule.protective_sense_negates && protective_before(words, *at)) ||
                      (!yes_no && negated_before(words, *at)) || (size && collective_before(words, *at)))) {
          at = find_term(term, words, *at + 1);
        }
        if (!at) continue;
        std::vector<std::string> values = rule.values;
        if (yes_no && negated_before(words, *at)) values[0] = values[0] == "true" ? "false" : "true";
        std::string phrase;
        for (size_t j = 0; j < term.size(); ++j) phrase += (j ? " " : "") + words[*at + j];
        std::fill(taken.begin() + static_cast<std::ptrdiff_t>(*at),
                  taken.begin() + static_cast<std::ptrdiff_t>(*at + term.size()), true);
        // Both senses of a yes/no facet are one field: the first said wins.
        const bool said = std::any_of(found.begin(), found.end(),
                                      [&](const Found& f) { return f.facet.field == rule.field && yes_no; });
        if (!said) found.push_back({*at, {rule.field, values, kinds, phrase}});
        rule_found[ri] = true;
        break;
      }
    }
  }
  // A spell level: "3rd level", "3rd-level", "level 3".
  const bool spells = filters.kinds.empty() ||
                      std::find(filters.kinds.begin(), filters.kinds.end(), Kind::kSpell) != filters.kinds.end();
  if (spells && !filtered_already(filters, "level", {})) {
    static const std::vector<std::string> kOrdinals = {"1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th"};
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      std::string level;
      const auto ord = std::find(kOrdinals.begin(), kOrdinals.end(), words[i]);
      if (ord != kOrdinals.end() && words[i + 1] == "level") level = std::to_string(ord - kOrdinals.begin() + 1);
      if (words[i] == "level" && words[i + 1].size() == 1 && words[i + 1][0] >= '1' && words[i + 1][0] <= '9') {
        level = words[i + 1];
      }
      if (!level.empty()) {
        found.push_back({i, {"level", {level}, kSpell, words[i] + " " + words[i + 1]}});
        break;
      }
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.at < b.at; });
  for (auto& f : found) {
    // One facet per field and values: "fire" twice, or "burning" after "fire", says it once.
    const bool seen = std::any_of(out.begin(), out.end(), [&](const QueryFacet& o) {
      return o.field == f.facet.field && o.values == f.facet.values;
    });
    if (!seen) out.push_back(std::move(f.facet));
  }
  return out;
}

store::Query narrowed(const store::Query& q, const QueryFacet& facet, size_t value_index) {
  store::Query n = q;
  if (n.kinds.empty()) {
    n.kinds = facet.kinds;
  } else {
    std::vector<Kind> kept;
    for (Kind k : n.kinds) {
      if (std::find(facet.kinds.begin(), facet.kinds.end(), k) != facet.kinds.end()) kept.push_back(k);
    }
    n.kinds = kept;
  }
  const std::string& v = facet.values.at(value_index);
  const std::string& f = facet.field;
  if (f == "movement") n.movement = v;
  if (f == "skill") n.skill = v;
  if (f == "attack_range") n.attack_range = v;
  if (f == "property") n.properties.push_back(v);
  if (f == "damage_type") n.damage_type = v;
  if (f == "condition") n.condition = v;
  if (f == "save_ability") n.save_ability = v;
  if (f == "concentration") n.concentration = v == "true";
  if (f == "ritual") n.ritual = v == "true";
  if (f == "level") n.level = std::stoi(v);
  if (f == "casting_time") n.casting_time = v;
  if (f == "trait") n.traits.push_back(v);
  if (f == "type") n.type = v;
  if (f == "size") n.size = v;
  if (f == "school") n.school = v;
  if (f == "rarity") n.rarity = v;
  return n;
}

}  // namespace lorekeeper::search
