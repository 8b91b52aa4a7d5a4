// `lorekeeper serve`: MCP over stdio, or Streamable HTTP until SIGINT/SIGTERM, with the background work beside it
// (the stored vectors and text index loaded, what changed embedded, stale data refreshed: embedder.hpp,
// refresh.hpp) and a store built from the bundled snapshot by the first call when there is none (engines.hpp).
#pragma once

#include <string>

#include "lorekeeper/core/config.hpp"

namespace lorekeeper::serve {

// Serves until the input ends (stdio) or a signal (HTTP); `auto_sync` is the refresh mode ("auto", "on", "off").
// Returns the process exit code: 0, 1 when serving failed, 2 when the HTTP transport cannot be made (options refused,
// the address not bound). Background work not finished shortly after is left behind (it writes whole transactions
// only) and the process ends at once.
int serve(const Config& cfg, const std::string& auto_sync, bool http, const std::string& version);

}  // namespace lorekeeper::serve
