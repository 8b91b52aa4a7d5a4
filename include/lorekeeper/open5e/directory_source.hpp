// Fills the store from a directory of recorded Open5e API pages, laid out as <path>/<query>.json where
// <query> is the request's query string with parameters sorted by name (or "_" for none); see
// docs/formats/mirror-layout.md. Each list is walked from `limit=100` following `next`, as against the API.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/open5e/mapper.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::open5e {

struct SkippedRecord {
  std::string endpoint;
  std::string key;
  std::string reason;
};

struct LoadReport {
  std::map<std::string, int> records;   // endpoint -> records read
  std::map<std::string, int> entities;  // kind -> entities stored
  int duplicates = 0;                   // records whose (kind, key) was already read
  std::vector<SkippedRecord> skipped;
  std::vector<std::string> missing_endpoints;  // no recorded first page
  int pages = 0;
};

// Progress callback: endpoint, pages read so far, records read so far.
using ProgressFn = std::function<void(const std::string& endpoint, int pages, int records)>;

// Maps a `next` URL (or a path with a query) to the recorded file name: "limit=100&page=2.json".
std::string page_file_name(const std::string& url);

// Reads every v2 endpoint under `dir`, maps the records and replaces the store's open5e_v2 content in one
// transaction. A malformed page fails the whole load (IoError/Corruption naming the file) and leaves the store
// unchanged; records that cannot be mapped are skipped and listed in the report.
Result<LoadReport> load_directory(const std::string& dir, store::Store& store, const ProgressFn& progress);

}  // namespace lorekeeper::open5e
