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

// Reads a corrections file: a JSON array of entries {"record": "<endpoint>/<key>", "field", "was", "value",
// "evidence": [{"record", "field", one of "quotes"/"lacks"/"equals"}], "reason"}. Every member is required, and an
// unknown member, a second entry for one field of one record, or an entry without evidence is an error.
Result<std::vector<Correction>> parse_corrections(std::string_view text);

// The compiled-in file, read once. Its errors are a build-time mistake the unit tests catch (corrections_error).
const std::vector<Correction>& bundled_corrections();
const std::string& corrections_error();

// The value at `field` ('.' separated) of `record`, or nullptr.
const nlohmann::json* field_at(const nlohmann::json& record, std::string_view field);

// Whether `record` (the evidence's own record) bears the evidence out.
bool holds(const Evidence& evidence, const nlohmann::json& record);

// Applies corrections to records as a sync reads them. Not thread-safe; one per sync.
class Corrector {
 public:
  // Keeps pointers into `corrections`, which must outlive the corrector.
  explicit Corrector(const std::vector<Correction>& corrections);

  // Applies to `record` (of `endpoint`) every entry for it whose field still holds `was`, and returns their marks
  // (an empty array when none applied; `as_sent` is then the record before them). An entry whose field holds
  // anything else is left unapplied.
  nlohmann::json apply(std::string_view endpoint, nlohmann::json& record, nlohmann::json& as_sent);

  // "<endpoint>/<key> <field>" of every entry of `endpoints` not applied so far: its record was not read, or no
  // longer has the value it corrects (the API was mended, or changed otherwise: either way the entry needs review).
  std::vector<std::string> unapplied(const std::set<std::string>& endpoints) const;
  // How many entries of `endpoints` were applied.
  int applied(const std::set<std::string>& endpoints) const;

 private:
  std::multimap<std::pair<std::string, std::string>, const Correction*> by_record_;
  std::map<const Correction*, bool> done_;
};

}  // namespace lorekeeper::open5e
