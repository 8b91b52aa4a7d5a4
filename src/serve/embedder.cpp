#include "lorekeeper/serve/embedder.hpp"

#include <malloc.h>

#include <cmath>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/search/indexer.hpp"

namespace lorekeeper::serve {

BackgroundEmbedder::BackgroundEmbedder(const Config& cfg, std::shared_ptr<search::Semantic> semantic)
    : cfg_(cfg), semantic_(std::move(semantic)) {
  if (semantic_ && semantic_->model_present()) {
    // Searches wait (briefly, Engine) for the stored vectors rather than answer by words alone meanwhile.
    semantic_->set_loading(true);
    thread_ = std::thread([this] { run(); });
  }
}

BackgroundEmbedder::~BackgroundEmbedder() { stop(); }

void BackgroundEmbedder::request() {
  std::lock_guard<std::mutex> lock(mu_);
  pending_ = true;
  cv_.notify_all();
}

void BackgroundEmbedder::stop() {
  request_stop();
  if (thread_.joinable()) thread_.join();
}

bool BackgroundEmbedder::stop_within(std::chrono::milliseconds timeout) {
  request_stop();
  if (!thread_.joinable()) return true;
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, timeout, [this] { return finished_; })) return false;
  lock.unlock();
  thread_.join();
  return true;
}

void BackgroundEmbedder::request_stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  cv_.notify_all();
}

void BackgroundEmbedder::run() {
  work();
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  cv_.notify_all();
}

void BackgroundEmbedder::work() {
  if (!semantic_->has_model()) {  // loads the model; a broken one is reported by notice()
    semantic_->set_loading(false);
    return;
  }
  std::unique_ptr<store::Store> st;
  bool published = false;
  int64_t seen_version = -1;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      // The store may not exist yet: the first tool call builds it. Look again every second; once open, look
      // every few seconds whether another process (an import, a sync) changed it.
      cv_.wait_for(lock, std::chrono::seconds(st ? 5 : 1), [this] { return stop_.load() || pending_; });
      if (stop_) return;
      if (st && !pending_) {
        auto version = st->data_version();
        if (!version || *version == seen_version) continue;
      }
      pending_ = false;
    }
    if (!st) {
      auto opened = store::Store::open(cfg_.db_path, store::Store::Mode::kExistingOnly);
      // No store yet: the first tool call builds it from the bundled snapshot with its vectors and asks for a
      // pass (request()), which its search waits for.
      if (!opened) continue;
      st = std::move(*opened);
      // It reads the vectors and texts in bulk: mapped, every page read would stay resident for the serve's life.
      if (Status unmapped = st->set_memory_mapped(false); !unmapped.is_ok()) log::debug(unmapped.to_string());
    }
    if (auto version = st->data_version()) seen_version = *version;
    // With LOREKEEPER_EMBED=stored another process writes the vectors (replicas sharing a store,
    // docs/DEPLOY.md): every change of the store publishes what it holds, and nothing is embedded here.
    const bool stored_only = cfg_.embed == "stored";
    if (!published || stored_only) {
      // The stored vectors answer at once (those of the bundled snapshot are there from its first sync); what
      // changed since is embedded below and published after.
      published = true;
      Status loaded = publish(*st);
      if (!loaded.is_ok()) {
        semantic_->set_failed(loaded.message());
        continue;
      }
    }
    // After another process's sync or import the in-memory text index is reloaded here rather than by the next
    // search.
    st->set_text_index_in_memory(true);
    if (Status warmed = st->warm_text_index(); !warmed.is_ok()) {
      log::warning("loading the text index failed (searches use FTS5): " + warmed.to_string());
    }
    if (stored_only) {
      if (!semantic_->index()) {
        semantic_->set_failed(
            "the store holds no vectors, and with LOREKEEPER_EMBED=stored serve embeds none: "
            "run `lorekeeper index`");
      }
    } else if (!embed_changed(*st)) {
      return;  // stopped
    }
    // The pass's page cache, passages and batches are freed; give their pages back rather than keep them for
    // answers that never need that much.
    (void)st->release_memory();
    malloc_trim(0);
  }
}

// The vectors are read through a mapping of the store made for this read alone: a third of the time of reading them
// page by page, and the mapping (15 MB resident) is dropped after it.
Status BackgroundEmbedder::publish(store::Store& st) {
  if (Status mapped = st.set_memory_mapped(true); !mapped.is_ok()) log::debug(mapped.to_string());
  Status loaded = semantic_->reload(st, true);
  if (Status unmapped = st.set_memory_mapped(false); !unmapped.is_ok()) log::debug(unmapped.to_string());
  return loaded;
}

// Embeds what changed in `st` and republishes the index when anything did; false when stopped meanwhile.
bool BackgroundEmbedder::embed_changed(store::Store& st) {
  search::IndexOptions options;
  options.threads = cfg_.embed_threads;
  options.max_passages = cfg_.embed_passages;
  auto report = search::update_vectors(
      st, *semantic_->encoder(), options, [this](const search::IndexProgress& p) { semantic_->set_progress(p); },
      &stop_);
  if (!report) {
    semantic_->set_failed(report.status().message());
    log::warning("embedding the entities failed: " + report.status().to_string());
    return true;
  }
  if (report->interrupted) return false;
  const auto& p = report->progress;
  if (p.entities_todo > 0) {
    log::info("embedded " + std::to_string(p.entities_todo) + " entities in " +
              text::format_number(std::round(p.seconds)) + " s");
  }
  if (p.entities_todo + p.entities_precomputed > 0 || report->pruned > 0 || !semantic_->index()) {
    Status loaded = publish(st);
    if (!loaded.is_ok()) semantic_->set_failed(loaded.message());
  }
  return true;
}

void warm_text_index(const Config& cfg) {
  auto st = store::Store::open(cfg.db_path, store::Store::Mode::kExistingOnly);
  if (!st) return;  // no store yet: the first call builds it, and the first search loads the index
  // Read page by page, not mapped: the whole text (about 35 MB of the bundled store) would otherwise stay resident
  // in this process until the load ends, and searches answered meanwhile would count it too.
  if (Status unmapped = (*st)->set_memory_mapped(false); !unmapped.is_ok()) log::debug(unmapped.to_string());
  (*st)->set_text_index_in_memory(true);
  Status warmed = (*st)->warm_text_index();
  if (!warmed.is_ok()) log::warning("loading the text index failed (searches use FTS5): " + warmed.to_string());
}

}  // namespace lorekeeper::serve
