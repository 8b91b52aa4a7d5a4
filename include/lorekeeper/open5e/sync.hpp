// A full sync: every list endpoint the tools need, walked page by page through a PageSource, mapped into
// entities and written to the store. v2 first; v1 only for documents and kinds v2 lacks.
//
// Failure handling: an endpoint that fails (after the source's own retries) keeps the entities it had in the
// store; the others are replaced. All replacements happen in one transaction at the end, so a sync that is
// killed, even with SIGKILL, leaves the previous data intact and readers never see a half-replaced kind.
//
// A listing is never taken on trust. An endpoint fails (previous data kept) when its listing:
//   - ends short of the `count` its first page announced, or shrinks to less than half of the listing behind
//     the stored data (the last report's stored_records, which only a written listing raises and only an
//     accepted one lowers), or has more than a tenth (and at least 5) of its records unusable (unmappable or
//     repeated keys), unless SyncOptions::accept_incomplete;
//   - runs past its count, announces a different count on a later page, or needs more pages than its count
//     allows (at most kMaxPages in any case);
//   - has a page over kMaxPageBytes, a page with more records than requested, a page without a count, or a
//     `next` link to another endpoint or back to an earlier page;
//   - answers 404 on its first page when the stored data came from it (without stored data the endpoint is
//     reported missing: the source has no such list).
// docs/LIMITS.md gives the bounds and why.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/open5e/corrections.hpp"
#include "lorekeeper/open5e/mapper.hpp"
#include "lorekeeper/open5e/page_source.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::open5e {

struct SkippedRecord {
  std::string endpoint;  // "v2/creatures"
  std::string key;
  std::string reason;
};

struct EndpointFailure {
  std::string endpoint;
  std::string error;
};

// Any endpoint: more pages than this is a listing that never ends (the largest real one has 36 at 100 a page).
inline constexpr int kMaxPages = 10000;

struct SyncReport {
  std::string source;                  // PageSource::describe()
  std::map<std::string, int> records;  // endpoint -> records read
  // endpoint -> records of the listing behind the data now stored: this sync's for endpoints written, the
  // previous report's for endpoints that failed and kept their data. The next sync's baseline for shrinking.
  std::map<std::string, int> stored_records;
  std::map<std::string, int> entities;               // kind -> entities stored
  std::map<std::string, int> per_document;           // document key -> entities stored
  int duplicates = 0;                                // records whose (kind, key) was already read
  int v1_covered = 0;                                // v1 records left out because v2 has their document and kind
  int merged_items = 0;                              // /v2/items/ records folded into their weapon or armor
  std::vector<SkippedRecord> skipped;                // records that could not be mapped
  std::vector<std::string> missing_endpoints;        // the source has no such list (404 on the first page)
  std::vector<EndpointFailure> failed;               // kept their previous data
  std::vector<EndpointFailure> accepted_incomplete;  // short or shrunken listings written (accept_incomplete)
  std::vector<std::string> skipped_recent_failures;  // not retried: failed less than the error TTL ago
  int corrections = 0;                               // entries of data/corrections.json applied
  // "<endpoint>/<key> <field>" of entries whose record was read but no longer has the value they correct.
  std::vector<std::string> corrections_unapplied;
  int pages = 0;
  double seconds = 0;
  int total_entities() const;
};

struct SyncOptions {
  int page_size = 100;
  // Called after every page: endpoint, pages read, records read, records the endpoint announced (count).
  std::function<void(const std::string& endpoint, int pages, int records, int expected)> progress;
  // Endpoints not to request this time (they failed recently); their previous data is kept.
  std::vector<std::string> skip_endpoints;
  std::string base_url = "https://api.open5e.com";  // for the entities' URLs
  // Checked before every page; when it returns true the sync stops, writes nothing and returns Cancelled.
  std::function<bool()> cancelled;
  // Write listings that end short of their count or shrink the stored data by more than half, instead of
  // failing those endpoints (`lorekeeper sync --accept-incomplete`); the report lists them.
  bool accept_incomplete = false;
  // The corrections of record errors to apply; nullptr: the reviewed file compiled in (bundled_corrections()).
  const std::vector<Correction>* corrections = nullptr;
};

// Every endpoint a sync walks, in order, as "v2/documents", "v1/monsters", "v2/spells", ..., "v1/magicitems".
std::vector<std::string> sync_endpoints();

// Runs a sync from `source` into `store`. Returns the report, also when some endpoints failed (check
// report.failed); an error Status only when nothing could be written (the store is then unchanged).
Result<SyncReport> sync(PageSource& source, store::Store& store, const SyncOptions& options);

// The report as JSON (counts, skipped records with reasons, failures), as stored in the store's metadata
// ("sync_report:open5e") and shown by `lorekeeper status --json`.
std::string report_json(const SyncReport& report);

// What a store records of its last sync that committed: the source it came from (SyncReport::source), when (ISO-8601
// UTC) and the same in seconds since the epoch. Fields are empty (0) when not recorded: never synced, or a store
// read failed.
struct LastSync {
  std::string source;
  std::string at;
  long long unix_time = 0;
};
LastSync last_sync(store::Store& store);

}  // namespace lorekeeper::open5e
