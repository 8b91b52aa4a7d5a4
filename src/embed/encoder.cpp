#include "lorekeeper/embed/encoder.hpp"

#include <cblas.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

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

// y[T x out] = x[T x in] * W^T + b, with W stored [out x in] as PyTorch's Linear does.
void linear(const float* x, int rows, int in, const float* w, const float* b, int out, float* y) {
  for (int r = 0; r < rows; ++r) std::copy(b, b + out, y + static_cast<size_t>(r) * out);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out, in, 1.0f, x, in, w, in, 1.0f, y, out);
}

void layer_norm(float* x, int rows, int dim, const float* gamma, const float* beta) {
  for (int r = 0; r < rows; ++r) {
    float* v = x + static_cast<size_t>(r) * dim;
    double mean = 0;
    for (int i = 0; i < dim; ++i) mean += v[i];
    mean /= dim;
    double var = 0;
    for (int i = 0; i < dim; ++i) var += (v[i] - mean) * (v[i] - mean);
    var /= dim;
    const double inv = 1.0 / std::sqrt(var + kLnEps);
    for (int i = 0; i < dim; ++i) v[i] = static_cast<float>((v[i] - mean) * inv) * gamma[i] + beta[i];
  }
}

float gelu(float x) { return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f))); }

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
  std::unique_ptr<Encoder> e(new Encoder());
  auto tok = WordPieceTokenizer::load(model_dir + "/vocab.txt");
  if (!tok) return tok.status();
  e->tokenizer_ = std::move(*tok);
  {
    std::ifstream in(model_dir + "/config.json");
    if (!in) return Status::not_found("no config.json in " + model_dir);
    std::stringstream ss;
    ss << in.rdbuf();
    auto cfg = nlohmann::json::parse(ss.str(), nullptr, false);
    if (cfg.is_discarded() || cfg.value("hidden_size", 0) != kHidden || cfg.value("num_hidden_layers", 0) != kLayers ||
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

std::vector<float> Encoder::encode_ids(const std::vector<int32_t>& ids_in) const {
  std::vector<int32_t> ids = ids_in;
  if (ids.size() > static_cast<size_t>(kMaxPositions)) ids.resize(kMaxPositions);
  const int T = static_cast<int>(ids.size());
  std::vector<float> out(kDimensions, 0.0f);
  if (T == 0) return out;
  const size_t th = static_cast<size_t>(T) * kHidden;
  std::vector<float> x(th), q(th), k(th), v(th), ctx(th), tmp(th);
  std::vector<float> ffn(static_cast<size_t>(T) * kFfn);
  std::vector<float> scores(static_cast<size_t>(T) * T);
  for (int t = 0; t < T; ++t) {
    const int id =
        ids[static_cast<size_t>(t)] >= 0 && ids[static_cast<size_t>(t)] < kVocab ? ids[static_cast<size_t>(t)] : 100;
    for (int i = 0; i < kHidden; ++i) {
      x[static_cast<size_t>(t) * kHidden + i] = word_[static_cast<size_t>(id) * kHidden + i] +
                                                position_[static_cast<size_t>(t) * kHidden + i] + token_type_[i];
    }
  }
  layer_norm(x.data(), T, kHidden, emb_ln_g_, emb_ln_b_);
  const float scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
  for (const Layer& L : layers_) {
    linear(x.data(), T, kHidden, L.q_w, L.q_b, kHidden, q.data());
    linear(x.data(), T, kHidden, L.k_w, L.k_b, kHidden, k.data());
    linear(x.data(), T, kHidden, L.v_w, L.v_b, kHidden, v.data());
    for (int h = 0; h < kHeads; ++h) {
      const float* qh = q.data() + h * kHeadDim;
      const float* kh = k.data() + h * kHeadDim;
      const float* vh = v.data() + h * kHeadDim;
      // scores[T x T] = Qh Kh^T * scale (rows strided by kHidden).
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, T, kHeadDim, scale, qh, kHidden, kh, kHidden, 0.0f,
                  scores.data(), T);
      for (int r = 0; r < T; ++r) {
        float* row = scores.data() + static_cast<size_t>(r) * T;
        float mx = row[0];
        for (int c = 1; c < T; ++c) mx = std::max(mx, row[c]);
        double sum = 0;
        for (int c = 0; c < T; ++c) {
          row[c] = std::exp(row[c] - mx);
          sum += row[c];
        }
        const float inv = static_cast<float>(1.0 / sum);
        for (int c = 0; c < T; ++c) row[c] *= inv;
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, kHeadDim, T, 1.0f, scores.data(), T, vh, kHidden, 0.0f,
                  ctx.data() + h * kHeadDim, kHidden);
    }
    linear(ctx.data(), T, kHidden, L.o_w, L.o_b, kHidden, tmp.data());
    for (size_t i = 0; i < th; ++i) tmp[i] += x[i];
    layer_norm(tmp.data(), T, kHidden, L.ln1_g, L.ln1_b);
    x.swap(tmp);
    linear(x.data(), T, kHidden, L.i_w, L.i_b, kFfn, ffn.data());
    for (auto& f : ffn) f = gelu(f);
    linear(ffn.data(), T, kFfn, L.out_w, L.out_b, kHidden, tmp.data());
    for (size_t i = 0; i < th; ++i) tmp[i] += x[i];
    layer_norm(tmp.data(), T, kHidden, L.ln2_g, L.ln2_b);
    x.swap(tmp);
  }
  // Mean over the tokens, then unit length.
  for (int t = 0; t < T; ++t) {
    for (int i = 0; i < kHidden; ++i) out[static_cast<size_t>(i)] += x[static_cast<size_t>(t) * kHidden + i];
  }
  double norm = 0;
  for (auto& o : out) {
    o /= static_cast<float>(T);
    norm += static_cast<double>(o) * o;
  }
  norm = std::sqrt(norm);
  if (norm > 0) {
    for (auto& o : out) o = static_cast<float>(o / std::max(norm, 1e-12));
  }
  return out;
}

}  // namespace lorekeeper::embed
