// HTTP GET with TLS, timeouts, gzip and a retry policy; libcurl underneath.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::http {

struct Response {
  long status = 0;
  std::string body;
  std::string content_type;
};

struct Options {
  long connect_timeout_ms = 10000;
  long timeout_ms = 60000;      // whole transfer
  long low_speed_seconds = 20;  // abort a transfer that stalls below 1 byte/s for this long
  std::string user_agent = "LoreKeeper/0.1.0 (+https://github.com/lorekeeper)";
  // get(): a body larger than this (decoded) is abandoned with Corruption. The largest recorded Open5e page is
  // about 1 MB; docs/LIMITS.md.
  size_t max_body_bytes = 64u << 20;
};

// One GET. Transport failures (DNS, connect, TLS, timeout) are Unavailable; a body over max_body_bytes is
// Corruption; any HTTP status is a Response.
class Client {
 public:
  virtual ~Client() = default;
  virtual Result<Response> get(const std::string& url) = 0;
};

// A libcurl client (one easy handle, reused, so connections are kept alive). Not thread-safe.
std::unique_ptr<Client> make_curl_client(const Options& options);

struct RetryPolicy {
  int max_attempts = 5;     // including the first
  int base_delay_ms = 500;  // before the 2nd attempt; doubles each time
  int max_delay_ms = 8000;
  double jitter = 0.5;  // each delay is scaled by a random factor in [1 - jitter, 1]
};

// Streams one GET to the file `path` (created or truncated), following redirects; `progress` (optional) is called
// with the bytes received and the expected total (0 when unknown) as data arrives. No whole-transfer timeout:
// a transfer is aborted when it stalls (below 1 KiB/s for options.low_speed_seconds) or fails to connect within
// options.connect_timeout_ms. Returns the HTTP status; transport failures are Unavailable, a file that cannot be
// written IoError. On any error or non-2xx status the caller should delete `path`.
Result<long> download(const Options& options, const std::string& url, const std::string& path,
                      const std::function<void(uint64_t received, uint64_t total)>& progress = nullptr);

// GET with retries on transport failures (Unavailable) and 5xx (with exponential backoff and jitter); 4xx and
// 2xx/3xx answers and other errors (an oversized body) are returned at once. `sleep_ms` is injectable so tests need not
// wait.
Result<Response> get_with_retries(Client& client, const std::string& url, const RetryPolicy& policy,
                                  const std::function<void(int ms)>& sleep_ms = nullptr);

}  // namespace lorekeeper::http
