#include <curl/curl.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/http/client.hpp"

namespace lorekeeper::http {

namespace {

// libcurl is loaded on first use, not at process start: it pulls in about thirty libraries (TLS, HTTP/2,
// Kerberos, LDAP, ...) whose loading would triple the time `serve` needs to answer `initialize`, and only a
// sync from the network needs it.
struct Curl {
  CURLcode (*global_init)(long);
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL*);
  void (*easy_reset)(CURL*);
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  const char* (*easy_strerror)(CURLcode);
  struct curl_slist* (*slist_append)(struct curl_slist*, const char*);
  void (*slist_free_all)(struct curl_slist*);
};

// The loaded library, or nullptr with the reason in *error.
const Curl* curl_library(std::string* error) {
  static std::string load_error;
  static const Curl* lib = []() -> const Curl* {
    void* h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = dlerror();
      load_error = std::string("cannot load libcurl.so.4: ") + (e ? e : "unknown error");
      return nullptr;
    }
    static Curl c;
    auto sym = [&](const char* name) { return dlsym(h, name); };
    c.global_init = reinterpret_cast<decltype(c.global_init)>(sym("curl_global_init"));
    c.easy_init = reinterpret_cast<decltype(c.easy_init)>(sym("curl_easy_init"));
    c.easy_cleanup = reinterpret_cast<decltype(c.easy_cleanup)>(sym("curl_easy_cleanup"));
    c.easy_reset = reinterpret_cast<decltype(c.easy_reset)>(sym("curl_easy_reset"));
    c.easy_setopt = reinterpret_cast<decltype(c.easy_setopt)>(sym("curl_easy_setopt"));
    c.easy_perform = reinterpret_cast<decltype(c.easy_perform)>(sym("curl_easy_perform"));
    c.easy_getinfo = reinterpret_cast<decltype(c.easy_getinfo)>(sym("curl_easy_getinfo"));
    c.easy_strerror = reinterpret_cast<decltype(c.easy_strerror)>(sym("curl_easy_strerror"));
    c.slist_append = reinterpret_cast<decltype(c.slist_append)>(sym("curl_slist_append"));
    c.slist_free_all = reinterpret_cast<decltype(c.slist_free_all)>(sym("curl_slist_free_all"));
    if (!c.global_init || !c.easy_init || !c.easy_cleanup || !c.easy_reset || !c.easy_setopt || !c.easy_perform ||
        !c.easy_getinfo || !c.easy_strerror || !c.slist_append || !c.slist_free_all) {
      load_error = "libcurl.so.4 lacks a required function";
      return nullptr;
    }
    c.global_init(CURL_GLOBAL_DEFAULT);
    return &c;
  }();
  if (lib == nullptr && error) *error = load_error;
  return lib;
}

// What every GET sets: the URL, redirects, identity, the connect timeout, the stall rule and the error buffer.
void set_get_options(const Curl& c, CURL* h, const std::string& url, const Options& options, long low_speed_bytes,
                     char* error) {
  c.easy_setopt(h, CURLOPT_URL, url.c_str());
  c.easy_setopt(h, CURLOPT_HTTPGET, 1L);
  c.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  c.easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
  c.easy_setopt(h, CURLOPT_USERAGENT, options.user_agent.c_str());
  c.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, options.connect_timeout_ms);
  c.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, low_speed_bytes);
  c.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, options.low_speed_seconds);
  c.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  c.easy_setopt(h, CURLOPT_ERRORBUFFER, error);
}

struct BodySink {
  std::string* body = nullptr;
  size_t max = 0;
  bool too_big = false;
};

size_t append_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  if (sink->body->size() + size * count > sink->max) {
    sink->too_big = true;
    return 0;  // curl aborts the transfer
  }
  sink->body->append(data, size * count);
  return size * count;
}

class CurlClient : public Client {
 public:
  explicit CurlClient(const Options& options) : options_(options) {
    curl_ = curl_library(&load_error_);
    if (curl_) handle_ = std::unique_ptr<CURL, Cleanup>(curl_->easy_init(), Cleanup{curl_});
  }

