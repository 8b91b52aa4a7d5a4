// Streamable HTTP for both MCP eras over cpp-httplib (the only file that includes it). The contract, the
// status codes and the security rules are in the header.
#include "lorekeeper/mcp/http_transport.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <malloc.h>
#include <netdb.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>

#include "connection_guard.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"

namespace lorekeeper::mcp {

namespace {

constexpr const char* kMetaVersion = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kMetaCapabilities = "io.modelcontextprotocol/clientCapabilities";
// Without an MCP-Protocol-Version header a legacy request is taken as this version (the spec's rule for
// clients older than 2025-06-18).
constexpr const char* kVersionWithoutHeader = "2025-03-26";
constexpr int kHeaderMismatch = -32020;
constexpr int kMissingClientCapability = -32021;
constexpr int kServerError = -32000;
// How much of an oversized body is read and dropped before the connection is closed anyway.
constexpr size_t kDrainBytes = 1 << 20;

std::string trim_ows(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Splits "name[:port]" ("[v6]:port" for IPv6); port -1 when absent, -2 when malformed.
void split_host_port(const std::string& hostport, std::string* name, int* port) {
  *port = -1;
  std::string h = text::lower(hostport);
  size_t colon = std::string::npos;
  if (!h.empty() && h[0] == '[') {
    const size_t close = h.find(']');
    if (close == std::string::npos) {
      *name = h;
      *port = -2;
      return;
    }
    if (close + 1 < h.size()) {
      if (h[close + 1] != ':') *port = -2;
      colon = close + 1;
    }
  } else {
    colon = h.rfind(':');
  }
  if (colon == std::string::npos) {
    *name = h;
    return;
  }
  *name = h.substr(0, colon);
  const std::string p = h.substr(colon + 1);
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) {
    *port = -2;
    return;
  }
  if (*port != -2) *port = std::stoi(p);
}

// Compares without an early exit, so the time taken does not tell how much of a guessed token was right.
bool constant_time_equal(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

// Strict Base64 (RFC 4648 alphabet, padding required); false on anything else.
bool base64_decode(const std::string& in, std::string* out) {
  if (in.size() % 4 != 0) return false;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out->clear();
  for (size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = in[i + static_cast<size_t>(k)];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return false;  // data after padding
      v[k] = value(c);
      if (v[k] < 0) return false;
    }
    const unsigned n = (static_cast<unsigned>(v[0]) << 18) | (static_cast<unsigned>(v[1]) << 12) |
                       (static_cast<unsigned>(v[2]) << 6) | static_cast<unsigned>(v[3]);
    out->push_back(static_cast<char>((n >> 16) & 0xff));
    if (pad < 2) out->push_back(static_cast<char>((n >> 8) & 0xff));
    if (pad < 1) out->push_back(static_cast<char>(n & 0xff));
  }
  return true;
}

// An Mcp-Name value: plain, or "=?base64?...?=". False when the encoded form does not decode.
bool decode_header_value(const std::string& raw, std::string* out) {
  const std::string prefix = "=?base64?";
  const std::string suffix = "?=";
  if (raw.size() >= prefix.size() + suffix.size() && raw.compare(0, prefix.size(), prefix) == 0 &&
      raw.compare(raw.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return base64_decode(raw.substr(prefix.size(), raw.size() - prefix.size() - suffix.size()), out);
  }
  *out = raw;
  return true;
}

json readable_id(const json& message) {
  if (!message.is_object() || !message.contains("id")) return nullptr;
  const json& id = message["id"];
  return id.is_string() || id.is_number_integer() ? id : json(nullptr);
}

// httplib::Server with access to the listening socket: a larger accept backlog than the library's compiled-in
// 5, and a stop that also works before listening has started.
class HttplibServer : public httplib::Server {
 public:
  void raise_backlog() {
    const socket_t s = svr_sock_;
    if (s != INVALID_SOCKET) ::listen(s, SOMAXCONN);
  }
  // Ends accepting. While serving, the listening socket is only shut down: its accept() fails, the library's loop
  // ends and closes it, and the library keeps reading requests on the connections it has, because it reads a
  // connection only while the listening socket is not marked closed: connections accepted before the stop and
  // given a worker after it (parked until their first byte, or queued behind busy workers) are answered. Before
  // serving, it is closed at once.
  void close_listener(bool serving) {
    if (serving) {
      const socket_t s = svr_sock_;
      if (s != INVALID_SOCKET) ::shutdown(s, SHUT_RDWR);
      return;
    }
    const socket_t s = svr_sock_.exchange(INVALID_SOCKET);
    if (s != INVALID_SOCKET) {
      ::shutdown(s, SHUT_RDWR);
      ::close(s);
    }
  }
  // After listening ended: the library closed the listening socket (and its workers are done); its number is
  // forgotten so that nothing uses it again.
  void forget_listener() { svr_sock_ = INVALID_SOCKET; }
};

// Engines are not thread-safe; each request borrows one and returns it. At most one per worker thread is
// ever made. Engines left idle for `idle` (HttpOptions::idle_engine_seconds) are closed, but for the kKeptIdle most
// recently used, which give back their store connection's page cache (64 busy workers held 450 MB long after the load
// had passed); the process returns the freed pages. A burst after a quiet spell makes its engines again (a store
// connection each).
class EnginePool {
 public:
  static constexpr size_t kKeptIdle = 4;

  EnginePool(EngineFactory make, std::chrono::seconds idle)
      : make_(std::move(make)), idle_limit_(idle), trimmer_([this] { trim_idle(); }) {}
  ~EnginePool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      quit_ = true;
    }
    wake_.notify_all();
    trimmer_.join();
  }
  EnginePool(const EnginePool&) = delete;
  EnginePool& operator=(const EnginePool&) = delete;

