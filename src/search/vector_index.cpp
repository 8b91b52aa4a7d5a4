#include "lorekeeper/search/vector_index.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <tuple>

#include "lorekeeper/core/half.hpp"

#if defined(__x86_64__)
#define LK_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define LK_VECTOR_CLONES
#endif

namespace lorekeeper::search {

LK_VECTOR_CLONES float dot(const float* a, const float* b, size_t n) {
  constexpr int kLanes = 16;
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += a[i + l] * b[i + l];
  }
  float s = 0;
  for (; i < n; ++i) s += a[i] * b[i];
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  return s;
}

namespace {
constexpr uint32_t kEmptySlot = 0xffffffffu;
}

uint64_t VectorIndex::key_hash(model::Kind kind, std::string_view key) {
  uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(kind);
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h ^ (h >> 29);
}

VectorIndex VectorIndex::build(std::vector<store::Store::VectorRow> rows, int dims) {
  store::Store::VectorMatrix m;
  for (auto& r : rows) {
    if (static_cast<int>(r.vector.size()) != dims) continue;
    m.rows.push_back({r.kind, std::move(r.key), r.passage, std::move(r.document_key)});
    m.data.insert(m.data.end(), r.vector.begin(), r.vector.end());
  }
  return build(std::move(m), dims);
}

VectorIndex VectorIndex::build(store::Store::VectorMatrix m, int dims) {
  const size_t d = static_cast<size_t>(std::max(dims, 0));
  // A vector holding NaN or infinity (written by a damaged model) would poison every similarity it takes part
  // in: such passages are left out, the array compacted in place.
  size_t kept = 0;
  const size_t n = d == 0 ? 0 : std::min(m.rows.size(), m.data.size() / d);
  for (size_t i = 0; i < n; ++i) {
    const float* v = m.data.data() + i * d;
    if (!std::all_of(v, v + d, [](float x) { return std::isfinite(x); })) continue;
    if (kept != i) {
      m.rows[kept] = std::move(m.rows[i]);
      std::memmove(m.data.data() + kept * d, v, d * sizeof(float));
    }
    ++kept;
  }
  m.rows.resize(kept);
  m.data.resize(kept * d);
  size_t capacity = 16;
  while (capacity < 2 * kept) capacity *= 2;  // at most half full: short probe runs
  // An entity's passages must be adjacent (first_ relies on it); false when they are not.
  auto fill = [&](VectorIndex& ix) {
    ix.dims_ = dims;
    ix.owner_.reserve(kept);
    ix.slots_.assign(capacity, kEmptySlot);
    for (const auto& r : m.rows) {
      std::optional<uint32_t> at = ix.find(r.kind, r.key);
      if (at && *at + 1 != ix.entities_.size()) return false;  // seen before, not just now
      if (!at) {
        at = static_cast<uint32_t>(ix.entities_.size());
        const uint64_t h = key_hash(r.kind, r.key);
        size_t slot = h & (capacity - 1);
        while (ix.slots_[slot] != kEmptySlot) slot = (slot + 1) & (capacity - 1);
        ix.slots_[slot] = *at;
        ix.hashes_.push_back(h);
        ix.entities_.push_back({r.kind, r.key, r.document_key});
        ix.first_.push_back(static_cast<uint32_t>(ix.owner_.size()));
      }
      ix.owner_.push_back(*at);
    }
    return true;
  };
  VectorIndex ix;
  if (!fill(ix)) {
    std::vector<size_t> order(kept);
    for (size_t i = 0; i < kept; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&m](size_t a, size_t b) {
      const auto& x = m.rows[a];
      const auto& y = m.rows[b];
      return std::tie(x.kind, x.key, x.passage) < std::tie(y.kind, y.key, y.passage);
    });
    store::Store::VectorMatrix sorted;
    sorted.rows.reserve(kept);
    sorted.data.resize(kept * d);
    for (size_t i = 0; i < kept; ++i) {
      sorted.rows.push_back(std::move(m.rows[order[i]]));
      std::memcpy(sorted.data.data() + i * d, m.data.data() + order[i] * d, d * sizeof(float));
    }
    m = std::move(sorted);
    ix = VectorIndex();
    fill(ix);
  }
  ix.first_.push_back(static_cast<uint32_t>(ix.owner_.size()));
  static std::atomic<uint64_t> next_generation{1};
  ix.generation_ = next_generation++;
  ix.data_ = std::move(m.data);
  if (half::hardware() && !ix.data_.empty()) {
    ix.half_.resize(ix.data_.size());
    half::from_floats(ix.data_.data(), ix.data_.size(), ix.half_.data());
    std::vector<float> widened(d);
    for (size_t p = 0; p < ix.owner_.size(); ++p) {
      half::to_floats(ix.half_.data() + p * d, d, widened.data());
      double err = 0;
      for (size_t i = 0; i < d; ++i) {
        const double diff = static_cast<double>(ix.data_[p * d + i]) - widened[i];
        err += diff * diff;
      }
      ix.half_error_ = std::max(ix.half_error_, std::nextafter(static_cast<float>(std::sqrt(err)), 1.0f));
    }
  }
  return ix;
}

