#include "lorekeeper/embed/encoder.hpp"

#include <cblas.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "half_cache.hpp"
#include "kernels.hpp"
#include "lorekeeper/core/files.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"
#include "worker_pair.hpp"

namespace lorekeeper::embed {

namespace {

constexpr int kHidden = 384;
constexpr int kHeads = 12;
constexpr int kHeadDim = kHidden / kHeads;
constexpr int kFfn = 1536;
constexpr int kLayers = 6;
constexpr int kMaxPositions = 512;
constexpr int kVocab = 30522;
constexpr float kLnEps = 1e-12f;

// OpenBLAS is loaded when the first encoder is (its 20,000 symbol bindings cost a process that never embeds,
// such as a serve answering `initialize`, several milliseconds at start). Set once, by load_blas().
decltype(&cblas_sgemm) sgemm = nullptr;

Status load_blas() {
  static const Status loaded = [] {
    void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = dlerror();
      return Status::unavailable(std::string("cannot load libopenblas.so.0 (install libopenblas0): ") +
                                 (e ? e : "unknown error"));
    }
    auto set_threads = reinterpret_cast<decltype(&openblas_set_num_threads)>(dlsym(h, "openblas_set_num_threads"));
    sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(h, "cblas_sgemm"));
    if (set_threads == nullptr || sgemm == nullptr) {
      sgemm = nullptr;
      return Status::unavailable("libopenblas.so.0 lacks cblas_sgemm or openblas_set_num_threads");
    }
    set_threads(1);  // every call computes on its caller's thread; bulk work runs several calls in parallel
    return Status::ok();
  }();
  return loaded;
}

// Up to this many rows, the streaming kernel beats a general sgemm (which packs the whole weight matrix for
// every call); measured by BM_Linear in bench/store_bench.cpp.
constexpr int kFewRows = 48;

// y[rows x out] = x[rows x in] * W^T + b, with W stored [out x in] as PyTorch's Linear does; `half` is W in
// half precision packed by kernels::pack_half, used when given and the rows are few.
void linear(const float* x, int rows, int in, const float* w, const uint16_t* half, const float* b, int out, float* y,
            WorkerPair* pair = nullptr) {
  // Split by whole panels of output columns: the helper computes the second half, this thread the first.
  const int panels = out / kernels::kPanel;
  if (rows <= kFewRows && half && pair && panels >= 2 && out % kernels::kPanel == 0 && kernels::has_packed()) {
    const int mid = panels / 2 * kernels::kPanel;
    bool mine = false, theirs = false;
    auto first = [&] { mine = kernels::linear_few_rows_packed_columns(x, rows, in, half, b, out, y, 0, mid); };
    auto second = [&] { theirs = kernels::linear_few_rows_packed_columns(x, rows, in, half, b, out, y, mid, out); };
    pair->run(first, second);
    if (mine && theirs) return;
  }
  if (rows <= kFewRows && half && kernels::linear_few_rows_packed(x, rows, in, half, b, out, y)) return;
  if (rows <= kFewRows && kernels::linear_few_rows(x, rows, in, w, b, out, y)) return;
  for (int r = 0; r < rows; ++r) std::copy(b, b + out, y + static_cast<size_t>(r) * out);
  sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out, in, 1.0f, x, in, w, in, 1.0f, y, out);
}

}  // namespace

std::string default_model_dir() {
  if (const char* dir = std::getenv("LOREKEEPER_MODEL_DIR"); dir && *dir) return dir;
  std::string cache;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    cache = x;
  else
    cache = std::string(std::getenv("HOME") ? std::getenv("HOME") : ".") + "/.cache";
  return cache + "/lorekeeper/models/all-MiniLM-L6-v2";
}