  class Lease {
   public:
    Lease(EnginePool* pool, std::unique_ptr<tools::Engine> engine) : pool_(pool), engine_(std::move(engine)) {}
    ~Lease() { pool_->give_back(std::move(engine_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    tools::Engine& operator*() { return *engine_; }

   private:
    EnginePool* pool_;
    std::unique_ptr<tools::Engine> engine_;
  };

  // Engines made and not in use.
  size_t idle() {
    std::lock_guard<std::mutex> lock(mu_);
    return idle_.size();
  }

  Lease borrow() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        auto e = std::move(idle_.back().engine);
        idle_.pop_back();
        return Lease(this, std::move(e));
      }
    }
    return Lease(this, make_());
  }

 private:
  struct Idle {
    std::unique_ptr<tools::Engine> engine;
    std::chrono::steady_clock::time_point since;
    bool trimmed = false;
  };

  void give_back(std::unique_ptr<tools::Engine> e) {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back({std::move(e), std::chrono::steady_clock::now(), false});
  }

  void trim_idle() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!quit_) {
      wake_.wait_for(lock, std::chrono::seconds(1));
      const auto now = std::chrono::steady_clock::now();
      // The most recently used kKeptIdle stay made, their caches given back; older idle ones are closed. Idle
      // engines are no one's: the kept ones are trimmed under the lock (a borrow waits for that, briefly); the
      // others are taken out of the pool and closed without it.
      std::vector<std::unique_ptr<tools::Engine>> closing;
      bool trimmed = false;
      for (size_t i = idle_.size(); i-- > 0;) {
        Idle& e = idle_[i];
        if (e.trimmed || now - e.since < idle_limit_) continue;
        if (idle_.size() - i > kKeptIdle) {
          closing.push_back(std::move(e.engine));
          idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
          e.engine->release_memory();
          e.trimmed = true;
          trimmed = true;
        }
      }
      if (closing.empty() && !trimmed) continue;
      lock.unlock();
      closing.clear();
      malloc_trim(0);
      lock.lock();
    }
  }

  EngineFactory make_;
  const std::chrono::seconds idle_limit_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Idle> idle_;  // the most recently used last
  bool quit_ = false;
  std::thread trimmer_;
};

}  // namespace

bool is_loopback_host(const std::string& host) {
  std::string h = host;
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h.empty()) return false;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(h.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return false;
  bool all_loopback = true;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const uint32_t ip = ntohl(reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr.s_addr);
      all_loopback = all_loopback && (ip >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      const in6_addr& ip = reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr;
      const bool mapped_loopback = IN6_IS_ADDR_V4MAPPED(&ip) && ip.s6_addr[12] == 127;
      all_loopback = all_loopback && (IN6_IS_ADDR_LOOPBACK(&ip) || mapped_loopback);
    } else {
      all_loopback = false;
    }
  }
  ::freeaddrinfo(found);
  return all_loopback;
}

