// Pages from a live Open5e API (or anything serving its paths): one request at a time, retried per the policy.
#pragma once

#include <memory>
#include <string>

#include "lorekeeper/http/client.hpp"
#include "lorekeeper/open5e/page_source.hpp"

namespace lorekeeper::open5e {

// `base_url` such as "https://api.open5e.com" or "http://127.0.0.1:8080". 404 is NotFound; other non-200
// answers and transport failures (after retries) are Unavailable; a non-JSON content type is Corruption.
std::unique_ptr<PageSource> make_http_source(const std::string& base_url, const http::Options& options,
                                             const http::RetryPolicy& policy);

}  // namespace lorekeeper::open5e
