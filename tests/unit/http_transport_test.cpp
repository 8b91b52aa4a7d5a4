// The Streamable HTTP transport on an ephemeral loopback port, in process, driven by httplib::Client: every
// status code and header rule of both protocol eras, the security checks and concurrent requests.
#include "lorekeeper/mcp/http_transport.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/store/store.hpp"
#include "test_support.hpp"

namespace lorekeeper::mcp {
namespace {

constexpr const char* kJson = "application/json";

json req(const json& id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json modern_meta() {
  return {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
          {"io.modelcontextprotocol/clientCapabilities", json::object()},
          {"io.modelcontextprotocol/clientInfo", {{"name", "test"}, {"version", "1"}}}};
}

json modern_req(const json& id, const std::string& method, json params = json::object()) {
  params["_meta"] = modern_meta();
  return req(id, method, std::move(params));
}

json body_of(const httplib::Result& r) {
  if (!r) return json();
  std::string err;
  auto parsed = json_util::parse(r->body, &err);
  return parsed ? *parsed : json();
}

int error_code(const httplib::Result& r) {
  json b = body_of(r);
  return b.is_object() && b.contains("error") ? b["error"].value("code", 0) : 0;
}

// A transport serving the fixture store on 127.0.0.1:<free port> in a background thread.
class Served {
 public:
  explicit Served(HttpOptions options = {}, ServerOptions server_options = {},
                  std::string store = testing::fixture_store(), EngineFactory make_engine = {}) {
    options.host = "127.0.0.1";
    options.port = 0;
    if (options.threads == HttpOptions{}.threads) options.threads = 4;
    if (!make_engine) make_engine = [store] { return std::make_unique<tools::Engine>(store); };
    auto made = HttpTransport::create(options, server_options, make_engine);
    if (!made) {
      ADD_FAILURE() << made.status().to_string();
      return;
    }
    transport_ = std::move(*made);
    thread_ = std::thread([this] { served_ = transport_->serve(); });
  }
  ~Served() { stop(); }
  void stop() {
    if (transport_) transport_->stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return transport_ ? transport_->port() : 0; }
  std::string host_header() const { return "127.0.0.1:" + std::to_string(port()); }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port());
    c.set_read_timeout(20, 0);
    return c;
  }
  // POSTs `body` to /mcp with the usual client headers plus `extra` (which may replace them).
  httplib::Result post(const std::string& body, httplib::Headers extra = {},
                       const std::string& content_type = kJson) const {
    httplib::Headers h = {{"Accept", "application/json, text/event-stream"}};
    for (auto& [k, v] : extra) {
      h.erase(k);
      h.emplace(k, v);
    }
    auto c = client();
    return c.Post("/mcp", h, body, content_type.c_str());
  }
  httplib::Result post(const json& body, httplib::Headers extra = {}) const {
    return post(json_util::dump(body), std::move(extra));
  }
  // A modern request with the headers a 2026-07-28 client sends; `name` is the Mcp-Name value.
  httplib::Result post_modern(const json& body, const std::string& name = "") const {
    httplib::Headers h = {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", body["method"].get<std::string>()}};
    if (!name.empty()) h.emplace("Mcp-Name", name);
    return post(body, h);
  }
  const Status& served() const { return served_; }
  HttpTransport& transport() { return *transport_; }

 private:
  std::unique_ptr<HttpTransport> transport_;
  std::thread thread_;
  Status served_;
};

TEST(HttpTransportTest, LegacyInitializeIsAnsweredWithJsonAndNoSession) {
  Served s;
  auto r = s.post(req(0, "initialize",
                      {{"protocolVersion", "2025-11-25"},
                       {"capabilities", json::object()},
                       {"clientInfo", {{"name", "t"}, {"version", "1"}}}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), kJson);
  EXPECT_FALSE(r->has_header("Mcp-Session-Id"));
  EXPECT_FALSE(r->has_header("Access-Control-Allow-Origin"));
  json b = body_of(r);
  EXPECT_EQ(b["id"], 0);
  EXPECT_EQ(b["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(b["result"]["serverInfo"]["name"], "lorekeeper");
}

TEST(HttpTransportTest, LegacyRequestsNeedNoPriorInitialize) {
  Served s;
  auto r = s.post(req(1, "tools/list"), {{"MCP-Protocol-Version", "2025-11-25"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_GT(body_of(r)["result"]["tools"].size(), 5u);
  r = s.post(req("call", "tools/call", {{"name", "search_spell"}, {"arguments", {{"search", "Fireball"}}}}),
             {{"MCP-Protocol-Version", "2025-06-18"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  json b = body_of(r);
  EXPECT_EQ(b["id"], "call");
  EXPECT_EQ(b["result"]["isError"], false);
  EXPECT_NE(b["result"]["content"][0]["text"].get<std::string>().find("Fireball"), std::string::npos);
  // A JSON-RPC error of the method itself is still a 200 reply.
  r = s.post(req(2, "tools/call", {{"name", "no_such_tool"}}), {{"MCP-Protocol-Version", "2025-11-25"}});
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(error_code(r), kInvalidParams);
  r = s.post(req(3, "ping"), {{"MCP-Protocol-Version", "2025-11-25"}});
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(body_of(r)["result"], json::object());
}

TEST(HttpTransportTest, NotificationsAndClientResponsesGet202WithoutBody) {
  Served s;
  auto r = s.post(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                  {{"MCP-Protocol-Version", "2025-11-25"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  EXPECT_TRUE(r->body.empty());
  r = s.post(json{{"jsonrpc", "2.0"}, {"id", 7}, {"result", json::object()}});
  EXPECT_EQ(r->status, 202);
  EXPECT_TRUE(r->body.empty());
}

TEST(HttpTransportTest, MalformedBodiesGet400) {
  Served s;
  auto r = s.post(std::string("{\"jsonrpc\": \"2.0\", \"id\": 1,"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), kParseError);
  EXPECT_TRUE(body_of(r)["id"].is_null());
  r = s.post(json{{"jsonrpc", "1.0"}, {"id", 1}, {"method", "ping"}});
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), kInvalidRequest);
  r = s.post(json(42));
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), kInvalidRequest);
  r = s.post(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", 5}});
  EXPECT_EQ(r->status, 400);
  r = s.post(std::string(""));
  EXPECT_EQ(r->status, 400);
}

TEST(HttpTransportTest, UnsupportedProtocolVersionHeaderGets400) {
  Served s;
  auto r = s.post(req(1, "tools/list"), {{"MCP-Protocol-Version", "1999-01-01"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  json b = body_of(r);
  EXPECT_EQ(b["id"], 1);
  EXPECT_EQ(b["error"]["data"]["requested"], "1999-01-01");
}

TEST(HttpTransportTest, BatchesOnlyWithoutAVersionHeaderOr20250326) {
  Served s;
  const json batch = json::array({req(1, "ping"), req(2, "ping")});
  auto r = s.post(batch);  // no header: 2025-03-26 is assumed
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  json b = body_of(r);
  ASSERT_TRUE(b.is_array());
  EXPECT_EQ(b.size(), 2u);
  r = s.post(batch, {{"MCP-Protocol-Version", "2025-11-25"}});
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), kInvalidRequest);
}

TEST(HttpTransportTest, ForeignHostOrOriginGets403) {
  Served s;
  const std::string port = std::to_string(s.port());
  // DNS rebinding: the browser sends the attacker's name as Host.
  auto r = s.post(req(1, "ping"), {{"Host", "evil.example:" + port}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_TRUE(body_of(r)["id"].is_null());
  EXPECT_EQ(s.post(req(1, "ping"), {{"Host", "127.0.0.1:1"}})->status, 403);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Host", "localhost"}})->status, 403);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Host", "localhost:" + port}})->status, 200);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Host", "[::1]:" + port}})->status, 200);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Origin", "http://evil.example:" + port}})->status, 403);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Origin", "null"}})->status, 403);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Origin", "http://localhost:" + port}})->status, 200);
  auto c = s.client();
  EXPECT_EQ(c.Get("/mcp", {{"Host", "evil.example:" + port}})->status, 403);
}

TEST(HttpTransportTest, ConfiguredHostsAreAccepted) {
  HttpOptions o;
  o.allowed_hosts = {"lore.example.com", "10.1.2.3:9999"};
  Served s(o);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Host", "lore.example.com"}})->status, 200);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Host", "LORE.example.com:443"}})->status, 200);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Host", "10.1.2.3:9999"}})->status, 200);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Host", "10.1.2.3:9998"}})->status, 403);
}

