#include "lorekeeper/search/similar.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/search/editions.hpp"
#include "lorekeeper/search/ranker.hpp"

namespace lorekeeper::search {

using model::Entity;
using model::Kind;

namespace {

// Accumulates weighted agreement over the facets the reference has.
struct Likeness {
  double score = 0, weight = 0;
  void same(const std::string& a, const std::string& b, double w) {
    if (a.empty()) return;
    weight += w;
    if (a == b) score += w;
  }
  void same(const std::optional<bool>& a, const std::optional<bool>& b, double w) {
    if (!a) return;
    weight += w;
    if (b && *a == *b) score += w;
  }
  // 1 at equal values, falling linearly to 0 at `scale` apart.
  void near(const std::optional<double>& a, const std::optional<double>& b, double w, double scale) {
    if (!a) return;
    weight += w;
    if (b) score += w * std::max(0.0, 1.0 - std::fabs(*a - *b) / scale);
  }
  // Jaccard overlap of two sets of values; two empty sets agree.
  void overlap(const std::vector<std::string>& a, const std::vector<std::string>& b, double w) {
    if (a.empty() && b.empty()) return;
    weight += w;
    std::set<std::string> sa(a.begin(), a.end()), sb(b.begin(), b.end()), all = sa;
    all.insert(sb.begin(), sb.end());
    size_t shared = 0;
    for (const auto& x : sa) shared += sb.count(x);
    score += w * static_cast<double>(shared) / static_cast<double>(all.size());
  }
  double value() const { return weight > 0 ? score / weight : 0; }
};

std::optional<double> num(const std::optional<int>& v) { return v ? std::optional<double>(*v) : std::nullopt; }

// Challenge ratings compared on a log scale: 1/8 and 1/4 are as far apart as 4 and 8.
std::optional<double> log_cr(const std::optional<double>& cr) {
  return cr ? std::optional<double>(std::log2(*cr + 0.125)) : std::nullopt;
}

std::optional<bool> data_bool(const Entity& e, const char* field) {
  auto it = e.data.find(field);
  return it != e.data.end() && it->is_boolean() ? std::optional<bool>(it->get<bool>()) : std::nullopt;
}

std::string data_str(const Entity& e, const char* field) {
  auto it = e.data.find(field);
  return it != e.data.end() && it->is_string() ? text::lower(it->get<std::string>()) : std::string();
}

}  // namespace

bool has_kind_facets(const Entity& e) {
  const model::Facets& f = e.facets;
  switch (e.kind) {
    case Kind::kSpell: return f.level.has_value() || !f.school.empty();
    case Kind::kCreature: return !f.type.empty() || f.cr.has_value();
    case Kind::kWeapon: return !f.attack_ranges.empty() || !f.properties.empty();
    default:
      return !f.type.empty() || !f.rarity.empty() || !f.size.empty() || !f.section.empty() || !f.properties.empty() ||
             e.data.contains("category");
  }
}

namespace {

bool deals_damage(const Entity& e) { return !e.facets.damage_types.empty() || !data_str(e, "damage_roll").empty(); }

// Whether `name` (folded) holds every word of `ref_words`: "Goblin Boss" is a kind of goblin.
bool variant_of(const std::string& name, const std::vector<std::string>& ref_words) {
  if (ref_words.empty()) return false;
  const std::string padded = " " + name + " ";
  return std::all_of(ref_words.begin(), ref_words.end(),
                     [&](const std::string& w) { return padded.find(" " + w + " ") != std::string::npos; });
}

}  // namespace

double facet_likeness(const Entity& ref, const Entity& other, bool theme) {
  if (ref.kind != other.kind) return 0;
  if (!has_kind_facets(ref)) return 0;
  const model::Facets &a = ref.facets, &b = other.facets;
  Likeness l;
  switch (ref.kind) {
    case Kind::kSpell:
      // What a spell does mechanically (damage, an area, a save, conditions, level): its theme (fire, frost), which
      // its damage type would repeat, is what its meaning already says.
      l.near(num(a.level), num(b.level), 2, 6);
      l.same(a.school, b.school, 1.5);
      l.same(deals_damage(ref), deals_damage(other), 1.5);
      l.same(!data_str(ref, "area").empty(), !data_str(other, "area").empty(), 1);
      if (theme) l.overlap(a.damage_types, b.damage_types, 1.5);
      l.overlap(a.save_abilities, b.save_abilities, 1);
      l.overlap(a.conditions, b.conditions, 1);
      l.overlap(a.traits, b.traits, 1);
      l.same(data_bool(ref, "concentration"), data_bool(other, "concentration"), 0.5);
      l.same(data_str(ref, "duration"), data_str(other, "duration"), 0.5);
      l.overlap(a.classes, b.classes, 0.5);
      break;
    case Kind::kCreature:
      l.same(a.type, b.type, 2);
      l.near(log_cr(a.cr), log_cr(b.cr), 2, 4);
      l.same(a.size, b.size, 1);
      l.overlap(a.attack_ranges, b.attack_ranges, 1);
      l.overlap(a.movement, b.movement, 1);
      l.overlap(a.traits, b.traits, 1);
      l.overlap(a.conditions, b.conditions, 0.5);
      break;
    case Kind::kWeapon:
      // Melee or ranged is what a weapon is before anything else.
      l.overlap(a.attack_ranges, b.attack_ranges, 3);
      l.same(data_str(ref, "category"), data_str(other, "category"), 1);  // simple or martial
      l.overlap(a.properties, b.properties, 1.5);
      l.same(data_str(ref, "damage_type"), data_str(other, "damage_type"), 1);
      l.same(data_str(ref, "damage_dice"), data_str(other, "damage_dice"), 0.5);
      break;
    default:
      l.same(a.type, b.type, 2);
      l.same(a.rarity, b.rarity, 1);
      l.same(a.size, b.size, 1);
      l.same(a.section, b.section, 1);
      l.same(data_str(ref, "category"), data_str(other, "category"), 1);
      l.overlap(a.properties, b.properties, 1);
      l.overlap(a.classes, b.classes, 0.5);
      break;
  }
  // Among otherwise equal entries, those of the reference's own book (its conventions, its power scale).
  l.same(ref.document.key, other.document.key, 0.5);
  return l.value();
}

Result<std::vector<Like>> similar_to(store::Store& st, const Entity& ref, store::Query filters, int limit,
                                     std::shared_ptr<const VectorIndex> ix) {
  filters.kinds = {ref.kind};
  // The reference and its other editions (same name, or its renamed counterpart) are the same entry.
  std::set<std::string> same_entry{ref.key};
  EditionOptions editions;
  auto versions = versions_of(st, ref, editions);
  if (!versions) return versions.status();
  for (const auto& v : *versions) same_entry.insert(v.entity.key);
  const std::string ref_name = text::fold(ref.name);
  std::vector<Entity> with_tags{ref};
  LOREKEEPER_RETURN_IF_ERROR(st.read_tags(with_tags));
  const Entity& reference = with_tags.front();
  std::vector<Like> out;
  const std::optional<uint32_t> ref_at = ix ? ix->find(ref.kind, ref.key) : std::nullopt;
  if (ix && ref_at) {
    auto mask = allowed_mask(st, *ix, filters);
    if (!mask) return mask.status();
    const std::vector<float> v = ix->entity_vector(*ref_at);
    // The nearest in meaning are the candidates; facets then say which of them are the same sort of thing.
    constexpr size_t kPool = 200;
    std::vector<Entity> pool;
    std::vector<double> cosines;
    for (const auto& h : ix->top_k(v.data(), &*mask, kPool)) {
      const auto& e = ix->entity(h.entity);
      if (same_entry.count(e.key)) continue;
      auto got = st.get(e.key, e.kind, false);
      if (!got) return got.status();
      if (got->empty() || text::fold(got->front().name) == ref_name) continue;
      pool.push_back(std::move(got->front()));
      cosines.push_back(h.score);
    }
    LOREKEEPER_RETURN_IF_ERROR(st.read_tags(pool));
    const bool by_facets = has_kind_facets(reference);
    for (size_t i = 0; i < pool.size(); ++i) {
      Like like;
      like.meaning = cosines[i];
      like.facets = facet_likeness(reference, pool[i]);
      const double meaning = std::clamp((cosines[i] - kLikeMeaningFloor) / (1 - kLikeMeaningFloor), 0.0, 1.0);
      like.score = by_facets ? kLikeMeaningWeight * meaning + kLikeFacetWeight * like.facets : meaning;
      like.entity = std::move(pool[i]);
      out.push_back(std::move(like));
    }
  } else {
    filters.limit = 100000;
    auto all = st.query(filters);
    if (!all) return all.status();
    std::vector<Entity> pool;
    for (auto& e : all->entities) {
      if (!same_entry.count(e.key) && text::fold(e.name) != ref_name) pool.push_back(std::move(e));
    }
    LOREKEEPER_RETURN_IF_ERROR(st.read_tags(pool));
    for (auto& e : pool) {
      Like like;
      like.facets = facet_likeness(reference, e, /*theme=*/true);
      like.score = like.facets;
      like.entity = std::move(e);
      if (like.score > 0.2) out.push_back(std::move(like));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Like& a, const Like& b) { return a.score > b.score; });
  // Variants of the reference by name ("Goblin Boss", "Goblin Captain" for Goblin) resemble it most in meaning
  // because they share its name; past the first kMaxNameVariants of them they follow the other answers, so the
  // first answers are different things.
  const std::vector<std::string> ref_words = text::folded_words(ref.name);
  std::vector<Like> later;
  size_t variants = 0;
  for (auto it = out.begin(); it != out.end();) {
    if (variant_of(text::fold(it->entity.name), ref_words) && ++variants > kMaxNameVariants) {
      later.push_back(std::move(*it));
      it = out.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& l : later) out.push_back(std::move(l));
  if (out.size() > static_cast<size_t>(std::max(0, limit))) out.resize(static_cast<size_t>(std::max(0, limit)));
  return out;
}

}  // namespace lorekeeper::search
