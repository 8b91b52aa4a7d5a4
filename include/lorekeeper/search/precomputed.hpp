// Passage embeddings computed ahead of time, so a store built from the bundled snapshot answers by meaning without
// embedding anything on the user's machine. The bundled snapshot's set (data/open5e-vectors.bin, made by
// scripts/make-vectors.sh with `lorekeeper index --recompute --export`) is compiled into the binary. A vector is
// looked up by its passage's text hash (passages.hpp: model id, recipe and text), so it is used only for the very
// text it was computed from; an entity whose text differs (a newer sync, homebrew, a changed recipe or hint) is
// embedded by the encoder as before.
//
// File format, little-endian:
//   "LKVECS01"                    magic and format version (8 bytes)
//   u32 dimensions, u32 count
//   char[64] model id             NUL-padded (search::kModelId)
//   char[64] model sha256         hex digits of the model.safetensors the vectors were computed with
//   char[16] passage recipe       NUL-padded (search::kPassageRecipe)
//   count rows, ascending by hash, no duplicates:
//     u64 text hash               the 16 hex digits of text_hash() as a number
//     f32 scale                   component i is q[i] * scale (then the vector is normalised again)
//     i8[dimensions] q            int8 quantisation: cosines change by about 1e-4, rankings practically never
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

class PrecomputedVectors {
 public:
  PrecomputedVectors() = default;  // holds nothing

  // Validates `bytes` (magic, header, exact size, sorted unique hashes, finite positive scales) and keeps a view
  // of it: the bytes must outlive the object.
  static Result<PrecomputedVectors> parse(std::string_view bytes);

  // The set compiled into the binary, parsed once. Empty (and logged) if it does not parse or was made for
  // another model id, recipe or dimension.
  static const PrecomputedVectors& bundled();

  // The unit-length vector stored for `text_hash` (16 hex digits); empty when there is none.
  std::vector<float> find(std::string_view text_hash) const;

  size_t size() const { return count_; }
  int dimensions() const { return dims_; }
  const std::string& model() const { return model_; }
  const std::string& model_sha256() const { return model_sha256_; }
  const std::string& recipe() const { return recipe_; }

 private:
  std::string_view rows_;
  size_t count_ = 0;
  int dims_ = 0;
  std::string model_, model_sha256_, recipe_;
};

// The file for `rows` (one per distinct text hash; a hash seen twice keeps its first vector), embedded by
// `model` whose weights have SHA-256 `model_sha256`. Fails on a malformed hash or a vector of the wrong size.
Result<std::string> serialize_precomputed(const std::vector<store::Store::VectorRow>& rows, std::string_view model,
                                          std::string_view model_sha256, int dimensions);

}  // namespace lorekeeper::search
