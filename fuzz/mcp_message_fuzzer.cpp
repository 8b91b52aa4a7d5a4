// Fuzz target: one framed MCP message (a stdio line) through the server, tools included. Every input must give
// a reply that serialises to JSON (or no reply), never a crash, a hang or an exception.
// The store is LOREKEEPER_FUZZ_DB when set (tests use the fixture store), else none at all.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/mcp/server.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static lorekeeper::tools::Engine engine([] {
    const char* db = std::getenv("LOREKEEPER_FUZZ_DB");
    return std::string(db ? db : "/nonexistent/lorekeeper-fuzz.db");
  }());
  static lorekeeper::mcp::Server server(engine, lorekeeper::mcp::ServerOptions{});
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto reply = server.handle_text(text);
  if (reply) {
    const std::string out = lorekeeper::json_util::dump(*reply);
    if (out.empty() || out.find('\n') != std::string::npos) std::abort();  // one line per reply, always
  }
  return 0;
}
