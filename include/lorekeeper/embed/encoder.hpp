// The sentence encoder of all-MiniLM-L6-v2 in native code: BERT (6 layers, hidden 384, 12 heads, FFN 1536,
// exact erf GELU, LayerNorm eps 1e-12) over WordPiece ids, mean pooling over the tokens, L2 normalisation.
// Matrix products go through CBLAS (OpenBLAS, kept to one thread: every call computes on its caller's thread,
// and bulk work runs several calls in parallel) or, for a few rows, a kernel that streams the weights once.
// The weights are read from a memory-mapped model.safetensors.
// Thread-safe: the encode functions keep their work buffers local to the call.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/embed/safetensors.hpp"
#include "lorekeeper/embed/wordpiece.hpp"

namespace lorekeeper::embed {

inline constexpr int kDimensions = 384;

class Encoder {
 public:
  // Loads model.safetensors, vocab.txt and config.json from `model_dir`. NotFound when files are missing,
  // Corruption when the weights are malformed, InvalidArgument when they do not have MiniLM-L6's shapes.
  static Result<std::unique_ptr<Encoder>> load(const std::string& model_dir);

  const WordPieceTokenizer& tokenizer() const { return tokenizer_; }

  // The unit-length sentence embedding of `ids` (as produced by tokenizer().encode).
  std::vector<float> encode_ids(const std::vector<int32_t>& ids) const;
  // The embeddings of several id sequences at once, in order. The sequences are packed without padding, so a
  // batch costs what its tokens cost, with larger (faster) matrix products; results equal encode_ids's up to
  // float rounding.
  std::vector<std::vector<float>> encode_batch(const std::vector<std::vector<int32_t>>& batch) const;
  // Tokenizes and encodes.
  std::vector<float> encode(const std::string& text) const { return encode_ids(tokenizer_.encode(text)); }

 private:
  struct Layer {
    const float *q_w, *q_b, *k_w, *k_b, *v_w, *v_b, *o_w, *o_b, *ln1_g, *ln1_b, *i_w, *i_b, *out_w, *out_b, *ln2_g,
        *ln2_b;
  };
  Encoder() = default;
  std::unique_ptr<SafeTensors> weights_;
  WordPieceTokenizer tokenizer_;
  const float* word_ = nullptr;
  const float* position_ = nullptr;
  const float* token_type_ = nullptr;
  const float* emb_ln_g_ = nullptr;
  const float* emb_ln_b_ = nullptr;
  std::vector<Layer> layers_;
};

// Where the model lives: LOREKEEPER_MODEL_DIR, else $XDG_CACHE_HOME/lorekeeper/models/all-MiniLM-L6-v2
// (~/.cache/... when XDG_CACHE_HOME is unset).
std::string default_model_dir();

}  // namespace lorekeeper::embed