Result<std::unique_ptr<Encoder>> Encoder::load(const std::string& model_dir) {
  LOREKEEPER_RETURN_IF_ERROR(load_blas());
  std::unique_ptr<Encoder> e(new Encoder());
  e->model_dir_ = model_dir;
  auto tok = WordPieceTokenizer::load(model_dir + "/vocab.txt");
  if (!tok) return tok.status();
  // Every id the tokenizer gives must name a row of the word embeddings, and every word its own row: a vocabulary
  // cut short or padded would load and silently give other words' meanings.
  if (tok->vocab_size() != static_cast<size_t>(kVocab)) {
    return Status::invalid_argument(model_dir + "/vocab.txt has " + std::to_string(tok->vocab_size()) +
                                    " entries; all-MiniLM-L6-v2's has " + std::to_string(kVocab));
  }
  e->tokenizer_ = std::move(*tok);
  {
    auto text = files::read_regular_file(model_dir + "/config.json", 1 << 20);
    if (!text && text.status().code() == StatusCode::kNotFound) {
      return Status::not_found("no config.json in " + model_dir);
    }
    if (!text) return text.status();
    std::string why;
    const auto parsed = json_util::parse(*text, &why);
    const nlohmann::json cfg = parsed && parsed->is_object() ? *parsed : nlohmann::json::object();
    if (!parsed || cfg.value("hidden_size", 0) != kHidden || cfg.value("num_hidden_layers", 0) != kLayers ||
        cfg.value("num_attention_heads", 0) != kHeads || cfg.value("intermediate_size", 0) != kFfn ||
        cfg.value("hidden_act", "") != "gelu") {
      return Status::invalid_argument(model_dir + "/config.json is not all-MiniLM-L6-v2's configuration");
    }
  }
  auto weights = SafeTensors::open(model_dir + "/model.safetensors");
  if (!weights) return weights.status();
  e->weights_ = std::move(*weights);
  const SafeTensors& w = *e->weights_;
  Status bad = Status::ok();
  auto get = [&](const std::string& name, std::vector<int64_t> shape) -> const float* {
    auto r = w.f32(name, shape);
    if (!r) {
      if (bad.is_ok()) bad = Status::invalid_argument(model_dir + "/model.safetensors: " + r.status().message());
      return nullptr;
    }
    return *r;
  };
  e->word_ = get("embeddings.word_embeddings.weight", {kVocab, kHidden});
  e->position_ = get("embeddings.position_embeddings.weight", {kMaxPositions, kHidden});
  e->token_type_ = get("embeddings.token_type_embeddings.weight", {2, kHidden});
  e->emb_ln_g_ = get("embeddings.LayerNorm.weight", {kHidden});
  e->emb_ln_b_ = get("embeddings.LayerNorm.bias", {kHidden});
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    Layer L{};
    L.q_w = get(p + "attention.self.query.weight", {kHidden, kHidden});
    L.q_b = get(p + "attention.self.query.bias", {kHidden});
    L.k_w = get(p + "attention.self.key.weight", {kHidden, kHidden});
    L.k_b = get(p + "attention.self.key.bias", {kHidden});
    L.v_w = get(p + "attention.self.value.weight", {kHidden, kHidden});
    L.v_b = get(p + "attention.self.value.bias", {kHidden});
    L.o_w = get(p + "attention.output.dense.weight", {kHidden, kHidden});
    L.o_b = get(p + "attention.output.dense.bias", {kHidden});
    L.ln1_g = get(p + "attention.output.LayerNorm.weight", {kHidden});
    L.ln1_b = get(p + "attention.output.LayerNorm.bias", {kHidden});
    L.i_w = get(p + "intermediate.dense.weight", {kFfn, kHidden});
    L.i_b = get(p + "intermediate.dense.bias", {kFfn});
    L.out_w = get(p + "output.dense.weight", {kHidden, kFfn});
    L.out_b = get(p + "output.dense.bias", {kHidden});
    L.ln2_g = get(p + "output.LayerNorm.weight", {kHidden});
    L.ln2_b = get(p + "output.LayerNorm.bias", {kHidden});
    e->layers_.push_back(L);
  }
  if (!bad.is_ok()) return bad;
  return e;
}

Status Encoder::self_check(Precision precision) const {
  const size_t which = precision == Precision::kFloat ? 0 : 1;
  std::call_once(check_once_[which], [this, precision, which] {
    const std::string sentence = "A wizard hurls a ball of fire at the goblins guarding the bridge.";
    {
      const std::vector<float> v = encode_ids(tokenizer_.encode(sentence), precision);
      double norm = 0;
      bool finite = v.size() == static_cast<size_t>(kDimensions);
      for (float x : v) {
        finite = finite && std::isfinite(x);
        norm += static_cast<double>(x) * x;
      }
      if (!finite || std::abs(norm - 1.0) > 1e-3) {
        check_[which] = Status::corruption(
            std::string("the embedding model computes ") +
            (finite ? "vectors that are not of unit length" : "non-finite values (NaN or infinity)") +
            " for a known sentence; its weights are damaged: install it again with `lorekeeper model fetch`");
        return;
      }
    }
  });
  return check_[which];
}

