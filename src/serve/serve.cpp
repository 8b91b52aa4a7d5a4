#include "lorekeeper/serve/serve.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <thread>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/mcp/http_transport.hpp"
#include "lorekeeper/mcp/server.hpp"
#include "lorekeeper/mcp/stdio_transport.hpp"
#include "lorekeeper/serve/embedder.hpp"
#include "lorekeeper/serve/engines.hpp"
#include "lorekeeper/serve/refresh.hpp"

namespace lorekeeper::serve {

namespace {

// Streamable HTTP until SIGINT/SIGTERM; every worker has its own engine sharing `semantic` and the notice.
int serve_http(const Config& cfg, const std::string& version, std::shared_ptr<search::Semantic> semantic,
               std::function<std::string()> notice, std::function<void()> built) {
  mcp::HttpOptions http;
  http.host = cfg.http_host;
  http.port = cfg.http_port;
  http.token = cfg.http_token;
  http.allowed_hosts = text::split_commas(cfg.http_allowed_hosts);
  http.cors_origins = text::split_commas(cfg.http_cors_origins);
  http.threads = cfg.http_threads;
  http.max_connections = cfg.http_max_connections;
  http.max_connections_per_client = cfg.http_max_connections_per_client;
  mcp::ServerOptions options;
  options.version = version;
  auto transport = mcp::HttpTransport::create(http, options, [&cfg, semantic, notice, built] {
    auto engine = std::make_unique<tools::Engine>(make_long_lived_engine(cfg, semantic, built));
    engine->set_notice(notice);
    return engine;
  });
  if (!transport) {
    std::fprintf(stderr, "lorekeeper serve --http: %s\n", transport.status().message().c_str());
    return 2;
  }
  // Printed whatever the log level, once SIGTERM is handled: scripts and tests read the URL (and the port chosen
  // for --port 0) here.
  Status served = (*transport)->serve_until_signalled([&] {
    std::fprintf(stderr, "lorekeeper: listening on %s (store %s)\n", (*transport)->url().c_str(), cfg.db_path.c_str());
    std::fflush(stderr);
  });
  if (!served.is_ok()) {
    std::fprintf(stderr, "lorekeeper serve --http: %s\n", served.message().c_str());
    return 1;
  }
  log::info("stopped serving HTTP");
  return 0;
}

}  // namespace

int serve(const Config& cfg, const std::string& auto_sync, bool http, const std::string& version) {
  std::atomic<bool> warmed{false};
  auto semantic = make_semantic(cfg, true);
  BackgroundEmbedder embedder(cfg, semantic);
  // The text index is loaded once the stored vectors are published (searches meanwhile use FTS5, which ranks the
  // same): the two loads together on two cores took the vectors two to six times longer, and meaning-based search
  // is what a first search waits for.
  std::jthread warm_text([&cfg, &warmed, semantic] {
    if (semantic) semantic->wait_loaded(std::chrono::seconds(2));
    warm_text_index(cfg);
    warmed = true;
  });
  BackgroundRefresh refresh(cfg, auto_sync, [&embedder, &cfg] {
    embedder.request();
    warm_text_index(cfg);
  });
  std::function<std::string()> notice = [&refresh, semantic] {
    std::string note = refresh.notice();
    const std::string meaning = semantic ? semantic->notice() : std::string();
    if (!meaning.empty()) note += (note.empty() ? "" : " ") + meaning;
    return note;
  };
  // A store built by a tool call (the first start) is loaded at once, not at the embedder's next look.
  std::function<void()> built = [&embedder] { embedder.request(); };
  int rc = 0;
  if (http) {
    rc = serve_http(cfg, version, semantic, notice, built);
  } else {
    tools::Engine engine = make_long_lived_engine(cfg, semantic, built);
    engine.set_notice(notice);
    mcp::ServerOptions options;
    options.version = version;
    mcp::Server server(engine, options);
    log::info("serving MCP on stdio; store " + cfg.db_path);
    rc = mcp::serve_stdio(server, STDIN_FILENO, STDOUT_FILENO);
  }
  // The background work (loading the text index, embedding, a refresh) writes only whole transactions: what is
  // not finished after a short wait is left behind (a sync's transaction is never committed, an embedding pass
  // loses at most its chunk in progress), so the end of a host's input ends the process at once.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
  auto left = [&] {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
  };
  bool stopped = embedder.stop_within(left());
  while (!warmed && left().count() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  stopped = refresh.stop(left()) && stopped && warmed;
  if (!stopped) {
    log::debug("leaving unfinished background work; the stored data is unchanged by it");
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(rc);
  }
  return rc;
}

}  // namespace lorekeeper::serve
