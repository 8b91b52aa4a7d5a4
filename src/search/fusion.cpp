#include "lorekeeper/search/fusion.hpp"

#include <algorithm>

namespace lorekeeper::search {

double text_lead_confidence(double best, double next_other) {
  if (best <= 0) return 0;
  const double lead = next_other > 0 ? best / next_other - 1 : kConfidentTextMargin;
  return std::clamp(lead / kConfidentTextMargin, 0.0, 1.0);
}

bool rankings_disagree(const std::vector<EntityId>& a, const std::vector<EntityId>& b, size_t depth) {
  if (a.empty() || b.empty()) return false;
  const auto in_first = [depth](const std::vector<EntityId>& order, const EntityId& id) {
    const auto end = order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), depth));
    return std::find(order.begin(), end, id) != end;
  };
  return !in_first(b, a.front()) && !in_first(a, b.front());
}

std::vector<EntityId> facet_ranking(const std::vector<std::vector<EntityId>>& facets) {
  struct Standing {
    size_t lists = 0;   // how many of the facets the entry has
    double places = 0;  // its places in their rankings, as reciprocal ranks
  };
  std::map<EntityId, Standing> standing;
  for (const auto& f : facets) {
    for (size_t i = 0; i < f.size(); ++i) {
      Standing& st = standing[f[i]];
      st.lists += 1;
      st.places += 1 / (kRrfK + static_cast<double>(i) + 1);
    }
  }
  std::vector<std::pair<Standing, EntityId>> order;
  order.reserve(standing.size());
  for (auto& [id, st] : standing) order.push_back({st, id});
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.first.lists != b.first.lists) return a.first.lists > b.first.lists;
    return a.first.places > b.first.places;
  });
  std::vector<EntityId> out;
  out.reserve(order.size());
  for (auto& [st, id] : order) out.push_back(std::move(id));
  return out;
}

std::map<EntityId, double> fuse(const FusionInput& in) {
  std::map<EntityId, double> fused;
  for (size_t i = 0; i < in.lexical.size(); ++i) {
    const LexicalCandidate& c = in.lexical[i];
    const double weight = c.evidence == Evidence::kPartial ? kPartialMatchWeight
                          : c.evidence == Evidence::kName  ? kNameMatchWeight
                          : c.evidence == Evidence::kHint  ? kTextMatchWeight + (kHintMatchWeight - kTextMatchWeight) *
                                                                                   std::clamp(c.hint_share, 0.0, 1.0)
                                                          : kTextMatchWeight;
    double& s = fused[c.id];
    s += weight / (kRrfK + static_cast<double>(i) + 1);
    if (c.evidence != Evidence::kName && in.text_winner.count(c.id)) {
      s += kConfidentTextWeight * in.text_confidence / (kRrfK + 1);
    }
  }
  for (size_t i = 0; i < in.semantic.size(); ++i) {
    fused[in.semantic[i]] += kSemanticWeight / (kRrfK + static_cast<double>(i) + 1);
  }
  size_t facet_lists = 0;
  for (const auto& f : in.facets) facet_lists += f.empty() ? 0 : 1;
  const std::vector<EntityId> by_facets = facet_ranking(in.facets);
  for (size_t i = 0; i < by_facets.size(); ++i) {
    fused[by_facets[i]] += kFacetWeight * (1 - in.text_confidence) / (kRrfK + static_cast<double>(i) + 1);
  }
  const double top = ((!in.hybrid ? 0.0 : std::max({kNameMatchWeight, kHintMatchWeight, kTextMatchWeight})) +
                      kSemanticWeight + (facet_lists > 0 ? kFacetWeight : 0.0)) /
                     (kRrfK + 1);
  for (auto& [id, s] : fused) s = std::min(0.999, s / top);
  return fused;
}

}  // namespace lorekeeper::search