  Result<Response> get(const std::string& url) override {
    if (curl_ == nullptr) return Status::unavailable(load_error_);
    CURL* h = handle_.get();
    if (h == nullptr) return Status::internal("curl: cannot create a handle");
    const Curl& c = *curl_;
    c.easy_reset(h);
    Response r;
    char error[CURL_ERROR_SIZE] = {0};
    set_get_options(c, h, url, options_, 1L, error);
    c.easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // every encoding curl supports, gzip included
    c.easy_setopt(h, CURLOPT_TIMEOUT_MS, options_.timeout_ms);
    c.easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
    BodySink sink{&r.body, options_.max_body_bytes, false};
    c.easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    struct curl_slist* headers = c.slist_append(nullptr, "Accept: application/json");
    c.easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    const CURLcode rc = c.easy_perform(h);
    c.slist_free_all(headers);
    if (sink.too_big) {
      return Status::corruption("GET " + url + ": the body exceeds " + std::to_string(options_.max_body_bytes) +
                                " bytes");
    }
    if (rc != CURLE_OK) {
      return Status::unavailable("GET " + url + ": " + (error[0] ? std::string(error) : c.easy_strerror(rc)));
    }
    c.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r.status);
    char* type = nullptr;
    c.easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type);
    if (type) r.content_type = type;
    return r;
  }

 private:
  struct Cleanup {
    const Curl* curl;
    void operator()(CURL* h) const { curl->easy_cleanup(h); }
  };
  Options options_;
  const Curl* curl_ = nullptr;  // process-lifetime library table
  std::string load_error_;
  std::unique_ptr<CURL, Cleanup> handle_{nullptr, Cleanup{nullptr}};
};

struct DownloadSink {
  std::FILE* file = nullptr;
  bool write_failed = false;
  const std::function<void(uint64_t, uint64_t)>* progress = nullptr;
};

size_t write_file(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  const size_t n = std::fwrite(data, 1, size * count, sink->file);
  if (n != size * count) sink->write_failed = true;
  return n;  // short: curl aborts the transfer
}

int report_progress(void* user, curl_off_t total, curl_off_t received, curl_off_t, curl_off_t) {
  auto* sink = static_cast<DownloadSink*>(user);
  if (sink->progress && *sink->progress) {
    (*sink->progress)(static_cast<uint64_t>(received), static_cast<uint64_t>(total));
  }
  return 0;
}

}  // namespace

Result<long> download(const Options& options, const std::string& url, const std::string& path,
                      const std::function<void(uint64_t received, uint64_t total)>& progress) {
  std::string load_error;
  const Curl* curl = curl_library(&load_error);
  if (curl == nullptr) return Status::unavailable(load_error);
  const Curl& c = *curl;
  struct Easy {
    const Curl& c;
    CURL* h;
    ~Easy() {
      if (h) c.easy_cleanup(h);
    }
  } easy{c, c.easy_init()};
  CURL* h = easy.h;
  if (h == nullptr) return Status::internal("curl: cannot create a handle");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) return Status::io_error("cannot write " + path);
  DownloadSink sink{file.get(), false, &progress};
  char error[CURL_ERROR_SIZE] = {0};
  set_get_options(c, h, url, options, 1024L, error);
  c.easy_setopt(h, CURLOPT_WRITEFUNCTION, write_file);
  c.easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  c.easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  c.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, report_progress);
  c.easy_setopt(h, CURLOPT_XFERINFODATA, &sink);
  const CURLcode rc = c.easy_perform(h);
  long status = 0;
  c.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  const bool closed_ok = std::fclose(file.release()) == 0;
  if (sink.write_failed || !closed_ok) return Status::io_error("cannot write " + path + " (disk full?)");
  if (rc != CURLE_OK) {
    return Status::unavailable("GET " + url + ": " + (error[0] ? std::string(error) : c.easy_strerror(rc)));
  }
  return status;
}

std::unique_ptr<Client> make_curl_client(const Options& options) { return std::make_unique<CurlClient>(options); }

Result<Response> get_with_retries(Client& client, const std::string& url, const RetryPolicy& policy,
                                  const std::function<void(int ms)>& sleep_ms) {
  static thread_local std::mt19937 rng(std::random_device{}());
  Status last = Status::unavailable("GET " + url + ": no attempt made");
  for (int attempt = 1; attempt <= std::max(1, policy.max_attempts); ++attempt) {
    auto r = client.get(url);
    if (r && r->status < 500) return r;  // success, redirect or a client error: retrying would not help
    if (!r && r.status().code() != StatusCode::kUnavailable) return r.status();  // not a transport failure
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
