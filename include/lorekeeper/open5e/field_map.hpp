// What becomes of each field of an Open5e record in LoreKeeper's answers: the one declaration of it.
//
// The fidelity test (tests/unit/fidelity_test.cpp) checks every value of every record of the bundled snapshot
// against this map: a value is found in its entity's get_entity answer (structured result and Markdown), or a rule
// here accounts for it; a field no rule names fails the test, so a new API field is noticed. The "what is kept"
// tables of docs/entity-model.md are rendered from it (field_map_markdown), and a unit test keeps them equal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lorekeeper::open5e {

enum class Fate {
  kKept,         // the value is in the answer as the record has it (case, spacing and punctuation aside)
  kReworded,     // the answer says it in its own layout: its numbers and nearly all of its words are there
  kShownAs,      // an enum, unit, key, flag or position the answer shows in its own terms (`why` says how)
  kPerDocument,  // a list whose items each become the entity of their `document`; this entity's own item is kept
  kCorrected,    // replaced where another record or the record's own text proves it wrong (`why`: the evidence)
  kSuperseded,   // the same fact as a field of the v2 record, whose value is kept where the two differ
  kHeader,       // the entity's key, name or document: every answer's header
  kDropped,      // not carried (`why` says why)
};

// The name of a fate as the docs tables and the fidelity report print it ("kept", "shown as", ...).
std::string_view fate_name(Fate fate);

struct FieldRule {
  // A field of the record: nested fields joined by '.', a list's items by "[]" ("actions[].usage_limits.type").
  // "*" stands for any other top-level scalar of the record, kept under its own name.
  std::string_view path;
  Fate fate;
  std::string_view to = {};     // get_entity result fields that carry it: "a|b" any of them, "a.b" nested
  std::string_view why = {};    // required for every fate but kKept and kHeader
  std::string_view needs = {};  // a unit says something only beside its quantity: the field that must be given too
};

struct RecordMap {
  std::string_view source;  // "open5e_v2", "open5e_v1", or "open5e_v1 monster": the v1 record of a v2 creature
  std::string_view kind;    // the entity kind its records become; "reference" for the reference kinds
  std::vector<FieldRule> rules;
};

// Every source and kind, then the rules all records share (source and kind "*").
const std::vector<RecordMap>& field_maps();

// Whether a kind is a reference kind (condition, damage type, skill, ...): one record per name, a description per
// document, each description its own entity.
bool is_reference_kind(std::string_view kind);

// The rule for a field of a record of `source` made into an entity of `kind`: the path's own rule, else that of its
// nearest declared parent ("actions[].attacks[].name" -> "actions[].attacks[]" -> "actions"), else the rules every
// record shares, else "*" for a top-level scalar where the map has one; nullptr when nothing declares it.
const FieldRule* field_rule(std::string_view source, std::string_view kind, std::string_view path);

// The map as Markdown tables, one per source and kind, as docs/entity-model.md holds them.
std::string field_map_markdown();

}  // namespace lorekeeper::open5e