TEST(HttpTransportTest, BearerTokenIsRequiredWhenSet) {
  HttpOptions o;
  o.token = "s3cret-token";
  Served s(o);
  auto r = s.post(req(1, "ping"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(r->get_header_value("WWW-Authenticate").rfind("Bearer", 0), 0u);
  r = s.post(req(1, "ping"), {{"Authorization", "Bearer s3cret-tokeN"}});
  EXPECT_EQ(r->status, 401);
  EXPECT_NE(r->get_header_value("WWW-Authenticate").find("invalid_token"), std::string::npos);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Authorization", "Bearer s3cret"}})->status, 401);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Authorization", "Basic s3cret-token"}})->status, 401);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Authorization", "Bearer s3cret-token"}})->status, 200);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Authorization", "bearer s3cret-token"}})->status, 200);
  auto c = s.client();
  EXPECT_EQ(c.Get("/mcp")->status, 401);
  EXPECT_EQ(c.Get("/health")->status, 200);  // load balancers carry no token
}

TEST(HttpTransportTest, NonLoopbackBindNeedsAToken) {
  HttpOptions o;
  o.host = "0.0.0.0";
  o.port = 0;
  auto made = HttpTransport::create(o, {}, [] { return std::make_unique<tools::Engine>(testing::fixture_store()); });
  ASSERT_FALSE(made);
  EXPECT_NE(made.status().message().find("token"), std::string::npos);
  // A token too short to guard a public address is refused as none is.
  o.token = std::string(kMinPublicTokenLength - 1, 'k');
  made = HttpTransport::create(o, {}, [] { return std::make_unique<tools::Engine>(testing::fixture_store()); });
  ASSERT_FALSE(made);
  EXPECT_NE(made.status().message().find("at least 16 characters"), std::string::npos) << made.status().message();
  o.token = std::string(kMinPublicTokenLength, 'k');
  EXPECT_TRUE(
      HttpTransport::create(o, {}, [] { return std::make_unique<tools::Engine>(testing::fixture_store()); }).is_ok());
  o.token.clear();
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.1.2.3"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_TRUE(is_loopback_host("[::1]"));
  EXPECT_TRUE(is_loopback_host("LocalHost"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("192.168.1.2"));
  // Decided from the resolved address, not the spelling: a name that starts like a loopback address is not one.
  EXPECT_TRUE(is_loopback_host("::ffff:127.0.0.1"));
  EXPECT_FALSE(is_loopback_host("127.evil.invalid"));
  EXPECT_FALSE(is_loopback_host("127.0.0.1.evil.invalid"));
  EXPECT_FALSE(is_loopback_host("localhost.evil.invalid"));
  EXPECT_FALSE(is_loopback_host(""));
  o.host = "127.evil.invalid";
  made = HttpTransport::create(o, {}, [] { return std::make_unique<tools::Engine>(testing::fixture_store()); });
  ASSERT_FALSE(made);
  EXPECT_NE(made.status().message().find("token"), std::string::npos) << made.status().message();
}

// A raw TCP connection to the server, for clients no HTTP library would be: tricklers, duplicate headers.
class RawClient {
 public:
  // `from`: the loopback address to connect from (127.0.0.2, ...), so one test can be several clients.
  explicit RawClient(int port, const char* from = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (from != nullptr) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, from, &local.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) return;
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;
  bool connected() const { return connected_; }
  // A send that cannot go on for `ms` fails instead of blocking.
  void send_timeout(int ms) {
    timeval tv{ms / 1000, (ms % 1000) * 1000};
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }
  bool send(const std::string& s) {
    return ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
  }
  // True once the server has closed the connection (EOF or reset), waiting at most `ms`; any bytes the server sent
  // first are appended to received().
  bool closed_by_server(int ms) {
    pollfd p{fd_, POLLIN, 0};
    while (::poll(&p, 1, ms) > 0) {
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return true;
      received_.append(buf, static_cast<size_t>(n));
    }
    return false;
  }
  const std::string& received() const { return received_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string received_;
};

// Sends a request's start line and then one header line every 200 ms until the server closes the connection or
// `give_up_ms` passes; true when the server closed it.
bool trickle_until_closed(int port, int give_up_ms) {
  RawClient c(port);
  if (!c.connected() || !c.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n")) return false;
  for (int waited = 0; waited < give_up_ms; waited += 200) {
    if (c.closed_by_server(200)) return true;
    if (!c.send("X-Pad-" + std::to_string(waited) + ": a\r\n")) return true;
  }
  return false;
}

TEST(HttpTransportTest, TricklingClientsAreDroppedAtTheDeadlineAndOthersAreServed) {
  HttpOptions o;
  o.threads = 2;
  o.request_deadline_seconds = 1;
  Served s(o);
  // More tricklers than workers: without a deadline they hold both workers for their whole 20 s.
  std::vector<std::thread> tricklers;
  std::atomic<int> dropped{0};
  for (int i = 0; i < 4; ++i) {
    tricklers.emplace_back([&] {
      if (trickle_until_closed(s.port(), 20000)) ++dropped;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto c = s.client();
  c.set_read_timeout(10, 0);  // half the tricklers' life: only a dropped trickler frees a worker in time
  auto r = c.Post("/mcp", {{"Accept", kJson}}, json_util::dump(req(1, "ping")), kJson);
  ASSERT_TRUE(r) << "a legitimate request was starved by trickling clients";
  EXPECT_EQ(r->status, 200);
  for (auto& t : tricklers) t.join();
  EXPECT_EQ(dropped, 4);
  EXPECT_GE(s.transport().connections_expired(), 4u);
}

// Connections that send nothing wait off the workers: 40 of them beside 2 workers do not delay a request. Each held
// a worker for the 5 s keep-alive wait before, so a request behind them waited about 100 s.
TEST(HttpTransportTest, IdleConnectionsDoNotHoldWorkers) {
  HttpOptions o;
  o.threads = 2;
  o.max_connections_per_client = 100;
  Served s(o);
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 40; ++i) {
    idle.push_back(std::make_unique<RawClient>(s.port()));
    ASSERT_TRUE(idle.back()->connected());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto c = s.client();
  c.set_read_timeout(4, 0);  // less than the one keep-alive wait an idle connection held a worker for
  for (int i = 0; i < 5; ++i) {
    auto r = c.Post("/mcp", {{"Accept", kJson}}, json_util::dump(req(i, "ping")), kJson);
    ASSERT_TRUE(r) << "a request waited behind idle connections";
    EXPECT_EQ(r->status, 200);
  }
  // They are still open (the deadline, 15 s, has not come), and each is closed at the stop.
  for (auto& waiting : idle) EXPECT_FALSE(waiting->closed_by_server(0));
  s.stop();
  for (auto& waiting : idle) EXPECT_TRUE(waiting->closed_by_server(3000));
}

// One past the bound per client, or in all, is answered 503 at once and closed; other clients are served, and a
// closed connection makes room again.
TEST(HttpTransportTest, ConnectionsPastTheBoundsAreRefusedAtOnce) {
  HttpOptions o;
  o.threads = 2;
  o.max_connections_per_client = 3;
  o.max_connections = 5;
  Served s(o);
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<RawClient>(s.port(), "127.0.0.2"));
    ASSERT_TRUE(held.back()->connected());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  RawClient fourth(s.port(), "127.0.0.2");
  ASSERT_TRUE(fourth.connected());
  EXPECT_TRUE(fourth.closed_by_server(2000));
  EXPECT_NE(fourth.received().find("HTTP/1.1 503"), std::string::npos) << fourth.received();
  EXPECT_NE(fourth.received().find("as many connections open as one client may"), std::string::npos);
  // Another client is served meanwhile.
  auto ping = s.post(req(1, "ping"));
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200);
  // Once its connection is closed, five open in all: a sixth, from a client with none, is refused too.
  const auto settled = [&](size_t n) {
    for (int tries = 0; tries < 100 && s.transport().connections_open() != n; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return s.transport().connections_open();
  };
  ASSERT_EQ(settled(3), 3u);
  RawClient other1(s.port(), "127.0.0.3"), other2(s.port(), "127.0.0.3");
  ASSERT_EQ(settled(5), 5u);
  RawClient sixth(s.port(), "127.0.0.4");
  EXPECT_TRUE(sixth.closed_by_server(2000));
  EXPECT_NE(sixth.received().find("as many connections as it takes"), std::string::npos) << sixth.received();
  // A connection closed by its client makes room for the next.
  held.pop_back();
  bool served = false;
  for (int tries = 0; tries < 40 && !served; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    RawClient again(s.port(), "127.0.0.2");
    served = !again.closed_by_server(100);
  }
  EXPECT_TRUE(served);
  EXPECT_GE(s.transport().connections_refused(), 2u);
}

TEST(HttpTransportTest, StopEndsServeWhateverIdleAndTricklingClientsDo) {
  HttpOptions o;
  o.threads = 8;  // a worker for each client, so the ping is not queued behind the idle connection
  Served s(o);    // the default 15 s deadline: only the stop may end these connections in time
  RawClient idle(s.port());
  ASSERT_TRUE(idle.connected());
  std::vector<std::thread> tricklers;
  std::atomic<int> dropped{0};
  for (int i = 0; i < 3; ++i) {
    tricklers.emplace_back([&] {
      if (trickle_until_closed(s.port(), 12000)) ++dropped;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto ping = s.post(req(1, "ping"));
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200);
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    s.stop();
    stopped = true;
  });
  EXPECT_TRUE(idle.closed_by_server(8000)) << "an idle connection outlived the stop";
  for (auto& t : tricklers) t.join();
  stopper.join();
  EXPECT_TRUE(stopped);
  EXPECT_EQ(dropped, 3) << "a trickling client outlived the stop";
  EXPECT_TRUE(s.served().is_ok());
}

// A stop answers every request it accepted: the requests in their handlers when it comes (each worker's first
// request makes the worker's engine, slowly here) all get their answers, and serve() then ends.
// Engines of `store` that take `ms` to make (as a worker's first engine may), counted in `made`.
EngineFactory slow_engines(const std::string& store, std::atomic<int>& made, int ms) {
  return [store, &made, ms] {
    ++made;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return std::make_unique<tools::Engine>(store);
  };
}

// `n` tools/call requests (list_documents, ids 1 to n) to `s`, each from a thread of its own.
struct ParallelCalls {
  ParallelCalls(const Served& s, int n) : answers(static_cast<size_t>(n)) {
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([this, &s, i] {
        answers[static_cast<size_t>(i)].emplace(
            s.post(req(i + 1, "tools/call", {{"name", "list_documents"}}), {{"MCP-Protocol-Version", "2025-11-25"}}));
      });
    }
  }
  void join() {
    for (auto& t : threads) t.join();
  }
  std::vector<std::optional<httplib::Result>> answers;  // sized before the threads start: never moved
  std::vector<std::thread> threads;
};

// Waits at most 5 s for `count` to reach `n`.
void reaches(const std::atomic<int>& count, int n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (count < n && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// A stop answers the requests that wait for a worker too: with two workers in their handlers, two more requests
// sit read-ready behind them when the stop comes, and a connection sends its first byte only after the stop. The
// library reads a connection only while its listening socket is not marked closed, so these were dropped.
TEST(HttpTransportTest, AStopAnswersTheRequestsWaitingForAWorker) {
  HttpOptions o;
  o.threads = 2;
  const std::string store = testing::fixture_store();
  std::atomic<int> engines_made{0};
  Served s(o, {}, store, slow_engines(store, engines_made, 1500));
  RawClient late(s.port());  // connected before the stop, its request sent after it
  ASSERT_TRUE(late.connected());
  ParallelCalls calls(s, 4);
  reaches(engines_made, 2);
  ASSERT_EQ(engines_made, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the other two are read-ready, waiting
  std::thread stopper([&] { s.stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::string body = json_util::dump(req(9, "ping"));
  ASSERT_TRUE(late.send("POST /mcp HTTP/1.1\r\nHost: " + s.host_header() +
                        "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                        "Content-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body));
  calls.join();
  EXPECT_TRUE(late.closed_by_server(8000));
  stopper.join();
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(calls.answers[i].has_value());
    const httplib::Result& r = *calls.answers[i];
    ASSERT_TRUE(r) << "request " << i + 1 << " got no answer: " << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 200) << r->body;
  }
  EXPECT_NE(late.received().find("HTTP/1.1 200"), std::string::npos) << late.received();
  EXPECT_TRUE(s.served().is_ok());
}

// Memory taken by a burst is returned after it: idle engines are closed but for the four most recently used.
// (64 busy workers held 450 MB long after the load; 100 MB once the idle engines were closed.)
TEST(HttpTransportTest, IdleEnginesAreClosedButAFew) {
  HttpOptions o;
  o.threads = 8;
  o.idle_engine_seconds = 1;
  const std::string store = testing::fixture_store();
  std::atomic<int> made{0};
  Served s(o, {}, store, slow_engines(store, made, 300));  // so that the eight requests overlap
  ParallelCalls calls(s, 8);
  calls.join();
  for (const auto& a : calls.answers) ASSERT_TRUE(a && *a && (*a)->status == 200);
  ASSERT_EQ(made, 8);
  EXPECT_EQ(s.transport().engines_idle(), 8u);
  for (int waited = 0; waited < 50 && s.transport().engines_idle() > 4; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(s.transport().engines_idle(), 4u);
  // The kept ones still answer.
  auto r = s.post(req(9, "tools/call", {{"name", "list_documents"}}), {{"MCP-Protocol-Version", "2025-11-25"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(made, 8);
}

TEST(HttpTransportTest, AStopAnswersTheRequestsInFlight) {
  HttpOptions o;
  o.threads = 4;
  const std::string store = testing::fixture_store();
  std::atomic<int> engines_made{0};
  Served s(o, {}, store, slow_engines(store, engines_made, 1500));
  ParallelCalls calls(s, 4);
  reaches(engines_made, 4);
  ASSERT_EQ(engines_made, 4) << "the requests did not all reach their handlers";
  s.stop();  // while all four are being answered
  calls.join();
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(calls.answers[i].has_value());
    const httplib::Result& r = *calls.answers[i];
    ASSERT_TRUE(r) << "request " << i + 1 << " got no answer: " << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 200) << r->body;
    const json body = body_of(r);
    EXPECT_EQ(body.value("id", 0), i + 1) << r->body;
    EXPECT_TRUE(body.contains("result")) << r->body;
  }
  EXPECT_TRUE(s.served().is_ok());
  // Nothing more is accepted.
  httplib::Client late("127.0.0.1", s.port());
  late.set_connection_timeout(1, 0);
  EXPECT_FALSE(late.Get("/health"));
}

TEST(HttpTransportTest, DuplicateHostHeadersGet400) {
  Served s;
  const std::string body = json_util::dump(req(1, "ping"));
  for (const std::string& second : {std::string("evil.example"), "127.0.0.1:" + std::to_string(s.port())}) {
    RawClient c(s.port());
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(s.port()) + "\r\nHost: " + second +
                       "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                       "\r\nConnection: close\r\n\r\n" + body));
    c.closed_by_server(5000);
    EXPECT_EQ(c.received().rfind("HTTP/1.1 400", 0), 0u) << second << ": " << c.received().substr(0, 200);
    EXPECT_NE(c.received().find("more than one Host header"), std::string::npos);
  }
}

TEST(HttpTransportTest, DeepNestingAndLongBatchesAreRefusedUnread) {
  Served s;
  auto deep = s.post(std::string(20000, '[') + std::string(20000, ']'));
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->status, 400);
  EXPECT_EQ(error_code(deep), -32600);
  json batch = json::array();
  for (int i = 0; i < 1000; ++i) {
    batch.push_back(req(i, "tools/call", {{"name", "search_all"}, {"arguments", {{"query", "fire"}}}}));
  }
  auto long_batch = s.post(batch);
  ASSERT_TRUE(long_batch);
  EXPECT_EQ(long_batch->status, 400);
  EXPECT_EQ(error_code(long_batch), -32600);
  EXPECT_LT(long_batch->body.size(), 500u) << "refused whole, none of the 1,000 searches run";
  // The server is still there for everyone.
  auto ping = s.post(req(2, "ping"));
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200);
}

TEST(HttpTransportTest, GetAndDeleteGet405) {
  Served s;
  auto c = s.client();
  auto r = c.Get("/mcp", {{"Accept", "text/event-stream"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "POST");
  r = c.Delete("/mcp", {{"Mcp-Session-Id", "abc"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  r = c.Get("/elsewhere");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST(HttpTransportTest, AcceptAndContentTypeAreChecked) {
  Served s;
  auto r = s.post(req(1, "ping"), {{"Accept", "text/html"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 406);
  EXPECT_EQ(s.post(req(1, "ping"), {{"Accept", "*/*"}})->status, 200);
  EXPECT_EQ(s.post(json_util::dump(req(1, "ping")), {}, "text/plain")->status, 415);
  EXPECT_EQ(s.post(json_util::dump(req(1, "ping")), {}, "application/jsonx")->status, 415);
  EXPECT_EQ(s.post(json_util::dump(req(1, "ping")), {}, "application/json; charset=utf-8")->status, 200);
}

TEST(HttpTransportTest, OversizedBodiesGet413) {
  ServerOptions so;
  so.max_message_bytes = 4096;
  Served s({}, so);
  json big = req(1, "tools/call", {{"name", "search_spell"}, {"arguments", {{"search", std::string(8000, 'a')}}}});
  auto r = s.post(big);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(error_code(r), kInvalidRequest);
  // Chunked, so no Content-Length announces the size.
  auto c = s.client();
  auto post_chunked = [&](const std::string& text, size_t chunk) {
    return c.Post(
        "/mcp", {{"Accept", kJson}},
        [&text, chunk](size_t offset, httplib::DataSink& sink) {
          if (offset < text.size()) {
            sink.write(text.data() + offset, std::min(chunk, text.size() - offset));
          } else {
            sink.done();
          }
          return true;
        },
        kJson);
  };
  r = post_chunked(json_util::dump(big), 1000);
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 413);
  // Far over the limit (more than the sockets buffer): the server reads on and drops the rest, so the client
  // finishes sending and reads the 413 instead of having its connection reset.
  r = post_chunked(
      json_util::dump(
          req(2, "tools/call", {{"name", "search_spell"}, {"arguments", {{"search", std::string(400000, 'a')}}}})),
      16384);
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 413);
  // The server still answers normal requests.
  EXPECT_EQ(s.post(req(1, "ping"))->status, 200);
}

// A body declared far over the limit is answered 413 before it is read, and the connection closed: a client that
// keeps sending gets the answer within the drain (the library had read the whole declared length, 100 GB, until
// the 15 s deadline closed the connection without an answer). A length that is ambiguous is a 400, likewise.
TEST(HttpTransportTest, ABodyDeclaredTooLargeIsRefusedBeforeItIsRead) {
  Served s;
  const std::string head = "POST /mcp HTTP/1.1\r\nHost: " + s.host_header() +
                           "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
  RawClient c(s.port());
  ASSERT_TRUE(c.connected());
  c.send_timeout(1000);
  ASSERT_TRUE(c.send(head + "Content-Length: 100000000000\r\n\r\n"));
  std::atomic<bool> done{false};
  std::thread sender([&] {
    const std::string junk(65536, 'x');
    for (int i = 0; i < 16384 && !done && c.send(junk); ++i) {  // at most 1 GiB
    }
  });
  const bool closed = c.closed_by_server(8000);  // well within the 15 s request deadline
  done = true;
  sender.join();
  EXPECT_TRUE(closed) << "the server read on instead of answering";
  EXPECT_EQ(c.received().rfind("HTTP/1.1 413", 0), 0u) << c.received().substr(0, 200);

  for (const std::string lengths :
       {"Content-Length: 16\r\nContent-Length: 16\r\n", "Content-Length: 16\r\nTransfer-Encoding: chunked\r\n",
        "Content-Length: 1e3\r\n"}) {
    RawClient d(s.port());
    ASSERT_TRUE(d.send(head + lengths + "\r\n" + json_util::dump(req(1, "ping"))));
    EXPECT_TRUE(d.closed_by_server(8000)) << lengths;
    EXPECT_EQ(d.received().rfind("HTTP/1.1 400", 0), 0u) << lengths << d.received().substr(0, 200);
  }
  // The server still answers normal requests.
  EXPECT_EQ(s.post(req(1, "ping"))->status, 200);
}

// Requests sent before the one before is answered (HTTP pipelining) are each answered, in order: three POSTs and a
// GET in one write, and a body split over two writes with the next request in the second.
TEST(HttpTransportTest, PipelinedRequestsAreEachAnswered) {
  Served s;
  const auto post = [&](int id) {
    const std::string body = json_util::dump(req(id, "ping"));
    return "POST /mcp HTTP/1.1\r\nHost: " + s.host_header() +
           "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  const auto answers = [](const std::string& received) {
    std::vector<std::string> ids;
    for (size_t at = received.find("HTTP/1.1 200"); at != std::string::npos;
         at = received.find("HTTP/1.1 200", at + 1)) {
      const size_t id = received.find("\"id\":", at);
      const size_t next = received.find("HTTP/1.1", at + 1);
      ids.push_back(id != std::string::npos && id < next ? received.substr(id + 5, 1) : "-");
    }
    return ids;
  };
  RawClient c(s.port());
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send(post(1) + post(2) + "GET /health HTTP/1.1\r\nHost: " + s.host_header() + "\r\n\r\n" + post(3)));
  EXPECT_FALSE(c.closed_by_server(1500));
  EXPECT_EQ(answers(c.received()), (std::vector<std::string>{"1", "2", "-", "3"})) << c.received();

  RawClient d(s.port());
  const std::string first = post(4);
  ASSERT_TRUE(d.send(first.substr(0, first.size() - 5)));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(d.send(first.substr(first.size() - 5) + post(5)));
  EXPECT_FALSE(d.closed_by_server(1500));
  EXPECT_EQ(answers(d.received()), (std::vector<std::string>{"4", "5"})) << d.received();

  // What the library does not read of a request it answers (a GET's body, chunked too) and an empty line after a
  // body are dropped, as before: the next request on the connection is answered, once.
  const std::string get_with_body =
      "GET /health HTTP/1.1\r\nHost: " + s.host_header() + "\r\nContent-Length: 5\r\n\r\nhello";
  const std::string chunked_get = "GET /health HTTP/1.1\r\nHost: " + s.host_header() +
                                  "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
  for (const std::string& before : {get_with_body, post(6) + "\r\n", chunked_get}) {
    RawClient e(s.port());
    ASSERT_TRUE(e.send(before));
    EXPECT_FALSE(e.closed_by_server(300));
    ASSERT_TRUE(e.send(post(7)));
    EXPECT_FALSE(e.closed_by_server(1000));
    const std::vector<std::string> got = answers(e.received());
    ASSERT_EQ(got.size(), 2u) << before << "\n---\n" << e.received();
    EXPECT_EQ(got.back(), "7") << e.received();
    EXPECT_EQ(e.received().find("HTTP/1.1 400"), std::string::npos) << e.received();
  }
}

TEST(HttpTransportTest, ModernRequestsWithMatchingHeaders) {
  Served s;
  auto r = s.post_modern(modern_req(1, "server/discover"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(body_of(r)["result"]["resultType"], "complete");
  r = s.post_modern(modern_req(2, "tools/list"));
  EXPECT_EQ(r->status, 200);
  EXPECT_GT(body_of(r)["result"]["tools"].size(), 5u);
  r = s.post_modern(modern_req(3, "tools/call", {{"name", "get_entity"}, {"arguments", {{"key", "srd_fireball"}}}}),
                    "get_entity");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(body_of(r)["result"]["isError"], false);
  // Whitespace around a value is not part of it; a Base64 sentinel is decoded first.
  r = s.post_modern(modern_req(4, "tools/call", {{"name", "get_entity"}, {"arguments", {{"key", "srd_fireball"}}}}),
                    "  get_entity  ");
  EXPECT_EQ(r->status, 200);
  r = s.post_modern(modern_req(5, "resources/read", {{"uri", "lorekeeper://spell/srd_fireball"}}),
                    "=?base64?bG9yZWtlZXBlcjovL3NwZWxsL3NyZF9maXJlYmFsbA==?=");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(body_of(r)["result"]["contents"][0]["uri"], "lorekeeper://spell/srd_fireball");
}

TEST(HttpTransportTest, ModernHeaderMismatchesGet400With32020) {
  Served s;
  const json list = modern_req(1, "tools/list");
  const json call = modern_req(2, "tools/call", {{"name", "get_entity"}, {"arguments", {{"key", "srd_fireball"}}}});
  auto expect_mismatch = [&](const json& body, httplib::Headers h, const char* what) {
    auto r = s.post(body, h);
    ASSERT_TRUE(r) << what;
    EXPECT_EQ(r->status, 400) << what;
    EXPECT_EQ(error_code(r), -32020) << what << ": " << r->body;
    EXPECT_EQ(body_of(r)["id"], body["id"]) << what;
  };
  expect_mismatch(list, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "prompts/list"}}, "method differs");
  expect_mismatch(list, {{"MCP-Protocol-Version", "2026-07-28"}}, "method missing");
  expect_mismatch(list, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "TOOLS/LIST"}}, "method case");
  expect_mismatch(list, {{"Mcp-Method", "tools/list"}}, "version missing");
  expect_mismatch(list, {{"MCP-Protocol-Version", "2025-11-25"}, {"Mcp-Method", "tools/list"}}, "version differs");
  expect_mismatch(call, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}}, "name missing");
  expect_mismatch(call,
                  {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "search_spell"}},
                  "name differs");
  expect_mismatch(
      call, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "=?base64?Z2V0!!?="}},
      "bad base64");
  // Header names are case-insensitive.
  auto r = s.post(list, {{"mcp-protocol-version", "2026-07-28"}, {"MCP-METHOD", "tools/list"}});
  EXPECT_EQ(r->status, 200);
}

TEST(HttpTransportTest, ModernErrorsUseTheSpecifiedStatus) {
  Served s;
  // Unsupported version (the header matches the body): 400 + -32022 with the supported list.
  json old = req(1, "tools/list",
                 {{"_meta",
                   {{"io.modelcontextprotocol/protocolVersion", "2099-01-01"},
                    {"io.modelcontextprotocol/clientCapabilities", json::object()}}}});
  auto r = s.post(old, {{"MCP-Protocol-Version", "2099-01-01"}, {"Mcp-Method", "tools/list"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), kUnsupportedProtocolVersion);
  EXPECT_EQ(body_of(r)["error"]["data"]["supported"][0], "2026-07-28");
  // Unknown method: 404 + -32601; so are the methods 2026-07-28 removed.
  r = s.post_modern(modern_req(2, "no/such/method"));
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(error_code(r), kMethodNotFound);
  r = s.post_modern(modern_req(3, "initialize"));
  EXPECT_EQ(r->status, 404);
  r = s.post_modern(modern_req(4, "ping"));
  EXPECT_EQ(r->status, 404);
  // Missing client capabilities in _meta: 400 + -32602.
  json no_caps = req(5, "tools/list", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}});
  r = s.post_modern(no_caps);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), kInvalidParams);
  // server/discover too needs the capabilities.
  r = s.post_modern(
      req(8, "server/discover", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}}));
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), kInvalidParams);
  // A modern version header on a body without _meta: the envelope is missing.
  r = s.post(req(6, "tools/list"), {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}});
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), kInvalidParams);
  // An invalid argument of a known tool is a tool result, not an HTTP error.
  r = s.post_modern(modern_req(7, "tools/call", {{"name", "search_spell"}, {"arguments", {{"level", 12}}}}),
                    "search_spell");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(body_of(r)["result"]["isError"], true);
}

