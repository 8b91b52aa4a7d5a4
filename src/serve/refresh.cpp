#include "lorekeeper/serve/refresh.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/http/client.hpp"
#include "lorekeeper/open5e/http_source.hpp"

namespace lorekeeper::serve {

namespace {

long long unix_now() { return static_cast<long long>(std::time(nullptr)); }

}  // namespace

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

bool is_stale(const Config& cfg, long long synced_unix) {
  return synced_unix <= 0 || unix_now() - synced_unix >= static_cast<long long>(cfg.cache_ttl_days) * 86400;
}

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

BackgroundRefresh::BackgroundRefresh(const Config& cfg, std::string mode, std::function<void()> synced)
    : cfg_(cfg), mode_(std::move(mode)), synced_(std::move(synced)) {
  if (mode_ != "off") {
    thread_ = std::thread([this] {
      run();
      std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
    });
  }
}

BackgroundRefresh::~BackgroundRefresh() { stop(); }

bool BackgroundRefresh::stop(std::chrono::milliseconds timeout) {
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

std::string BackgroundRefresh::notice() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_) {
    return "Note: the data is being refreshed from " + cfg_.open5e_base_url +
           " in the background; this answer uses the data synced " + age_ + " ago.";
  }
  return stale_;
}

bool BackgroundRefresh::finished() const {
  if (!thread_.joinable()) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_;
}

void BackgroundRefresh::run() {
  auto opened = store::Store::open(cfg_.db_path, store::Store::Mode::kExistingOnly);
  if (!opened) return;  // no store yet: the first tool call builds it from the bundled snapshot
  store::Store& st = **opened;
  const open5e::LastSync last = open5e::last_sync(st);
  if (!is_stale(cfg_, last.unix_time)) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    age_ = last.at.empty() ? "an unknown time" : age_of(last.at);
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

void BackgroundRefresh::set_stale(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  stale_ = "Note: this data was synced " + age_ + " ago, longer than the refresh interval of " +
           std::to_string(cfg_.cache_ttl_days) + " day(s), and refreshing it failed (" + why +
           "); it may be out of date.";
}

void BackgroundRefresh::set_partly_stale(const std::vector<std::string>& lists) {
  std::lock_guard<std::mutex> lock(mutex_);
  stale_ = "Note: refreshing " + text::join(lists, ", ") + " failed; those lists keep the data synced " + age_ +
           " ago and may be out of date.";
}

}  // namespace lorekeeper::serve
