// The sentence encoder of all-MiniLM-L6-v2 in native code: BERT (6 layers, hidden 384, 12 heads, FFN 1536,
// exact erf GELU, LayerNorm eps 1e-12) over WordPiece ids, mean pooling over the tokens, L2 normalisation.
// Matrix products go through CBLAS (OpenBLAS, kept to one thread: every call computes on its caller's thread,
// and bulk work runs several calls in parallel) or, for a few rows, a kernel that streams the weights once.
// The weights are read from a memory-mapped model.safetensors. A query of a few tokens is bounded by reading
// the 42 MB of layer weights, so queries may use a half-precision copy of them (21 MB; products and sums stay
// in float): cosine to the reference above 0.99999, a fifth faster (bench: BM_EncodeQuery12Tokens).
// Thread-safe: the encode functions keep their work buffers local to the call.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/embed/safetensors.hpp"
#include "lorekeeper/embed/wordpiece.hpp"

namespace lorekeeper::embed {

inline constexpr int kDimensions = 384;

class WorkerPair;

class Encoder {
 public:
  ~Encoder();
  // Loads model.safetensors, vocab.txt and config.json from `model_dir`. NotFound when files are missing,
  // Corruption when the weights are malformed, InvalidArgument when they do not have MiniLM-L6's shapes.
  static Result<std::unique_ptr<Encoder>> load(const std::string& model_dir);

  const WordPieceTokenizer& tokenizer() const { return tokenizer_; }

  enum class Precision {
    kFloat,  // the reference's arithmetic: parity with sentence-transformers to 1e-4 per component
    kQuery,  // half-precision layer weights for inputs of up to 48 tokens, when the CPU converts them (F16C);
             // float otherwise. For search queries: the ranking they give equals kFloat's but for near-ties.
             // On a machine with two hardware threads or more, each matrix product is split by output columns
             // between the caller and one helper thread (one encoding at a time; others compute alone), with
             // results identical to one thread's.
  };
  // Whether kQuery really uses half-precision weights on this CPU. The first call maps them from the cache file
  // beside the model (half_cache.hpp: reading no float weight) when it was made from the model file this encoder
  // mapped; otherwise it packs them from the float weights (20-40 ms) and writes that file for the next process
  // (a directory that is not writable only costs the packing again; weights that are not finite are not kept).
  // Processes that only index never make them.
  bool has_half_weights() const;
  // Whether kQuery encodings split their products with a helper thread (half-precision weights and two hardware
  // threads): a thread waiting for one should then block, not spin, as both cores are computing it.
  bool splits_queries() const;
  // Lets the float weights' pages leave the process's resident memory (after has_half_weights(), queries read
  // only the embedding rows of their tokens); whatever computes in float later reads them in again.
  void release_float_weights() const { weights_->release_pages(); }

  // The unit-length sentence embedding of `ids` (as produced by tokenizer().encode).
  std::vector<float> encode_ids(const std::vector<int32_t>& ids, Precision precision = Precision::kFloat) const;
  // The embeddings of several id sequences at once, in order. The sequences are packed without padding, so a
  // batch costs what its tokens cost, with larger (faster) matrix products; results equal encode_ids's up to
  // float rounding.
  std::vector<std::vector<float>> encode_batch(const std::vector<std::vector<int32_t>>& batch) const;
  // Tokenizes and encodes.
  std::vector<float> encode(const std::string& text) const { return encode_ids(tokenizer_.encode(text)); }
  // Tokenizes and encodes a search query, in Precision::kQuery.
  std::vector<float> encode_query(const std::string& text) const {
    return encode_ids(tokenizer_.encode(text), Precision::kQuery);
  }

  // Whether the weights compute in `precision`: a known sentence must embed to a finite vector of unit length. A
  // model whose files load but hold NaN or infinite weights fails (Corruption, saying what to do). Run once per
  // process and precision (about 10 ms); later calls return the first answer. kQuery checks what searches use
  // (the half-precision weights where has_half_weights()) without reading the float layer weights.
  Status self_check(Precision precision = Precision::kFloat) const;

 private:
  struct Layer {
    const float *q_w, *q_b, *k_w, *k_b, *v_w, *v_b, *o_w, *o_b, *ln1_g, *ln1_b, *i_w, *i_b, *out_w, *out_b, *ln2_g,
        *ln2_b;
  };
  struct HalfLayer {
    const uint16_t *q_w, *k_w, *v_w, *o_w, *i_w, *out_w;
  };
  Encoder() = default;
  std::vector<std::vector<float>> run(const std::vector<std::vector<int32_t>>& batch, Precision precision) const;
  std::string model_dir_;
  std::unique_ptr<SafeTensors> weights_;
  WordPieceTokenizer tokenizer_;
  const float* word_ = nullptr;
  const float* position_ = nullptr;
  const float* token_type_ = nullptr;
  const float* emb_ln_g_ = nullptr;
  const float* emb_ln_b_ = nullptr;
  std::vector<Layer> layers_;
  mutable std::once_flag check_once_[2];  // by Precision
  mutable Status check_[2];
  mutable std::once_flag half_once_;
  // The layers' weight matrices in half precision (mapped from the cache file, or owned); null without F16C.
  mutable std::shared_ptr<const uint16_t> half_;
  mutable std::vector<HalfLayer> half_layers_;
  // The helper thread of query encodings (worker_pair.hpp), started by the first one.
  mutable std::once_flag pair_once_;
  mutable std::unique_ptr<WorkerPair> pair_;
};

// Where the model lives: LOREKEEPER_MODEL_DIR, else $XDG_CACHE_HOME/lorekeeper/models/all-MiniLM-L6-v2
// (~/.cache/... when XDG_CACHE_HOME is unset).
std::string default_model_dir();

}  // namespace lorekeeper::embed
