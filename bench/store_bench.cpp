// Microbenchmarks of the store and the tools over a real store (the bundled Open5e snapshot, about 9,300
// entities). Run through scripts/bench.sh, which builds the store and sets LOREKEEPER_BENCH_DB.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace {

using lorekeeper::store::Query;
using lorekeeper::store::Store;

std::string bench_db() {
  const char* p = std::getenv("LOREKEEPER_BENCH_DB");
  return p ? p : "build/bench/store.db";
}

Store& store() {
  static std::unique_ptr<Store> s = [] {
    auto r = Store::open(bench_db(), Store::Mode::kExistingOnly);
    if (!r) {
      std::fprintf(stderr, "cannot open %s: %s (run scripts/bench.sh)\n", bench_db().c_str(),
                   r.status().to_string().c_str());
      std::exit(1);
    }
    return std::move(*r);
  }();
  return *s;
}

void BM_StoreFilteredSpells(benchmark::State& state) {
  Query q;
  q.kinds = {lorekeeper::model::Kind::kSpell};
  q.level = 3;
  q.class_key = "wizard";
  q.limit = 20;
  for (auto _ : state) {
    auto r = store().query(q);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_StoreFilteredSpells)->Unit(benchmark::kMicrosecond);

void BM_StoreCreatureCrRange(benchmark::State& state) {
  Query q;
  q.kinds = {lorekeeper::model::Kind::kCreature};
  q.cr_min = 3;
  q.cr_max = 5;
  q.type = "undead";
  q.limit = 20;
  for (auto _ : state) {
    auto r = store().query(q);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_StoreCreatureCrRange)->Unit(benchmark::kMicrosecond);

void BM_StoreExactName(benchmark::State& state) {
  Query q;
  q.kinds = {lorekeeper::model::Kind::kSpell};
  q.name_exact = "Fireball";
  for (auto _ : state) {
    auto r = store().query(q);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_StoreExactName)->Unit(benchmark::kMicrosecond);

void BM_ToolSearchSpellFiltered(benchmark::State& state) {
  lorekeeper::tools::Engine engine(bench_db());
  const nlohmann::json args = {{"level", 3}, {"class_key", "wizard"}, {"limit", 5}};
  for (auto _ : state) {
    auto r = engine.call("search_spell", args);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ToolSearchSpellFiltered)->Unit(benchmark::kMicrosecond);

void BM_ToolSearchCreatureByName(benchmark::State& state) {
  lorekeeper::tools::Engine engine(bench_db());
  const nlohmann::json args = {{"search", "goblin"}, {"limit", 5}};
  for (auto _ : state) {
    auto r = engine.call("search_creature", args);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ToolSearchCreatureByName)->Unit(benchmark::kMicrosecond);

}  // namespace

namespace {

// The sentence encoder (needs the model: scripts/setup.sh). A 12-token query and a 256-token passage.
const lorekeeper::embed::Encoder* encoder() {
  static std::unique_ptr<lorekeeper::embed::Encoder> e = [] {
    auto r = lorekeeper::embed::Encoder::load(lorekeeper::embed::default_model_dir());
    return r ? std::move(*r) : nullptr;
  }();
  return e.get();
}

void BM_EncodeQuery12Tokens(benchmark::State& state) {
  if (!encoder()) {
    state.SkipWithError("no model (run scripts/setup.sh)");
    return;
  }
  const auto ids = encoder()->tokenizer().encode("teleport a short distance as a bonus action");  // 12 ids
  for (auto _ : state) benchmark::DoNotOptimize(encoder()->encode_ids(ids));
  state.counters["tokens"] = static_cast<double>(ids.size());
}
BENCHMARK(BM_EncodeQuery12Tokens)->Unit(benchmark::kMillisecond);

void BM_EncodePassage256Tokens(benchmark::State& state) {
  if (!encoder()) {
    state.SkipWithError("no model (run scripts/setup.sh)");
    return;
  }
  std::string text;
  for (int i = 0; i < 60; ++i) text += "the dragon breathes fire over the ruined castle walls ";
  const auto ids = encoder()->tokenizer().encode(text);  // truncated to 256
  for (auto _ : state) benchmark::DoNotOptimize(encoder()->encode_ids(ids));
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(ids.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_EncodePassage256Tokens)->Unit(benchmark::kMillisecond);

}  // namespace
