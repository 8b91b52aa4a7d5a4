#include "command.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/serve/serve.hpp"

namespace lorekeeper::cli {

namespace {

class ServeCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* serve = app.add_subcommand(
        "serve", "Serve MCP over stdio (the default transport of MCP hosts), or over Streamable HTTP with --http");
    serve->add_flag("--http", http_,
                    "Serve Streamable HTTP on http://HOST:PORT/mcp (both protocol eras; GET /health) instead of stdio");
    serve->add_option("--host", host_,
                      "Address to bind with --http (default: $LOREKEEPER_HTTP_HOST or 127.0.0.1); any other than "
                      "loopback requires a token");
    serve->add_option("--port", port_, "Port with --http; 0 picks a free one (default: $LOREKEEPER_HTTP_PORT or 8080)")
        ->check(CLI::Range(0, 65535));
    serve->add_option("--token", token_,
                      "Bearer token clients must send with --http (default: $LOREKEEPER_HTTP_TOKEN; prefer the "
                      "variable: flags are visible to other local users)");
    serve->add_option("--allowed-host", allowed_hosts_,
                      "Extra Host header value accepted with --http, \"name\" or \"name:port\" (repeatable; default: "
                      "$LOREKEEPER_HTTP_ALLOWED_HOSTS, comma-separated)");
    serve->add_option("--cors-origin", cors_origins_,
                      "Browser origin allowed to call with --http, answered with CORS headers (repeatable; default: "
                      "$LOREKEEPER_HTTP_CORS_ORIGINS, comma-separated)");
    serve
        ->add_option("--http-threads", threads_,
                     "Worker threads with --http, each with its own store connection (default: "
                     "$LOREKEEPER_HTTP_THREADS or 32)")
        ->check(CLI::Range(1, 256));
    serve->add_flag("--legacy-tools", legacy_tools_,
                    "Also serve the older tool names (lookup_spell, ..., search_dnd_content); default: "
                    "$LOREKEEPER_LEGACY_TOOLS");
    serve
        ->add_option("--auto-sync", auto_sync_,
                     "Refresh stale data from the API in the background: auto (when it is reachable; default), on, "
                     "off (default: $LOREKEEPER_AUTO_SYNC or auto)")
        ->check(CLI::IsMember({"auto", "on", "off"}));
    return serve;
  }
  int run(Config& cfg) override {
    if (auto_sync_.empty()) auto_sync_ = cfg.auto_sync;
    if (legacy_tools_) {
      cfg.legacy_tools = true;
      cfg.origin["legacy_tools"] = "flag";
    }
    if (!host_.empty()) cfg.http_host = host_;
    if (port_ >= 0) cfg.http_port = port_;
    if (!token_.empty()) cfg.http_token = token_;
    if (!allowed_hosts_.empty()) cfg.http_allowed_hosts = text::join(allowed_hosts_, ",");
    if (!cors_origins_.empty()) cfg.http_cors_origins = text::join(cors_origins_, ",");
    if (threads_ > 0) cfg.http_threads = threads_;
    return serve::serve(cfg, auto_sync_, http_, kVersion);
  }

 private:
  std::string auto_sync_;
  bool legacy_tools_ = false;
  bool http_ = false;
  std::string host_;
  int port_ = -1;
  std::string token_;
  std::vector<std::string> allowed_hosts_;
  std::vector<std::string> cors_origins_;
  int threads_ = 0;
};

}  // namespace

std::unique_ptr<Command> serve_command() { return std::make_unique<ServeCommand>(); }

}  // namespace lorekeeper::cli
