#include "lorekeeper/search/indexer.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "lorekeeper/search/passages.hpp"

namespace lorekeeper::search {

namespace {

using model::Kind;

struct Pending {
  Kind kind;
  std::string key;
  std::vector<std::string> texts;
  std::vector<std::string> hashes;
};

struct Plan {
  size_t entities = 0;
  std::vector<Pending> todo;
};

Result<Plan> plan(store::Store& st, int max_passages, const std::optional<std::vector<std::string>>& documents,
                  bool recompute = false) {
  std::vector<store::Store::VectorRow> stored;
  if (!recompute) {
    auto read = st.vectors(kModelId, false);
    if (!read) return read.status();
    stored = std::move(*read);
  }
  std::map<std::pair<int, std::string>, std::vector<std::string>> have;
  for (const auto& r : stored) {
    auto& hashes = have[{static_cast<int>(r.kind), r.key}];
    if (static_cast<int>(hashes.size()) == r.passage) hashes.push_back(r.text_hash);
  }
  Plan p;
  Status scanned = st.scan([&](const model::Entity& e) {
    if (documents && std::find(documents->begin(), documents->end(), e.document.key) == documents->end()) {
      return true;
    }
    ++p.entities;
    Pending item{e.kind, e.key, passages(e, max_passages), {}};
    for (const auto& t : item.texts) item.hashes.push_back(text_hash(kModelId, t));
    const auto it = have.find({static_cast<int>(e.kind), e.key});
    if (it == have.end() || it->second != item.hashes) p.todo.push_back(std::move(item));
    return true;
  });
  if (!scanned.is_ok()) return scanned;
  return p;
}

// Writes the vectors `pre` holds for the entities of `p.todo` whose every passage it covers, and leaves the
// others in `p.todo`; returns how many were written.
Result<size_t> apply_precomputed(store::Store& st, Plan& p, const PrecomputedVectors& pre) {
  if (pre.size() == 0) return size_t{0};
  std::vector<store::Store::VectorRow> rows;
  std::vector<Pending> rest;
  size_t covered = 0;
  for (auto& item : p.todo) {
    std::vector<std::vector<float>> found;
    for (const auto& h : item.hashes) {
      auto v = pre.find(h);
      if (v.empty()) break;
      found.push_back(std::move(v));
    }
    if (found.size() != item.hashes.size()) {
      rest.push_back(std::move(item));
      continue;
    }
    ++covered;
    for (size_t j = 0; j < found.size(); ++j) {
      rows.push_back({item.kind, item.key, static_cast<int>(j), item.hashes[j], std::move(found[j]), ""});
    }
  }
  if (!rows.empty()) LOREKEEPER_RETURN_IF_ERROR(st.write_vectors(kModelId, rows, {}));
  p.todo = std::move(rest);
  return covered;
}

// What a complete pass found up to date: the content it read, by the recipe and model it embedded with. While the
// store's content stamp is unchanged, a pass need not hash every passage again (about a second for the bundled
// data at each serve start).
std::string verified_mark(const std::string& stamp, int max_passages) {
  return stamp + " " + kModelId + " " + std::string(kPassageRecipe) + " " + std::to_string(max_passages);
}
constexpr const char* kVerifiedKey = "vectors_verified";

// Records that every entity of the content `stamp` has current vectors. A store that cannot take the mark
// (read-only) is checked again next time.
void mark_verified(store::Store& st, const std::string& stamp, int max_passages) {
  (void)st.set_meta(kVerifiedKey, verified_mark(stamp, max_passages));
}

}  // namespace

Result<size_t> seed_vectors(store::Store& st, int max_passages, const PrecomputedVectors& precomputed) {
  if (precomputed.size() == 0) return size_t{0};
  max_passages = std::max(1, max_passages);
  auto stamp = st.content_stamp();
  if (!stamp) return stamp.status();
  auto p = plan(st, max_passages, std::nullopt);
  if (!p) return p.status();
  auto covered = apply_precomputed(st, *p, precomputed);
  if (!covered) return covered.status();
  // Every entity covered (a store built from the bundled snapshot): the next pass need not hash them all again.
  // It would prune the vectors of entities that are gone first, so this does too.
  if (p->todo.empty()) {
    auto pruned = st.prune_vectors(kModelId);
    if (!pruned) return pruned.status();
    mark_verified(st, *stamp, max_passages);
  }
  return covered;
}

Result<Coverage> vector_coverage(store::Store& st, int max_passages) {
  auto p = plan(st, max_passages, std::nullopt);
  if (!p) return p.status();
  return Coverage{p->entities, p->entities - p->todo.size()};
}

Result<IndexReport> update_vectors(store::Store& st, const embed::Encoder& encoder, const IndexOptions& options,
                                   const std::function<void(const IndexProgress&)>& progress,
                                   const std::atomic<bool>* stop) {
  const auto started = std::chrono::steady_clock::now();
  IndexReport report;
  const int max_passages = std::max(1, options.max_passages);
  const bool whole_store = !options.document_keys;
  auto stamp = st.content_stamp();
  if (!stamp) return stamp.status();
  if (whole_store && !options.recompute) {
    auto verified = st.meta(kVerifiedKey);
    if (!verified) return verified.status();
    if (*verified && **verified == verified_mark(*stamp, max_passages)) {
      auto stats = st.stats();
      if (!stats) return stats.status();
      report.progress.entities_total = static_cast<size_t>(stats->total);
      return report;
    }
  }
  auto pruned = st.prune_vectors(kModelId);
  if (!pruned) return pruned.status();
  report.pruned = *pruned;
  auto p = plan(st, max_passages, options.document_keys, options.recompute);
  if (!p) return p.status();
  report.progress.entities_total = p->entities;
  if (options.precomputed != nullptr) {
    auto covered = apply_precomputed(st, *p, *options.precomputed);
    if (!covered) return covered.status();
    report.progress.entities_precomputed = *covered;
  }
  report.progress.entities_todo = p->todo.size();
  // A damaged model must not fill the store with NaN. Checked only when there is something to embed: the check
  // reads the float weights, which a pass with nothing to do (a serve's start) leaves unread.
  if (!p->todo.empty()) LOREKEEPER_RETURN_IF_ERROR(encoder.self_check());
  const int threads = std::max(1, options.threads);
  const size_t chunk = std::max<size_t>(1, options.chunk_entities);
  for (size_t begin = 0; begin < p->todo.size(); begin += chunk) {
    if (stop && stop->load()) {
      report.interrupted = true;
      break;
    }
    const size_t end = std::min(p->todo.size(), begin + chunk);
    // Every passage of the chunk, tokenized, then sorted by length so each packed batch holds similar lengths.
    struct Job {
      size_t entity;
      int passage;
      std::vector<int32_t> ids;
    };
    std::vector<Job> jobs;
    for (size_t i = begin; i < end; ++i) {
      for (size_t j = 0; j < p->todo[i].texts.size(); ++j) {
        jobs.push_back({i, static_cast<int>(j), encoder.tokenizer().encode(p->todo[i].texts[j])});
      }
    }
    std::vector<size_t> order(jobs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].ids.size() < jobs[b].ids.size(); });
    // Batches of up to ~2,048 tokens, taken by the threads in turn.
    std::vector<std::vector<size_t>> batches(1);
    size_t tokens = 0, batch_tokens = 0;
    for (size_t i : order) {
      if (batch_tokens + jobs[i].ids.size() > 2048 && !batches.back().empty()) {
        batches.emplace_back();
        batch_tokens = 0;
      }
      batches.back().push_back(i);
      batch_tokens += jobs[i].ids.size();
      tokens += jobs[i].ids.size();
    }
    std::vector<std::vector<float>> vectors(jobs.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t b = next++; b < batches.size(); b = next++) {
        if (stop && stop->load()) return;  // a stop waits for one batch at most, not for the chunk
        std::vector<std::vector<int32_t>> ids;
        for (size_t i : batches[b]) ids.push_back(jobs[i].ids);
        auto out = encoder.encode_batch(ids);
        for (size_t j = 0; j < batches[b].size(); ++j) vectors[batches[b][j]] = std::move(out[j]);
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (stop && stop->load()) {  // the chunk is incomplete: it is embedded again by the next pass
      report.interrupted = true;
      break;
    }
    std::vector<store::Store::VectorRow> rows;
    rows.reserve(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
      const Pending& e = p->todo[jobs[i].entity];
      rows.push_back(
          {e.kind, e.key, jobs[i].passage, e.hashes[static_cast<size_t>(jobs[i].passage)], std::move(vectors[i]), ""});
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return std::tie(a.kind, a.key, a.passage) < std::tie(b.kind, b.key, b.passage);
    });
    LOREKEEPER_RETURN_IF_ERROR(st.write_vectors(kModelId, rows, {}));
    report.progress.entities_done += end - begin;
    report.progress.tokens_done += tokens;
    report.progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (progress) progress(report.progress);
  }
  report.progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!report.interrupted && whole_store) mark_verified(st, *stamp, max_passages);
  return report;
}

}  // namespace lorekeeper::search
