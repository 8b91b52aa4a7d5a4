// What serve loads and embeds in the background while it answers: the stored vectors, the vectors of what changed,
// and the in-memory text index.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "lorekeeper/core/config.hpp"
#include "lorekeeper/core/status.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::serve {

// Embeds the store's entities in the background while serve answers: at start, after each background sync
// (request()), and when another process changed the store (an import or sync, seen by SQLite's data version within
// about 5 s). It loads the model (deferred, off the answering path) and publishes the stored vectors first, so
// searches are answered by meaning about a tenth of a second after start; then each pass embeds only what changed
// and republishes the index. Answers are lexical-only while no index is published (Semantic::notice says so). With
// cfg.embed "stored" it embeds nothing and publishes what another process wrote. Does nothing without a model.
class BackgroundEmbedder {
 public:
  BackgroundEmbedder(const Config& cfg, std::shared_ptr<search::Semantic> semantic);
  ~BackgroundEmbedder();
  BackgroundEmbedder(const BackgroundEmbedder&) = delete;
  BackgroundEmbedder& operator=(const BackgroundEmbedder&) = delete;

  // Asks for another pass (after the data changed).
  void request();
  // Stops the thread and waits for it.
  void stop();
  // Asks the thread to stop and waits at most `timeout`; whether it has stopped (then it is joined). A pass in the
  // middle of a batch or of reading the store may take longer; its writes are whole transactions, so a process
  // that leaves without it loses at most the chunk in progress.
  bool stop_within(std::chrono::milliseconds timeout);

 private:
  void request_stop();
  void run();
  void work();
  Status publish(store::Store& st);
  bool embed_changed(store::Store& st);

  Config cfg_;
  std::shared_ptr<search::Semantic> semantic_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool pending_ = true;
  bool finished_ = false;  // guarded by mu_
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Loads the store's in-memory text index, so that serve's engines find it loaded (it stays loaded for them: see
// Store::set_text_index_in_memory) rather than the first search after a start or a sync loading it. Nothing when
// there is no store yet.
void warm_text_index(const Config& cfg);

}  // namespace lorekeeper::serve
