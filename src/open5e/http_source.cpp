#include <algorithm>
#include <memory>

#include "lorekeeper/http/client.hpp"
#include "lorekeeper/open5e/http_source.hpp"

namespace lorekeeper::open5e {

namespace {

class HttpSource : public PageSource {
 public:
  HttpSource(std::string base_url, std::unique_ptr<http::Client> client, http::RetryPolicy policy)
      : base_(std::move(base_url)), client_(std::move(client)), policy_(policy) {
    while (!base_.empty() && base_.back() == '/') base_.pop_back();
  }

  Result<std::string> get(const std::string& path_and_query) override {
    const std::string url = base_ + "/" + request_path(path_and_query);
    auto r = http::get_with_retries(*client_, url, policy_);
    if (!r) return r.status();
    if (r->status == 404) return Status::not_found("GET " + url + ": HTTP 404");
    if (r->status != 200) return Status::unavailable("GET " + url + ": HTTP " + std::to_string(r->status));
    if (r->content_type.find("json") == std::string::npos) {
      return Status::corruption("GET " + url + ": expected JSON, got content type '" + r->content_type + "'");
    }
    return std::move(r->body);
  }

  std::string describe() const override { return base_; }

 private:
  std::string base_;
  std::unique_ptr<http::Client> client_;
  http::RetryPolicy policy_;
};

}  // namespace

std::unique_ptr<PageSource> make_http_source(const std::string& base_url, const http::Options& options,
                                             const http::RetryPolicy& policy) {
  http::Options bounded = options;
  bounded.max_body_bytes = std::min(bounded.max_body_bytes, kMaxPageBytes);  // a page is never larger
  return std::make_unique<HttpSource>(base_url, http::make_curl_client(bounded), policy);
}

}  // namespace lorekeeper::open5e