struct HttpTransport::Impl {
  HttpOptions options;
  ServerOptions server_options;
  EnginePool engines;
  std::unique_ptr<ConnectionGuard> guard;  // made once the port is bound; outlives `http`'s workers
  HttplibServer http;
  int bound_port = 0;
  std::atomic<bool> stopping{false};
  std::mutex serving_mu;  // orders serve()'s start against stop()
  bool serving = false;   // serve() has begun listening (guarded by serving_mu)

  // Marks a handler's answer as being made (no deadline) until the scope ends, when the next deadline starts.
  class Work {
   public:
    explicit Work(ConnectionGuard* g) : guard_(g) {}
    ~Work() {
      if (guard_) guard_->work_finished();
    }
    Work(const Work&) = delete;
    Work& operator=(const Work&) = delete;
    void started() {
      if (guard_) guard_->work_started();
    }

   private:
    ConnectionGuard* guard_;
  };

  Impl(HttpOptions o, ServerOptions so, EngineFactory make)
      : options(std::move(o)),
        server_options(std::move(so)),
        engines(std::move(make), std::chrono::seconds(options.idle_engine_seconds)) {}

  // The bound host as it appears in a Host header ("[::1]" for IPv6), lower case; empty for a wildcard bind.
  std::string bound_host_name() const {
    std::string h = text::lower(options.host);
    if (h == "0.0.0.0" || h == "::" || h == "[::]" || h.empty()) return "";
    if (h.find(':') != std::string::npos && h.front() != '[') h = "[" + h + "]";
    return h;
  }

  bool host_allowed(const std::string& hostport) const {
    std::string name;
    int port = -1;
    split_host_port(trim_ows(hostport), &name, &port);
    if (port == -2 || name.empty()) return false;
    const bool port_ok = port == bound_port || (port == -1 && bound_port == 80);
    for (const char* local : {"localhost", "127.0.0.1", "[::1]"}) {
      if (name == local && port_ok) return true;
    }
    if (const std::string bound = bound_host_name(); !bound.empty() && name == bound && port_ok) return true;
    for (const auto& extra : options.allowed_hosts) {
      std::string ename;
      int eport = -1;
      split_host_port(extra, &ename, &eport);
      if (ename == name && (eport == -1 || eport == port)) return true;
    }
    return false;
  }

  bool cors_origin(const std::string& origin) const {
    for (const auto& o : options.cors_origins) {
      if (text::lower(o) == text::lower(origin)) return true;
    }
    return false;
  }

  bool origin_allowed(const std::string& origin) const {
    if (cors_origin(origin)) return true;
    const std::string o = text::lower(origin);
    size_t start = 0;
    if (o.rfind("http://", 0) == 0) {
      start = 7;
    } else if (o.rfind("https://", 0) == 0) {
      start = 8;
    } else {
      return false;  // "null", other schemes
    }
    const std::string hostport = o.substr(start);
    if (hostport.find('/') != std::string::npos) return false;
    return host_allowed(hostport);
  }

  static void send_json(httplib::Response& res, int status, const json& body) {
    res.status = status;
    res.set_content(json_util::dump(body), "application/json");
  }

  void add_cors(const httplib::Request& req, httplib::Response& res) const {
    const std::string origin = req.get_header_value("Origin");
    if (origin.empty() || !cors_origin(origin)) return;
    res.set_header("Access-Control-Allow-Origin", origin);
    res.set_header("Vary", "Origin");
    res.set_header("Access-Control-Expose-Headers", "WWW-Authenticate");
  }

  // Host, Origin and token checks for the MCP endpoint; answers and returns false when the request may not
  // proceed.
  bool admit(const httplib::Request& req, httplib::Response& res) const {
    if (req.get_header_value_count("Host") > 1) {
      send_json(res, 400, make_error(nullptr, kInvalidRequest, "Bad Request: more than one Host header."));
      return false;
    }
    if (!req.has_header("Host") || !host_allowed(req.get_header_value("Host"))) {
      log::warning("http: refused Host '" + req.get_header_value("Host") + "' from " + req.remote_addr);
      send_json(res, 403,
                make_error(nullptr, kInvalidRequest, "Forbidden: the Host header does not name this server."));
      return false;
    }
    if (req.has_header("Origin") && !origin_allowed(req.get_header_value("Origin"))) {
      log::warning("http: refused Origin '" + req.get_header_value("Origin") + "' from " + req.remote_addr);
      send_json(res, 403, make_error(nullptr, kInvalidRequest, "Forbidden: this Origin may not call the server."));
      return false;
    }
    add_cors(req, res);
    if (!options.token.empty()) {
      const std::string auth = trim_ows(req.get_header_value("Authorization"));
      const bool bearer = auth.size() > 7 && text::lower(auth.substr(0, 7)) == "bearer ";
      const bool ok = bearer && constant_time_equal(trim_ows(auth.substr(7)), options.token);
      if (!ok) {
        res.set_header("WWW-Authenticate",
                       bearer ? "Bearer realm=\"lorekeeper\", error=\"invalid_token\"" : "Bearer realm=\"lorekeeper\"");
        send_json(res, 401,
                  make_error(nullptr, kInvalidRequest,
                             bearer ? "Unauthorized: the bearer token is not valid."
                                    : "Unauthorized: send the token as Authorization: Bearer <token>."));
        return false;
      }
    }
    return true;
  }

