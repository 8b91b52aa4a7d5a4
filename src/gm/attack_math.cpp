#include "lorekeeper/gm/attack_math.hpp"

#include <algorithm>
#include <cmath>

#include "lorekeeper/gm/dice.hpp"

namespace lorekeeper::gm {

std::vector<double> d20_faces(RollMode mode) {
  std::vector<double> p(21, 0.0);
  for (int r = 1; r <= 20; ++r) {
    switch (mode) {
      case RollMode::kNormal: p[static_cast<size_t>(r)] = 1.0 / 20; break;
      case RollMode::kAdvantage: p[static_cast<size_t>(r)] = (2.0 * r - 1) / 400; break;
      case RollMode::kDisadvantage: p[static_cast<size_t>(r)] = (41.0 - 2 * r) / 400; break;
    }
  }
  return p;
}

AttackChance attack_chance(int bonus, int ac, RollMode mode, int crit_range) {
  crit_range = std::clamp(crit_range, 2, 20);
  const std::vector<double> face = d20_faces(mode);
  AttackChance out;
  for (int r = 1; r <= 20; ++r) {
    const double p = face[static_cast<size_t>(r)];
    if (r == 1) {
      out.miss += p;
    } else if (r >= crit_range) {
      out.crit += p;
    } else if (r + bonus >= ac) {
      out.hit += p;
    } else {
      out.miss += p;
    }
  }
  return out;
}

std::vector<double> hits_distribution(const std::vector<double>& p) {
  // Built one attack at a time (no binomial coefficients to overflow).
  std::vector<double> dist = {1.0};
  for (double pi : p) {
    std::vector<double> next(dist.size() + 1, 0.0);
    for (size_t k = 0; k < dist.size(); ++k) {
      next[k] += dist[k] * (1 - pi);
      next[k + 1] += dist[k] * pi;
    }
    dist = std::move(next);
  }
  return dist;
}

namespace {

// The mean of max(0, total) / `divisor`, rounded down: damage is never below 0, and half of it is rounded down.
Result<double> mean_at_least_zero(const DiceExpression& e, long long divisor = 1) {
  auto dist = distribution(e);
  if (!dist) return dist.status();
  double mean = 0;
  for (size_t i = 0; i < dist->p.size(); ++i) {
    const long long total = dist->min + static_cast<long long>(i);
    if (total > 0) mean += static_cast<double>(total / divisor) * dist->p[i];
  }
  return mean;
}

}  // namespace

Result<DamageMean> damage_mean(std::string_view notation) {
  auto parsed = parse_dice(notation);
  if (!parsed) return parsed.status();
  DiceExpression crit = *parsed;
  for (auto& t : crit.terms) {
    if (!t.is_constant() && t.keep != DiceTerm::Keep::kAll) {
      return Status::invalid_argument("'" + std::string(notation) +
                                      "' keeps or drops dice; a damage roll adds them all");
    }
    if (!t.is_constant() && t.sign < 0) {
      return Status::invalid_argument("'" + std::string(notation) +
                                      "' subtracts dice; a damage roll adds them (a critical hit doubles them)");
    }
    if (!t.is_constant()) t.count *= 2;
  }
  auto on_hit = mean_at_least_zero(*parsed);
  if (!on_hit) return on_hit.status();
  // Doubled dice may pass the dice limit of one expression: such a roll is refused as a whole.
  auto on_crit = mean_at_least_zero(crit);
  if (!on_crit) return on_crit.status();
  auto halved = mean_at_least_zero(*parsed, 2);
  if (!halved) return halved.status();
  return DamageMean{*on_hit, *on_crit, *halved};
}

double expected_damage(const AttackChance& chance, const DamageMean& damage) {
  return chance.hit * damage.on_hit + chance.crit * damage.on_crit;
}

SaveChance save_chance(int dc, int bonus, RollMode mode) {
  const std::vector<double> face = d20_faces(mode);
  SaveChance out;
  for (int r = 1; r <= 20; ++r) (r + bonus >= dc ? out.success : out.fail) += face[static_cast<size_t>(r)];
  return out;
}

}  // namespace lorekeeper::gm
