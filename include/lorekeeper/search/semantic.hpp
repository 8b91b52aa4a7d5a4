// Meaning-based search as a shared service: the sentence encoder and the vector index of a store, with the
// state a user is told about. The index is built off the answering path (a background thread runs
// update_vectors, then reload); until it is ready, search is lexical-only and notice() says why.
// Thread-safe: any thread may query while another reloads; a query keeps the index it started with.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/vector_index.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

class Semantic {
 public:
  // Loads the model from `model_dir`, at once or, `deferred`, on the first call that needs it (serve's background
  // thread: `initialize` is answered before the vocabulary and weights are read). A missing or corrupt model
  // leaves the service unavailable (state and reason kept for notice() and status), never an error.
  explicit Semantic(const std::string& model_dir, int max_passages = 1, bool deferred = false);

  // These load a deferred model first.
  bool has_model() const;
  const embed::Encoder* encoder() const;
  // Whether the model's weights file is there, without reading it: whether work that needs the model may start.
  bool model_present() const;
  int max_passages() const { return max_passages_; }

  // Reads the stored vectors of `st` into a fresh index and publishes it when they cover every entity (checked
  // by hashing every entity's passages); with `partial`, publishes whatever is there without that check
  // (none when there are no vectors).
  // Fails, publishing nothing, when the model does not pass Encoder::self_check.
  Status reload(store::Store& st, bool partial = false);

  // The published index, or nullptr while none is ready.
  std::shared_ptr<const VectorIndex> index() const;

  // Progress of a running update, for notice(). Progress with entries left to embed ends a load (see
  // set_loading): that work takes minutes and searches do not wait for it.
  void set_progress(const IndexProgress& p);
  void set_failed(const std::string& why);

  // Marks that the stored vectors are being read (a serve's start): until an index is published, a failure is
  // reported, embedding turns out to be needed or set_loading(false), wait_loaded() holds its callers.
  void set_loading(bool on);
  // Waits at most `timeout` while a load is under way; returns whether an index is ready.
  bool wait_loaded(std::chrono::milliseconds timeout) const;

  // Empty when meaning-based search is ready; otherwise one sentence on why answers are lexical-only.
  std::string notice() const;

  // The unit-length embedding of a query, in the encoder's query precision; empty without a model, or when the
  // model computed NaN or infinity for it (the query is then answered without meaning).
  std::vector<float> embed(const std::string& text) const;
  // embed() of a phrase the engine composes itself (a facet's label), kept while the model is: such phrases are
  // few and recur in every search that names them. At most kPhrasesKept are kept.
  std::vector<float> embed_phrase(const std::string& text) const;
  static constexpr size_t kPhrasesKept = 512;

 private:
  void load() const;

  std::string model_dir_;
  mutable std::once_flag load_once_;
  mutable std::unique_ptr<embed::Encoder> encoder_;  // set once, inside load_once_
  mutable std::string model_problem_;
  int max_passages_;
  mutable std::mutex mu_;
  mutable std::condition_variable loaded_;
  bool loading_ = false;
  std::shared_ptr<const VectorIndex> index_;
  IndexProgress progress_;
  bool updating_ = false;
  std::string failure_;
  mutable std::mutex phrases_mu_;
  mutable std::map<std::string, std::vector<float>, std::less<>> phrases_;
};

}  // namespace lorekeeper::search
