// The game master's arithmetic: exact dice distributions at everyday sizes and at the limits parse_dice accepts.
#include <benchmark/benchmark.h>

#include "lorekeeper/gm/dice.hpp"

namespace {

void BM_DiceDistribution(benchmark::State& state, const char* notation) {
  auto expr = lorekeeper::gm::parse_dice(notation);
  if (!expr) {
    state.SkipWithError(expr.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto d = lorekeeper::gm::distribution(*expr);
    benchmark::DoNotOptimize(d);
  }
}

BENCHMARK_CAPTURE(BM_DiceDistribution, 8d6, "8d6")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DiceDistribution, 4d6kh3, "4d6kh3")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DiceDistribution, 1000d1000, "1000d1000")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DiceDistribution, 100d1000kh50, "100d1000kh50")->Unit(benchmark::kMillisecond);

}  // namespace
