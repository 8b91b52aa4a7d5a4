// Microbenchmarks of the store and the tools over a real store (the bundled Open5e snapshot, about 9,300
// entities). Run through scripts/bench.sh, which builds the store and sets LOREKEEPER_BENCH_DB.
#include <benchmark/benchmark.h>

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "kernels.hpp"
#include "lorekeeper/edn/edn.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/orcbrew/orcbrew.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/search/vector_index.hpp"
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

// Full-text ranking of a natural-language query's words among the creatures, top 100: arg 0 by the FTS5 query,
// arg 1 from the in-memory copy of the index (what serve uses); arg 1 also reports how long the copy took to load
// (the first time in the process) and its size.
void BM_StoreTextSearch(benchmark::State& state) {
  static std::unique_ptr<lorekeeper::store::Store> memory;
  static double load_ms = 0;
  const bool in_memory = state.range(0) != 0;
  if (in_memory && !memory) {
    auto opened = lorekeeper::store::Store::open(bench_db(), lorekeeper::store::Store::Mode::kExistingOnly);
    if (!opened) {
      state.SkipWithError(opened.status().to_string().c_str());
      return;
    }
    memory = std::move(*opened);
    memory->set_text_index_in_memory(true);
    const auto t0 = std::chrono::steady_clock::now();
    if (!memory->warm_text_index().is_ok()) {
      state.SkipWithError("cannot load the text index");
      return;
    }
    load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  lorekeeper::store::Store& st = in_memory ? *memory : store();
  Query q;
  q.kinds = {lorekeeper::model::Kind::kCreature};
  const std::vector<std::string> words = {"undead", "drains", "life"};
  size_t hits = 0;
  for (auto _ : state) {
    auto r = st.text_search(q, words, 100);
    hits = r ? r->size() : 0;
    benchmark::DoNotOptimize(r);
  }
  state.counters["hits"] = static_cast<double>(hits);
  if (in_memory) state.counters["load_ms"] = load_ms;
}
BENCHMARK(BM_StoreTextSearch)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

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

// The machine's single-thread sgemm rate (GFLOP/s) on the encoder's largest product shape (256 x 1536 x 384),
// measured once per process: the yardstick for the encoder's efficiency.
double sgemm_gflops() {
  static const double rate = [] {
    const int m = 256, n = 1536, k = 384;
    std::vector<float> a(static_cast<size_t>(m) * k, 0.01f), b(static_cast<size_t>(n) * k, 0.02f),
        c(static_cast<size_t>(m) * n);
    openblas_set_num_threads(1);
    double best = 0;
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 20; ++i) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(),
                    n);
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, 20.0 * 2.0 * m * n * k / s / 1e9);
    }
    return best;
  }();
  return rate;
}

// FLOPs per token of all-MiniLM-L6-v2 at sequence length t: the linear layers (2 x 10.6 M weights) plus the
// attention products (Q.K^T and scores.V: 4 * t * 384 per layer).
double flops_per_token(double t) { return 21.2e6 + 6 * 4 * t * 384; }

void BM_Sgemm(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(sgemm_gflops());
  state.counters["GFLOP/s"] = sgemm_gflops();
}
BENCHMARK(BM_Sgemm)->Iterations(1);