  void not_allowed(const httplib::Request& req, httplib::Response& res) const {
    if (!admit(req, res)) return;
    res.set_header("Allow", options.cors_origins.empty() ? "POST" : "POST, OPTIONS");
    send_json(res, 405,
              make_error(nullptr, kServerError,
                         "Method not allowed: this server is stateless and offers no stream; POST JSON-RPC "
                         "messages to " +
                             options.path + "."));
  }

  void preflight(const httplib::Request& req, httplib::Response& res) const {
    const std::string origin = req.get_header_value("Origin");
    if (options.cors_origins.empty() || origin.empty() || !cors_origin(origin) || !admit_host_only(req, res)) {
      if (res.status == -1) not_allowed(req, res);
      return;
    }
    res.status = 204;
    res.set_header("Access-Control-Allow-Origin", origin);
    res.set_header("Vary", "Origin");
    res.set_header("Access-Control-Allow-Methods", "POST, OPTIONS");
    res.set_header("Access-Control-Allow-Headers",
                   "Content-Type, Accept, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name, "
                   "Mcp-Session-Id, Last-Event-ID");
    res.set_header("Access-Control-Max-Age", "600");
  }

  // Preflights carry no credentials: only Host is checked.
  bool admit_host_only(const httplib::Request& req, httplib::Response& res) const {
    if (req.get_header_value_count("Host") == 1 && host_allowed(req.get_header_value("Host"))) return true;
    send_json(res, 403, make_error(nullptr, kInvalidRequest, "Forbidden: the Host header does not name this server."));
    return false;
  }

  void health(httplib::Response& res) const {
    std::vector<std::string> versions = {kModernVersion};
    for (const auto& v : legacy_versions()) versions.push_back(v);
    send_json(res, 200,
              {{"status", stopping ? "stopping" : "ok"},
               {"name", "lorekeeper"},
               {"version", server_options.version},
               {"endpoint", options.path},
               {"protocolVersions", versions}});
  }

  void post(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader, Work& work) {
    const size_t max = server_options.max_message_bytes;
    std::string body;
    bool too_big = false;
    size_t dropped = 0;
    auto read_body = [&] {
      return reader([&](const char* data, size_t n) {
        if (!too_big && body.size() + n <= max) {
          body.append(data, n);
          return true;
        }
        // Past the limit the rest is read and dropped (up to kDrainBytes), as the library does for a declared
        // length: closing with unread data would reset the connection before the client reads the 413.
        too_big = true;
        dropped += n;
        return dropped <= kDrainBytes;
      });
    };
    if (!admit(req, res)) {
      // Read (and drop) the body so the connection stays usable for the next request.
      if (!read_body()) res.set_header("Connection", "close");
      return;
    }
    const bool read_ok = read_body();
    work.started();
    if (too_big || res.status == 413) {
      res.set_header("Connection", "close");
      send_json(res, 413, oversized());
      return;
    }
    if (!read_ok) {
      res.set_header("Connection", "close");
      send_json(res, 400, make_error(nullptr, kInvalidRequest, "Bad Request: the body could not be read."));
      return;
    }
    const std::string accept = text::lower(req.get_header_value("Accept"));
    if (req.has_header("Accept") && accept.find("application/json") == std::string::npos &&
        accept.find("*/*") == std::string::npos && accept.find("application/*") == std::string::npos) {
      send_json(res, 406,
                make_error(nullptr, kInvalidRequest, "Not Acceptable: the client must accept application/json."));
      return;
    }
    const std::string type = text::lower(trim_ows(req.get_header_value("Content-Type")));
    if (type.rfind("application/json", 0) != 0 ||
        (type.size() > 16 && type[16] != ';' && type[16] != ' ' && type[16] != '\t')) {
      send_json(res, 415,
                make_error(nullptr, kInvalidRequest, "Unsupported Media Type: Content-Type must be application/json."));
      return;
    }
    std::string err;
    json_util::ParseFailure failure = json_util::ParseFailure::kNone;
    auto parsed = json_util::parse(body, &err, &failure, server_options.max_depth);
    if (!parsed) {
      send_json(res, 400, parse_failure_reply(failure, server_options.max_depth));
      return;
    }
    const json& message = *parsed;
    if (is_modern(message)) {
      modern(req, res, message);
    } else {
      legacy(req, res, message);
    }
  }

