// The reviewed corrections of Open5e record errors: data/corrections.json (compiled in; format in data/README.md).
// Each entry names one field of one record, the value the record has, the value it should have, the evidence (other
// fields of the API's records that prove it) and the reason. The sync applies an entry while the record still has
// the value it corrects, to the copy it maps, never to the record it keeps as sent; the answer carries the entry
// as a mark, so a corrected value is never shown as the source's own.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::open5e {

// A fact of one record that an entry rests on: the record's field holds the quote, lacks it, or equals a value.
struct Evidence {
  std::string endpoint;  // "v1/magicitems"
  std::string key;       // the record's key (v2) or slug (v1)
  std::string field;     // a top-level field, or a path into it with '.' ("rarity.name")
  enum class Test { kQuotes, kLacks, kEquals } test = Test::kQuotes;
  nlohmann::json value;  // the quote (a string) or the value it equals

  // "v1/magicitems horn-of-valhalla: requires_attunement is \"\"", as answers show it.
  std::string describe() const;
};

struct Correction {
  std::string endpoint;  // "v2/magicitems"
  std::string key;
  std::string field;     // as Evidence::field
  nlohmann::json was;    // the record's value the entry corrects (compared whole)
  nlohmann::json value;  // what the field becomes
  std::vector<Evidence> evidence;
  std::string reason;

  // The mark an answer carries: {field, was, value, reason, evidence: [described]}.
  nlohmann::json mark() const;
};

// Reads a corrections file: a JSON array of entries {"record": "<v1|v2>/<list>/<key>", "field", "was", "value",
// "evidence": [{"record", "field", one of "quotes"/"lacks"/"equals"}], "reason"}. Every member is required; an
// unknown member, a field path with an empty name, a value of another type than `was` (or null), two entries for one
// field of one record (or a field and a path into it), or an entry without evidence is an error.
Result<std::vector<Correction>> parse_corrections(std::string_view text);

// The compiled-in file, read once. Its errors are a build-time mistake the unit tests catch (corrections_error).
const std::vector<Correction>& bundled_corrections();
const std::string& corrections_error();

// The value at `field` ('.' separated) of `record`, or nullptr.
const nlohmann::json* field_at(const nlohmann::json& record, std::string_view field);

// Whether `record` (the evidence's own record) bears the evidence out. `quotes` and `lacks` need the field to be text:
// a missing field lacks nothing.
bool holds(const Evidence& evidence, const nlohmann::json& record);

// Applies corrections to records as a sync reads them, and takes back those whose evidence the records read do not
// bear out. Not thread-safe; one per sync.
class Corrector {
 public:
  using RecordId = std::pair<std::string, std::string>;  // (endpoint, key or slug)

  // Keeps pointers into `corrections`, which must outlive the corrector.
  explicit Corrector(const std::vector<Correction>& corrections);

  // For a list whose records are corrected: applies to `record` (of `endpoint`) every entry for it, not taken back,
  // whose field still holds `was`, and returns their marks (an empty array when none applied; `as_sent` is then the
  // record before them). Notes the record first if an entry names it as evidence.
  nlohmann::json apply(std::string_view endpoint, nlohmann::json& record, nlohmann::json& as_sent);
  // For any other list: notes `record` if an entry names it as evidence.
  void note(std::string_view endpoint, const nlohmann::json& record);
  // Forgets what was noted and applied of `endpoint`: its listing failed and its writes were undone.
  void forget(std::string_view endpoint);

  // Takes back every applied entry whose evidence does not hold in the records noted (or whose evidence record was
  // not read), and returns the records they were applied to: each is to be mapped again from the record as sent
  // (as_sent(), through apply(), which no longer applies the entries taken back).
  std::vector<RecordId> take_back_unproven();
  const nlohmann::json* as_sent(const RecordId& record) const;

  // "<endpoint>/<key> <field>: why" of every entry of `endpoints` not applied though its record was read: the record
  // no longer has the value it corrects (the API was mended, or changed otherwise), its evidence no longer holds,
  // or its list is not one that is corrected. Each needs review. (An entry whose record the list does not have is
  // not listed: a partial source, or a record the API removed.)
  std::vector<std::string> unapplied(const std::set<std::string>& endpoints) const;
  // How many entries of `endpoints` are applied.
  int applied(const std::set<std::string>& endpoints) const;

 private:
  enum class State { kPending, kApplied, kTakenBack };
  std::multimap<RecordId, const Correction*> by_record_;
  std::map<const Correction*, State> state_;
  std::map<const Correction*, std::string> failed_evidence_;  // of entries taken back
  std::set<RecordId> evidence_records_;                       // named by some entry's evidence
  std::map<RecordId, nlohmann::json> noted_;                  // those read, as sent
  std::map<RecordId, nlohmann::json> corrected_;              // records an entry was applied to, as sent
  std::set<std::string> corrected_lists_;                     // endpoints apply() was called for
  std::set<const Correction*> read_;                          // entries whose record apply() saw
};

}  // namespace lorekeeper::open5e
