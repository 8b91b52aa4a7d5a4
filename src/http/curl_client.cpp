#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <random>
#include <thread>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/http/client.hpp"

namespace lorekeeper::http {

namespace {

size_t append_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

class CurlClient : public Client {
 public:
  explicit CurlClient(const Options& options) : options_(options) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    handle_.reset(curl_easy_init());
  }

  Result<Response> get(const std::string& url) override {
    CURL* h = handle_.get();
    if (h == nullptr) return Status::internal("curl: cannot create a handle");
    curl_easy_reset(h);
    Response r;
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // every encoding curl supports, gzip included
    curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, options_.timeout_ms);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, options_.low_speed_seconds);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &r.body);
    struct curl_slist* headers = curl_slist_append(nullptr, "Accept: application/json");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    const CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) {
      return Status::unavailable("GET " + url + ": " + (error[0] ? std::string(error) : curl_easy_strerror(rc)));
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r.status);
    char* type = nullptr;
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type);
    if (type) r.content_type = type;
    return r;
  }

 private:
  struct Cleanup {
    void operator()(CURL* h) const { curl_easy_cleanup(h); }
  };
  Options options_;
  std::unique_ptr<CURL, Cleanup> handle_;
};

}  // namespace

std::unique_ptr<Client> make_curl_client(const Options& options) { return std::make_unique<CurlClient>(options); }

Result<Response> get_with_retries(Client& client, const std::string& url, const RetryPolicy& policy,
                                  const std::function<void(int ms)>& sleep_ms) {
  static thread_local std::mt19937 rng(std::random_device{}());
  Status last = Status::unavailable("GET " + url + ": no attempt made");
  for (int attempt = 1; attempt <= std::max(1, policy.max_attempts); ++attempt) {
    auto r = client.get(url);
    if (r && r->status < 500) return r;  // success, redirect or a client error: retrying would not help
    last = r ? Status::unavailable("GET " + url + ": HTTP " + std::to_string(r->status)) : r.status();
    if (attempt == policy.max_attempts) break;
    const double base = std::min<double>(policy.max_delay_ms, policy.base_delay_ms * std::pow(2.0, attempt - 1));
    std::uniform_real_distribution<double> factor(1.0 - policy.jitter, 1.0);
    const int delay = static_cast<int>(base * factor(rng));
    log::warning(last.message() + "; retrying in " + std::to_string(delay) + " ms (attempt " +
                 std::to_string(attempt + 1) + " of " + std::to_string(policy.max_attempts) + ")");
    if (sleep_ms)
      sleep_ms(delay);
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
  }
  return last;
}

}  // namespace lorekeeper::http
