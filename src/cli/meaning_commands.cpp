#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "command.hpp"
#include "eval.hpp"
#include "lorekeeper/core/sha256.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/precomputed.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/serve/embedder.hpp"
#include "lorekeeper/serve/engines.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::cli {

namespace {

using json = nlohmann::json;
using serve::make_engine;
using serve::make_long_lived_engine;
using serve::make_semantic;
using serve::seed_bundled_vectors;

// The embedding model, or null after saying on stderr, for `command`, why it cannot be loaded and how to install it.
std::unique_ptr<embed::Encoder> load_encoder(const char* command) {
  auto encoder = embed::Encoder::load(embed::default_model_dir());
  if (encoder) return std::move(*encoder);
  std::fprintf(stderr, "lorekeeper %s: %s\nInstall the model with scripts/setup.sh (or set LOREKEEPER_MODEL_DIR).\n",
               command, encoder.status().to_string().c_str());
  return nullptr;
}

int cmd_embed(const std::vector<std::string>& texts, bool as_json) {
  const auto encoder = load_encoder("embed");
  if (!encoder) return 1;
  json all = json::array();
  std::string readable;
  for (const auto& t : texts) {
    const auto ids = encoder->tokenizer().encode(t);
    const auto vec = encoder->encode_ids(ids);
    all.push_back({{"text", t}, {"ids", ids}, {"vector", vec}});
    readable += "\"" + t + "\": " + std::to_string(ids.size()) + " tokens " + json(ids).dump() + "\n  [";
    for (size_t i = 0; i < 6; ++i) readable += (i ? ", " : "") + text::format_number(std::round(vec[i] * 1e6) / 1e6);
    readable += ", ...] (" + std::to_string(vec.size()) + " dimensions)\n";
  }
  out(as_json ? all.dump() + "\n" : readable);
  return 0;
}

// Writes the store's vectors as a precomputed set (search/precomputed.hpp): data/open5e-vectors.bin is made this
// way from a store holding the bundled snapshot alone (scripts/make-vectors.sh).
Status export_vectors(store::Store& st, const std::string& path) {
  auto rows = st.vectors(search::kModelId, true);
  if (!rows) return rows.status();
  auto model_sha = sha256::file_hex(embed::default_model_dir() + "/model.safetensors");
  if (!model_sha) return model_sha.status();
  auto bytes = search::serialize_precomputed(*rows, search::kModelId, *model_sha, embed::kDimensions);
  if (!bytes) return bytes.status();
  const std::string tmp = path + ".part";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    f.close();
    if (!f) return Status::io_error("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::io_error("cannot rename " + tmp + " to " + path + ": " + ec.message());
  return Status::ok();
}

int cmd_index(const Config& cfg, int threads, bool quiet, bool as_json, bool recompute, const std::string& export_to) {
  const auto encoder = load_encoder("index");
  if (!encoder) return 1;
  auto opened = store::Store::open(cfg.db_path, store::Store::Mode::kExistingOnly);
  if (!opened) {
    std::fprintf(stderr, "lorekeeper index: %s\nFill the store first: lorekeeper sync --source bundled\n",
                 opened.status().message().c_str());
    return 1;
  }
  search::IndexOptions options;
  options.threads = threads > 0 ? threads : cfg.embed_threads;
  options.max_passages = cfg.embed_passages;
  options.recompute = recompute;
  if (recompute) options.precomputed = nullptr;
  static std::atomic<bool> stop{false};
  std::signal(SIGINT, [](int) { stop = true; });
  std::signal(SIGTERM, [](int) { stop = true; });
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto progress = [&](const search::IndexProgress& p) {
    if (quiet) return;
    const double rate = p.seconds > 0 ? static_cast<double>(p.tokens_done) / p.seconds : 0;
    const double per_entity = p.entities_done > 0 ? p.seconds / static_cast<double>(p.entities_done) : 0;
    const double eta = per_entity * static_cast<double>(p.entities_todo - p.entities_done);
    std::fprintf(stderr, "%sembedded %zu/%zu entities, %.0f tokens/s, ETA %.0f s%s", tty ? "\r\033[K" : "",
                 p.entities_done, p.entities_todo, rate, eta, tty ? "" : "\n");
  };
  auto report = search::update_vectors(**opened, *encoder, options, progress, &stop);
  if (tty && !quiet) std::fprintf(stderr, "\r\033[K");
  if (!report) {
    std::fprintf(stderr, "lorekeeper index: %s (vectors written so far are kept)\n",
                 report.status().to_string().c_str());
    return 1;
  }
  const auto& p = report->progress;
  if (!export_to.empty() && !report->interrupted) {
    if (Status exported = export_vectors(**opened, export_to); !exported.is_ok()) {
      std::fprintf(stderr, "lorekeeper index: exporting the vectors failed: %s\n", exported.to_string().c_str());
      return 1;
    }
  }
  json j = {{"entities", p.entities_total},
            {"embedded_now", p.entities_done},
            {"needed", p.entities_todo},
            {"precomputed", p.entities_precomputed},
            {"up_to_date", p.entities_total - p.entities_todo - p.entities_precomputed},
            {"pruned", report->pruned},
            {"tokens", p.tokens_done},
            {"seconds", std::round(p.seconds * 100) / 100},
            {"threads", options.threads},
            {"passages_per_entity", options.max_passages},
            {"interrupted", report->interrupted}};
  if (as_json) {
    out(j.dump(2) + "\n");
  } else {
    out("Embedded " + std::to_string(p.entities_done) + " of " + std::to_string(p.entities_todo) +
        " entities needing it (" + std::to_string(p.entities_total - p.entities_todo - p.entities_precomputed) +
        " of " + std::to_string(p.entities_total) + " were up to date, " + std::to_string(p.entities_precomputed) +
        " took the bundled vectors) in " + text::format_number(std::round(p.seconds * 10) / 10) + " s, " +
        std::to_string(p.tokens_done) + " tokens, " + std::to_string(options.threads) + " thread(s)." +
        (report->interrupted ? " Interrupted: run `lorekeeper index` again to resume." : "") +
        (export_to.empty() || report->interrupted ? "" : " Vectors written to " + export_to + ".") + "\n");
  }
  return report->interrupted ? 130 : 0;
}

int cmd_eval(const Config& cfg, const std::string& file, const std::string& ranking, bool as_json) {
  tools::Engine base = make_engine(cfg);
  // The figures are only worth having from the engine a user gets: the meaning index must cover every entity
  // (a half-built one would rank part of the corpus by meaning and the rest by words alone).
  auto semantic = make_semantic(cfg);
  std::string why_not;
  store::Store* st = base.store(&why_not);
  if (st == nullptr) {
    std::fprintf(stderr, "lorekeeper eval: %s\n", why_not.c_str());
    return 1;
  }
  if (ranking != "lexical") {
    if (!semantic || !semantic->has_model()) {
      std::fprintf(stderr, "lorekeeper eval: %s\n",
                   semantic ? semantic->notice().c_str() : "meaning-based search is off (LOREKEEPER_EMBED=off)");
      return 1;
    }
    auto coverage = search::vector_coverage(*st, semantic->max_passages());
    if (!coverage) {
      std::fprintf(stderr, "lorekeeper eval: %s\n", coverage.status().to_string().c_str());
      return 1;
    }
    if (coverage->embedded != coverage->entities) {
      std::fprintf(stderr,
                   "lorekeeper eval: the meaning index covers %zu of %zu entities; run `lorekeeper index` first "
                   "(or --ranking lexical)\n",
                   coverage->embedded, coverage->entities);
      return 1;
    }
    // Coverage was just checked (hashing every entity's passages); the reload need not check it again.
    Status loaded = semantic->reload(*st, true);
    if (!loaded.is_ok() || !semantic->index()) {
      std::fprintf(stderr, "lorekeeper eval: the meaning index cannot be loaded: %s\n",
                   loaded.is_ok() ? semantic->notice().c_str() : loaded.to_string().c_str());
      return 1;
    }
    std::fprintf(stderr, "lorekeeper eval: model %s, %zu vectors for %zu of %zu entities\n", search::kModelId,
                 semantic->index()->passage_count(), semantic->index()->size(), coverage->entities);
  }
  std::vector<std::pair<std::string, tools::Ranking>> modes;
  if (ranking == "hybrid" || ranking == "all") modes.push_back({"hybrid", tools::Ranking::kHybrid});
  if (ranking == "lexical" || ranking == "all") modes.push_back({"lexical", tools::Ranking::kLexical});
  if (ranking == "semantic" || ranking == "all") modes.push_back({"semantic", tools::Ranking::kSemantic});
  std::vector<tools::Engine> engines;
  engines.reserve(modes.size());
  std::vector<std::pair<std::string, tools::Engine*>> runs;
  for (const auto& [label, mode] : modes) {
    engines.push_back(make_long_lived_engine(cfg, semantic));
    engines.back().set_ranking(mode);
    runs.push_back({label, &engines.back()});
  }
  return run_eval(file, runs, as_json);
}

class EmbedCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* embed = app.add_subcommand("embed", "Token ids and sentence embeddings (all-MiniLM-L6-v2) of texts");
    embed->add_option("text", texts_, "Texts to embed")->required();
    embed->add_flag("--json", as_json_, "Print [{text, ids, vector}] as JSON");
    return embed;
  }
  int run(Config&) override { return cmd_embed(texts_, as_json_); }