std::optional<uint32_t> VectorIndex::find(model::Kind kind, std::string_view key) const {
  if (slots_.empty()) return std::nullopt;
  const uint64_t h = key_hash(kind, key);
  const size_t mask = slots_.size() - 1;
  for (size_t slot = h & mask;; slot = (slot + 1) & mask) {
    const uint32_t e = slots_[slot];
    if (e == kEmptySlot) return std::nullopt;
    if (hashes_[e] == h && entities_[e].kind == kind && entities_[e].key == key) return e;
  }
}

std::vector<VectorIndex::Hit> VectorIndex::top_k(const float* query, const std::vector<uint8_t>* allowed, size_t k,
                                                 size_t* rescored) const {
  if (rescored) *rescored = 0;
  const size_t d = static_cast<size_t>(dims_);
  std::vector<float> best(entities_.size(), -2.0f);
  auto scan = [&](auto&& score) {
    for (size_t p = 0; p < owner_.size(); ++p) {
      const uint32_t e = owner_[p];
      if (allowed && (*allowed)[e] == 0) continue;
      best[e] = std::max(best[e], score(p));
    }
  };
  const auto exact = [&](size_t p) { return dot(query, data_.data() + p * d, d); };
  std::vector<Hit> hits;
  if (half_.empty() || k == 0) {
    scan(exact);
    for (uint32_t e = 0; e < best.size(); ++e) {
      if (best[e] > -2.0f) hits.push_back({e, best[e]});
    }
  } else {
    // A half-precision score is within half_error_ of the float one (|q . (v - half(v))| <= |v - half(v)| for
    // a unit q). The k-th best half score, less that error, is a floor the float k-th best reaches; an entity
    // whose half score plus the error stays under that floor cannot be in the answer.
    scan([&](size_t p) { return half::dot(query, half_.data() + p * d, d); });
    std::vector<float> approx;
    for (float b : best) {
      if (b > -2.0f) approx.push_back(b);
    }
    float cut = -2.0f;
    if (approx.size() > k) {
      std::nth_element(approx.begin(), approx.begin() + static_cast<std::ptrdiff_t>(k - 1), approx.end(),
                       std::greater<float>());
      // Besides the vectors' rounding, the two dot products round differently (float sums of d terms of unit
      // vectors, each off by at most d * epsilon).
      cut = approx[k - 1] - 2 * half_error_ - 4 * static_cast<float>(d) * std::numeric_limits<float>::epsilon();
    }
    for (uint32_t e = 0; e < best.size(); ++e) {
      if (best[e] <= -2.0f || best[e] < cut) continue;
      float score = -2.0f;
      for (size_t p = first_[e]; p < first_[e + 1]; ++p) score = std::max(score, exact(p));
      hits.push_back({e, score});
      if (rescored) ++*rescored;
    }
  }
  const size_t n = std::min(k, hits.size());
  std::partial_sort(
      hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(n), hits.end(),
      [](const Hit& a, const Hit& b) { return a.score > b.score || (a.score == b.score && a.entity < b.entity); });
  hits.resize(n);
  return hits;
}

float VectorIndex::similarity(uint32_t entity, const float* query) const {
  const size_t d = static_cast<size_t>(dims_);
  float best = -1.0f;
  for (size_t p = first_[entity]; p < first_[entity + 1]; ++p)
    best = std::max(best, dot(query, data_.data() + p * d, d));
  return best;
}

std::vector<float> VectorIndex::entity_vector(uint32_t entity) const {
  std::vector<float> v(static_cast<size_t>(dims_), 0.0f);
  const size_t d = static_cast<size_t>(dims_);
  for (size_t p = first_[entity]; p < first_[entity + 1]; ++p) {
    for (size_t i = 0; i < d; ++i) v[i] += data_[p * d + i];
  }
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  norm = std::sqrt(norm);
  if (norm > 0) {
    for (auto& x : v) x = static_cast<float>(x / norm);
  }
  return v;
}

}  // namespace lorekeeper::search
