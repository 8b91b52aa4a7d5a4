// The MCP server: JSON-RPC 2.0 message handling for both protocol eras, independent of the transport.
//   legacy (2024-11-05 .. 2025-11-25): `initialize` handshake, version negotiated per connection;
//   modern (2026-07-28): stateless, `server/discover`, the version in every request's _meta, `resultType`.
// One Server serves one connection; it is not thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::mcp {

using nlohmann::json;

inline constexpr const char* kModernVersion = "2026-07-28";
inline constexpr const char* kLatestLegacyVersion = "2025-11-25";
// Legacy versions accepted in `initialize`, newest first.
const std::vector<std::string>& legacy_versions();

// JSON-RPC and MCP error codes the server emits.
enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kResourceNotFoundLegacy = -32002,
  kUnsupportedProtocolVersion = -32022,
  kServerBusy = -32000,  // implementation-defined: a limit of this server was reached
};

// Limits on one message; docs/LIMITS.md says why each value was chosen.
struct ServerOptions {
  std::string version = LOREKEEPER_VERSION;  // the project version, from CMake
  size_t max_message_bytes = 4 * 1024 * 1024;
  // Deepest nesting of arrays and objects in a message; deeper messages are refused unparsed (-32600).
  size_t max_depth = json_util::kMaxDepth;
  // Requests in one batch (2025-03-26 only); a longer batch is refused whole (-32600).
  size_t max_batch = 50;
  // Total serialised size of a batch's replies; requests after the limit is reached are answered with an
  // error (-32000) instead of being run.
  size_t max_batch_reply_bytes = 8 * 1024 * 1024;
  int tools_page_size = 50;
  int resources_page_size = 100;
  // Whether logging/setLevel changes the process's log level. Off for HTTP, where one client must not change
  // the logging of a server shared by many (the request is still accepted).
  bool apply_log_level = true;
};

class Server {
 public:
  // `engine` must outlive the server.
  Server(tools::Engine& engine, ServerOptions options);

  // Handles one framed message (a line on stdio, a body on HTTP). Returns the reply to send, or nothing for
  // notifications and client responses. Never throws. A message nesting deeper than max_depth is refused
  // before it is parsed.
  std::optional<json> handle_text(const std::string& text);
  // Handles a parsed message: a request, a notification, a client response, or (2025-03-26) a batch of them,
  // handled one level deep (an array inside a batch is an invalid request, never recursed into).
  std::optional<json> handle(const json& message);

  // The reply for a message that exceeded max_message_bytes and was not read.
  json oversized_reply() const;

  const ServerOptions& options() const { return options_; }
  // The version negotiated by `initialize`, empty before it.
  const std::string& negotiated_version() const { return negotiated_; }
  // For stateless transports (HTTP without sessions): the legacy version the request declares (the
  // MCP-Protocol-Version header), taken as negotiated; it decides whether batches are accepted.
  void assume_version(std::string version) { negotiated_ = std::move(version); }

 private:
  std::optional<json> handle_one(const json& message);
  std::optional<json> handle_batch(const json& batch);
  json dispatch(const json& id, const std::string& method, const json& params, bool modern);
  json initialize(const json& params);
  json discover();
  json capabilities() const;
  json server_info() const;
  json tools_list(const json& params, bool* ok, json* error);
  json tools_call(const json& params, bool* ok, json* error);
  json resources_list(const json& params, bool* ok, json* error);
  json resources_read(const json& params, bool modern, bool* ok, json* error);
  json complete(const json& params, bool* ok, json* error);

  tools::Engine& engine_;
  ServerOptions options_;
  std::string negotiated_;
};

// A JSON-RPC error reply.
json make_error(const json& id, int code, const std::string& message, const json& data = json());
// The reply to a message json_util::parse refused: -32600 when it nests too deep, -32700 when it is not JSON.
json parse_failure_reply(json_util::ParseFailure failure, size_t max_depth);

}  // namespace lorekeeper::mcp