bool Encoder::has_half_weights() const {
  std::call_once(half_once_, [this] {
    if (!kernels::has_packed()) return;  // no F16C: queries stay in float
    const size_t per_layer = static_cast<size_t>(4) * kHidden * kHidden + static_cast<size_t>(2) * kFfn * kHidden;
    const size_t count = per_layer * layers_.size();
    const std::string cache = half_cache::path_in(model_dir_);
    std::string why;
    std::shared_ptr<const uint16_t> half = half_cache::read(cache, weights_->identity(), count, &why);
    std::shared_ptr<std::vector<uint16_t>> owned;  // when not cached: packed here
    if (!half) {
      owned = std::make_shared<std::vector<uint16_t>>(count);
      half = std::shared_ptr<const uint16_t>(owned, owned->data());
    }
    // Per layer q, k, v, o, intermediate, output, each packed whole: where each starts, packing it when not cached.
    std::vector<HalfLayer> half_layers;
    size_t at = 0;
    for (const Layer& L : layers_) {
      HalfLayer H{};
      for (auto [src, dst, out, in] : {std::tuple{L.q_w, &H.q_w, kHidden, kHidden},
                                       {L.k_w, &H.k_w, kHidden, kHidden},
                                       {L.v_w, &H.v_w, kHidden, kHidden},
                                       {L.o_w, &H.o_w, kHidden, kHidden},
                                       {L.i_w, &H.i_w, kFfn, kHidden},
                                       {L.out_w, &H.out_w, kHidden, kFfn}}) {
        if (owned) kernels::pack_half(src, out, in, owned->data() + at);
        *dst = half.get() + at;
        at += static_cast<size_t>(out) * in;
      }
      half_layers.push_back(H);
    }
    if (owned) {
      Status written = half_cache::write(cache, weights_->identity(), half.get(), count);
      log::debug(written.is_ok() ? "packed the query weights (" + why + "); wrote " + cache
                                 : "packed the query weights (" + why + "); not kept: " + written.message());
    }
    half_ = std::move(half);
    half_layers_ = std::move(half_layers);
  });
  return !half_layers_.empty();
}

Encoder::~Encoder() = default;

bool Encoder::splits_queries() const { return has_half_weights() && WorkerPair::worthwhile(); }

std::vector<float> Encoder::encode_ids(const std::vector<int32_t>& ids, Precision precision) const {
  return std::move(run({ids}, precision).front());
}

std::vector<std::vector<float>> Encoder::encode_batch(const std::vector<std::vector<int32_t>>& batch) const {
  return run(batch, Precision::kFloat);
}

