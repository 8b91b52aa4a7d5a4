// Keeping the data fresh: where pages come from, which lists failed recently (and so are not asked again before
// the error TTL), how old the data is, and the refresh `serve` runs in the background while it answers from what
// it has.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lorekeeper/core/config.hpp"
#include "lorekeeper/core/status.hpp"
#include "lorekeeper/open5e/page_source.hpp"
#include "lorekeeper/open5e/sync.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::serve {

// Opens the page source named by --source: "bundled", an http(s) URL (with cfg's timeout and retries), a .tar.zst
// archive or a directory; InvalidArgument for anything else.
Result<std::unique_ptr<open5e::PageSource>> open_source(const Config& cfg, const std::string& source);

// Age of an ISO-8601 UTC timestamp ("2026-11-28T10:00:00Z") in a short human form ("3 days"); "unknown" when it
// cannot be read.
std::string age_of(const std::string& iso);

// Whether data synced at `synced_unix` (seconds since the epoch; 0: never) is older than cfg.cache_ttl_days, and so
// is refreshed (serve) or synced again without --force (sync).
bool is_stale(const Config& cfg, long long synced_unix);

// The sync lists that failed less than cfg.error_cache_ttl_seconds ago (record_endpoint_failures): a sync skips them
// and their previous data stays.
std::vector<std::string> recently_failed_endpoints(const Config& cfg, store::Store& st);

// Remembers when each list of `report` failed, and forgets the failures of lists that worked this time (a list
// skipped by `options` keeps what it had).
void record_endpoint_failures(store::Store& st, const open5e::SyncReport& report, const open5e::SyncOptions& options);

// Refreshes data older than cfg.cache_ttl_days from cfg.open5e_base_url in a background thread while `serve`
// answers from what it has. Mode "auto" refreshes only when the API answers a quick probe (so an offline machine
// stays quiet), "on" always tries, "off" never. A store that does not exist yet is left to the first tool call.
class BackgroundRefresh {
 public:
  // `synced` is called (on the background thread) after a sync that committed new data.
  BackgroundRefresh(const Config& cfg, std::string mode, std::function<void()> synced);
  // Stops the refresh (stop()); one that does not stop in time ends the process (std::terminate), so a caller that
  // cannot wait leaves before (serve ends with _Exit).
  ~BackgroundRefresh();
  BackgroundRefresh(const BackgroundRefresh&) = delete;
  BackgroundRefresh& operator=(const BackgroundRefresh&) = delete;

  // Stops a running sync (its writes are rolled back) and waits at most `timeout`; false if it did not stop.
  bool stop(std::chrono::milliseconds timeout = std::chrono::seconds(2));

  // While a refresh runs, that it does; after a refresh of stale data failed (or could not start: the API was
  // unreachable), how old the data is, so every answer says so and not only the log. Empty otherwise.
  std::string notice() const;

  // Whether the refresh has ended (or never started: mode "off"); its notice no longer changes.
  bool finished() const;

 private:
  void run();
  void set_stale(const std::string& why);
  void set_partly_stale(const std::vector<std::string>& lists);

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

}  // namespace lorekeeper::serve
