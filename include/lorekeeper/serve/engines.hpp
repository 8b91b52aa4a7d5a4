// The engines that answer tool calls, for one command or for the server, and the store they build when there is
// none (from the Open5e snapshot compiled into the binary, with its precomputed vectors).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "lorekeeper/core/config.hpp"
#include "lorekeeper/core/status.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::serve {

// Gives the store's entities the bundled vectors that match their texts (search/precomputed.hpp), so meaning-based
// search works without embedding them; unless meaning-based search is off (cfg.embed "off"). A failure costs only
// that (logged).
void seed_bundled_vectors(const Config& cfg, store::Store& st);

// Builds a store at `db_path` from the snapshot inside the binary, with its vectors: written to a private file
// first and linked into place only when complete (store/files.hpp), so a concurrent process (an MCP host's probe)
// never sees a half-built store, and of two processes bootstrapping at once exactly one store wins. Within a
// process one bootstrap runs at a time: serve's workers each open the store on their first request, and the ones
// that waited find it built. Ok without building when a store exists at `db_path`; InvalidArgument when `db_path`
// is a dangling symbolic link.
Status bootstrap_from_bundled(const Config& cfg, const std::string& db_path);

// The meaning-based search service, unless turned off (nullptr; a missing model gives a service that says so).
// `deferred`: the model is read by the first call that needs it (serve's background thread), not here.
std::shared_ptr<search::Semantic> make_semantic(const Config& cfg, bool deferred = false);

// An engine over cfg.db_path that builds a missing store by bootstrap_from_bundled; `built` (optional) is called
// after it did.
tools::Engine make_engine(const Config& cfg, std::shared_ptr<search::Semantic> semantic = nullptr,
                          std::function<void()> built = nullptr);

// For engines that answer many calls (serve, eval): full-text ranking from the in-memory text index, the store
// read page by page (Engine::set_memory_mapped), the store checked on open.
tools::Engine make_long_lived_engine(const Config& cfg, std::shared_ptr<search::Semantic> semantic = nullptr,
                                     std::function<void()> built = nullptr);

// For one-shot commands: the semantic service with whatever vectors the engine's store has (`lorekeeper index`
// makes them complete); none when there are none.
std::shared_ptr<search::Semantic> one_shot_semantic(const Config& cfg, tools::Engine& engine);

}  // namespace lorekeeper::serve
