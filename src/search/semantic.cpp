#include "lorekeeper/search/semantic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "lorekeeper/core/log.hpp"

namespace lorekeeper::search {

Semantic::Semantic(const std::string& model_dir, int max_passages, bool deferred)
    : model_dir_(model_dir), max_passages_(std::max(1, max_passages)) {
  if (!deferred) load();
}

void Semantic::load() const {
  std::call_once(load_once_, [this] {
    auto loaded = embed::Encoder::load(model_dir_);
    if (loaded) {
      encoder_ = std::move(*loaded);
    } else {
      model_problem_ = loaded.status().message();
    }
  });
}

bool Semantic::has_model() const {
  load();
  return encoder_ != nullptr;
}

const embed::Encoder* Semantic::encoder() const {
  load();
  return encoder_.get();
}

bool Semantic::model_present() const {
  std::error_code ec;
  return std::filesystem::is_regular_file(model_dir_ + "/model.safetensors", ec);
}

Status Semantic::reload(store::Store& st, bool partial) {
  load();
  if (!encoder_) return Status::unavailable("no model: " + model_problem_);
  // What searches compute with: the half-precision weights (mapped from their cache file where it matches the
  // model), so publishing an index reads none of the float layer weights.
  LOREKEEPER_RETURN_IF_ERROR(encoder_->self_check(embed::Encoder::Precision::kQuery));
  if (!partial) {
    // Checked before the vectors are read, so an incomplete index costs no load.
    auto coverage = vector_coverage(st, max_passages_);
    if (!coverage) return coverage.status();
    if (coverage->embedded != coverage->entities) {
      std::lock_guard<std::mutex> lock(mu_);
      updating_ = true;
      progress_ = {coverage->entities, coverage->entities - coverage->embedded, 0, 0, 0};
      return Status::ok();
    }
  }
  auto rows = st.vector_matrix(kModelId, embed::kDimensions);
  if (!rows) return rows.status();
  auto ix = std::make_shared<VectorIndex>(VectorIndex::build(std::move(*rows), embed::kDimensions));
  // The float weights (90 MB) need not stay resident: only embedding passages reads them, and maps them in again.
  if (encoder_->has_half_weights()) encoder_->release_float_weights();
  std::lock_guard<std::mutex> lock(mu_);
  index_ = partial && ix->size() == 0 ? nullptr : std::move(ix);
  updating_ = false;
  loading_ = false;
  loaded_.notify_all();
  return Status::ok();
}

std::shared_ptr<const VectorIndex> Semantic::index() const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_;
}

void Semantic::set_progress(const IndexProgress& p) {
  std::lock_guard<std::mutex> lock(mu_);
  progress_ = p;
  updating_ = p.entities_done < p.entities_todo;
  if (updating_ && loading_) {
    loading_ = false;
    loaded_.notify_all();
  }
}

void Semantic::set_failed(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  failure_ = why;
  loading_ = false;
  loaded_.notify_all();
}

void Semantic::set_loading(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  loading_ = on && model_present();
  if (!loading_) loaded_.notify_all();
}

bool Semantic::wait_loaded(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  loaded_.wait_for(lock, timeout, [this] { return !loading_; });
  return index_ != nullptr;
}

std::string Semantic::notice() const {
  load();
  if (!encoder_) {
    return "Meaning-based search is off (no embedding model: " + model_problem_ +
           "; run scripts/setup.sh or `lorekeeper model fetch`): answers match names and words only.";
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (index_) return "";  // ready, or catching up with changed entries while the published index answers
  if (!failure_.empty())
    return "Meaning-based search is unavailable (" + failure_ + "): answers match names and words only.";
  char buf[256];
  if (progress_.entities_todo > 0) {
    std::snprintf(buf, sizeof buf,
                  "Meaning-based search is being prepared (%zu of %zu entries embedded): answers match names and "
                  "words only until it is ready.",
                  progress_.entities_done, progress_.entities_todo);
  } else {
    std::snprintf(buf, sizeof buf,
                  "Meaning-based search is being prepared: answers match names and words only until it is ready.");
  }
  return buf;
}

std::vector<float> Semantic::embed(const std::string& text) const {
  load();
  if (!encoder_) return {};
  std::vector<float> v = encoder_->encode_query(text);
  double norm = 0;
  bool finite = true;
  for (float x : v) {
    finite = finite && std::isfinite(x);
    norm += static_cast<double>(x) * x;
  }
  if (finite && std::abs(norm - 1.0) < 1e-3) return v;
  // A damaged row of the model (a word's embedding) that the load check did not reach gives NaN or a vector that
  // is not of unit length: this query is answered by names and words only.
  static std::once_flag warned;
  std::call_once(warned, [] {
    log::warning(
        "the embedding model computed NaN or infinity for a query; such queries are answered without "
        "meaning-based search. Install the model again with `lorekeeper model fetch`.");
  });
  return {};
}

std::vector<float> Semantic::embed_phrase(const std::string& text) const {
  {
    std::lock_guard<std::mutex> lock(phrases_mu_);
    const auto it = phrases_.find(text);
    if (it != phrases_.end()) return it->second;
  }
  std::vector<float> v = embed(text);
  if (v.empty()) return v;  // a model that could not embed it is not remembered as answering nothing
  std::lock_guard<std::mutex> lock(phrases_mu_);
  if (phrases_.size() >= kPhrasesKept) phrases_.clear();
  phrases_.emplace(text, v);
  return v;
}

}  // namespace lorekeeper::search