 private:
  std::vector<std::string> texts_;
  bool as_json_ = false;
};

class IndexCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* index = app.add_subcommand(
        "index", "Embed the entities for meaning-based search (only those changed since the last run; resumable)");
    index->add_option("--threads", threads_, "Encoder threads (default: $LOREKEEPER_EMBED_THREADS or 1)")
        ->check(CLI::Range(1, 64));
    index->add_flag("--quiet", quiet_, "No progress output");
    index->add_flag("--json", as_json_, "Print the report as JSON");
    index->add_flag("--recompute", recompute_,
                    "Embed every entity with the model, ignoring stored and bundled vectors");
    index->add_option("--export", export_,
                      "Then write the store's vectors to FILE as a precomputed set (data/open5e-vectors.bin)");
    return index;
  }
  int run(Config& cfg) override { return cmd_index(cfg, threads_, quiet_, as_json_, recompute_, export_); }

 private:
  int threads_ = 0;
  bool quiet_ = false;
  bool as_json_ = false;
  bool recompute_ = false;
  std::string export_;
};

class EvalCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* eval = app.add_subcommand("eval", "Run a search evaluation set (JSONL) and report hit@k and MRR@10");
    eval->add_option("file", file_, "Evaluation set (tests/eval/queries.jsonl; format in its README)")->required();
    eval->add_option("--ranking", ranking_, "hybrid, lexical, semantic or all")
        ->check(CLI::IsMember({"hybrid", "lexical", "semantic", "all"}));
    eval->add_flag("--json", as_json_, "Print the metrics (and every row's rank) as JSON");
    return eval;
  }
  int run(Config& cfg) override { return cmd_eval(cfg, file_, ranking_, as_json_); }

 private:
  std::string file_;
  std::string ranking_ = "hybrid";
  bool as_json_ = false;
};

}  // namespace

std::unique_ptr<Command> embed_command() { return std::make_unique<EmbedCommand>(); }
std::unique_ptr<Command> index_command() { return std::make_unique<IndexCommand>(); }
std::unique_ptr<Command> eval_command() { return std::make_unique<EvalCommand>(); }

}  // namespace lorekeeper::cli