// Latency of a 12-token query on one thread, as p50 and p95 over 300 encodings, and its share of the
// sgemm-bound time; arg 0 in float, arg 1 in the query precision (half-precision weights).
void BM_EncodeQuery12Tokens(benchmark::State& state) {
  if (!encoder()) {
    state.SkipWithError("no model (run scripts/setup.sh)");
    return;
  }
  const auto ids = encoder()->tokenizer().encode("teleport a short distance as a bonus action");  // 12 ids
  const auto precision =
      state.range(0) ? lorekeeper::embed::Encoder::Precision::kQuery : lorekeeper::embed::Encoder::Precision::kFloat;
  if (state.range(0) && !encoder()->has_half_weights()) {
    state.SkipWithError("no F16C: queries are encoded in float");
    return;
  }
  std::vector<double> ms;
  for (auto _ : state) {
    for (int i = 0; i < 300; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(encoder()->encode_ids(ids, precision));
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::sort(ms.begin(), ms.end());
  const double p50 = ms[ms.size() / 2];
  state.counters["tokens"] = static_cast<double>(ids.size());
  state.counters["p50_ms"] = p50;
  state.counters["p95_ms"] = ms[ms.size() * 95 / 100];
  const double bound_ms =
      static_cast<double>(ids.size()) * flops_per_token(static_cast<double>(ids.size())) / (sgemm_gflops() * 1e9) * 1e3;
  state.counters["sgemm_bound_ms"] = bound_ms;
  state.counters["pct_of_bound"] = 100.0 * bound_ms / p50;
}
BENCHMARK(BM_EncodeQuery12Tokens)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kMillisecond);

// The packed half-precision product of a 12-token query's FFN input layer (12 x 384 by 1536 x 384), per
// instruction set (arg 0: AVX2, 1: AVX-512), as GFLOP/s and a share of the sgemm rate.
void BM_LinearPacked(benchmark::State& state) {
  namespace k = lorekeeper::embed::kernels;
  const k::Isa isa = state.range(0) ? k::Isa::kAvx512 : k::Isa::kAvx2;
  if (!k::has_packed(isa)) {
    state.SkipWithError("this CPU lacks the instruction set");
    return;
  }
  const int rows = 12, in = 384, out = 1536;
  std::vector<float> x(static_cast<size_t>(rows) * in, 0.01f), w(static_cast<size_t>(out) * in, 0.02f), b(out, 0.0f),
      y(static_cast<size_t>(rows) * out);
  std::vector<uint16_t> packed(w.size());
  k::pack_half(w.data(), out, in, packed.data());
  for (auto _ : state) {
    k::linear_few_rows_packed(x.data(), rows, in, packed.data(), b.data(), out, y.data(), isa);
    benchmark::DoNotOptimize(y.data());
  }
  const double flops = 2.0 * rows * in * out;
  // Rates per second: "GFLOP=105/s"; pct_of_sgemm is the same rate as a share of sgemm_gflops().
  state.counters["GFLOP"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["pct_of_sgemm"] =
      benchmark::Counter(flops / 1e9 / sgemm_gflops() * 100.0, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_LinearPacked)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Bulk throughput: 256 passages of 150-250 tokens in packed batches of about 2,048 tokens, on 1 or 2
// threads, as tokens/s and as a share of the sgemm-bound rate (times the thread count).
void BM_EncodeBulk(benchmark::State& state) {
  if (!encoder()) {
    state.SkipWithError("no model (run scripts/setup.sh)");
    return;
  }
  const int threads = static_cast<int>(state.range(0));
  const std::string words[] = {"the",     "dragon", "breathes", "fire",  "over", "ruined", "castle",
                               "walls",   "while",  "wizard",   "casts", "a",    "shield", "spell",
                               "against", "its",    "claws",    "and",   "bite", "attack"};
  std::vector<std::vector<int32_t>> passages;
  size_t tokens = 0;
  for (int p = 0; p < 256; ++p) {
    std::string text;
    const int n = 150 + (p * 37) % 100;
    for (int w = 0; w < n; ++w) text += words[(p * 7 + w * 3) % 20] + std::string(" ");
    passages.push_back(encoder()->tokenizer().encode(text));
    tokens += passages.back().size();
  }
  std::vector<std::vector<std::vector<int32_t>>> batches(1);
  size_t in_batch = 0;
  for (auto& p : passages) {
    if (in_batch + p.size() > 2048 && !batches.back().empty()) {
      batches.emplace_back();
      in_batch = 0;
    }
    in_batch += p.size();
    batches.back().push_back(p);
  }
  for (auto _ : state) {
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t b = next++; b < batches.size(); b = next++)
        benchmark::DoNotOptimize(encoder()->encode_batch(batches[b]));
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  }
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsIterationInvariantRate);
  const double mean_len = static_cast<double>(tokens) / static_cast<double>(passages.size());
  state.counters["bound_tokens/s"] = threads * sgemm_gflops() * 1e9 / flops_per_token(mean_len);
}
BENCHMARK(BM_EncodeBulk)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);

