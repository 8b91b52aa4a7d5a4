// `lorekeeper eval`: runs a JSONL evaluation set through the tools and reports, per category of query, hit@k
// and MRR@10 (and, for queries that should find nothing, how often the answer was empty).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::cli {

// Runs every row of `file` through each (label, engine) pair and prints the metrics; returns the exit code
// (2 when the file cannot be read or a row is malformed).
int run_eval(const std::string& file, const std::vector<std::pair<std::string, tools::Engine*>>& engines, bool as_json);

}  // namespace lorekeeper::cli
