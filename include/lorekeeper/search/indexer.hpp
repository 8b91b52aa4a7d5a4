// Keeps the store's sentence embeddings in step with its entities: works out which passages changed (by the
// hash of model, recipe and text), embeds only those, in packed batches sorted by length, on several threads,
// and writes them in chunks of a few hundred entities, each its own transaction, so an interrupted run keeps
// what it finished and the next run resumes from there. Vectors of entities that are gone are deleted.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/search/precomputed.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

// The model id stored with every vector.
inline constexpr const char* kModelId = "sentence-transformers/all-MiniLM-L6-v2";

struct IndexOptions {
  int threads = 1;              // encoder threads
  int max_passages = 1;         // passages per entity (see passages.hpp)
  size_t chunk_entities = 256;  // entities per write transaction
  // When set, only entities of these documents are embedded (an import embeds its packs without taking on the
  // rest of an unindexed store); entities_total then counts those entities only.
  std::optional<std::vector<std::string>> document_keys;
  // Vectors computed ahead of time, used for the passages whose text hash they hold instead of encoding them;
  // nullptr: everything is encoded.
  const PrecomputedVectors* precomputed = &PrecomputedVectors::bundled();
  // Re-embed every entity, ignoring the stored vectors (and, with precomputed nullptr, the bundled ones).
  bool recompute = false;
};

struct IndexProgress {
  size_t entities_total = 0;        // entities in the store
  size_t entities_todo = 0;         // entities the encoder had to (re)compute at the start
  size_t entities_done = 0;         // of those, embedded and written so far
  size_t entities_precomputed = 0;  // entities that needed vectors and took them from the precomputed set
  size_t tokens_done = 0;
  double seconds = 0;
};

struct IndexReport {
  IndexProgress progress;
  int pruned = 0;            // vectors deleted because their entity is gone
  bool interrupted = false;  // `stop` was raised before the end
};

// Brings the vectors of `st` up to date. `progress` (optional) is called after each chunk; `stop` (optional)
// is polled before each packed batch: once raised, the chunk in progress is dropped (nothing of it is written)
// and the call returns with `interrupted`, within one batch's encoding.
Result<IndexReport> update_vectors(store::Store& st, const embed::Encoder& encoder, const IndexOptions& options,
                                   const std::function<void(const IndexProgress&)>& progress = nullptr,
                                   const std::atomic<bool>* stop = nullptr);

// Writes the precomputed vectors of every entity that lacks up-to-date ones and whose passages all have one,
// without an encoder (a store built from the bundled snapshot is then searchable by meaning at once); returns
// how many entities got vectors. Entities it cannot cover are left for update_vectors; when it covers them all,
// it prunes the vectors of entities that are gone and marks the content complete, as a whole update_vectors does.
Result<size_t> seed_vectors(store::Store& st, int max_passages,
                            const PrecomputedVectors& precomputed = PrecomputedVectors::bundled());

// How many entities lack up-to-date vectors (without embedding anything): what `status` reports.
struct Coverage {
  size_t entities = 0;
  size_t embedded = 0;  // entities whose every passage is stored with the current hash
};
Result<Coverage> vector_coverage(store::Store& st, int max_passages);

}  // namespace lorekeeper::search
