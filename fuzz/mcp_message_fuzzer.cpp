// Fuzz target: a short stdio session (the input split into lines, each one framed MCP message) through a fresh
// server, tools included. The server starts as if 2025-03-26 were negotiated, so batches are reachable; an
// `initialize` line may change that for the lines after it. Every line must give a reply that serialises to one
// line of JSON (or no reply), never a crash, a hang or an exception.
// The store is LOREKEEPER_FUZZ_DB when set (tests use the fixture store), else none at all.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/mcp/server.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static lorekeeper::tools::Engine engine([] {
    const char* db = std::getenv("LOREKEEPER_FUZZ_DB");
    return std::string(db ? db : "/nonexistent/lorekeeper-fuzz.db");
  }());
  lorekeeper::mcp::Server server(engine, lorekeeper::mcp::ServerOptions{});
  server.assume_version("2025-03-26");
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t start = 0;
  while (start <= input.size()) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    auto reply = server.handle_text(std::string(input.substr(start, end - start)));
    if (reply) {
      const std::string out = lorekeeper::json_util::dump(*reply);
      if (out.empty() || out.find('\n') != std::string::npos) std::abort();  // one line per reply, always
    }
    start = end + 1;
  }
  return 0;
}
