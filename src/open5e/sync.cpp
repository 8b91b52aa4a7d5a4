#include "lorekeeper/open5e/sync.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <optional>
#include <set>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"

namespace lorekeeper::open5e {

namespace {

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

using PageHandler = std::function<Status(std::vector<json>& records)>;

// Walks one list endpoint to its end, handing each page's records to `on_page`. NotFound on the first page
// means the source has no such list; any other failure (or a handler error) fails the endpoint.
Status walk(PageSource& source, const std::string& endpoint, const SyncOptions& options, SyncReport& report,
            const PageHandler& on_page) {
  std::string request = endpoint + "/?limit=" + std::to_string(options.page_size);
  std::set<std::string> seen;
  int pages = 0;
  int records = 0;
  while (true) {
    if (options.cancelled && options.cancelled()) return Status(StatusCode::kCancelled, "sync cancelled");
    if (!seen.insert(recorded_name(request)).second) {
      return Status::corruption(endpoint + ": `next` links loop back to " + request);
    }
    auto body = source.get(request);
    if (!body) {
      if (pages == 0 && body.status().code() == StatusCode::kNotFound) return body.status();
      // A later page that is missing vanished during the walk: that is a failure, not the end of the list.
      const StatusCode code =
          body.status().code() == StatusCode::kNotFound ? StatusCode::kUnavailable : body.status().code();
      return Status(code, endpoint + " page " + std::to_string(pages + 1) + ": " + body.status().message());
    }
    std::string err;
    auto page = json_util::parse(*body, &err);
    body->clear();
    if (!page || !page->is_object() || !(*page)["results"].is_array()) {
      return Status::corruption(endpoint + " page " + std::to_string(pages + 1) + " (" + request +
                                "): not a JSON list page");
    }
    auto& results = (*page)["results"].get_ref<json::array_t&>();
    records += static_cast<int>(results.size());
    LOREKEEPER_RETURN_IF_ERROR(on_page(results));
    ++pages;
    ++report.pages;
    const int expected = (*page)["count"].is_number() ? (*page)["count"].get<int>() : 0;
    if (options.progress) options.progress(endpoint, pages, records, expected);
    const json& next = (*page)["next"];
    if (!next.is_string()) break;
    request = request_path(next.get<std::string>());
  }
  report.records[endpoint] = records;
  return Status::ok();
}

}  // namespace

int SyncReport::total_entities() const {
  int n = 0;
  for (const auto& [k, v] : entities) n += v;
  return n;
}

std::vector<std::string> sync_endpoints() {
  std::vector<std::string> out = {"v2/documents"};
  for (const auto& e : v2_endpoints()) out.push_back("v2/" + std::string(e.path));
  out.push_back("v1/documents");
  for (const auto& e : v1_endpoints()) out.push_back("v1/" + std::string(e.path));
  return out;
}

Result<SyncReport> sync(PageSource& source, store::Store& store, const SyncOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  SyncReport report;
  report.source = source.describe();
  MappingContext ctx;
  ctx.base_url = options.base_url;
  auto skipped_now = [&](const std::string& endpoint) {
    if (std::find(options.skip_endpoints.begin(), options.skip_endpoints.end(), endpoint) ==
        options.skip_endpoints.end()) {
      return false;
    }
    report.skipped_recent_failures.push_back(endpoint);
    return true;
  };

  // Documents first: without them nothing can be attributed, so their failure fails the sync.
  std::vector<model::Document> documents;
  Status docs = walk(source, "v2/documents", options, report, [&](std::vector<json>& records) {
    for (const auto& rec : records) {
      auto d = map_v2_document(rec);
      if (!d) {
        report.skipped.push_back({"v2/documents", json_util::str(rec, "key"), d.status().message()});
        continue;
      }
      ctx.documents[d->key] = *d;
      documents.push_back(*d);
    }
    return Status::ok();
  });
  if (docs.code() == StatusCode::kCancelled) return docs;
  if (docs.code() == StatusCode::kNotFound) {
    return Status::not_found(report.source + " has no v2/documents list; is it an Open5e API?");
  }
  if (!docs.is_ok()) return docs;

  // Everything is written in one batch, page by page, and published by one commit at the end. Each endpoint
  // runs under a savepoint: if it fails part-way, its partial writes are undone and its previous data stays.
  auto batch = store.begin_batch();
  if (!batch) return batch.status();
  std::set<std::pair<int, std::string>> seen;               // (kind, key) of every entity written
  std::set<std::pair<int, std::string>> v2_kind_documents;  // (kind, document) pairs v2 has
  std::set<int> v2_failed_kinds;
  int written_endpoints = 0;

  // Runs one entity endpoint: `map` turns a record into an entity to keep, or nullopt to leave it out.
  using Mapper = std::function<std::optional<model::Entity>(const json& rec)>;
  auto run_endpoint = [&](const std::string& endpoint, const store::Store::Scope& scope, const Mapper& map) -> Status {
    LOREKEEPER_RETURN_IF_ERROR((*batch)->savepoint("endpoint"));
    LOREKEEPER_RETURN_IF_ERROR((*batch)->remove(scope));
    std::vector<std::pair<int, std::string>> added;
    std::map<std::string, int> kinds;
    std::map<std::string, int> per_document;
    int duplicates = 0;
    size_t skipped_before = report.skipped.size();
    Status walked = walk(source, endpoint, options, report, [&](std::vector<json>& records) {
      std::vector<model::Entity> entities;
      for (const auto& rec : records) {
        auto e = map(rec);
        if (!e) continue;
        if (!seen.insert({static_cast<int>(e->kind), e->key}).second) {
          ++duplicates;
          continue;
        }
        added.push_back({static_cast<int>(e->kind), e->key});
        kinds[std::string(model::kind_name(e->kind))]++;
        per_document[e->document.key]++;
        if (std::none_of(documents.begin(), documents.end(),
                         [&](const model::Document& d) { return d.key == e->document.key; })) {
          documents.push_back(e->document);
        }
        entities.push_back(std::move(*e));
      }
      return (*batch)->write(documents, entities);
    });
    if (walked.code() == StatusCode::kCancelled) return walked;  // the whole batch rolls back
    if (!walked.is_ok()) {
      LOREKEEPER_RETURN_IF_ERROR((*batch)->rollback_to("endpoint"));
      for (const auto& k : added) seen.erase(k);
      report.skipped.resize(skipped_before);
      report.records.erase(endpoint);
      if (walked.code() == StatusCode::kNotFound) {
        report.missing_endpoints.push_back(endpoint);
      } else {
        log::warning("sync: " + walked.message() + "; keeping the previous " + endpoint);
        report.failed.push_back({endpoint, walked.message()});
      }
      return walked;
    }
    LOREKEEPER_RETURN_IF_ERROR((*batch)->release("endpoint"));
    for (const auto& [k, n] : kinds) report.entities[k] += n;
    for (const auto& [k, n] : per_document) report.per_document[k] += n;
    report.duplicates += duplicates;
    ++written_endpoints;
    return Status::ok();
  };

  for (const auto& ep : v2_endpoints()) {
    const std::string endpoint = "v2/" + std::string(ep.path);
    if (skipped_now(endpoint)) {
      v2_failed_kinds.insert(static_cast<int>(ep.kind));
      continue;
    }
    std::vector<std::pair<int, std::string>> kind_documents;
    int merged = 0;
    Status s = run_endpoint(endpoint, {"open5e_v2", ep.kind, ""}, [&](const json& rec) -> std::optional<model::Entity> {
      if (ep.kind == Kind::kItem && note_gear_item(rec, ctx)) {
        ++merged;
        return std::nullopt;
      }
      auto e = map_v2_record(ep, rec, ctx);
      if (!e) {
        report.skipped.push_back({endpoint, json_util::str(rec, "key"), e.status().message()});
        return std::nullopt;
      }
      if (ep.kind == Kind::kRuleSection) ctx.rule_section_names[e->key] = e->name;
      kind_documents.push_back({static_cast<int>(e->kind), e->document.key});
      return std::move(*e);
    });
    if (s.code() == StatusCode::kCancelled) return s;
    if (s.is_ok()) {
      report.merged_items += merged;
      v2_kind_documents.insert(kind_documents.begin(), kind_documents.end());
    } else if (s.code() != StatusCode::kNotFound) {
      v2_failed_kinds.insert(static_cast<int>(ep.kind));
    }
  }

  // v1: only the documents and kinds v2 lacks.
  if (!skipped_now("v1/documents")) {
    Status v1_docs = walk(source, "v1/documents", options, report, [&](std::vector<json>& records) {
      for (const auto& rec : records) {
        auto d = map_v1_document(rec, ctx);
        if (d)
          ctx.v1_documents[json_util::str(rec, "slug")] = *d;
        else
          report.skipped.push_back({"v1/documents", json_util::str(rec, "slug"), d.status().message()});
      }
      return Status::ok();
    });
    if (v1_docs.code() == StatusCode::kNotFound) {
      report.missing_endpoints.push_back("v1/documents");
    } else if (!v1_docs.is_ok()) {
      report.failed.push_back({"v1/documents", v1_docs.message()});
    } else {
      for (const auto& ep : v1_endpoints()) {
        const std::string endpoint = "v1/" + std::string(ep.path);
        // Deciding what v2 lacks needs v2's answer for this kind.
        if (v2_failed_kinds.count(static_cast<int>(ep.kind)) || skipped_now(endpoint)) continue;
        int covered = 0;
        Status s =
            run_endpoint(endpoint, {"open5e_v1", ep.kind, ""}, [&](const json& rec) -> std::optional<model::Entity> {
              auto e = map_v1_record(ep, rec, ctx);
              if (!e) {
                report.skipped.push_back({endpoint, json_util::str(rec, "slug"), e.status().message()});
                return std::nullopt;
              }
              if (v2_kind_documents.count({static_cast<int>(e->kind), e->document.key})) {
                ++covered;
                return std::nullopt;
              }
              return std::move(*e);
            });
        if (s.code() == StatusCode::kCancelled) return s;
        if (s.is_ok()) report.v1_covered += covered;
      }
    }
  }

  if (written_endpoints == 0) {
    return Status::unavailable("no endpoint could be read from " + report.source + "; the store was not changed");
  }
  LOREKEEPER_RETURN_IF_ERROR((*batch)->commit());
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  LOREKEEPER_RETURN_IF_ERROR(store.set_meta("synced_at:open5e", iso_now()));
  LOREKEEPER_RETURN_IF_ERROR(
      store.set_meta("synced_unix:open5e", std::to_string(static_cast<long long>(std::time(nullptr)))));
  LOREKEEPER_RETURN_IF_ERROR(store.set_meta("source:open5e", report.source));
  LOREKEEPER_RETURN_IF_ERROR(store.set_meta("sync_report:open5e", report_json(report)));
  return report;
}

std::string report_json(const SyncReport& r) {
  json j = {{"source", r.source},
            {"entities", r.entities},
            {"per_document", r.per_document},
            {"records", r.records},
            {"duplicates", r.duplicates},
            {"v1_covered_by_v2", r.v1_covered},
            {"items_merged_into_weapons_and_armor", r.merged_items},
            {"pages", r.pages},
            {"seconds", std::round(r.seconds * 100) / 100},
            {"missing_endpoints", r.missing_endpoints},
            {"skipped_recent_failures", r.skipped_recent_failures}};
  json skipped = json::array();
  for (const auto& s : r.skipped) skipped.push_back({{"endpoint", s.endpoint}, {"key", s.key}, {"reason", s.reason}});
  j["skipped"] = skipped;
  json failed = json::array();
  for (const auto& f : r.failed) failed.push_back({{"endpoint", f.endpoint}, {"error", f.error}});
  j["failed"] = failed;
  return json_util::dump(j);
}

}  // namespace lorekeeper::open5e