// Exact top-10 over 10,000 random unit vectors (the size of the bundled corpus), unfiltered and with a
// filter allowing one kind in five.
void BM_VectorTopK(benchmark::State& state) {
  std::vector<lorekeeper::store::Store::VectorRow> rows;
  uint32_t seed = 1;
  auto rnd = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
  };
  for (int i = 0; i < 10000; ++i) {
    std::vector<float> v(384);
    double n = 0;
    for (auto& x : v) {
      x = rnd();
      n += x * x;
    }
    for (auto& x : v) x = static_cast<float>(x / std::sqrt(n));
    rows.push_back({lorekeeper::model::Kind::kSpell, "k" + std::to_string(i), 0, "h", std::move(v), "doc"});
  }
  const auto ix = lorekeeper::search::VectorIndex::build(std::move(rows), 384);
  std::vector<uint8_t> allowed(ix.size());
  for (size_t i = 0; i < allowed.size(); ++i) allowed[i] = i % 5 == 0;
  const std::vector<float> q = ix.entity_vector(7);
  const bool filtered = state.range(0) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(ix.top_k(q.data(), filtered ? &allowed : nullptr, 10));
}
BENCHMARK(BM_VectorTopK)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The exact scan as the corpus grows, to decide when an approximate index would pay: top-100 (as a search asks)
// over N thousand vectors, the bench store's real entity vectors repeated with noise (cosine about 0.99 to their
// original) so the scores are as crowded as real ones; random unit vectors without an indexed bench store.
// A meaning-based search has about 1 ms for its scan beside the 4 ms query encoding (its 5 ms target).
void BM_VectorTopKScale(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0)) * 1000;
  std::vector<std::vector<float>> seeds;
  auto rows_of_store = store().vectors(lorekeeper::search::kModelId, true);
  if (rows_of_store) {
    for (auto& r : *rows_of_store) seeds.push_back(std::move(r.vector));
  }
  uint32_t seed = 7;
  auto rnd = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
  };
  std::vector<lorekeeper::store::Store::VectorRow> rows;
  rows.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<float> v(384);
    double norm = 0;
    for (size_t d = 0; d < v.size(); ++d) {
      const float base = seeds.empty() ? 0.0f : seeds[i % seeds.size()][d];
      v[d] = base + (seeds.empty() ? 1.0f : 0.025f) * rnd();
      norm += static_cast<double>(v[d]) * v[d];
    }
    for (auto& x : v) x = static_cast<float>(x / std::sqrt(norm));
    rows.push_back({lorekeeper::model::Kind::kSpell, "k" + std::to_string(i), 0, "h", std::move(v), "doc"});
  }
  const auto ix = lorekeeper::search::VectorIndex::build(std::move(rows), 384);
  const std::vector<float> q = ix.entity_vector(static_cast<uint32_t>(n / 2));
  std::vector<double> ms;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(ix.top_k(q.data(), nullptr, 100));
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  state.counters["p50_ms"] = ms[ms.size() / 2];
  state.counters["real_vectors"] = seeds.empty() ? 0 : 1;
  state.counters["MB_scanned"] = static_cast<double>(n) * 384 * 2 / 1e6;
}
BENCHMARK(BM_VectorTopKScale)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Unit(benchmark::kMillisecond);

// Tool calls on the full corpus with the embedding index (the bench store is indexed by scripts/bench.sh):
// a natural-language query ranked lexically, semantically and hybrid, query embedding included.
void tool_with_ranking(benchmark::State& state, lorekeeper::tools::Ranking ranking, const nlohmann::json& args,
                       const char* tool) {
  static std::shared_ptr<lorekeeper::search::Semantic> semantic = [] {
    auto s = std::make_shared<lorekeeper::search::Semantic>(lorekeeper::embed::default_model_dir());
    if (s->has_model()) (void)s->reload(store(), true);
    return s;
  }();
  if (ranking != lorekeeper::tools::Ranking::kLexical && !semantic->index()) {
    state.SkipWithError("no embedding index in the bench store (scripts/bench.sh runs lorekeeper index)");
    return;
  }
  lorekeeper::tools::Engine engine(bench_db());
  engine.set_semantic(semantic);
  engine.set_ranking(ranking);
  engine.set_text_index_in_memory(true);  // as serve runs it
  // One untimed call first: it loads the in-memory text index (about half a second), which serve does at start.
  benchmark::DoNotOptimize(engine.call(tool, args));
  std::vector<double> ms;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = engine.call(tool, args);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(r);
  }
  std::sort(ms.begin(), ms.end());
  state.counters["p50_ms"] = ms[ms.size() / 2];
  state.counters["p95_ms"] = ms[ms.size() * 95 / 100];
}
const nlohmann::json kNatural = {{"search", "undead that drains life"}, {"limit", 10}};
const nlohmann::json kNaturalFiltered = {{"search", "undead that drains life"}, {"cr_max", 10}, {"limit", 10}};
// A long description, as the third-party eval sets write them: 29 tokens with [CLS] and [SEP].
const nlohmann::json kLongDescription = {
    {"search",
     "a small winged serpent spirit that coils around travelers at crossroads and whispers riddles, striking with a "
     "venomous bite when they answer wrongly"},
    {"limit", 10}};
