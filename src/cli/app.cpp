#include "lorekeeper/cli/app.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "eval.hpp"
#include "import.hpp"
#include "lookup.hpp"
#include "lorekeeper/core/config.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/sha256.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/http/client.hpp"
#include "lorekeeper/mcp/http_transport.hpp"
#include "lorekeeper/mcp/server.hpp"
#include "lorekeeper/mcp/stdio_transport.hpp"
#include "lorekeeper/open5e/http_source.hpp"
#include "lorekeeper/open5e/page_source.hpp"
#include "lorekeeper/open5e/sync.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/precomputed.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"
#include "model_fetch.hpp"
#include "store_files.hpp"
#include "table_calls.hpp"

namespace lorekeeper::cli {

namespace {

using json = nlohmann::json;

constexpr const char* kVersion = LOREKEEPER_VERSION;

void out(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

// Age of an ISO-8601 UTC timestamp in a short human form ("3 days").
std::string age_of(const std::string& iso) {
  std::tm tm{};
  if (strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) == nullptr) return "unknown";
  const std::time_t then = timegm(&tm);
  const long long secs = static_cast<long long>(std::time(nullptr) - then);
  if (secs < 120) return std::to_string(secs) + " seconds";
  if (secs < 7200) return std::to_string(secs / 60) + " minutes";
  if (secs < 172800) return std::to_string(secs / 3600) + " hours";
  return std::to_string(secs / 86400) + " days";
}

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

// Opens the page source named by --source: "bundled", an http(s) URL, a .tar.zst archive or a directory.
Result<std::unique_ptr<open5e::PageSource>> open_source(const Config& cfg, const std::string& source) {
  if (source == "bundled") return open5e::make_bundled_source();
  if (source.rfind("http://", 0) == 0 || source.rfind("https://", 0) == 0) {
    http::Options options;
    options.timeout_ms = cfg.http_timeout_seconds * 1000L;
    options.connect_timeout_ms = std::min(options.connect_timeout_ms, options.timeout_ms);
    options.low_speed_seconds = std::min<long>(options.low_speed_seconds, std::max(1, cfg.http_timeout_seconds));
    http::RetryPolicy policy;
    policy.max_attempts = cfg.http_retries + 1;
    return open5e::make_http_source(source, options, policy);
  }
  std::error_code ec;
  if (std::filesystem::is_regular_file(source, ec)) {
    std::ifstream in(source, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return open5e::make_archive_source(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                                       std::filesystem::absolute(source).string());
  }
  if (std::filesystem::is_directory(source, ec)) return open5e::make_directory_source(source);
  return Status::invalid_argument("--source '" + source +
                                  "' is neither a URL, a .tar.zst archive, a directory nor \"bundled\"");
}

long long unix_now() { return static_cast<long long>(std::time(nullptr)); }

// Endpoints that failed less than the error TTL ago: not retried (their previous data stays).
std::vector<std::string> recently_failed_endpoints(const Config& cfg, store::Store& st) {
  std::vector<std::string> out;
  for (const auto& ep : open5e::sync_endpoints()) {
    auto failed = st.meta("failed_unix:" + ep);
    if (failed && *failed && !(*failed)->empty() &&
        unix_now() - std::atoll((*failed)->c_str()) < cfg.error_cache_ttl_seconds) {
      out.push_back(ep);
    }
  }
  return out;
}

// Remembers when each endpoint last failed (and forgets endpoints that worked this time).
void record_endpoint_failures(store::Store& st, const open5e::SyncReport& report, const open5e::SyncOptions& options) {
  for (const auto& ep : open5e::sync_endpoints()) {
    const bool failed = std::any_of(report.failed.begin(), report.failed.end(),
                                    [&](const open5e::EndpointFailure& f) { return f.endpoint == ep; });
    if (failed) {
      (void)st.set_meta("failed_unix:" + ep, std::to_string(unix_now()));
    } else if (std::find(options.skip_endpoints.begin(), options.skip_endpoints.end(), ep) ==
               options.skip_endpoints.end()) {
      (void)st.set_meta("failed_unix:" + ep, "");
    }
  }
}

// Refreshes stale data from the live API in a background thread while `serve` answers from what it has.
// Mode "auto" refreshes only when the API answers a quick probe (so an offline machine stays quiet), "on"
// always tries, "off" never.
class BackgroundSync {
 public:
  // `synced` is called after a sync that committed new data.
  BackgroundSync(const Config& cfg, std::string mode, std::function<void()> synced)
      : cfg_(cfg), mode_(std::move(mode)), synced_(std::move(synced)) {
    if (mode_ != "off") {
      thread_ = std::thread([this] {
        run();
        std::lock_guard<std::mutex> lock(mutex_);
        finished_ = true;
      });
    }
  }
  ~BackgroundSync() { stop(); }

  // Stops a running sync (its writes are rolled back) and waits at most `timeout`; returns false if it did not
  // stop.
  bool stop(std::chrono::milliseconds timeout = std::chrono::seconds(2)) {
    cancel_ = true;
    if (!thread_.joinable()) return true;
    auto running = [this] {  // a sync, or the probe of the API before it
      std::lock_guard<std::mutex> lock(mutex_);
      return !finished_;
    };
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (running() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (running()) return false;
    thread_.join();
    return true;
  }

  // While a refresh runs, that it does; after a refresh of stale data failed (or could not start: the API was
  // unreachable), how old the data is, so every answer says so and not only the log.
  std::string notice() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_) {
      return "Note: the data is being refreshed from " + cfg_.open5e_base_url +
             " in the background; this answer uses the data synced " + age_ + " ago.";
    }
    return stale_;
  }

 private:
  void run() {
    auto opened = store::Store::open(cfg_.db_path, store::Store::Mode::kExistingOnly);
    if (!opened) return;  // no store yet: the first tool call builds it from the bundled snapshot
    store::Store& st = **opened;
    auto last_unix = st.meta("synced_unix:open5e");
    auto last_iso = st.meta("synced_at:open5e");
    const long long synced = last_unix && *last_unix ? std::atoll((*last_unix)->c_str()) : 0;
    if (unix_now() - synced < static_cast<long long>(cfg_.cache_ttl_days) * 86400) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      age_ = last_iso && *last_iso ? age_of(**last_iso) : "an unknown time";
    }
    if (mode_ == "auto") {
      auto probe = http::make_curl_client(http::Options{3000, 5000, 5, http::Options{}.user_agent});
      auto r = probe->get(cfg_.open5e_base_url + "/v2/");
      if (!r || r->status >= 500) {
        log::info("data is older than " + std::to_string(cfg_.cache_ttl_days) + " days but " + cfg_.open5e_base_url +
                  " is not reachable; serving the stored data");
        set_stale(cfg_.open5e_base_url + " was not reachable");
        return;
      }
    }
    auto src = open_source(cfg_, cfg_.open5e_base_url);
    if (!src) {
      set_stale(src.status().message());
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running_ = true;
    }
    log::info("data is older than " + std::to_string(cfg_.cache_ttl_days) + " days; refreshing from " +
              cfg_.open5e_base_url + " in the background");
    open5e::SyncOptions options;
    options.skip_endpoints = recently_failed_endpoints(cfg_, st);
    options.cancelled = [this] { return cancel_.load(); };
    auto report = open5e::sync(**src, st, options);
    if (report) {
      record_endpoint_failures(st, *report, options);
      log::info("background sync done: " + std::to_string(report->total_entities()) + " entities, " +
                std::to_string(report->failed.size()) + " endpoint(s) failed");
      if (!report->failed.empty()) {
        std::vector<std::string> lists;
        for (const auto& f : report->failed) lists.push_back(f.endpoint);
        set_partly_stale(lists);
      }
      if (synced_) synced_();
    } else {
      log::warning("background sync failed: " + report.status().to_string() + "; the stored data is unchanged");
      if (report.status().code() != StatusCode::kCancelled) set_stale(report.status().message());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = false;
  }

  void set_stale(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    stale_ = "Note: this data was synced " + age_ + " ago, longer than the refresh interval of " +
             std::to_string(cfg_.cache_ttl_days) + " day(s), and refreshing it failed (" + why +
             "); it may be out of date.";
  }
  void set_partly_stale(const std::vector<std::string>& lists) {
    std::lock_guard<std::mutex> lock(mutex_);
    stale_ = "Note: refreshing " + text::join(lists, ", ") + " failed; those lists keep the data synced " + age_ +
             " ago and may be out of date.";
  }

  Config cfg_;
  std::string mode_;
  std::function<void()> synced_;
  std::atomic<bool> cancel_{false};
  bool running_ = false;   // guarded by mutex_
  bool finished_ = false;  // guarded by mutex_: run() has returned
  mutable std::mutex mutex_;
  std::string age_;
  std::string stale_;
  std::thread thread_;
};

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

// Gives the store's entities the bundled vectors that match their texts (search/precomputed.hpp), so meaning-based
// search works without embedding them; unless meaning-based search is off. A failure costs only that.
void seed_bundled_vectors(const Config& cfg, store::Store& st) {
  if (cfg.embed == "off") return;
  auto seeded = search::seed_vectors(st, cfg.embed_passages);
  if (!seeded) {
    log::warning("taking the bundled vectors failed (the entities are embedded instead): " +
                 seeded.status().to_string());
  } else if (*seeded > 0) {
    log::info("took the bundled vectors of " + std::to_string(*seeded) + " entities");
  }
}

// Builds a store at `db_path` from the snapshot inside the binary, with its vectors: written to a private file
// first and linked into place only when complete, so a concurrent process (an MCP host's probe) never sees a
// half-built store, and of two processes bootstrapping at once exactly one store wins. Within a process one
// bootstrap runs at a time: serve's workers each open the store on their first request, and the ones that waited
// find it built (they had shared one private file and broke each other's builds).
Status bootstrap_from_bundled(const Config& cfg, const std::string& db_path) {
  static std::mutex one_at_a_time;
  std::lock_guard<std::mutex> lock(one_at_a_time);
  if (auto dangling = store::dangling_link(db_path)) return Status::invalid_argument(*dangling);
  std::error_code exists_ec;
  if (std::filesystem::exists(db_path, exists_ec)) return Status::ok();
  log::info("no store at " + db_path + "; building it from the bundled Open5e snapshot");
  const std::string tmp = begin_private_build(db_path, "bootstrap");
  auto st = store::Store::open(tmp, store::Store::Mode::kReadWrite);
  Status built = [&]() -> Status {
    if (!st) return st.status();
    auto src = open5e::make_bundled_source();
    if (!src) return src.status();
    auto report = open5e::sync(**src, **st, open5e::SyncOptions{});
    if (!report) return report.status();
    log::info("loaded " + std::to_string(report->total_entities()) + " entities from the bundled snapshot");
    seed_bundled_vectors(cfg, **st);
    return Status::ok();
  }();
  if (!built.is_ok()) {
    if (st) st->reset();  // closed before its files are removed
    remove_store_files(tmp);
    return built;
  }
  return place_built_store(std::move(*st), tmp, db_path).status();
}

// The meaning-based search service, unless turned off (a missing model gives a service that says so).
// `deferred`: the model is read by the first call that needs it (serve's background thread), not here.
std::shared_ptr<search::Semantic> make_semantic(const Config& cfg, bool deferred = false) {
  if (cfg.embed == "off") return nullptr;
  return std::make_shared<search::Semantic>(embed::default_model_dir(), cfg.embed_passages, deferred);
}

// `built` (optional) is called after the engine built a missing store from the bundled snapshot.
tools::Engine make_engine(const Config& cfg, std::shared_ptr<search::Semantic> semantic = nullptr,
                          std::function<void()> built = nullptr) {
  tools::Engine engine(cfg.db_path, [cfg, built](const std::string& path) {
    Status s = bootstrap_from_bundled(cfg, path);
    if (s.is_ok() && built) built();
    return s;
  });
  engine.set_legacy_tools(cfg.legacy_tools);
  engine.set_preferred_edition(cfg.preferred_edition);
  engine.set_semantic(std::move(semantic));
  return engine;
}

// For engines that answer many calls (serve, eval): full-text ranking from the in-memory text index, the store
// read page by page (Engine::set_memory_mapped).
tools::Engine make_long_lived_engine(const Config& cfg, std::shared_ptr<search::Semantic> semantic = nullptr,
                                     std::function<void()> built = nullptr) {
  tools::Engine engine = make_engine(cfg, std::move(semantic), std::move(built));
  engine.set_text_index_in_memory(true);
  engine.set_memory_mapped(false);
  engine.set_check_on_open(true);
  return engine;
}

// For one-shot commands: the semantic service with whatever vectors the store has (`lorekeeper index` makes
// them complete); none when there are none.
std::shared_ptr<search::Semantic> one_shot_semantic(const Config& cfg, tools::Engine& engine) {
  auto semantic = make_semantic(cfg);
  if (!semantic || !semantic->has_model()) return semantic;
  store::Store* st = engine.store(nullptr);
  if (st == nullptr) return semantic;
  Status loaded = semantic->reload(*st, true);
  if (!loaded.is_ok()) log::warning("meaning-based search unavailable: " + loaded.to_string());
  return semantic;
}

// Embeds the store's entities in the background while serve answers: at start, after each background sync, and
// when another process changed the store (an import or sync, seen by SQLite's data version within ~5 s). It loads
// the model (deferred, off the answering path) and publishes the stored vectors first, so searches are answered by
// meaning about a tenth of a second after start; then each pass embeds only what changed and republishes the
// index. Answers are lexical-only while no index is published (Semantic::notice says so).
class BackgroundEmbedder {
 public:
  BackgroundEmbedder(const Config& cfg, std::shared_ptr<search::Semantic> semantic)
      : cfg_(cfg), semantic_(std::move(semantic)) {
    if (semantic_ && semantic_->model_present()) {
      // Searches wait (briefly, Engine) for the stored vectors rather than answer by words alone meanwhile.
      semantic_->set_loading(true);
      thread_ = std::thread([this] { run(); });
    }
  }
  ~BackgroundEmbedder() { stop(); }