std::vector<std::vector<float>> Encoder::run(const std::vector<std::vector<int32_t>>& batch,
                                             Precision precision) const {
  // The sequences are packed row after row with no padding: every step but attention works per token, and
  // attention runs per sequence on its own rows.
  std::vector<std::vector<float>> out(batch.size(), std::vector<float>(kDimensions, 0.0f));
  std::vector<int> offset(batch.size() + 1, 0);
  int max_len = 0;
  for (size_t s = 0; s < batch.size(); ++s) {
    const int len = static_cast<int>(std::min(batch[s].size(), static_cast<size_t>(kMaxPositions)));
    offset[s + 1] = offset[s] + len;
    max_len = std::max(max_len, len);
  }
  const int R = offset.back();
  if (R == 0) return out;
  const size_t rh = static_cast<size_t>(R) * kHidden;
  std::vector<float> x(rh), q(rh), k(rh), v(rh), ctx(rh), tmp(rh);
  std::vector<float> ffn(static_cast<size_t>(R) * kFfn);
  std::vector<float> scores(static_cast<size_t>(max_len) * max_len);
  for (size_t s = 0; s < batch.size(); ++s) {
    for (int t = 0; t < offset[s + 1] - offset[s]; ++t) {
      const int32_t raw = batch[s][static_cast<size_t>(t)];
      const size_t id = static_cast<size_t>(raw >= 0 && raw < kVocab ? raw : 100);
      float* row = x.data() + static_cast<size_t>(offset[s] + t) * kHidden;
      const float* word = word_ + id * kHidden;
      const float* pos = position_ + static_cast<size_t>(t) * kHidden;
      for (int i = 0; i < kHidden; ++i) row[i] = word[i] + pos[i] + token_type_[i];
    }
  }
  kernels::layer_norm(x.data(), R, kHidden, emb_ln_g_, emb_ln_b_, kLnEps);
  const float scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
  const bool half = precision == Precision::kQuery && R <= kFewRows && has_half_weights();
  if (half) {
    std::call_once(pair_once_, [this] {
      if (WorkerPair::worthwhile()) pair_ = std::make_unique<WorkerPair>();
    });
  }
  const WorkerSession session(half ? pair_.get() : nullptr);
  WorkerPair* pair = session.pair();
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& L = layers_[l];
    const HalfLayer H = half ? half_layers_[l] : HalfLayer{};
    linear(x.data(), R, kHidden, L.q_w, H.q_w, L.q_b, kHidden, q.data(), pair);
    linear(x.data(), R, kHidden, L.k_w, H.k_w, L.k_b, kHidden, k.data(), pair);
    linear(x.data(), R, kHidden, L.v_w, H.v_w, L.v_b, kHidden, v.data(), pair);
    for (size_t s = 0; s < batch.size(); ++s) {
      const int T = offset[s + 1] - offset[s];
      if (T == 0) continue;
      const size_t base = static_cast<size_t>(offset[s]) * kHidden;
      for (int h = 0; h < kHeads; ++h) {
        const float* qh = q.data() + base + h * kHeadDim;
        const float* kh = k.data() + base + h * kHeadDim;
        const float* vh = v.data() + base + h * kHeadDim;
        // scores[T x T] = Qh Kh^T * scale (rows strided by kHidden).
        sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, T, kHeadDim, scale, qh, kHidden, kh, kHidden, 0.0f,
              scores.data(), T);
        kernels::softmax_rows(scores.data(), T, T, T);
        sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, kHeadDim, T, 1.0f, scores.data(), T, vh, kHidden, 0.0f,
              ctx.data() + base + h * kHeadDim, kHidden);
      }
    }
    linear(ctx.data(), R, kHidden, L.o_w, H.o_w, L.o_b, kHidden, tmp.data(), pair);
    kernels::add(tmp.data(), x.data(), rh);
    kernels::layer_norm(tmp.data(), R, kHidden, L.ln1_g, L.ln1_b, kLnEps);
    x.swap(tmp);
    linear(x.data(), R, kHidden, L.i_w, H.i_w, L.i_b, kFfn, ffn.data(), pair);
    kernels::gelu(ffn.data(), ffn.size());
    linear(ffn.data(), R, kFfn, L.out_w, H.out_w, L.out_b, kHidden, tmp.data(), pair);
    kernels::add(tmp.data(), x.data(), rh);
    kernels::layer_norm(tmp.data(), R, kHidden, L.ln2_g, L.ln2_b, kLnEps);
    x.swap(tmp);
  }
  // Per sequence: mean over its tokens, then unit length.
  for (size_t s = 0; s < batch.size(); ++s) {
    const int T = offset[s + 1] - offset[s];
    if (T == 0) continue;
    std::vector<double> sum(kDimensions, 0.0);
    for (int t = offset[s]; t < offset[s + 1]; ++t) {
      const float* row = x.data() + static_cast<size_t>(t) * kHidden;
      for (int i = 0; i < kHidden; ++i) sum[static_cast<size_t>(i)] += row[i];
    }
    double norm = 0;
    for (auto& m : sum) {
      m /= T;
      norm += m * m;
    }
    norm = std::max(std::sqrt(norm), 1e-12);
    for (int i = 0; i < kDimensions; ++i)
      out[s][static_cast<size_t>(i)] = static_cast<float>(sum[static_cast<size_t>(i)] / norm);
  }
  return out;
}

}  // namespace lorekeeper::embed