  json oversized() const {
    return make_error(
        nullptr, kInvalidRequest,
        "Payload Too Large: the body exceeds " + std::to_string(server_options.max_message_bytes) + " bytes.");
  }

  static bool is_modern(const json& m) {
    if (!m.is_object() || !m.contains("params") || !m["params"].is_object()) return false;
    const json& params = m["params"];
    return params.contains("_meta") && params["_meta"].is_object() && params["_meta"].contains(kMetaVersion);
  }

  // Runs one message through a fresh Server: the transport keeps no state between requests.
  std::optional<json> handle(const json& message, const std::string& assumed_version) {
    auto engine = engines.borrow();
    ServerOptions so = server_options;
    so.apply_log_level = false;
    Server server(*engine, so);
    if (!assumed_version.empty()) server.assume_version(assumed_version);
    return server.handle(message);
  }

  static int error_code(const json& reply) {
    if (!reply.is_object() || !reply.contains("error") || !reply["error"].is_object()) return 0;
    return reply["error"].value("code", 0);
  }

  void legacy(const httplib::Request& req, httplib::Response& res, const json& message) {
    const std::string header = trim_ows(req.get_header_value("MCP-Protocol-Version"));
    const bool request = message.is_object() && message.contains("method") && message.contains("id");
    if (header == kModernVersion && request) {
      // A modern request without its _meta: the required envelope is missing.
      send_json(res, 400,
                make_error(readable_id(message), kInvalidParams,
                           std::string("Invalid params: _meta[\"") + kMetaVersion + "\"] and _meta[\"" +
                               kMetaCapabilities + "\"] are required in protocol version " + kModernVersion + "."));
      return;
    }
    const auto& known = legacy_versions();
    if (!header.empty() && header != kModernVersion && std::find(known.begin(), known.end(), header) == known.end()) {
      std::vector<std::string> supported = {kModernVersion};
      supported.insert(supported.end(), known.begin(), known.end());
      send_json(res, 400,
                make_error(readable_id(message), kInvalidRequest,
                           "Bad Request: unsupported MCP-Protocol-Version " + header + ".",
                           {{"supported", supported}, {"requested", header}}));
      return;
    }
    auto reply = handle(message, header.empty() || header == kModernVersion ? kVersionWithoutHeader : header);
    if (!reply) {
      res.status = 202;
      return;
    }
    const int code = error_code(*reply);
    send_json(res, code == kParseError || code == kInvalidRequest ? 400 : 200, *reply);
  }

