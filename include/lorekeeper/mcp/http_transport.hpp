// MCP over Streamable HTTP (`lorekeeper serve --http`): one endpoint (default /mcp) that answers both protocol
// eras with the same mcp::Server logic as stdio, plus GET /health for load balancers.
//
// The server is stateless in both eras. It never issues Mcp-Session-Id: every POST is handled by a fresh
// mcp::Server, as its own connection, so a legacy request is answered without a prior `initialize` in that
// POST (the spec lets a server without sessions do this) and any worker can answer any request.
//   legacy (2025-03-26 .. 2025-11-25): POST a JSON-RPC message; a request gets 200 application/json, a
//     notification or client response 202 with no body. MCP-Protocol-Version, when sent, must be a known
//     version (400 otherwise); without it 2025-03-26 is assumed, the one version with batches. GET and
//     DELETE get 405: there is no server-to-client stream and no session to end.
//   modern (2026-07-28, a request whose params._meta carries the protocol version): MCP-Protocol-Version
//     must equal that version, Mcp-Method the method and, for tools/call, resources/read and prompts/get,
//     Mcp-Name params.name or params.uri (Base64 sentinel decoded); missing or different gives 400 with
//     -32020. Unsupported version: 400 with -32022; missing required _meta: 400 with -32602; unknown
//     method: 404 with -32601.
//
// Resource bounds (docs/LIMITS.md): body size, nesting depth, batch length and reply size (mcp::ServerOptions);
// a deadline per request for reading it and for writing its answer, so clients that trickle bytes are dropped;
// a graceful stop that ends within the longest answer being made or 2 s, whatever idle clients do.
//
// Security defaults: binds 127.0.0.1; Host must name this server (localhost, 127.0.0.1, [::1] or the bound
// host, with the bound port, or a configured extra host) and a present Origin must be one of those or a
// configured CORS origin, else 403 (this defeats DNS rebinding); bodies above max_message_bytes get 413;
// sockets have read and write timeouts; with a bearer token, requests without it get 401 (the token is
// compared in constant time). A token is required to bind anything but a loopback address. No CORS headers
// are sent unless origins are configured. /health needs neither token nor a matching Host. A request with more than
// one Host header gets 400. Whether a host is loopback is decided from the addresses it resolves to.
//
// Concurrency: a pool of worker threads; each request borrows a tools::Engine from a pool (an Engine is not
// thread-safe and holds its own store connection), so at most `threads` engines exist.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/mcp/server.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::mcp {

// The shortest bearer token accepted for an address beyond this machine: a guessable token is no guard.
inline constexpr size_t kMinPublicTokenLength = 16;

struct HttpOptions {
  std::string host = "127.0.0.1";  // address to bind; a non-loopback address requires `token`
  int port = 8080;                 // 0 picks a free port (see HttpTransport::port)
  std::string path = "/mcp";       // the MCP endpoint
  std::string token;               // bearer token; empty: no authentication
  // Extra values accepted in Host (and in Origin's host): "name" matches any port, "name:port" only that one.
  std::vector<std::string> allowed_hosts;
  // Origins (e.g. "http://localhost:6274") allowed to call from a browser; they get CORS headers.
  std::vector<std::string> cors_origins;
  // Worker threads. A worker serves one connection at a time (keep-alive included), so this bounds the
  // connections served at once and the engines made.
  int threads = 32;
  int read_timeout_seconds = 10;   // a client that sends nothing for this long is disconnected
  int write_timeout_seconds = 10;  // a client that reads nothing for this long is disconnected
  int keep_alive_timeout_seconds = 5;
  // Reading a whole request (headers and body), and writing an answer, must each end within this long, however
  // steadily the client trickles; past it the connection is closed (docs/LIMITS.md).
  int request_deadline_seconds = 15;
  // Connections open at once, in all (0: as many as the descriptor limit leaves room for, at most 1,024) and from
  // one client address. One past either bound is answered 503 and closed at once (docs/LIMITS.md).
  int max_connections = 0;
  int max_connections_per_client = 64;
  // An engine (a worker's store connection and caches) idle this long is closed, but for the four most recently
  // used, which give back their caches; so memory taken by a burst of load is returned after it.
  int idle_engine_seconds = 10;
};

// Makes one engine for a worker; called at most `threads` times, from worker threads. Engines made by it
// may share a search::Semantic and a notice function (both thread-safe).
using EngineFactory = std::function<std::unique_ptr<tools::Engine>()>;

// True when every address `host` resolves to (a numeric address is itself) is loopback (127.0.0.0/8, ::1,
// ::ffff:127.0.0.0/104); false when it resolves to nothing.
bool is_loopback_host(const std::string& host);

class HttpTransport {
 public:
  // Validates the options and binds the listening socket (so port() is known before serve()). Errors:
  // InvalidArgument (no token on a non-loopback address, bad path or threads), Unavailable (cannot bind).
  static Result<std::unique_ptr<HttpTransport>> create(HttpOptions options, ServerOptions server_options,
                                                       EngineFactory make_engine);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // The bound port (the chosen one when options.port was 0).
  int port() const;
  // Connections closed so far for passing the request deadline.
  uint64_t connections_expired() const;
  // Connections refused so far for passing a bound on connections (max_connections, max_connections_per_client).
  uint64_t connections_refused() const;
  // Connections open now (accepted and not yet closed).
  size_t connections_open() const;
  // Engines made and not answering a request now.
  size_t engines_idle() const;
  // http://host:port/path, with an IPv6 host in brackets.
  std::string url() const;

  // Accepts and answers requests until stop(); then waits for the requests in flight and returns.
  Status serve();
  // Stops accepting connections; serve() returns once the requests being handled are answered (a request still
  // arriving has 2 s to arrive and is answered too; idle and trickling connections are closed after those 2 s).
  // Thread-safe; may be called before serve() (which then returns at once) or several times.
  void stop();

  // serve() until SIGINT or SIGTERM, then stop() (graceful, as stop() says). Ignores SIGPIPE; restores the previous
  // handlers. `ready` (optional) runs once the signals are handled, just before accepting.
  Status serve_until_signalled(const std::function<void()>& ready = nullptr);

 private:
  struct Impl;
  explicit HttpTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lorekeeper::mcp