void BM_SearchLexical(benchmark::State& s) {
  tool_with_ranking(s, lorekeeper::tools::Ranking::kLexical, kNatural, "search_creature");
}
// A misspelt name: every name is compared with the query (banded edit distance) to find the nearest.
void BM_SearchTypo(benchmark::State& s) {
  tool_with_ranking(s, lorekeeper::tools::Ranking::kLexical, {{"search", "theives tools"}, {"limit", 10}},
                    "search_equipment");
}
// The same with an attribute filter: the text is ranked by the FTS5 query under the filter, not in memory.
void BM_SearchLexicalFiltered(benchmark::State& s) {
  tool_with_ranking(s, lorekeeper::tools::Ranking::kLexical, kNaturalFiltered, "search_creature");
}
void BM_SearchSemantic(benchmark::State& s) {
  tool_with_ranking(s, lorekeeper::tools::Ranking::kSemantic, kNatural, "search_creature");
}
void BM_SearchHybrid(benchmark::State& s) {
  tool_with_ranking(s, lorekeeper::tools::Ranking::kHybrid, kNatural, "search_creature");
}
void BM_SearchHybridLong(benchmark::State& s) {
  tool_with_ranking(s, lorekeeper::tools::Ranking::kHybrid, kLongDescription, "search_creature");
}
void BM_SearchHybridFiltered(benchmark::State& s) {
  tool_with_ranking(s, lorekeeper::tools::Ranking::kHybrid, kNaturalFiltered, "search_creature");
}
// Top-100 over the full corpus's index as a search meets it: right after a query encoding has streamed the
// encoder's weights through the caches. Arg 0 times the scan alone, arg 1 the encoding too.
void BM_TopKAfterEncode(benchmark::State& state) {
  if (!encoder()) {
    state.SkipWithError("no model (run scripts/setup.sh)");
    return;
  }
  static std::shared_ptr<lorekeeper::search::Semantic> semantic = [] {
    auto s = std::make_shared<lorekeeper::search::Semantic>(lorekeeper::embed::default_model_dir());
    if (s->has_model()) (void)s->reload(store(), true);
    return s;
  }();
  const auto ix = semantic->index();
  if (!ix) {
    state.SkipWithError("no embedding index in the bench store (scripts/bench.sh runs lorekeeper index)");
    return;
  }
  const auto ids = encoder()->tokenizer().encode("undead that drains life");
  std::vector<double> ms;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<float> q = encoder()->encode_ids(ids, lorekeeper::embed::Encoder::Precision::kQuery);
    const auto t1 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(ix->top_k(q.data(), nullptr, 100));
    const auto t2 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t2 - (state.range(0) ? t0 : t1)).count());
  }
  std::sort(ms.begin(), ms.end());
  state.counters["p50_ms"] = ms[ms.size() / 2];
  state.counters["p95_ms"] = ms[ms.size() * 95 / 100];
  state.counters["vectors"] = static_cast<double>(ix->passage_count());
}
BENCHMARK(BM_TopKAfterEncode)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_SearchLexical)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SearchLexicalFiltered)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SearchTypo)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SearchSemantic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SearchHybrid)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SearchHybridFiltered)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SearchHybridLong)->Unit(benchmark::kMillisecond);

// --- OrcBrew import: parse speed of a large pack (scripts/make-large-orcbrew.py; bench.sh writes it) ---

const std::string& large_pack() {
  static const std::string text = [] {
    const char* p = std::getenv("LOREKEEPER_BENCH_ORCBREW");
    std::ifstream in(p ? p : "build/bench/large.orcbrew", std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  return text;
}

// The EDN reader alone.
void BM_EdnParseLargePack(benchmark::State& state) {
  const std::string& text = large_pack();
  if (text.empty()) {
    state.SkipWithError("no large pack: run scripts/bench.sh (or set LOREKEEPER_BENCH_ORCBREW)");
    return;
  }
  for (auto _ : state) {
    auto v = lorekeeper::edn::parse(text);
    if (!v) state.SkipWithError(v.status().to_string().c_str());
    benchmark::DoNotOptimize(v);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_EdnParseLargePack)->Unit(benchmark::kMillisecond);

// Reading and mapping to entities (what `import` does before writing to the store).
void BM_OrcbrewReadLargePack(benchmark::State& state) {
  const std::string& text = large_pack();
  if (text.empty()) {
    state.SkipWithError("no large pack: run scripts/bench.sh (or set LOREKEEPER_BENCH_ORCBREW)");
    return;
  }
  size_t entities = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::string copy = text;  // read_orcbrew takes the text and frees it once parsed
    state.ResumeTiming();
    auto f = lorekeeper::orcbrew::read_orcbrew(std::move(copy), "large.orcbrew");
    if (!f) state.SkipWithError(f.status().to_string().c_str());
    entities = f ? f->entities.size() : 0;
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["entities"] = static_cast<double>(entities);
}
BENCHMARK(BM_OrcbrewReadLargePack)->Unit(benchmark::kMillisecond);

}  // namespace
