#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "command.hpp"
#include "import.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/open5e/page_source.hpp"
#include "lorekeeper/open5e/sync.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/serve/engines.hpp"
#include "lorekeeper/serve/refresh.hpp"
#include "lorekeeper/store/files.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::cli {

namespace {

using json = nlohmann::json;
using serve::age_of;
using serve::make_engine;
using serve::make_long_lived_engine;
using serve::make_semantic;
using serve::one_shot_semantic;
using serve::open_source;
using serve::recently_failed_endpoints;
using serve::record_endpoint_failures;
using serve::seed_bundled_vectors;

int cmd_status(const Config& cfg, bool as_json) {
  json j = {{"version", kVersion}, {"db_path", cfg.db_path}, {"config_origin", cfg.origin}};
  // The whole file is checked: a damaged store reads back wrong counts without an error.
  auto opened = store::Store::open_checked(cfg.db_path, store::Store::Mode::kExistingOnly);
  if (!opened) {
    const StatusCode code = opened.status().code();
    const bool missing = code == StatusCode::kNotFound;
    const std::string hint =
        missing ? "Fill the store with: lorekeeper sync --source bundled (offline), or lorekeeper sync (live API)"
        : code == StatusCode::kInvalidArgument
            ? "Point LOREKEEPER_DB_PATH (or --db) at a LoreKeeper store, or at a new file"
        : code == StatusCode::kCorruption
            ? "Move the damaged file aside and rebuild the store with: lorekeeper sync --source bundled --move-aside"
            : "The file could not be read or written (see above); the store itself may be intact";
    j["store"] = {{"state", missing                           ? "missing"
                            : code == StatusCode::kCorruption ? "damaged"
                                                              : "unreadable"},
                  {"error", opened.status().message()}};
    j["hint"] = hint;
    if (as_json) {
      out(j.dump(2) + "\n");
    } else {
      out("LoreKeeper " + std::string(kVersion) + "\nStore: " + cfg.db_path + "\n  " +
          (missing                           ? "empty: no store has been created yet."
           : code == StatusCode::kCorruption ? "damaged: " + opened.status().message()
                                             : "unreadable: " + opened.status().message()) +
          "\n  " + hint + "\n");
    }
    return missing ? 0 : 1;
  }
  auto stats = (*opened)->stats();
  if (!stats) {
    std::fprintf(stderr, "lorekeeper: %s\n", stats.status().to_string().c_str());
    return 1;
  }
  json sources = json::object();
  for (const auto& [k, v] : stats->meta) {
    if (k.rfind("synced_at:", 0) == 0) {
      sources[k.substr(10)]["synced_at"] = v;
      sources[k.substr(10)]["age"] = age_of(v);
    } else if (k.rfind("source:", 0) == 0) {
      sources[k.substr(7)]["from"] = v;
    } else if (k.rfind("sync_report:", 0) == 0) {
      sources[k.substr(12)]["report"] = json_util::parse(v, nullptr).value_or(json());
    } else if (k.rfind("failed_unix:", 0) == 0 && !v.empty()) {
      j["failing_endpoints"][k.substr(12)] = std::atoll(v.c_str());
    }
  }
  j["store"] = {{"state", stats->total > 0 ? "ready" : "empty"},
                {"schema_version", (*opened)->schema_version()},
                {"entities", stats->total},
                {"per_kind", stats->per_kind},
                {"per_document", stats->per_document},
                {"sources", sources}};
  {
    const std::string dir = embed::default_model_dir();
    auto enc = embed::Encoder::load(dir);
    j["model"] = {{"name", search::kModelId}, {"dir", dir}, {"state", enc ? "ready" : "unavailable"}};
    if (!enc) j["model"]["error"] = enc.status().to_string();
    auto coverage = search::vector_coverage(**opened, cfg.embed_passages);
    if (coverage) {
      std::string state = "ready";
      if (cfg.embed == "off") {
        state = "off (LOREKEEPER_EMBED=off)";
      } else if (!enc) {
        state = "unavailable (no model)";
      } else if (coverage->embedded != coverage->entities) {
        state = cfg.embed == "stored"
                    ? "incomplete: run `lorekeeper index` (serve embeds nothing with LOREKEEPER_EMBED=stored)"
                    : "incomplete: run `lorekeeper index`, or serve embeds in the background";
      }
      j["vectors"] = {{"entities", coverage->entities},
                      {"embedded", coverage->embedded},
                      {"passages_per_entity", cfg.embed_passages},
                      {"semantic_search", state}};
    }
  }
  if (as_json) {
    out(j.dump(2) + "\n");
    return 0;
  }
  std::string s = "LoreKeeper " + std::string(kVersion) + "\nStore: " + cfg.db_path + " (schema v" +
                  std::to_string((*opened)->schema_version()) + ")\n";
  s += "  " + std::to_string(stats->total) + " entities\n";
  if (stats->total == 0) s += "  Fill it with: lorekeeper sync --source bundled (offline), or lorekeeper sync\n";
  for (const auto& [src, info] : sources.items()) {
    s += "  source " + src + ": synced " + info.value("synced_at", "?") + " (" + info.value("age", "?") + " ago)" +
         (info.contains("from") ? " from " + info["from"].get<std::string>() : "") + "\n";
    if (info.contains("report") && info["report"].is_object()) {
      const json& r = info["report"];
      s += "    skipped records: " + std::to_string(r.value("skipped", json::array()).size()) +
           ", failed endpoints: " + std::to_string(r.value("failed", json::array()).size()) +
           " (details: lorekeeper status --json)\n";
    }
  }
  s += "Per kind:\n";
  for (const auto& [k, n] : stats->per_kind) s += "  " + k + ": " + std::to_string(n) + "\n";
  s += "Per document:\n";
  for (const auto& [k, n] : stats->per_document) s += "  " + k + ": " + std::to_string(n) + "\n";
  s += "Embedding model: " + j["model"]["state"].get<std::string>() + " (" + j["model"]["dir"].get<std::string>() +
       ")\n";
  if (j.contains("vectors")) {
    s += "Vectors: " + std::to_string(j["vectors"]["embedded"].get<size_t>()) + " of " +
         std::to_string(j["vectors"]["entities"].get<size_t>()) +
         " entities embedded; meaning-based search: " + j["vectors"]["semantic_search"].get<std::string>() + "\n";
  }
  out(s);
  return 0;
}

// Progress of a sync: on a terminal one live line (endpoint n of N, pages, records of the announced count, overall
// rate, ETA for the endpoint); otherwise one plain line per page.
class Progress {
 public:
  explicit Progress(bool quiet)
      : quiet_(quiet),
        tty_(isatty(STDERR_FILENO) != 0),
        endpoints_(open5e::sync_endpoints().size()),
        start_(std::chrono::steady_clock::now()) {}
  void update(const std::string& endpoint, int pages, int records, int expected) {
    if (quiet_) return;
    if (endpoint != endpoint_) {
      done_records_ += last_records_;
      endpoint_ = endpoint;
      ++index_;
    }
    last_records_ = records;
    if (!tty_) {
      std::fprintf(stderr, "sync %s: page %d, %d/%d records\n", endpoint.c_str(), pages, records, expected);
      return;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = secs > 0.01 ? (done_records_ + records) / secs : 0;
    const int width = 20;
    const double frac = expected > 0 ? std::min(1.0, static_cast<double>(records) / expected) : 1.0;
    const int filled = static_cast<int>(frac * width);
    const std::string bar =
        std::string(static_cast<size_t>(filled), '=') + std::string(static_cast<size_t>(width - filled), ' ');
    std::string eta;
    if (rate > 0 && expected > records)
      eta = "  ETA " + text::format_number(std::ceil((expected - records) / rate)) + " s";
    std::fprintf(stderr, "\r\033[K[%s] %2zu/%zu %-19s %3d pages %6d/%-6d records %7.0f rec/s%s", bar.c_str(), index_,
                 endpoints_, endpoint.c_str(), pages, records, expected, rate, eta.c_str());
  }
  void done() {
    if (!quiet_ && tty_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool quiet_;
  bool tty_;
  size_t endpoints_;
  size_t index_ = 0;
  std::string endpoint_;
  int done_records_ = 0;
  int last_records_ = 0;
  std::chrono::steady_clock::time_point start_;
};

int cmd_sync(const Config& cfg, std::string source, bool force, bool quiet, int page_size, bool accept_incomplete,
             bool move_damaged_aside, bool as_json) {
  if (source.empty()) source = cfg.open5e_base_url;
  auto src = open_source(cfg, source);
  if (!src) {
    std::fprintf(stderr, "lorekeeper sync: %s\n", src.status().message().c_str());
    return 2;
  }
  if (auto dangling = store::dangling_link(cfg.db_path)) {
    std::fprintf(stderr, "lorekeeper sync: %s\n", dangling->c_str());
    return 1;
  }
  std::error_code ec;
  bool existed = std::filesystem::exists(cfg.db_path, ec);
  // An existing store is checked whole before it is trusted: a damaged one must be neither taken as fresh nor
  // written into.
  Result<std::unique_ptr<store::Store>> opened =
      existed ? store::Store::open_checked(cfg.db_path, store::Store::Mode::kReadWrite)
              : Result<std::unique_ptr<store::Store>>(Status::not_found(cfg.db_path));
  if (!opened && existed && move_damaged_aside && opened.status().code() != StatusCode::kIoError) {
    auto moved = store::move_aside(cfg.db_path);
    if (!moved) {
      std::fprintf(stderr, "lorekeeper sync: %s\n", moved.status().message().c_str());
      return 1;
    }
    std::fprintf(stderr, "Moved the unusable store (%s) to %s; building a new one.\n",
                 opened.status().message().c_str(), moved->c_str());
    existed = false;
  }
  if (!opened && existed) {
    std::fprintf(stderr, "lorekeeper sync: %s\n", opened.status().message().c_str());
    if (opened.status().code() == StatusCode::kCorruption) {
      std::fprintf(stderr, "Nothing was changed. To rebuild it: lorekeeper sync --source bundled --move-aside\n");
    }
    return 1;
  }
  // A new store is built in a private file and linked into place when complete (store/files.hpp): a sync that is
  // interrupted leaves no store behind, never an empty one.
  if (existed) store::remove_stale_builds(cfg.db_path);
  const std::string built_path = existed ? cfg.db_path : store::begin_private_build(cfg.db_path, "sync");
  if (!existed) {
    opened = store::Store::open(built_path, store::Store::Mode::kReadWrite);
    if (!opened) {
      std::fprintf(stderr, "lorekeeper sync: %s\n", opened.status().message().c_str());
      store::remove_store_files(built_path);
      return 1;
    }
  }
  store::Store& st = **opened;
  // Freshness: the same source synced less than the TTL ago is not fetched again unless forced.
  const open5e::LastSync last = open5e::last_sync(st);
  if (!force && last.unix_time > 0 && !last.source.empty()) {
    const bool same = (*src)->describe() == last.source;
    if (same && !serve::is_stale(cfg, last.unix_time)) {
      std::fprintf(stderr,
                   "The store is fresh: synced from %s %s ago (LOREKEEPER_CACHE_TTL_DAYS=%d). Use --force to sync "
                   "anyway.\n",
                   last.source.c_str(), age_of(last.at).c_str(), cfg.cache_ttl_days);
      return 0;
    }
  }
  open5e::SyncOptions options;
  options.page_size = page_size;
  options.accept_incomplete = accept_incomplete;
  if (!force) options.skip_endpoints = recently_failed_endpoints(cfg, st);
  Progress progress(quiet);
  options.progress = [&](const std::string& ep, int pages, int records, int expected) {
    progress.update(ep, pages, records, expected);
  };
  auto report = open5e::sync(**src, st, options);
  progress.done();
  if (!report) {
    if (!existed) {
      opened->reset();  // closed before its file is deleted
      store::remove_store_files(built_path);
      std::fprintf(stderr, "lorekeeper sync failed: %s\nNo store was created.\n", report.status().message().c_str());
    } else {
      std::fprintf(stderr, "lorekeeper sync failed: %s\nThe store was left as it was.\n",
                   report.status().message().c_str());
    }
    return 1;
  }
  record_endpoint_failures(st, *report, options);
  seed_bundled_vectors(cfg, st);
  const std::string log_failure = st.checkpoint_failure();
  if (!existed) {
    // The new store is placed only whole: its log folded into the file, then closed and linked.
    auto placed = store::place_built_store(std::move(*opened), built_path, cfg.db_path);
    if (!placed) {
      std::fprintf(stderr, "lorekeeper sync failed: %s\nNo store was created.\n", placed.status().message().c_str());
      return 1;
    }
    if (!*placed) {
      std::fprintf(stderr,
                   "lorekeeper sync: another process created a store at %s during this sync; that store was kept "
                   "and this sync's copy removed\n",
                   cfg.db_path.c_str());
      return 1;
    }
  }
  if (as_json) out(open5e::report_json(*report) + "\n");
  std::string s = "Synced " + std::to_string(report->total_entities()) + " entities from " + report->source + " in " +
                  text::format_number(std::round(report->seconds * 100) / 100) + " s (" +
                  std::to_string(report->pages) + " pages).\n";
  for (const auto& [k, n] : report->entities) s += "  " + k + ": " + std::to_string(n) + "\n";
  s += "  documents: " + std::to_string(report->per_document.size()) + "\n";
  if (report->duplicates > 0) s += "  duplicate records ignored: " + std::to_string(report->duplicates) + "\n";
  if (report->merged_items > 0) {
    s += "  gear records folded into their weapon or armor: " + std::to_string(report->merged_items) + "\n";
  }
  if (report->v1_covered > 0) {
    s += "  v1 records already in v2 (not stored twice): " + std::to_string(report->v1_covered) + "\n";
  }
  if (report->corrections > 0) {
    s += "  record errors corrected: " + std::to_string(report->corrections) + " (their answers say what and why)\n";
  }
  for (const auto& c : report->corrections_unapplied) {
    s += "  correction not applied: " + c + "\n";
  }
  if (!report->missing_endpoints.empty()) {
    s += "  endpoints the source does not have: " + text::join(report->missing_endpoints, ", ") + "\n";
  }
  if (!report->skipped.empty()) {
    s += "  skipped records: " + std::to_string(report->skipped.size()) + "\n";
    for (const auto& k : report->skipped) s += "    " + k.endpoint + " " + k.key + ": " + k.reason + "\n";
  }
  for (const auto& f : report->failed) s += "  FAILED " + f.endpoint + " (previous data kept): " + f.error + "\n";
  for (const auto& a : report->accepted_incomplete) {
    s += "  ACCEPTED " + a.endpoint + " as it is (--accept-incomplete): " + a.error + "\n";
  }
  if (!log_failure.empty()) {
    s += "  note: " + log_note(cfg.db_path, log_failure) + "\n";
  }
  if (!report->skipped_recent_failures.empty()) {
    s += "  not retried (failed less than " + std::to_string(cfg.error_cache_ttl_seconds) +
         " s ago; --force to retry): " + text::join(report->skipped_recent_failures, ", ") + "\n";
  }
  std::fputs(s.c_str(), stderr);
  return report->failed.empty() ? 0 : 1;
}

int cmd_documents(const Config& cfg, const std::string& source, bool as_json) {
  tools::Engine engine = make_engine(cfg);
  json args = json::object();
  if (!source.empty()) args["source"] = source;
  return print_tool_result(engine.call("list_documents", args), as_json);
}

class StatusCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* status = app.add_subcommand("status", "Show the store: path, counts per kind and document, data age");
    status->add_flag("--json", as_json_, "Machine-readable output");
    return status;
  }
  int run(Config& cfg) override { return cmd_status(cfg, as_json_); }

 private:
  bool as_json_ = false;
};

class SyncCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* sync = app.add_subcommand("sync", "Fill or refresh the store from the Open5e API or recorded pages");
    sync->add_option("--source", source_,
                     "A base URL (default: $LOREKEEPER_OPEN5E_BASE_URL, https://api.open5e.com), \"bundled\" (the "
                     "snapshot inside this binary), a directory of recorded pages or a .tar.zst of them "
                     "(docs/formats/mirror-layout.md)");
    sync->add_flag("--force", force_, "Sync even if the data is fresh, and retry endpoints that failed recently");
    sync->add_option("--page-size", page_size_, "Records per page requested from the API (1-1000)")
        ->check(CLI::Range(1, 1000));
    sync->add_flag("--quiet", quiet_, "No progress output");
    sync->add_flag("--move-aside", move_aside_,
                   "When the store is damaged or not a LoreKeeper store, rename it to <file>.damaged-<time> and build "
                   "a new one");
    sync->add_flag("--accept-incomplete", accept_incomplete_,
                   "Store listings that end short of their own count or hold less than half of what the stored data "
                   "came from (otherwise those endpoints fail and keep their data)");
    sync->add_flag("--json", as_json_, "Print the sync report as JSON on stdout");
    return sync;
  }
  int run(Config& cfg) override {
    return cmd_sync(cfg, source_, force_, quiet_, page_size_, accept_incomplete_, move_aside_, as_json_);
  }

 private:
  std::string source_;
  bool quiet_ = false;
  bool force_ = false;
  bool as_json_ = false;
  bool accept_incomplete_ = false;
  bool move_aside_ = false;
  int page_size_ = 100;
};

class DocumentsCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* docs = app.add_subcommand("documents", "List the source documents in the store");
    docs->add_option("--source", source_, "open5e_v2, open5e_v1 or orcbrew");
    docs->add_flag("--json", as_json_, "Machine-readable output");
    return docs;
  }
  int run(Config& cfg) override { return cmd_documents(cfg, source_, as_json_); }

 private:
  std::string source_;
  bool as_json_ = false;
};

}  // namespace

std::unique_ptr<Command> status_command() { return std::make_unique<StatusCommand>(); }
std::unique_ptr<Command> sync_command() { return std::make_unique<SyncCommand>(); }
std::unique_ptr<Command> documents_command() { return std::make_unique<DocumentsCommand>(); }

}  // namespace lorekeeper::cli