  void modern(const httplib::Request& req, httplib::Response& res, const json& message) {
    const json id = readable_id(message);
    if (!message.contains("id")) {
      // Notification: no header rules are defined for it in 2026-07-28.
      auto reply = handle(message, "");
      if (reply) {
        send_json(res, 400, *reply);
      } else {
        res.status = 202;
      }
      return;
    }
    auto mismatch = [&](const std::string& why) {
      send_json(res, 400, make_error(id, kHeaderMismatch, "Header mismatch: " + why));
    };
    const json& params = message["params"];
    const json& body_version = params["_meta"][kMetaVersion];
    if (!req.has_header("MCP-Protocol-Version")) return mismatch("the MCP-Protocol-Version header is required.");
    const std::string header_version = trim_ows(req.get_header_value("MCP-Protocol-Version"));
    if (!body_version.is_string() || body_version.get<std::string>() != header_version) {
      return mismatch("MCP-Protocol-Version header value '" + header_version +
                      "' does not match the body's protocol version " + body_version.dump() + ".");
    }
    const json method = message.contains("method") ? message["method"] : json();
    if (method.is_string()) {
      if (!req.has_header("Mcp-Method")) return mismatch("the Mcp-Method header is required.");
      const std::string header_method = trim_ows(req.get_header_value("Mcp-Method"));
      if (header_method != method.get<std::string>()) {
        return mismatch("Mcp-Method header value '" + header_method + "' does not match body value '" +
                        method.get<std::string>() + "'.");
      }
      const std::string m = method.get<std::string>();
      const char* field = m == "tools/call" || m == "prompts/get" ? "name" : m == "resources/read" ? "uri" : nullptr;
      if (field != nullptr) {
        const bool has_value = params.contains(field) && params[field].is_string();
        if (has_value && !req.has_header("Mcp-Name")) return mismatch("the Mcp-Name header is required for " + m + ".");
        if (req.has_header("Mcp-Name")) {
          std::string name;
          if (!decode_header_value(trim_ows(req.get_header_value("Mcp-Name")), &name)) {
            return mismatch("the Mcp-Name header's Base64 value is malformed.");
          }
          if (!has_value || name != params[field].get<std::string>()) {
            return mismatch("Mcp-Name header value '" + name + "' does not match body value " +
                            (has_value ? "'" + params[field].get<std::string>() + "'" : "(absent)") + ".");
          }
        }
      }
    }
    // Every 2026-07-28 request, server/discover included, carries the client's capabilities (the conformance
    // suite checks the discover probe too; the stdio server is lenient there).
    const json& meta = params["_meta"];
    if (!meta.contains(kMetaCapabilities) || !meta[kMetaCapabilities].is_object()) {
      send_json(res, 400,
                make_error(id, kInvalidParams,
                           std::string("Invalid params: _meta[\"") + kMetaCapabilities + "\"] is required."));
      return;
    }
    auto reply = handle(message, "");
    if (!reply) {
      res.status = 202;
      return;
    }
    const int code = error_code(*reply);
    int status = 200;
    if (code == kMethodNotFound) {
      status = 404;
    } else if (code == kParseError || code == kInvalidRequest || code == kUnsupportedProtocolVersion ||
               code == kHeaderMismatch || code == kMissingClientCapability) {
      status = 400;
    }
    send_json(res, status, *reply);
  }
};

HttpTransport::HttpTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpTransport::~HttpTransport() { stop(); }

namespace {

// Connections open at once: the configured number, or as many as the descriptor limit leaves room for (each
// connection holds two: its socket and the guard's duplicate; the rest is kept for the workers' stores and
// models), at most 1,024.
size_t connection_limit(const HttpOptions& o) {
  if (o.max_connections > 0) return static_cast<size_t>(o.max_connections);
  rlimit r{};
  const rlim_t soft = ::getrlimit(RLIMIT_NOFILE, &r) == 0 ? r.rlim_cur : 1024;
  const rlim_t reserved = 64 + 8 * static_cast<rlim_t>(o.threads);
  const rlim_t room = soft > reserved ? (soft - reserved) / 2 : 0;
  return static_cast<size_t>(std::clamp<rlim_t>(room, 16, 1024));
}

}  // namespace

