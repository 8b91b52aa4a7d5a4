#include "facet_index.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/vocabulary.hpp"

namespace lorekeeper::search {

using model::Kind;
using store::Query;

std::optional<std::vector<float>> facet_direction(const std::vector<float>& query, const QueryFacet& f,
                                                  const QueryEmbeddings& embeddings) {
  if (!f.graded() || embeddings.semantic() == nullptr) return std::nullopt;
  const std::vector<float> label = embeddings.semantic()->embed_phrase(f.label());
  if (label.size() != query.size()) return std::nullopt;
  std::vector<float> v(query.size());
  double norm = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = query[i] + kFacetLabelWeight * label[i];
    norm += static_cast<double>(v[i]) * v[i];
  }
  if (!(norm > 0)) return std::nullopt;
  const float scale = static_cast<float>(1 / std::sqrt(norm));
  for (float& x : v) x *= scale;
  return v;
}

Result<std::shared_ptr<const std::vector<uint8_t>>> facet_mask(store::Store& st, const VectorIndex& ix,
                                                               const QueryFacet& f, size_t v) {
  static std::mutex mu;
  static uint64_t generation = 0;
  static std::string stamp_seen;
  static std::map<std::string, std::shared_ptr<const std::vector<uint8_t>>> masks;
  constexpr size_t kMaxMasks = 256;  // 256 masks of 10,000 entries: 2.5 MB
  auto stamp = st.content_stamp();
  if (!stamp) return stamp.status();
  std::string key = f.field + '\x1f' + f.values.at(v) + '\x1f';
  for (Kind k : f.kinds) key += std::string(model::kind_name(k)) + ',';
  {
    std::lock_guard<std::mutex> lock(mu);
    if (generation != ix.generation() || stamp_seen != *stamp) {
      masks.clear();
      generation = ix.generation();
      stamp_seen = *stamp;
    }
    if (auto it = masks.find(key); it != masks.end()) return it->second;
  }
  auto made = allowed_mask(st, ix, narrowed(Query{}, f, v));
  if (!made) return made.status();
  auto mask = std::make_shared<const std::vector<uint8_t>>(std::move(*made));
  std::lock_guard<std::mutex> lock(mu);
  if (generation == ix.generation() && stamp_seen == *stamp) {
    if (masks.size() >= kMaxMasks) masks.clear();
    masks[key] = mask;
  }
  return mask;
}

Result<SizeMasks> size_masks(store::Store& st, const VectorIndex& ix, const QueryFacet& f) {
  const auto& all = model::sizes();
  std::vector<size_t> named;
  for (size_t i = 0; i < all.size(); ++i) {
    if (std::find(f.values.begin(), f.values.end(), text::lower(all[i])) != f.values.end()) named.push_back(i);
  }
  SizeMasks out{std::vector<uint8_t>(ix.size(), 0), std::vector<uint8_t>(ix.size(), 0), false};
  if (named.empty()) return out;
  out.named_together = named.back() - named.front() <= 1;
  QueryFacet each = f;
  each.values.clear();
  for (const auto& z : all) each.values.push_back(text::lower(z));
  for (size_t v = 0; v < each.values.size(); ++v) {
    const bool near = std::any_of(named.begin(), named.end(), [&](size_t n) { return v + 1 >= n && v <= n + 1; });
    auto m = facet_mask(st, ix, each, v);
    if (!m) return m.status();
    for (size_t i = 0; i < ix.size(); ++i) {
      out.sized[i] |= (**m)[i];
      if (near) out.near[i] |= (**m)[i];
    }
  }
  return out;
}

}  // namespace lorekeeper::search
