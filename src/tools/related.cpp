#include "related.hpp"

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/tools/routes.hpp"

namespace lorekeeper::tools {
namespace {

constexpr int kShown = 5;

json brief(const model::Entity& e) { return {{"name", e.name}, {"key", e.key}, {"document", e.document.key}}; }

// Up to kShown entities of `q`: those of `doc` first, then of its game system (of every system when that has
// none), with the totals and the call that lists them all.
json listed(store::Store& st, store::Query q, const model::Document& doc, const std::string& how) {
  store::Query all = q;
  all.limit = 0;
  auto everywhere = st.query(all);
  if (!everywhere || everywhere->total == 0) return nullptr;
  json out = {{"total", everywhere->total}, {"how", how}};
  json entries = json::array();
  auto take = [&](store::Query step) {
    step.limit = kShown - static_cast<int>(entries.size());
    if (step.limit <= 0) return;
    for (const auto& e : entries) step.exclude_keys.push_back(e["key"].get<std::string>());
    auto found = st.query(step);
    if (!found) return;
    for (const auto& x : found->entities) entries.push_back(brief(x));
  };
  store::Query own = q;
  own.document_keys = std::vector<std::string>{doc.key};
  take(own);
  store::Query same_system = q;
  same_system.game_system = doc.game_system;
  take(same_system);
  if (entries.empty()) take(q);
  out["entries"] = std::move(entries);
  return out;
}

// A spell entry named `name`: of the creature's document, else its game system, else any.
json spell_named(store::Store& st, const std::string& name, const model::Document& doc) {
  store::Query q;
  q.kinds = {model::Kind::kSpell};
  q.name_exact = name;
  q.limit = 50;
  auto found = st.query(q);
  if (!found || found->entities.empty()) return nullptr;
  const model::Entity* best = &found->entities.front();
  int best_rank = 3;
  for (const auto& s : found->entities) {
    const int rank = s.document.key == doc.key ? 0 : s.document.game_system == doc.game_system ? 1 : 2;
    if (rank < best_rank) best = &s, best_rank = rank;
  }
  return brief(*best);
}

void entries_line(std::string& out, const char* label, const json& block, const std::string& noun) {
  if (!block.is_object()) return;
  std::vector<std::string> shown;
  for (const auto& x : block["entries"]) {
    shown.push_back(x["name"].get<std::string>() + " (`" + x["key"].get<std::string>() + "`)");
  }
  const int total = block["total"].get<int>();
  out += std::string("**") + label + ":** " + text::join(shown, ", ");
  if (total > static_cast<int>(shown.size())) {
    out += "; " + std::to_string(total) + " " + noun + " in all (" + block["how"].get<std::string>() + ")";
  }
  out += "\n";
}

}  // namespace

json related(store::Store& st, const model::Entity& e) {
  json out = json::object();
  if (e.kind == model::Kind::kSpell) {
    store::Query q;
    q.kinds = {model::Kind::kCreature};
    q.casts_spell = {text::fold(e.name)};
    json cast_by = listed(st, q, e.document,
                          std::string(route_of(model::Kind::kCreature)->tool) + " casts_spell \"" + e.name + "\"");
    if (!cast_by.is_null()) out["cast_by"] = std::move(cast_by);
  } else if (e.kind == model::Kind::kCondition) {
    const std::string condition = text::lower(text::fold(e.name));
    const auto& names = model::condition_names();
    if (std::find(names.begin(), names.end(), condition) == names.end()) return out;
    json inflicted = json::object();
    for (const auto& [kind, noun] :
         {std::pair{model::Kind::kCreature, "creatures"}, std::pair{model::Kind::kSpell, "spells"}}) {
      store::Query q;
      q.kinds = {kind};
      q.condition = condition;
      json block =
          listed(st, q, e.document, std::string(route_of(kind)->tool) + " inflicts_condition \"" + condition + "\"");
      if (!block.is_null()) inflicted[noun] = std::move(block);
    }
    if (!inflicted.empty()) out["inflicted_by"] = std::move(inflicted);
  } else if (e.kind == model::Kind::kCreature) {
    model::Entity derived = e;
    derived.facets = {};
    model::derive_facets(derived);
    json casts = json::array();
    for (const std::string& name : derived.facets.casts) {
      json spell = spell_named(st, name, e.document);
      casts.push_back(spell.is_null() ? json{{"name", name}} : spell);
    }
    if (!casts.empty()) out["casts"] = std::move(casts);
  }
  return out;
}

std::string render_related(const json& related) {
  if (!related.is_object() || related.empty()) return {};
  std::string out = "\n";
  if (related.contains("cast_by")) entries_line(out, "Cast by", related["cast_by"], "creatures");
  if (related.contains("inflicted_by")) {
    const json& by = related["inflicted_by"];
    if (by.contains("creatures")) entries_line(out, "Inflicted by creatures", by["creatures"], "creatures");
    if (by.contains("spells")) entries_line(out, "Inflicted by spells", by["spells"], "spells");
  }
  if (related.contains("casts")) {
    std::vector<std::string> spells;
    for (const auto& s : related["casts"]) {
      spells.push_back(s.contains("key") ? s["name"].get<std::string>() + " (`" + s["key"].get<std::string>() + "`)"
                                         : s["name"].get<std::string>());
    }
    out += "**Spells it casts:** " + text::join(spells, ", ") + "\n";
  }
  return out == "\n" ? std::string() : out;
}

}  // namespace lorekeeper::tools