Result<std::unique_ptr<HttpTransport>> HttpTransport::create(HttpOptions options, ServerOptions server_options,
                                                             EngineFactory make_engine) {
  if (options.path.empty() || options.path[0] != '/' || options.path == "/health") {
    return Status::invalid_argument("the MCP endpoint path must start with / and not be /health");
  }
  if (options.threads < 1 || options.threads > 256) {
    return Status::invalid_argument("HTTP worker threads must be 1-256, got " + std::to_string(options.threads));
  }
  if (options.max_connections < 0 || options.max_connections_per_client < 1 || options.idle_engine_seconds < 1) {
    return Status::invalid_argument("connection limits and the idle engine time must be positive");
  }
  if (options.request_deadline_seconds < 1) {
    return Status::invalid_argument("the request deadline must be at least 1 s");
  }
  if (options.port < 0 || options.port > 65535) {
    return Status::invalid_argument("port must be 0-65535, got " + std::to_string(options.port));
  }
  // Resolved once: a name is looked up in DNS.
  if (!is_loopback_host(options.host) && options.token.size() < kMinPublicTokenLength) {
    const std::string beyond = "binding " + options.host + " exposes the server beyond this machine: ";
    if (options.token.empty()) {
      return Status::invalid_argument(beyond +
                                      "set a bearer token (--token or LOREKEEPER_HTTP_TOKEN), or bind 127.0.0.1");
    }
    return Status::invalid_argument(
        beyond + "its bearer token must have at least " + std::to_string(kMinPublicTokenLength) +
        " characters (e.g. from `openssl rand -hex 32`), this one has " + std::to_string(options.token.size()));
  }
  if (!make_engine) return Status::invalid_argument("no engine factory");
  auto impl = std::make_unique<Impl>(std::move(options), std::move(server_options), std::move(make_engine));
  Impl* p = impl.get();
  const HttpOptions& o = p->options;
  httplib::Server& s = p->http;
  s.set_read_timeout(o.read_timeout_seconds, 0);
  s.set_write_timeout(o.write_timeout_seconds, 0);
  s.set_keep_alive_timeout(o.keep_alive_timeout_seconds);
  s.set_keep_alive_max_count(1000);
  s.set_tcp_nodelay(true);
  s.set_payload_max_length(p->server_options.max_message_bytes);
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      log::error(std::string("http: internal error: ") + e.what());
    } catch (...) {
      log::error("http: internal error");
    }
    Impl::send_json(res, 500, make_error(nullptr, kInternalError, "Internal error."));
  });
  // During a stop, each answer ends its connection (unless the client already sent its next request): a client
  // that kept asking on one connection would otherwise keep the stop waiting.
  s.set_post_routing_handler([p](const httplib::Request&, httplib::Response& res) {
    if (!p->guard || !p->guard->end_after_answer_when_stopping(kDrainBytes)) return;
    res.headers.erase("Keep-Alive");
    if (res.get_header_value("Connection") != "close") {
      res.headers.erase("Connection");
      res.set_header("Connection", "close");
    }
  });
  s.set_logger([p](const httplib::Request& req, const httplib::Response& res) {
    // The answer is written: a connection to end after it ends now.
    if (p->guard) p->guard->answered();
    if (log::level() > log::Level::kDebug) return;
    log::debug("http " + req.method + " " + req.path + " " + std::to_string(res.status) + " from " + req.remote_addr);
  });
  // Before any body is read: a body declared larger than a message may be is answered 413 at once, and a request
  // whose length is ambiguous (two Content-Length headers, or one beside Transfer-Encoding) 400; either connection
  // ends once answered (the library would otherwise read the whole declared body, or read the rest as the next
  // request).
  s.set_pre_routing_handler([p](const httplib::Request& req, httplib::Response& res) {
    const size_t lengths = req.get_header_value_count("Content-Length");
    const std::string v = req.get_header_value("Content-Length");
    const bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
    const bool ambiguous = lengths > 1 || (lengths == 1 && (req.has_header("Transfer-Encoding") || !digits));
    const bool oversized =
        lengths == 1 && !ambiguous && (v.size() > 18 || std::stoull(v) > p->server_options.max_message_bytes);
    if (!ambiguous && !oversized) return httplib::Server::HandlerResponse::Unhandled;
    if (p->guard) p->guard->close_after_answer(kDrainBytes);
    res.set_header("Connection", "close");
    if (oversized) {
      Impl::send_json(res, 413, p->oversized());
    } else {
      Impl::send_json(res, 400,
                      make_error(nullptr, kInvalidRequest,
                                 "Bad Request: the body's length is ambiguous (two Content-Length headers, one "
                                 "that is not a number, or Content-Length with Transfer-Encoding)."));
    }
    return httplib::Server::HandlerResponse::Handled;
  });
  s.Post(o.path, [p](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    Impl::Work work(p->guard.get());
    p->post(req, res, reader, work);
  });
  s.Get(o.path, [p](const httplib::Request& req, httplib::Response& res) {
    Impl::Work work(p->guard.get());
    p->not_allowed(req, res);
  });
  s.Delete(o.path, [p](const httplib::Request& req, httplib::Response& res) {
    Impl::Work work(p->guard.get());
    p->not_allowed(req, res);
  });
  s.Options(o.path, [p](const httplib::Request& req, httplib::Response& res) {
    Impl::Work work(p->guard.get());
    p->preflight(req, res);
  });
  s.Get("/health", [p](const httplib::Request&, httplib::Response& res) {
    Impl::Work work(p->guard.get());
    p->health(res);
  });
  // Errors the library produces itself (unknown path, 413 on a Content-Length over the limit) get a JSON body.
  s.set_error_handler(httplib::Server::HandlerWithResponse([p](const httplib::Request&, httplib::Response& res) {
    Impl::Work work(p->guard.get());
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == 413) {
      Impl::send_json(res, 413, p->oversized());
    } else if (res.status == 404) {
      Impl::send_json(res, 404,
                      make_error(nullptr, kInvalidRequest, "Not found: the MCP endpoint is " + p->options.path));
    } else {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    return httplib::Server::HandlerResponse::Handled;
  }));
  std::string host = o.host;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (o.port == 0) {
    p->bound_port = s.bind_to_any_port(host);
    if (p->bound_port <= 0) return Status::unavailable("cannot bind " + o.host + " on any port");
  } else {
    if (!s.bind_to_port(host, o.port)) {
      return Status::unavailable("cannot bind " + o.host + ":" + std::to_string(o.port) + " (" + std::strerror(errno) +
                                 "); is the port in use?");
    }
    p->bound_port = o.port;
  }
  p->http.raise_backlog();
  p->guard = std::make_unique<ConnectionGuard>(
      std::chrono::seconds(o.request_deadline_seconds),
      ConnectionGuard::Limits{connection_limit(o), static_cast<size_t>(o.max_connections_per_client)});
  const int threads = o.threads;
  s.new_task_queue = [p, threads] { return new ConnectionGuard::Queue(*p->guard, static_cast<size_t>(threads)); };
  return std::unique_ptr<HttpTransport>(new HttpTransport(std::move(impl)));
}