TEST(HttpTransportTest, HealthAnswersOk) {
  Served s;
  auto c = s.client();
  auto r = c.Get("/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  json b = body_of(r);
  EXPECT_EQ(b["status"], "ok");
  EXPECT_EQ(b["endpoint"], "/mcp");
}

TEST(HttpTransportTest, CorsOnlyForConfiguredOrigins) {
  HttpOptions o;
  o.cors_origins = {"http://localhost:6274"};
  Served s(o);
  auto r = s.post(req(1, "ping"), {{"Origin", "http://localhost:6274"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Access-Control-Allow-Origin"), "http://localhost:6274");
  EXPECT_EQ(s.post(req(1, "ping"), {{"Origin", "http://localhost:6275"}})->status, 403);
  auto c = s.client();
  r = c.Options("/mcp", {{"Origin", "http://localhost:6274"}, {"Access-Control-Request-Method", "POST"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 204);
  EXPECT_NE(r->get_header_value("Access-Control-Allow-Headers").find("Mcp-Method"), std::string::npos);
  // Without configured origins a cross-origin caller is refused and no CORS header is ever sent.
  Served plain;
  r = plain.client().Options("/mcp", {{"Origin", "http://localhost:6274"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_FALSE(r->has_header("Access-Control-Allow-Origin"));
  r = plain.client().Options("/mcp");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
}

TEST(HttpTransportTest, ConcurrentRequestsAreAllAnswered) {
  Served s;
  std::atomic<int> ok{0};
  std::atomic<int> bad{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", s.port());
      c.set_keep_alive(true);
      c.set_tcp_nodelay(true);
      for (int i = 0; i < 15; ++i) {
        const json body =
            modern_req(t * 100 + i, "tools/call", {{"name", "get_entity"}, {"arguments", {{"key", "srd_fireball"}}}});
        auto r = c.Post("/mcp",
                        {{"Accept", kJson},
                         {"MCP-Protocol-Version", "2026-07-28"},
                         {"Mcp-Method", "tools/call"},
                         {"Mcp-Name", "get_entity"}},
                        json_util::dump(body), kJson);
        json b = body_of(r);
        if (r && r->status == 200 && b["id"] == t * 100 + i &&
            b["result"]["structuredContent"]["result"]["key"] == "srd_fireball") {
          ++ok;
        } else {
          ++bad;
        }
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok, 120);
  EXPECT_EQ(bad, 0);
}

// An import rewriting the store from another connection while clients search: every answer is whole (all of
// the pack or none of it, never part), nothing waits for the writer, and once it is done the answers show it.
TEST(HttpTransportTest, AnswersStayWholeWhileAnotherConnectionRewritesTheStore) {
  const std::string path = testing::temp_dir() + "/served.db";
  std::filesystem::copy_file(testing::fixture_store(), path);
  constexpr int kPack = 40;
  std::vector<model::Entity> pack;
  model::Document doc{"homebrew-pack", "Homebrew Pack", "", "", "", "5e-2014", "orcbrew", "", ""};
  for (int i = 0; i < kPack; ++i) {
    model::Entity e;
    e.kind = model::Kind::kSpell;
    e.key = "orcbrew_homebrew-pack_zorblax-" + std::to_string(i);
    e.name = "Zorblax Bolt " + std::to_string(i);
    e.document = doc;
    e.source_api = "orcbrew";
    e.text = "A crackling zorblax bolt.";
    e.data = {{"desc", e.text}};
    e.raw = {{"name", e.name}};
    e.facets.level = 1;
    pack.push_back(std::move(e));
  }
  Served s({}, {}, path);
  std::atomic<bool> writing{true};
  std::atomic<int> writes{0};
  std::thread writer([&] {
    auto st = store::Store::open(path, store::Store::Mode::kExistingOnly);
    ASSERT_TRUE(st.is_ok()) << st.status().to_string();
    const store::Store::Scope scope{"orcbrew", std::nullopt, "homebrew-pack"};
    for (int round = 0; round < 30; ++round) {
      const bool with = round % 2 == 0;
      Status done = (*st)->replace({scope}, with ? std::vector<model::Document>{doc} : std::vector<model::Document>{},
                                   with ? pack : std::vector<model::Entity>{});
      ASSERT_TRUE(done.is_ok()) << done.to_string();
      ++writes;
    }
    // Ends with the pack in the store.
    ASSERT_TRUE((*st)->replace({scope}, {doc}, pack).is_ok());
    writing = false;
  });
  std::atomic<int> whole{0}, torn{0}, failed{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 3; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", s.port());
      c.set_read_timeout(20, 0);
      for (int i = 0; writing || i < 2; ++i) {
        const json body = req(
            t * 1000 + i, "tools/call",
            {{"name", "search_spell"}, {"arguments", {{"search", "zorblax"}, {"limit", 100}, {"detail", "summary"}}}});
        auto r =
            c.Post("/mcp", {{"Accept", kJson}, {"MCP-Protocol-Version", "2025-11-25"}}, json_util::dump(body), kJson);
        json b = body_of(r);
        if (!r || r->status != 200 || !b.contains("result") || b["result"].value("isError", false)) {
          ++failed;
          continue;
        }
        const json& sc = b["result"]["structuredContent"];
        const size_t shown = sc["result"].size();
        const int total = sc.value("total", -1);
        if ((shown == 0 && total == 0) || (shown == static_cast<size_t>(kPack) && total == kPack)) {
          ++whole;
        } else {
          ++torn;
          ADD_FAILURE() << "shown " << shown << ", total " << total;
        }
      }
    });
  }
  writer.join();
  for (auto& c : clients) c.join();
  EXPECT_EQ(writes, 30);
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(torn, 0);
  EXPECT_GT(whole, 0);
  // After the last write, an answer shows the whole pack.
  auto r =
      s.post(req(1, "tools/call", {{"name", "search_spell"}, {"arguments", {{"search", "zorblax"}, {"limit", 100}}}}),
             {{"MCP-Protocol-Version", "2025-11-25"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(body_of(r)["result"]["structuredContent"]["result"].size(), static_cast<size_t>(kPack));
}

TEST(HttpTransportTest, StopEndsServeAndRefusesNewConnections) {
  Served s;
  const int port = s.port();
  EXPECT_EQ(s.post(req(1, "ping"))->status, 200);
  s.stop();
  EXPECT_TRUE(s.served().is_ok());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2, 0);
  EXPECT_FALSE(c.Get("/health"));
}

TEST(HttpTransportTest, StopBeforeServeReturnsAtOnce) {
  HttpOptions o;
  o.port = 0;
  auto made = HttpTransport::create(o, {}, [] { return std::make_unique<tools::Engine>(testing::fixture_store()); });
  ASSERT_TRUE(made);
  (*made)->stop();
  EXPECT_TRUE((*made)->serve().is_ok());
}

}  // namespace
}  // namespace lorekeeper::mcp
