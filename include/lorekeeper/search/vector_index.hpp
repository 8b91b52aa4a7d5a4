// Exact nearest-neighbour search over unit-length sentence embeddings: every passage vector of every entity in
// one contiguous array, scanned with a vectorized dot product (cosine, as the vectors are normalised).
// Filters are applied before scoring, as a mask over entities, so a filter never costs recall. An entity's
// score is its best passage's. The scan reads a half-precision copy of the vectors (half the memory traffic,
// which bounds it), then rescores in float every entity whose half-precision score could still reach the
// top k given the largest rounding error of any vector: the answer is the float answer. At ~10,000 entities a
// scan reads 7.5 MB in about 0.25 ms (bench: BM_VectorTopK, BM_TopKAfterEncode). It grows linearly once the
// vectors outgrow the caches (BM_VectorTopKScale: 0.9 ms at 30,000 vectors, 4.4 ms at 100,000, 12.6 ms at
// 300,000), so a meaning-based search keeps its 5 ms target up to about 30,000-50,000 vectors (three passages per
// entity of the bundled corpus, or large homebrew imports); past that a smaller code per vector (8 bits) or an
// approximate index (HNSW, IVF) is what pays.
// Immutable once built; safe to share between threads.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

class VectorIndex {
 public:
  struct EntityRef {
    model::Kind kind;
    std::string key;
    std::string document_key;
  };
  struct Hit {
    uint32_t entity;  // index into entities()
    float score;      // cosine similarity of the best passage, -1..1
  };

  // Builds from stored vectors (Store::vector_matrix), taking over their array. Passages whose vector holds NaN
  // or infinity are left out. Rows in any order; the store's order (an entity's passages adjacent) costs no sort.
  static VectorIndex build(store::Store::VectorMatrix matrix, int dims);
  // The same from rows; rows whose vector does not have `dims` components are skipped.
  static VectorIndex build(std::vector<store::Store::VectorRow> rows, int dims);

  int dims() const { return dims_; }
  // A number no other index built in this process has: what is derived from one index (masks in its order) is
  // kept under it.
  uint64_t generation() const { return generation_; }
  size_t size() const { return entities_.size(); }
  size_t passage_count() const { return owner_.size(); }
  const EntityRef& entity(uint32_t i) const { return entities_[i]; }
  std::optional<uint32_t> find(model::Kind kind, std::string_view key) const;

  // The `k` best entities for unit-length `query` (dims() floats), best first; with `allowed` (one byte per
  // entity, non-zero = allowed), only those. `rescored`, when given, receives how many entities the
  // half-precision scan left to score in float.
  std::vector<Hit> top_k(const float* query, const std::vector<uint8_t>* allowed, size_t k,
                         size_t* rescored = nullptr) const;

  // The cosine similarity of `entity`'s best passage to unit-length `query`.
  float similarity(uint32_t entity, const float* query) const;

  // The mean of an entity's passage vectors, normalised: what "like this entity" means for find_similar.
  std::vector<float> entity_vector(uint32_t entity) const;

 private:
  int dims_ = 0;
  uint64_t generation_ = 0;
  std::vector<EntityRef> entities_;
  static uint64_t key_hash(model::Kind kind, std::string_view key);
  // (kind, key) -> entity: open addressing over a power-of-two table of entity numbers, each entity's hash kept
  // beside it, so a lookup (thousands per filtered search) touches a slot and a hash before comparing a key.
  std::vector<uint32_t> slots_;
  std::vector<uint64_t> hashes_;  // per entity
  std::vector<uint32_t> owner_;   // passage -> entity
  std::vector<uint32_t> first_;   // entity -> its first passage (an entity's passages are adjacent); one past the end
  std::vector<float> data_;       // passage_count() x dims_
  std::vector<uint16_t> half_;    // data_ in half precision; empty when the CPU cannot convert it fast
  float half_error_ = 0;          // the largest |v - half(v)| (Euclidean) over the passages: bounds a score's error
};

// Dot product of two float arrays of length n (vectorized).
float dot(const float* a, const float* b, size_t n);

}  // namespace lorekeeper::search