int HttpTransport::port() const { return impl_->bound_port; }

uint64_t HttpTransport::connections_expired() const { return impl_->guard ? impl_->guard->expired() : 0; }

uint64_t HttpTransport::connections_refused() const { return impl_->guard ? impl_->guard->refused() : 0; }

size_t HttpTransport::connections_open() const { return impl_->guard ? impl_->guard->open() : 0; }

size_t HttpTransport::engines_idle() const { return impl_->engines.idle(); }

std::string HttpTransport::url() const {
  std::string host = impl_->options.host;
  if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(impl_->bound_port) + impl_->options.path;
}

Status HttpTransport::serve() {
  {
    std::lock_guard<std::mutex> lock(impl_->serving_mu);
    if (impl_->stopping) return Status::ok();
    impl_->serving = true;
  }
  const bool clean = impl_->http.listen_after_bind();
  impl_->http.forget_listener();
  if (!clean && !impl_->stopping)
    return Status::io_error("the HTTP listener failed: " + std::string(std::strerror(errno)));
  return Status::ok();
}

void HttpTransport::stop() {
  bool serving = false;
  {
    std::lock_guard<std::mutex> lock(impl_->serving_mu);
    if (impl_->stopping.exchange(true)) return;
    serving = impl_->serving;
  }
  impl_->http.close_listener(serving);
  if (impl_->guard) impl_->guard->stop();
}

namespace {

int g_signal_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int) {
  const int saved = errno;
  const char c = 1;
  if (::write(g_signal_pipe[1], &c, 1) < 0) {
    // Nothing to do: the pipe is gone only after serving ended.
  }
  errno = saved;
}

}  // namespace

Status HttpTransport::serve_until_signalled(const std::function<void()>& ready) {
  if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) return Status::io_error("pipe: " + std::string(std::strerror(errno)));
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  struct sigaction old_int {};
  struct sigaction old_term {};
  struct sigaction old_pipe {};
  sigaction(SIGINT, &action, &old_int);
  sigaction(SIGTERM, &action, &old_term);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &old_pipe);
  std::thread watcher([this] {
    char c = 0;
    ssize_t n;
    do {
      n = ::read(g_signal_pipe[0], &c, 1);
    } while (n < 0 && errno == EINTR);
    if (n == 1 && c == 1) log::info("stopping: no new connections; finishing the requests in flight");
    stop();
  });
  if (ready) ready();
  Status s = serve();
  const char done = 0;
  if (::write(g_signal_pipe[1], &done, 1) < 0) log::warning("could not wake the signal watcher");
  watcher.join();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGPIPE, &old_pipe, nullptr);
  ::close(g_signal_pipe[0]);
  ::close(g_signal_pipe[1]);
  g_signal_pipe[0] = g_signal_pipe[1] = -1;
  return s;
}

}  // namespace lorekeeper::mcp