  // Asks for another pass (after the data changed).
  void request() {
    std::lock_guard<std::mutex> lock(mu_);
    pending_ = true;
    cv_.notify_all();
  }
  void stop() {
    request_stop();
    if (thread_.joinable()) thread_.join();
  }
  // Asks the thread to stop and waits at most `timeout`; whether it has stopped (then it is joined). A pass in the
  // middle of a batch or of reading the store may take longer; its writes are whole transactions, so a process
  // that leaves without it loses at most the chunk in progress.
  bool stop_within(std::chrono::milliseconds timeout) {
    request_stop();
    if (!thread_.joinable()) return true;
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, timeout, [this] { return finished_; })) return false;
    lock.unlock();
    thread_.join();
    return true;
  }

 private:
  void request_stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }

  void run() {
    work();
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    cv_.notify_all();
  }

  void work() {
    if (!semantic_->has_model()) {  // loads the model; a broken one is reported by notice()
      semantic_->set_loading(false);
      return;
    }
    std::unique_ptr<store::Store> st;
    bool published = false;
    int64_t seen_version = -1;
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        // The store may not exist yet: the first tool call builds it. Look again every second; once open, look
        // every few seconds whether another process (an import, a sync) changed it.
        cv_.wait_for(lock, std::chrono::seconds(st ? 5 : 1), [this] { return stop_.load() || pending_; });
        if (stop_) return;
        if (st && !pending_) {
          auto version = st->data_version();
          if (!version || *version == seen_version) continue;
        }
        pending_ = false;
      }
      if (!st) {
        auto opened = store::Store::open(cfg_.db_path, store::Store::Mode::kExistingOnly);
        // No store yet: the first tool call builds it from the bundled snapshot with its vectors and asks for a
        // pass (request()), which its search waits for.
        if (!opened) continue;
        st = std::move(*opened);
        // It reads the vectors and texts in bulk: mapped, every page read would stay resident for the serve's life.
        if (Status unmapped = st->set_memory_mapped(false); !unmapped.is_ok()) log::debug(unmapped.to_string());
      }
      if (auto version = st->data_version()) seen_version = *version;
      // With LOREKEEPER_EMBED=stored another process writes the vectors (replicas sharing a store,
      // docs/DEPLOY.md): every change of the store publishes what it holds, and nothing is embedded here.
      const bool stored_only = cfg_.embed == "stored";
      if (!published || stored_only) {
        // The stored vectors answer at once (those of the bundled snapshot are there from its first sync); what
        // changed since is embedded below and published after.
        published = true;
        Status loaded = publish(*st);
        if (!loaded.is_ok()) {
          semantic_->set_failed(loaded.message());
          continue;
        }
      }
      // After another process's sync or import the in-memory text index is reloaded here rather than by the next
      // search.
      st->set_text_index_in_memory(true);
      if (Status warmed = st->warm_text_index(); !warmed.is_ok()) {
        log::warning("loading the text index failed (searches use FTS5): " + warmed.to_string());
      }
      if (stored_only) {
        if (!semantic_->index()) {
          semantic_->set_failed(
              "the store holds no vectors, and with LOREKEEPER_EMBED=stored serve embeds none: "
              "run `lorekeeper index`");
        }
      } else if (!embed_changed(*st)) {
        return;  // stopped
      }
      // The pass's page cache, passages and batches are freed; give their pages back rather than keep them for
      // answers that never need that much.
      (void)st->release_memory();
      malloc_trim(0);
    }
  }

  // Publishes the vectors `st` holds. They are read through a mapping of the store made for this read alone: a
  // third of the time of reading them page by page, and the mapping (15 MB resident) is dropped after it.
  Status publish(store::Store& st) {
    if (Status mapped = st.set_memory_mapped(true); !mapped.is_ok()) log::debug(mapped.to_string());
    Status loaded = semantic_->reload(st, true);
    if (Status unmapped = st.set_memory_mapped(false); !unmapped.is_ok()) log::debug(unmapped.to_string());
    return loaded;
  }

  // Embeds what changed in `st` and republishes the index when anything did; false when stopped meanwhile.
  bool embed_changed(store::Store& st) {
    search::IndexOptions options;
    options.threads = cfg_.embed_threads;
    options.max_passages = cfg_.embed_passages;
    auto report = search::update_vectors(
        st, *semantic_->encoder(), options, [this](const search::IndexProgress& p) { semantic_->set_progress(p); },
        &stop_);
    if (!report) {
      semantic_->set_failed(report.status().message());
      log::warning("embedding the entities failed: " + report.status().to_string());
      return true;
    }
    if (report->interrupted) return false;
    const auto& p = report->progress;
    if (p.entities_todo > 0) {
      log::info("embedded " + std::to_string(p.entities_todo) + " entities in " +
                text::format_number(std::round(p.seconds)) + " s");
    }
    if (p.entities_todo + p.entities_precomputed > 0 || report->pruned > 0 || !semantic_->index()) {
      Status loaded = publish(st);
      if (!loaded.is_ok()) semantic_->set_failed(loaded.message());
    }
    return true;
  }

  Config cfg_;
  std::shared_ptr<search::Semantic> semantic_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool pending_ = true;
  bool finished_ = false;  // guarded by mu_
  std::atomic<bool> stop_{false};
  std::thread thread_;
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
    auto moved = move_aside(cfg.db_path);
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
  // A new store is built in a private file and linked into place when complete (store_files.hpp): a sync that is
  // interrupted leaves no store behind, never an empty one.
  if (existed) remove_stale_builds(cfg.db_path);
  const std::string built_path = existed ? cfg.db_path : begin_private_build(cfg.db_path, "sync");
  if (!existed) {
    opened = store::Store::open(built_path, store::Store::Mode::kReadWrite);
    if (!opened) {
      std::fprintf(stderr, "lorekeeper sync: %s\n", opened.status().message().c_str());
      remove_store_files(built_path);
      return 1;
    }
  }
  store::Store& st = **opened;
  // Freshness: the same source synced less than the TTL ago is not fetched again unless forced.
  auto last = st.meta("synced_at:open5e");
  auto last_source = st.meta("source:open5e");
  auto last_unix = st.meta("synced_unix:open5e");
  if (!force && last_unix && *last_unix && last_source && *last_source) {
    const long long age = unix_now() - std::atoll((*last_unix)->c_str());
    const bool same = (*src)->describe() == **last_source;
    if (same && age < static_cast<long long>(cfg.cache_ttl_days) * 86400) {
      std::fprintf(stderr,
                   "The store is fresh: synced from %s %s ago (LOREKEEPER_CACHE_TTL_DAYS=%d). Use --force to sync "
                   "anyway.\n",
                   (**last_source).c_str(), age_of(**last).c_str(), cfg.cache_ttl_days);
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
      remove_store_files(built_path);
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
    auto placed = place_built_store(std::move(*opened), built_path, cfg.db_path);
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

int print_tool_result(const tools::ToolResult& r, bool as_json) {
  if (r.is_error) {
    std::fprintf(stderr, "lorekeeper: %s\n", r.text.c_str());
    return 1;
  }
  out(as_json ? r.structured.dump(2) + "\n" : r.text);
  return 0;
}

int cmd_search(const Config& cfg, const SearchRequest& request, Output output) {
  if (auto call = search_call(request); !call) {  // a usage error is found before the store is opened
    std::fprintf(stderr, "lorekeeper search: %s\n", call.status().message().c_str());
    return 2;
  }
  tools::Engine engine = make_engine(cfg);
  engine.set_semantic(one_shot_semantic(cfg, engine));
  return run_search(engine, request, output);
}

int cmd_get(const Config& cfg, const std::string& key_or_name, const std::string& kind, bool include_source,
            Output output) {
  tools::Engine engine = make_engine(cfg);
  engine.set_semantic(one_shot_semantic(cfg, engine));
  return run_get(engine, key_or_name, kind, include_source, output);
}

int cmd_documents(const Config& cfg, const std::string& source, bool as_json) {
  tools::Engine engine = make_engine(cfg);
  json args = json::object();
  if (!source.empty()) args["source"] = source;
  return print_tool_result(engine.call("list_documents", args), as_json);
}

int cmd_tool(const Config& cfg, const std::string& name, const std::string& args_text, bool as_json) {
  if (tools::find_tool(name, cfg.legacy_tools) == nullptr) {
    std::vector<std::string> names;
    for (const auto* s : tools::tool_specs(cfg.legacy_tools)) names.push_back(s->name);
    std::fprintf(stderr, "lorekeeper tool: unknown tool '%s'. Tools: %s\n", name.c_str(),
                 text::join(names, ", ").c_str());
    return 2;
  }
  std::string why;
  auto parsed = args_text.empty() ? std::optional<json>(json::object()) : json_util::parse(args_text, &why);
  if (!parsed || !parsed->is_object()) {
    std::fprintf(stderr, "lorekeeper tool: ARGS must be a JSON object%s\n", parsed ? "" : (" (" + why + ")").c_str());
    return 2;
  }
  const json& args = *parsed;
  tools::Engine engine = make_engine(cfg);
  engine.set_semantic(one_shot_semantic(cfg, engine));
  return print_tool_result(engine.call(name, args), as_json);
}

// One tool call a command line made (roll, encounter, spells, odds), printed as `lorekeeper tool` prints it.
int cmd_call(const Config& cfg, const ToolCall& call, bool as_json) {
  tools::Engine engine = make_engine(cfg);
  return print_tool_result(engine.call(call.tool, call.args), as_json);
}

int cmd_embed(const std::vector<std::string>& texts, bool as_json) {
  auto encoder = embed::Encoder::load(embed::default_model_dir());
  if (!encoder) {
    std::fprintf(stderr,
                 "lorekeeper embed: %s\nInstall the model with scripts/setup.sh (or set LOREKEEPER_MODEL_DIR).\n",
                 encoder.status().to_string().c_str());
    return 1;
  }
  json all = json::array();
  std::string readable;
  for (const auto& t : texts) {
    const auto ids = (*encoder)->tokenizer().encode(t);
    const auto vec = (*encoder)->encode_ids(ids);
    all.push_back({{"text", t}, {"ids", ids}, {"vector", vec}});
    readable += "\"" + t + "\": " + std::to_string(ids.size()) + " tokens " + json(ids).dump() + "\n  [";
    for (size_t i = 0; i < 6; ++i) readable += (i ? ", " : "") + text::format_number(std::round(vec[i] * 1e6) / 1e6);
    readable += ", ...] (" + std::to_string(vec.size()) + " dimensions)\n";
  }
  out(as_json ? all.dump() + "\n" : readable);
  return 0;
}

// Writes the store's vectors as a precomputed set (search/precomputed.hpp): data/open5e-vectors.bin is made this
// way from a store holding the bundled snapshot alone (scripts/make-vectors.sh).
Status export_vectors(store::Store& st, const std::string& path) {
  auto rows = st.vectors(search::kModelId, true);
  if (!rows) return rows.status();
  auto model_sha = sha256::file_hex(embed::default_model_dir() + "/model.safetensors");
  if (!model_sha) return model_sha.status();
  auto bytes = search::serialize_precomputed(*rows, search::kModelId, *model_sha, embed::kDimensions);
  if (!bytes) return bytes.status();
  const std::string tmp = path + ".part";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    f.close();
    if (!f) return Status::io_error("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::io_error("cannot rename " + tmp + " to " + path + ": " + ec.message());
  return Status::ok();
}

int cmd_index(const Config& cfg, int threads, bool quiet, bool as_json, bool recompute, const std::string& export_to) {
  auto encoder = embed::Encoder::load(embed::default_model_dir());
  if (!encoder) {
    std::fprintf(stderr,
                 "lorekeeper index: %s\nInstall the model with scripts/setup.sh (or set LOREKEEPER_MODEL_DIR).\n",
                 encoder.status().to_string().c_str());
    return 1;
  }
  auto opened = store::Store::open(cfg.db_path, store::Store::Mode::kExistingOnly);
  if (!opened) {
    std::fprintf(stderr, "lorekeeper index: %s\nFill the store first: lorekeeper sync --source bundled\n",
                 opened.status().message().c_str());
    return 1;
  }
  search::IndexOptions options;
  options.threads = threads > 0 ? threads : cfg.embed_threads;
  options.max_passages = cfg.embed_passages;
  options.recompute = recompute;
  if (recompute) options.precomputed = nullptr;
  static std::atomic<bool> stop{false};
  std::signal(SIGINT, [](int) { stop = true; });
  std::signal(SIGTERM, [](int) { stop = true; });
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto progress = [&](const search::IndexProgress& p) {
    if (quiet) return;
    const double rate = p.seconds > 0 ? static_cast<double>(p.tokens_done) / p.seconds : 0;
    const double per_entity = p.entities_done > 0 ? p.seconds / static_cast<double>(p.entities_done) : 0;
    const double eta = per_entity * static_cast<double>(p.entities_todo - p.entities_done);
    std::fprintf(stderr, "%sembedded %zu/%zu entities, %.0f tokens/s, ETA %.0f s%s", tty ? "\r\033[K" : "",
                 p.entities_done, p.entities_todo, rate, eta, tty ? "" : "\n");
  };
  auto report = search::update_vectors(**opened, **encoder, options, progress, &stop);
  if (tty && !quiet) std::fprintf(stderr, "\r\033[K");
  if (!report) {
    std::fprintf(stderr, "lorekeeper index: %s (vectors written so far are kept)\n",
                 report.status().to_string().c_str());
    return 1;
  }
  const auto& p = report->progress;
  if (!export_to.empty() && !report->interrupted) {
    if (Status exported = export_vectors(**opened, export_to); !exported.is_ok()) {
      std::fprintf(stderr, "lorekeeper index: exporting the vectors failed: %s\n", exported.to_string().c_str());
      return 1;
    }
  }
  json j = {{"entities", p.entities_total},
            {"embedded_now", p.entities_done},
            {"needed", p.entities_todo},
            {"precomputed", p.entities_precomputed},
            {"up_to_date", p.entities_total - p.entities_todo - p.entities_precomputed},
            {"pruned", report->pruned},
            {"tokens", p.tokens_done},
            {"seconds", std::round(p.seconds * 100) / 100},
            {"threads", options.threads},
            {"passages_per_entity", options.max_passages},
            {"interrupted", report->interrupted}};
  if (as_json) {
    out(j.dump(2) + "\n");
  } else {
    out("Embedded " + std::to_string(p.entities_done) + " of " + std::to_string(p.entities_todo) +
        " entities needing it (" + std::to_string(p.entities_total - p.entities_todo - p.entities_precomputed) +
        " of " + std::to_string(p.entities_total) + " were up to date, " + std::to_string(p.entities_precomputed) +
        " took the bundled vectors) in " + text::format_number(std::round(p.seconds * 10) / 10) + " s, " +
        std::to_string(p.tokens_done) + " tokens, " + std::to_string(options.threads) + " thread(s)." +
        (report->interrupted ? " Interrupted: run `lorekeeper index` again to resume." : "") +
        (export_to.empty() || report->interrupted ? "" : " Vectors written to " + export_to + ".") + "\n");
  }
  return report->interrupted ? 130 : 0;
}

int cmd_eval(const Config& cfg, const std::string& file, const std::string& ranking, bool as_json) {
  tools::Engine base = make_engine(cfg);
  // The figures are only worth having from the engine a user gets: the meaning index must cover every entity
  // (a half-built one would rank part of the corpus by meaning and the rest by words alone).
  auto semantic = make_semantic(cfg);
  std::string why_not;
  store::Store* st = base.store(&why_not);
  if (st == nullptr) {
    std::fprintf(stderr, "lorekeeper eval: %s\n", why_not.c_str());
    return 1;
  }
  if (ranking != "lexical") {
    if (!semantic || !semantic->has_model()) {
      std::fprintf(stderr, "lorekeeper eval: %s\n",
                   semantic ? semantic->notice().c_str() : "meaning-based search is off (LOREKEEPER_EMBED=off)");
      return 1;
    }
    auto coverage = search::vector_coverage(*st, semantic->max_passages());
    if (!coverage) {
      std::fprintf(stderr, "lorekeeper eval: %s\n", coverage.status().to_string().c_str());
      return 1;
    }
    if (coverage->embedded != coverage->entities) {
      std::fprintf(stderr,
                   "lorekeeper eval: the meaning index covers %zu of %zu entities; run `lorekeeper index` first "
                   "(or --ranking lexical)\n",
                   coverage->embedded, coverage->entities);
      return 1;
    }
    // Coverage was just checked (hashing every entity's passages); the reload need not check it again.
    Status loaded = semantic->reload(*st, true);
    if (!loaded.is_ok() || !semantic->index()) {
      std::fprintf(stderr, "lorekeeper eval: the meaning index cannot be loaded: %s\n",
                   loaded.is_ok() ? semantic->notice().c_str() : loaded.to_string().c_str());
      return 1;
    }
    std::fprintf(stderr, "lorekeeper eval: model %s, %zu vectors for %zu of %zu entities\n", search::kModelId,
                 semantic->index()->passage_count(), semantic->index()->size(), coverage->entities);
  }
  std::vector<std::pair<std::string, tools::Ranking>> modes;
  if (ranking == "hybrid" || ranking == "all") modes.push_back({"hybrid", tools::Ranking::kHybrid});
  if (ranking == "lexical" || ranking == "all") modes.push_back({"lexical", tools::Ranking::kLexical});
  if (ranking == "semantic" || ranking == "all") modes.push_back({"semantic", tools::Ranking::kSemantic});
  std::vector<tools::Engine> engines;
  engines.reserve(modes.size());
  std::vector<std::pair<std::string, tools::Engine*>> runs;
  for (const auto& [label, mode] : modes) {
    engines.push_back(make_long_lived_engine(cfg, semantic));
    engines.back().set_ranking(mode);
    runs.push_back({label, &engines.back()});
  }
  return run_eval(file, runs, as_json);
}

// Streamable HTTP until SIGINT/SIGTERM; every worker has its own engine sharing `semantic` and the notice.
int serve_http(const Config& cfg, std::shared_ptr<search::Semantic> semantic, std::function<std::string()> notice,
               std::function<void()> built) {
  mcp::HttpOptions http;
  http.host = cfg.http_host;
  http.port = cfg.http_port;
  http.token = cfg.http_token;
  http.allowed_hosts = text::split_commas(cfg.http_allowed_hosts);
  http.cors_origins = text::split_commas(cfg.http_cors_origins);
  http.threads = cfg.http_threads;
  http.max_connections = cfg.http_max_connections;
  http.max_connections_per_client = cfg.http_max_connections_per_client;
  mcp::ServerOptions options;
  options.version = kVersion;
  auto transport = mcp::HttpTransport::create(http, options, [&cfg, semantic, notice, built] {
    auto engine = std::make_unique<tools::Engine>(make_long_lived_engine(cfg, semantic, built));
    engine->set_notice(notice);
    return engine;
  });
  if (!transport) {
    std::fprintf(stderr, "lorekeeper serve --http: %s\n", transport.status().message().c_str());
    return 2;
  }
  // Printed whatever the log level, once SIGTERM is handled: scripts and tests read the URL (and the port chosen
  // for --port 0) here.
  Status served = (*transport)->serve_until_signalled([&] {
    std::fprintf(stderr, "lorekeeper: listening on %s (store %s)\n", (*transport)->url().c_str(), cfg.db_path.c_str());
    std::fflush(stderr);
  });
  if (!served.is_ok()) {
    std::fprintf(stderr, "lorekeeper serve --http: %s\n", served.message().c_str());
    return 1;
  }
  log::info("stopped serving HTTP");
  return 0;
}

// Loads the store's in-memory text index, so that serve's engines find it loaded (it stays loaded for them: see
// Store::set_text_index_in_memory) rather than the first search after a start or a sync loading it.
void warm_text_index(const Config& cfg) {
  auto st = store::Store::open(cfg.db_path, store::Store::Mode::kExistingOnly);
  if (!st) return;  // no store yet: the first call builds it, and the first search loads the index
  // Read page by page, not mapped: the whole text (about 35 MB of the bundled store) would otherwise stay resident
  // in this process until the load ends, and searches answered meanwhile would count it too.
  if (Status unmapped = (*st)->set_memory_mapped(false); !unmapped.is_ok()) log::debug(unmapped.to_string());
  (*st)->set_text_index_in_memory(true);
  Status warmed = (*st)->warm_text_index();
  if (!warmed.is_ok()) log::warning("loading the text index failed (searches use FTS5): " + warmed.to_string());
}

int cmd_serve(const Config& cfg, const std::string& auto_sync, bool http) {
  std::atomic<bool> warmed{false};
  auto semantic = make_semantic(cfg, true);
  BackgroundEmbedder embedder(cfg, semantic);
  // The text index is loaded once the stored vectors are published (searches meanwhile use FTS5, which ranks the
  // same): the two loads together on two cores took the vectors two to six times longer, and meaning-based search
  // is what a first search waits for.
  std::jthread warm_text([&cfg, &warmed, semantic] {
    if (semantic) semantic->wait_loaded(std::chrono::seconds(2));
    warm_text_index(cfg);
    warmed = true;
  });
  BackgroundSync refresh(cfg, auto_sync, [&embedder, &cfg] {
    embedder.request();
    warm_text_index(cfg);
  });
  std::function<std::string()> notice = [&refresh, semantic] {
    std::string note = refresh.notice();
    const std::string meaning = semantic ? semantic->notice() : std::string();
    if (!meaning.empty()) note += (note.empty() ? "" : " ") + meaning;
    return note;
  };
  // A store built by a tool call (the first start) is loaded at once, not at the embedder's next look.
  std::function<void()> built = [&embedder] { embedder.request(); };
  int rc = 0;
  if (http) {
    rc = serve_http(cfg, semantic, notice, built);
  } else {
    tools::Engine engine = make_long_lived_engine(cfg, semantic, built);
    engine.set_notice(notice);
    mcp::ServerOptions options;
    options.version = kVersion;
    mcp::Server server(engine, options);
    log::info("serving MCP on stdio; store " + cfg.db_path);
    rc = mcp::serve_stdio(server, STDIN_FILENO, STDOUT_FILENO);
  }
  // The background work (loading the text index, embedding, a refresh) writes only whole transactions: what is
  // not finished after a short wait is left behind (a sync's transaction is never committed, an embedding pass
  // loses at most its chunk in progress), so the end of a host's input ends the process at once.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
  auto left = [&] {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
  };
  bool stopped = embedder.stop_within(left());
  while (!warmed && left().count() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  stopped = refresh.stop(left()) && stopped && warmed;
  if (!stopped) {
    log::debug("leaving unfinished background work; the stored data is unchanged by it");
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(rc);
  }
  return rc;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"LoreKeeper: D&D 5e reference content for AI assistants, over MCP and on the command line.",
               "lorekeeper"};
  app.set_version_flag("--version", std::string("lorekeeper ") + kVersion);
  app.require_subcommand(1);
  std::string db_flag;
  std::string log_level_flag;
  std::string env_file = ".env";
  app.add_option("--db", db_flag,
                 "Store file (default: $LOREKEEPER_DB_PATH, else $XDG_DATA_HOME/lorekeeper/lorekeeper.db)");
  app.add_option("--log-level", log_level_flag,
                 "debug, info, warning, error or off (default: $LOREKEEPER_LOG_LEVEL or info)");
  app.add_option("--env-file", env_file, "Settings file read before the environment (default: ./.env)");
  app.footer(
      "Settings, highest precedence first: flags, LOREKEEPER_* environment variables, the .env file, defaults.\n"
      "Environment: LOREKEEPER_DB_PATH, LOREKEEPER_LOG_LEVEL, LOREKEEPER_ENV_FILE, LOREKEEPER_OPEN5E_BASE_URL,\n"
      "LOREKEEPER_CACHE_TTL_DAYS, LOREKEEPER_ERROR_CACHE_TTL_SECONDS, LOREKEEPER_LEGACY_TOOLS.");

  std::string auto_sync;
  bool legacy_tools_flag = false;
  bool serve_http_flag = false;
  std::string http_host_flag;
  int http_port_flag = -1;
  std::string http_token_flag;
  std::vector<std::string> http_allowed_host_flags;
  std::vector<std::string> http_cors_origin_flags;
  int http_threads_flag = 0;
  auto* serve = app.add_subcommand(
      "serve", "Serve MCP over stdio (the default transport of MCP hosts), or over Streamable HTTP with --http");
  serve->add_flag("--http", serve_http_flag,
                  "Serve Streamable HTTP on http://HOST:PORT/mcp (both protocol eras; GET /health) instead of stdio");
  serve->add_option("--host", http_host_flag,
                    "Address to bind with --http (default: $LOREKEEPER_HTTP_HOST or 127.0.0.1); any other than "
                    "loopback requires a token");
  serve
      ->add_option("--port", http_port_flag,
                   "Port with --http; 0 picks a free one (default: $LOREKEEPER_HTTP_PORT or 8080)")
      ->check(CLI::Range(0, 65535));
  serve->add_option("--token", http_token_flag,
                    "Bearer token clients must send with --http (default: $LOREKEEPER_HTTP_TOKEN; prefer the "
                    "variable: flags are visible to other local users)");
  serve->add_option("--allowed-host", http_allowed_host_flags,
                    "Extra Host header value accepted with --http, \"name\" or \"name:port\" (repeatable; default: "
                    "$LOREKEEPER_HTTP_ALLOWED_HOSTS, comma-separated)");
  serve->add_option("--cors-origin", http_cors_origin_flags,
                    "Browser origin allowed to call with --http, answered with CORS headers (repeatable; default: "
                    "$LOREKEEPER_HTTP_CORS_ORIGINS, comma-separated)");
  serve
      ->add_option("--http-threads", http_threads_flag,
                   "Worker threads with --http, each with its own store connection (default: "
                   "$LOREKEEPER_HTTP_THREADS or 32)")
      ->check(CLI::Range(1, 256));
  serve->add_flag("--legacy-tools", legacy_tools_flag,
                  "Also serve the older tool names (lookup_spell, ..., search_dnd_content); default: "
                  "$LOREKEEPER_LEGACY_TOOLS");
  serve
      ->add_option("--auto-sync", auto_sync,
                   "Refresh stale data from the API in the background: auto (when it is reachable; default), on, "
                   "off (default: $LOREKEEPER_AUTO_SYNC or auto)")
      ->check(CLI::IsMember({"auto", "on", "off"}));

  bool status_json = false;
  auto* status = app.add_subcommand("status", "Show the store: path, counts per kind and document, data age");
  status->add_flag("--json", status_json, "Machine-readable output");

  std::string sync_source;
  bool sync_quiet = false;
  bool sync_force = false;
  bool sync_json = false;
  bool sync_accept_incomplete = false;
  bool sync_move_aside = false;
  int sync_page_size = 100;
  auto* sync = app.add_subcommand("sync", "Fill or refresh the store from the Open5e API or recorded pages");
  sync->add_option("--source", sync_source,
                   "A base URL (default: $LOREKEEPER_OPEN5E_BASE_URL, https://api.open5e.com), \"bundled\" (the "
                   "snapshot inside this binary), a directory of recorded pages or a .tar.zst of them "
                   "(docs/formats/mirror-layout.md)");
  sync->add_flag("--force", sync_force, "Sync even if the data is fresh, and retry endpoints that failed recently");
  sync->add_option("--page-size", sync_page_size, "Records per page requested from the API (1-1000)")
      ->check(CLI::Range(1, 1000));
  sync->add_flag("--quiet", sync_quiet, "No progress output");
  sync->add_flag("--move-aside", sync_move_aside,
                 "When the store is damaged or not a LoreKeeper store, rename it to <file>.damaged-<time> and build "
                 "a new one");
  sync->add_flag("--accept-incomplete", sync_accept_incomplete,
                 "Store listings that end short of their own count or hold less than half of what the stored data "
                 "came from (otherwise those endpoints fail and keep their data)");
  sync->add_flag("--json", sync_json, "Print the sync report as JSON on stdout");

  std::string query;
  std::string kind;
  std::vector<std::string> filters;
  std::vector<std::string> documents;
  int limit = 0;
  bool search_json = false;
  auto* search = app.add_subcommand("search", "Search like the MCP tools do");
  search->add_option("query", query, "Name or words (may be empty with --kind and filters)");
  search->add_option("-k,--kind", kind,
                     "spell, creature, class, race, background, feat, weapon, armor, item, magic-item, equipment, "
                     "or a rule type (rule, condition, skill, ...); default: all kinds");
  // One value per -f and -d, so that a query after them ("-f cr=5 goblin") stays the query.
  search
      ->add_option("-f,--filter", filters,
                   "Tool parameter as key=value, read as the parameter's type (level=3, school=evocation, "
                   "documents=srd-2014,tob); repeatable")
      ->allow_extra_args(false);
  search->add_option("-d,--document", documents, "Only this source document (repeatable)")->allow_extra_args(false);
  search->add_option("-n,--limit", limit, "Maximum results (1-100)");
  std::string edition;
  search->add_option("-e,--edition", edition, "Only these rules: 2014 (SRD 5.1), 2024 (SRD 5.2) or a5e (Level Up)");
  auto* search_json_opt = search->add_flag("--json", search_json, "Print the structured result as JSON");
  bool search_table = false;
  bool search_full = false;
  auto* search_table_opt = search->add_flag("--table", search_table, "One line per result (the default on a terminal)");
  search->add_flag("--full", search_full, "Every result in full, as the tools answer (the default in a pipe)")
      ->excludes(search_table_opt)
      ->excludes(search_json_opt);
  search_table_opt->excludes(search_json_opt);

  std::string get_key;
  std::string get_kind;
  bool get_json = false;
  bool get_source = false;
  auto* get = app.add_subcommand("get", "Print one entity by key, or by name (every kind of that name)");
  get->add_option("key", get_key, "Key (srd_fireball) or exact name (Fireball)")->required();
  get->add_option("-k,--kind", get_kind, "Kind, when a key or name has several (spell, armor, ...)");
  get->add_flag("--source", get_source, "Add the original API record");
  get->add_flag("--json", get_json, "Print the structured result as JSON");

  std::string doc_source;
  bool doc_json = false;
  auto* docs = app.add_subcommand("documents", "List the source documents in the store");
  docs->add_option("--source", doc_source, "open5e_v2, open5e_v1 or orcbrew");
  docs->add_flag("--json", doc_json, "Machine-readable output");

  std::vector<std::string> embed_texts;
  bool embed_json = false;
  auto* embed_cmd = app.add_subcommand("embed", "Token ids and sentence embeddings (all-MiniLM-L6-v2) of texts");
  embed_cmd->add_option("text", embed_texts, "Texts to embed")->required();
  embed_cmd->add_flag("--json", embed_json, "Print [{text, ids, vector}] as JSON");

  int index_threads = 0;
  bool index_quiet = false;
  bool index_json = false;
  auto* index_cmd = app.add_subcommand(
      "index", "Embed the entities for meaning-based search (only those changed since the last run; resumable)");
  index_cmd->add_option("--threads", index_threads, "Encoder threads (default: $LOREKEEPER_EMBED_THREADS or 1)")
      ->check(CLI::Range(1, 64));
  index_cmd->add_flag("--quiet", index_quiet, "No progress output");
  index_cmd->add_flag("--json", index_json, "Print the report as JSON");
  bool index_recompute = false;
  std::string index_export;
  index_cmd->add_flag("--recompute", index_recompute,
                      "Embed every entity with the model, ignoring stored and bundled vectors");
  index_cmd->add_option("--export", index_export,
                        "Then write the store's vectors to FILE as a precomputed set (data/open5e-vectors.bin)");

  std::string eval_file;
  std::string eval_ranking = "hybrid";
  bool eval_json = false;
  auto* eval_cmd = app.add_subcommand("eval", "Run a search evaluation set (JSONL) and report hit@k and MRR@10");
  eval_cmd->add_option("file", eval_file, "Evaluation set (tests/eval/queries.jsonl; format in its README)")
      ->required();
  eval_cmd->add_option("--ranking", eval_ranking, "hybrid, lexical, semantic or all")
      ->check(CLI::IsMember({"hybrid", "lexical", "semantic", "all"}));
  eval_cmd->add_flag("--json", eval_json, "Print the metrics (and every row's rank) as JSON");

  std::vector<std::string> import_files;
  bool import_dry_run = false;
  bool import_json = false;
  bool import_no_embed = false;
  auto* import_cmd =
      app.add_subcommand("import", "Import OrcBrew homebrew packs (.orcbrew); importing a pack again replaces it");
  import_cmd->add_option("file", import_files, "OrcBrew files")->required();
  import_cmd->add_flag("--dry-run", import_dry_run, "Read and report what would be imported; write nothing");
  import_cmd->add_flag("--json", import_json, "Print the report as JSON");
  import_cmd->add_flag("--no-embed", import_no_embed, "Do not embed the imported entities for semantic search");

  std::vector<std::string> remove_packs;
  bool remove_json = false;
  auto* remove_cmd = app.add_subcommand("remove", "Remove imported OrcBrew packs and their entities");
  remove_cmd
      ->add_option("pack", remove_packs, "Pack names or document keys (see: lorekeeper documents --source orcbrew)")
      ->required();
  remove_cmd->add_flag("--json", remove_json, "Print the report as JSON");

  ModelFetchOptions fetch_options;
  auto* model_cmd = app.add_subcommand("model", "Manage the sentence embedding model (all-MiniLM-L6-v2)");
  model_cmd->require_subcommand(1);
  auto* fetch_cmd = model_cmd->add_subcommand(
      "fetch", "Download the model from Hugging Face into the model directory (sha256 checked; atomic)");
  fetch_options.base_url = kModelBaseUrl;
  fetch_cmd->add_option("--url", fetch_options.base_url, "Base URL of the model's files")
      ->envname("LOREKEEPER_MODEL_URL")
      ->capture_default_str();
  fetch_cmd->add_flag("--force", fetch_options.force, "Download even when a valid model is installed");
  fetch_cmd->add_flag("--quiet", fetch_options.quiet, "No progress output");

  std::string tool_name;
  std::string tool_args;
  bool tool_json = false;
  RollRequest roll_request;
  int roll_target = 0, roll_times = 0;
  long long roll_seed = 0;
  bool roll_json = false, roll_advantage = false, roll_disadvantage = false;
  auto* roll =
      app.add_subcommand("roll", "Roll dice with their exact odds, as roll_dice answers (roll 8d6 --target 30)");
  roll->add_option("notation", roll_request.notation, "Dice: 8d6, 1d20+5, 4d6kh3, 2d20kh1+7")->required();
  auto* roll_target_opt =
      roll->add_option("-t,--target", roll_target, "Also the exact chance of a total at least this");
  auto* roll_times_opt = roll->add_option("-n,--times", roll_times, "How many rolls (default 1)");
  auto* roll_advantage_opt =
      roll->add_flag("--advantage", roll_advantage, "Roll each plain 1d20 twice and keep the higher");
  roll->add_flag("--disadvantage", roll_disadvantage, "Roll each plain 1d20 twice and keep the lower")
      ->excludes(roll_advantage_opt);
  auto* roll_seed_opt = roll->add_option("--seed", roll_seed, "Seed: the same seed gives the same dice");
  roll->add_flag("--json", roll_json, "Print the structured result as JSON");

  EncounterRequest encounter_request;
  long long encounter_seed = 0;
  bool encounter_json = false;
  auto* encounter = app.add_subcommand(
      "encounter",
      "How hard a fight is for a party (creatures given), or fights to build for it (none given), as "
      "evaluate_encounter and build_encounter answer");
  encounter->add_option("creatures", encounter_request.creatures,
                        "Creatures: goblin, \"4 goblin\", \"goblin x4\", srd_bugbear, \"cr 1/2\"");
  encounter->add_option("-p,--party", encounter_request.party, "The party's levels: 3,3,3,4, or 4x5 for four level-5")
      ->required();
  encounter->add_option("-r,--rules", encounter_request.rules, "2014 or 2024 (default: the preferred edition)");
  encounter->add_option("--difficulty", encounter_request.difficulty,
                        "To build: easy, medium, hard, deadly (2014); low, moderate, high (2024)");
  encounter->add_option("--theme", encounter_request.theme, "To build: what the fight is about, in words");
  encounter->add_option("--environment", encounter_request.environment, "To build: swamp, mountain, underworld, ...");
  auto* encounter_seed_opt =
      encounter->add_option("--seed", encounter_seed, "To build: the same seed, the same groups");
  encounter->add_option("-d,--document", encounter_request.documents, "Only this source document (repeatable)")
      ->allow_extra_args(false);
  encounter->add_flag("--json", encounter_json, "Print the structured result as JSON");

  SpellsRequest spells_request;
  int spells_modifier = 0;
  bool spells_json = false;
  auto* spells = app.add_subcommand(
      "spells",
      "What a class casts at a level: slots, cantrips, prepared spells and its list, as class_spells answers");
  spells->add_option("class", spells_request.class_name, "Class (or subclass) by name or key: cleric, \"Life Domain\"")
      ->required();
  spells->add_option("level", spells_request.level, "Character level in the class, 1-20")->required();
  spells->add_option("-s,--subclass", spells_request.subclass, "Also this subclass's granted spells: life, devotion");
  spells->add_option("-r,--rules", spells_request.rules, "2014 or 2024 (default: the preferred edition)");
  auto* spells_modifier_opt = spells->add_option(
      "-m,--modifier", spells_modifier, "Spellcasting ability modifier, to count a 2014 class's prepared spells");
  spells->add_option("-d,--document", spells_request.documents, "Spells of this source document (repeatable)")
      ->allow_extra_args(false);
  spells->add_flag("--json", spells_json, "Print the structured result as JSON");

  OddsRequest odds_request;
  int odds_bonus = 0, odds_ac = 0, odds_attacks = 0, odds_crit = 0, odds_save_dc = 0, odds_save_bonus = 0;
  bool odds_json = false, odds_advantage = false, odds_disadvantage = false;
  auto* odds = app.add_subcommand(
      "odds", "Exact odds of attacks and saves and their damage, as attack_odds answers (odds --bonus 5 --ac 16)");
  auto* odds_bonus_opt = odds->add_option("-b,--bonus", odds_bonus, "Attack bonus (+5 is 5)");
  auto* odds_ac_opt = odds->add_option("--ac", odds_ac, "The target's armor class");
  auto* odds_attacks_opt = odds->add_option("-n,--attacks", odds_attacks, "How many such attacks");
  odds->add_option("--damage", odds_request.damage, "Damage dice of a hit: 1d8+3");
  odds->add_option("-c,--creature", odds_request.creature, "A creature's attacks, by name or key: ogre");
  odds->add_option("--action", odds_request.action, "With --creature: only this action");
  auto* odds_crit_opt = odds->add_option("--crit", odds_crit, "Lowest natural roll that crits (default 20)");
  auto* odds_save_dc_opt = odds->add_option("--save-dc", odds_save_dc, "A saving throw's DC (with --save-bonus)");
  auto* odds_save_bonus_opt =
      odds->add_option("--save-bonus", odds_save_bonus, "The target's save bonus (a creature's save effects too)");
  auto* odds_advantage_opt = odds->add_flag("--advantage", odds_advantage, "Roll with advantage");
  odds->add_flag("--disadvantage", odds_disadvantage, "Roll with disadvantage")->excludes(odds_advantage_opt);
  odds->add_flag("--table", odds_request.table, "Also the chance to hit each AC near the target");
  odds->add_option("-d,--document", odds_request.documents, "Look for the creature in this document (repeatable)")
      ->allow_extra_args(false);
  odds->add_flag("--json", odds_json, "Print the structured result as JSON");

  auto* tool = app.add_subcommand("tool", "Call one MCP tool directly with JSON arguments");
  tool->add_option("name", tool_name, "Tool name (e.g. search_spell)")->required();
  tool->add_option("args", tool_args, "Arguments as a JSON object");
  tool->add_flag("--json", tool_json, "Print the structured result as JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // An unknown first word is a command the user expected to exist: name the ones that do.
    const std::vector<std::string> rest = app.remaining();
    if (e.get_exit_code() != 0 && !rest.empty() && !rest.front().empty() && rest.front()[0] != '-' &&
        app.get_subcommands().empty()) {
      std::vector<std::string> names;
      for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
      std::fprintf(stderr, "lorekeeper: unknown command '%s'. Commands: %s.\nRun with --help for more information.\n",
                   rest.front().c_str(), text::join(names, ", ").c_str());
      return 2;
    }
    // --help and --version exit 0; every usage error exits 2, as documented.
    return app.exit(e) == 0 ? 0 : 2;
  }

  auto env = process_env();
  if (auto f = env("LOREKEEPER_ENV_FILE"); f && env_file == ".env") env_file = *f;
  auto cfg = load_config(env, env_file);
  if (!cfg) {
    std::fprintf(stderr, "lorekeeper: %s\n", cfg.status().message().c_str());
    return 2;
  }
  if (!db_flag.empty()) {
    cfg->db_path = db_flag;
    cfg->origin["db_path"] = "flag";
  }
  if (!log_level_flag.empty()) {
    cfg->log_level = log_level_flag;
    cfg->origin["log_level"] = "flag";
  }
  log::Level level;
  if (!log::parse_level(cfg->log_level, &level)) {
    std::fprintf(stderr, "lorekeeper: unknown log level '%s' (debug, info, warning, error, off)\n",
                 cfg->log_level.c_str());
    return 2;
  }
  log::set_level(level);

  if (*serve) {
    if (auto_sync.empty()) auto_sync = cfg->auto_sync;
    if (legacy_tools_flag) {
      cfg->legacy_tools = true;
      cfg->origin["legacy_tools"] = "flag";
    }
    if (!http_host_flag.empty()) cfg->http_host = http_host_flag;
    if (http_port_flag >= 0) cfg->http_port = http_port_flag;
    if (!http_token_flag.empty()) cfg->http_token = http_token_flag;
    if (!http_allowed_host_flags.empty()) cfg->http_allowed_hosts = text::join(http_allowed_host_flags, ",");
    if (!http_cors_origin_flags.empty()) cfg->http_cors_origins = text::join(http_cors_origin_flags, ",");
    if (http_threads_flag > 0) cfg->http_threads = http_threads_flag;
    return cmd_serve(*cfg, auto_sync, serve_http_flag);
  }
  if (*status) return cmd_status(*cfg, status_json);
  if (*sync)
    return cmd_sync(*cfg, sync_source, sync_force, sync_quiet, sync_page_size, sync_accept_incomplete, sync_move_aside,
                    sync_json);
  if (*search) {
    const Output output = search_json    ? Output::kJson
                          : search_full  ? Output::kFull
                          : search_table ? Output::kTable
                                         : Output::kAuto;
    return cmd_search(*cfg, SearchRequest{query, kind, filters, documents, limit, edition}, output);
  }
  if (*get) return cmd_get(*cfg, get_key, get_kind, get_source, get_json ? Output::kJson : Output::kAuto);
  if (*docs) return cmd_documents(*cfg, doc_source, doc_json);
  if (*tool) return cmd_tool(*cfg, tool_name, tool_args, tool_json);
  if (*roll) {
    if (roll_target_opt->count() > 0) roll_request.target = roll_target;
    if (roll_times_opt->count() > 0) roll_request.times = roll_times;
    if (roll_seed_opt->count() > 0) roll_request.seed = roll_seed;
    roll_request.mode = roll_advantage ? "advantage" : roll_disadvantage ? "disadvantage" : "";
    return cmd_call(*cfg, roll_call(roll_request), roll_json);
  }
  if (*encounter) {
    if (encounter_seed_opt->count() > 0) encounter_request.seed = encounter_seed;
    auto call = encounter_call(encounter_request);
    if (!call) {
      std::fprintf(stderr, "lorekeeper encounter: %s\n", call.status().message().c_str());
      return 2;
    }
    return cmd_call(*cfg, *call, encounter_json);
  }
  if (*spells) {
    if (spells_modifier_opt->count() > 0) spells_request.modifier = spells_modifier;
    return cmd_call(*cfg, spells_call(spells_request), spells_json);
  }
  if (*odds) {
    const std::pair<CLI::Option*, std::pair<int*, std::optional<int>*>> given[] = {
        {odds_bonus_opt, {&odds_bonus, &odds_request.bonus}},
        {odds_ac_opt, {&odds_ac, &odds_request.ac}},
        {odds_attacks_opt, {&odds_attacks, &odds_request.attacks}},
        {odds_crit_opt, {&odds_crit, &odds_request.crit}},
        {odds_save_dc_opt, {&odds_save_dc, &odds_request.save_dc}},
        {odds_save_bonus_opt, {&odds_save_bonus, &odds_request.save_bonus}}};
    for (const auto& [option, value] : given) {
      if (option->count() > 0) *value.second = *value.first;
    }
    odds_request.mode = odds_advantage ? "advantage" : odds_disadvantage ? "disadvantage" : "";
    return cmd_call(*cfg, odds_call(odds_request), odds_json);
  }
  if (*embed_cmd) return cmd_embed(embed_texts, embed_json);
  if (*index_cmd) return cmd_index(*cfg, index_threads, index_quiet, index_json, index_recompute, index_export);
  if (*eval_cmd) return cmd_eval(*cfg, eval_file, eval_ranking, eval_json);
  if (*import_cmd) {
    ImportOptions options;
    options.dry_run = import_dry_run;
    options.as_json = import_json;
    options.embed = !import_no_embed && cfg->embed != "off";
    options.model_dir = embed::default_model_dir();
    options.threads = cfg->embed_threads;
    options.max_passages = cfg->embed_passages;
    options.bootstrap = [c = *cfg](const std::string& path) { return bootstrap_from_bundled(c, path); };
    return run_import(cfg->db_path, import_files, options);
  }
  if (*remove_cmd) return run_remove(cfg->db_path, remove_packs, remove_json);
  if (*fetch_cmd) {
    fetch_options.dir = embed::default_model_dir();
    return run_model_fetch(fetch_options);
  }
  return 2;
}

}  // namespace lorekeeper::cli
