#include "lorekeeper/cli/app.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "eval.hpp"
#include "import.hpp"
#include "lookup.hpp"
#include "lorekeeper/core/config.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/sha256.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/open5e/page_source.hpp"
#include "lorekeeper/open5e/sync.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/precomputed.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/serve/engines.hpp"
#include "lorekeeper/serve/refresh.hpp"
#include "lorekeeper/serve/serve.hpp"
#include "lorekeeper/store/files.hpp"
#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"
#include "model_fetch.hpp"
#include "table_calls.hpp"

namespace lorekeeper::cli {

namespace {

using json = nlohmann::json;

constexpr const char* kVersion = LOREKEEPER_VERSION;

using serve::age_of;
using serve::make_engine;
using serve::make_long_lived_engine;
using serve::make_semantic;
using serve::one_shot_semantic;
using serve::open_source;
using serve::recently_failed_endpoints;
using serve::record_endpoint_failures;
using serve::seed_bundled_vectors;

void out(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

int cmd_status(const Config& cfg, bool as_json) {
  json j = {{"version", kVersion}, {"db_path", cfg.db_path}, {"config_origin", cfg.origin}};
  // The whole file is checked: a damaged store reads back wrong counts without an error.
  auto opened = store::Store::open_checked(cfg.db_path, store::Store::Mode::kExistingOnly);
  if (!opened) {
    const StatusCode code = opened.status().code();
    const bool missing = code == StatusCode::kNotFound;
    const std::string hint =
        missing ? "Fill the store with: lorekeeper sync --source bundled (offline), or lorekeeper sync (live API)"
        : code == StatusCode::kInvalidArgument
            ? "Point LOREKEEPER_DB_PATH (or --db) at a LoreKeeper store, or at a new file"
        : code == StatusCode::kCorruption
            ? "Move the damaged file aside and rebuild the store with: lorekeeper sync --source bundled --move-aside"
            : "The file could not be read or written (see above); the store itself may be intact";
    j["store"] = {{"state", missing                           ? "missing"
                            : code == StatusCode::kCorruption ? "damaged"
                                                              : "unreadable"},
                  {"error", opened.status().message()}};
    j["hint"] = hint;
    if (as_json) {
      out(j.dump(2) + "\n");
    } else {
      out("LoreKeeper " + std::string(kVersion) + "\nStore: " + cfg.db_path + "\n  " +
          (missing                           ? "empty: no store has been created yet."
           : code == StatusCode::kCorruption ? "damaged: " + opened.status().message()
                                             : "unreadable: " + opened.status().message()) +
          "\n  " + hint + "\n");
    }
    return missing ? 0 : 1;
  }
  auto stats = (*opened)->stats();
  if (!stats) {
    std::fprintf(stderr, "lorekeeper: %s\n", stats.status().to_string().c_str());
    return 1;
  }
  json sources = json::object();
  for (const auto& [k, v] : stats->meta) {
    if (k.rfind("synced_at:", 0) == 0) {
      sources[k.substr(10)]["synced_at"] = v;
      sources[k.substr(10)]["age"] = age_of(v);
    } else if (k.rfind("source:", 0) == 0) {
      sources[k.substr(7)]["from"] = v;
    } else if (k.rfind("sync_report:", 0) == 0) {
      sources[k.substr(12)]["report"] = json_util::parse(v, nullptr).value_or(json());
    } else if (k.rfind("failed_unix:", 0) == 0 && !v.empty()) {
      j["failing_endpoints"][k.substr(12)] = std::atoll(v.c_str());
    }
  }
  j["store"] = {{"state", stats->total > 0 ? "ready" : "empty"},
                {"schema_version", (*opened)->schema_version()},
                {"entities", stats->total},
                {"per_kind", stats->per_kind},
                {"per_document", stats->per_document},
                {"sources", sources}};
  {
    const std::string dir = embed::default_model_dir();
    auto enc = embed::Encoder::load(dir);
    j["model"] = {{"name", search::kModelId}, {"dir", dir}, {"state", enc ? "ready" : "unavailable"}};
    if (!enc) j["model"]["error"] = enc.status().to_string();
    auto coverage = search::vector_coverage(**opened, cfg.embed_passages);
    if (coverage) {
      std::string state = "ready";
      if (cfg.embed == "off") {
        state = "off (LOREKEEPER_EMBED=off)";
      } else if (!enc) {
        state = "unavailable (no model)";
      } else if (coverage->embedded != coverage->entities) {
        state = cfg.embed == "stored"
                    ? "incomplete: run `lorekeeper index` (serve embeds nothing with LOREKEEPER_EMBED=stored)"
                    : "incomplete: run `lorekeeper index`, or serve embeds in the background";
      }
      j["vectors"] = {{"entities", coverage->entities},
                      {"embedded", coverage->embedded},
                      {"passages_per_entity", cfg.embed_passages},
                      {"semantic_search", state}};
    }
  }
  if (as_json) {
    out(j.dump(2) + "\n");
    return 0;
  }
  std::string s = "LoreKeeper " + std::string(kVersion) + "\nStore: " + cfg.db_path + " (schema v" +
                  std::to_string((*opened)->schema_version()) + ")\n";
  s += "  " + std::to_string(stats->total) + " entities\n";
  if (stats->total == 0) s += "  Fill it with: lorekeeper sync --source bundled (offline), or lorekeeper sync\n";
  for (const auto& [src, info] : sources.items()) {
    s += "  source " + src + ": synced " + info.value("synced_at", "?") + " (" + info.value("age", "?") + " ago)" +
         (info.contains("from") ? " from " + info["from"].get<std::string>() : "") + "\n";
    if (info.contains("report") && info["report"].is_object()) {
      const json& r = info["report"];
      s += "    skipped records: " + std::to_string(r.value("skipped", json::array()).size()) +
           ", failed endpoints: " + std::to_string(r.value("failed", json::array()).size()) +
           " (details: lorekeeper status --json)\n";
    }
  }
  s += "Per kind:\n";
  for (const auto& [k, n] : stats->per_kind) s += "  " + k + ": " + std::to_string(n) + "\n";
  s += "Per document:\n";
  for (const auto& [k, n] : stats->per_document) s += "  " + k + ": " + std::to_string(n) + "\n";
  s += "Embedding model: " + j["model"]["state"].get<std::string>() + " (" + j["model"]["dir"].get<std::string>() +
       ")\n";
  if (j.contains("vectors")) {
    s += "Vectors: " + std::to_string(j["vectors"]["embedded"].get<size_t>()) + " of " +
         std::to_string(j["vectors"]["entities"].get<size_t>()) +
         " entities embedded; meaning-based search: " + j["vectors"]["semantic_search"].get<std::string>() + "\n";
  }
  out(s);
  return 0;
}

// Progress of a sync: on a terminal one live line (endpoint n of N, pages, records of the announced count, overall
// rate, ETA for the endpoint); otherwise one plain line per page.
class Progress {
 public:
  explicit Progress(bool quiet)
      : quiet_(quiet),
        tty_(isatty(STDERR_FILENO) != 0),
        endpoints_(open5e::sync_endpoints().size()),
        start_(std::chrono::steady_clock::now()) {}
  void update(const std::string& endpoint, int pages, int records, int expected) {
    if (quiet_) return;
    if (endpoint != endpoint_) {
      done_records_ += last_records_;
      endpoint_ = endpoint;
      ++index_;
    }
    last_records_ = records;
    if (!tty_) {
      std::fprintf(stderr, "sync %s: page %d, %d/%d records\n", endpoint.c_str(), pages, records, expected);
      return;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = secs > 0.01 ? (done_records_ + records) / secs : 0;
    const int width = 20;
    const double frac = expected > 0 ? std::min(1.0, static_cast<double>(records) / expected) : 1.0;
    const int filled = static_cast<int>(frac * width);
    const std::string bar =
        std::string(static_cast<size_t>(filled), '=') + std::string(static_cast<size_t>(width - filled), ' ');
    std::string eta;
    if (rate > 0 && expected > records)
      eta = "  ETA " + text::format_number(std::ceil((expected - records) / rate)) + " s";
    std::fprintf(stderr, "\r\033[K[%s] %2zu/%zu %-19s %3d pages %6d/%-6d records %7.0f rec/s%s", bar.c_str(), index_,
                 endpoints_, endpoint.c_str(), pages, records, expected, rate, eta.c_str());
  }
  void done() {
    if (!quiet_ && tty_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool quiet_;
  bool tty_;
  size_t endpoints_;
  size_t index_ = 0;
  std::string endpoint_;
  int done_records_ = 0;
  int last_records_ = 0;
  std::chrono::steady_clock::time_point start_;
};

int cmd_sync(const Config& cfg, std::string source, bool force, bool quiet, int page_size, bool accept_incomplete,
             bool move_damaged_aside, bool as_json) {
  if (source.empty()) source = cfg.open5e_base_url;
  auto src = open_source(cfg, source);
  if (!src) {
    std::fprintf(stderr, "lorekeeper sync: %s\n", src.status().message().c_str());
    return 2;
  }
  if (auto dangling = store::dangling_link(cfg.db_path)) {
    std::fprintf(stderr, "lorekeeper sync: %s\n", dangling->c_str());
    return 1;
  }
  std::error_code ec;
  bool existed = std::filesystem::exists(cfg.db_path, ec);
  // An existing store is checked whole before it is trusted: a damaged one must be neither taken as fresh nor
  // written into.
  Result<std::unique_ptr<store::Store>> opened =
      existed ? store::Store::open_checked(cfg.db_path, store::Store::Mode::kReadWrite)
              : Result<std::unique_ptr<store::Store>>(Status::not_found(cfg.db_path));
  if (!opened && existed && move_damaged_aside && opened.status().code() != StatusCode::kIoError) {
    auto moved = store::move_aside(cfg.db_path);
    if (!moved) {
      std::fprintf(stderr, "lorekeeper sync: %s\n", moved.status().message().c_str());
      return 1;
    }
    std::fprintf(stderr, "Moved the unusable store (%s) to %s; building a new one.\n",
                 opened.status().message().c_str(), moved->c_str());
    existed = false;
  }
  if (!opened && existed) {
    std::fprintf(stderr, "lorekeeper sync: %s\n", opened.status().message().c_str());
    if (opened.status().code() == StatusCode::kCorruption) {
      std::fprintf(stderr, "Nothing was changed. To rebuild it: lorekeeper sync --source bundled --move-aside\n");
    }
    return 1;
  }
  // A new store is built in a private file and linked into place when complete (store/files.hpp): a sync that is
  // interrupted leaves no store behind, never an empty one.
  if (existed) store::remove_stale_builds(cfg.db_path);
  const std::string built_path = existed ? cfg.db_path : store::begin_private_build(cfg.db_path, "sync");
  if (!existed) {
    opened = store::Store::open(built_path, store::Store::Mode::kReadWrite);
    if (!opened) {
      std::fprintf(stderr, "lorekeeper sync: %s\n", opened.status().message().c_str());
      store::remove_store_files(built_path);
      return 1;
    }
  }
  store::Store& st = **opened;
  // Freshness: the same source synced less than the TTL ago is not fetched again unless forced.
  const open5e::LastSync last = open5e::last_sync(st);
  if (!force && last.unix_time > 0 && !last.source.empty()) {
    const bool same = (*src)->describe() == last.source;
    if (same && !serve::is_stale(cfg, last.unix_time)) {
      std::fprintf(stderr,
                   "The store is fresh: synced from %s %s ago (LOREKEEPER_CACHE_TTL_DAYS=%d). Use --force to sync "
                   "anyway.\n",
                   last.source.c_str(), age_of(last.at).c_str(), cfg.cache_ttl_days);
      return 0;
    }
  }
  open5e::SyncOptions options;
  options.page_size = page_size;
  options.accept_incomplete = accept_incomplete;
  if (!force) options.skip_endpoints = recently_failed_endpoints(cfg, st);
  Progress progress(quiet);
  options.progress = [&](const std::string& ep, int pages, int records, int expected) {
    progress.update(ep, pages, records, expected);
  };
  auto report = open5e::sync(**src, st, options);
  progress.done();
  if (!report) {
    if (!existed) {
      opened->reset();  // closed before its file is deleted
      store::remove_store_files(built_path);
      std::fprintf(stderr, "lorekeeper sync failed: %s\nNo store was created.\n", report.status().message().c_str());
    } else {
      std::fprintf(stderr, "lorekeeper sync failed: %s\nThe store was left as it was.\n",
                   report.status().message().c_str());
    }
    return 1;
  }
  record_endpoint_failures(st, *report, options);
  seed_bundled_vectors(cfg, st);
  const std::string log_failure = st.checkpoint_failure();
  if (!existed) {
    // The new store is placed only whole: its log folded into the file, then closed and linked.
    auto placed = store::place_built_store(std::move(*opened), built_path, cfg.db_path);
    if (!placed) {
      std::fprintf(stderr, "lorekeeper sync failed: %s\nNo store was created.\n", placed.status().message().c_str());
      return 1;
    }
    if (!*placed) {
      std::fprintf(stderr,
                   "lorekeeper sync: another process created a store at %s during this sync; that store was kept "
                   "and this sync's copy removed\n",
                   cfg.db_path.c_str());
      return 1;
    }
  }
  if (as_json) out(open5e::report_json(*report) + "\n");
  std::string s = "Synced " + std::to_string(report->total_entities()) + " entities from " + report->source + " in " +
                  text::format_number(std::round(report->seconds * 100) / 100) + " s (" +
                  std::to_string(report->pages) + " pages).\n";
  for (const auto& [k, n] : report->entities) s += "  " + k + ": " + std::to_string(n) + "\n";
  s += "  documents: " + std::to_string(report->per_document.size()) + "\n";
  if (report->duplicates > 0) s += "  duplicate records ignored: " + std::to_string(report->duplicates) + "\n";
  if (report->merged_items > 0) {
    s += "  gear records folded into their weapon or armor: " + std::to_string(report->merged_items) + "\n";
  }
  if (report->v1_covered > 0) {
    s += "  v1 records already in v2 (not stored twice): " + std::to_string(report->v1_covered) + "\n";
  }
  if (report->corrections > 0) {
    s += "  record errors corrected: " + std::to_string(report->corrections) + " (their answers say what and why)\n";
  }
  for (const auto& c : report->corrections_unapplied) {
    s += "  correction not applied: " + c + "\n";
  }
  if (!report->missing_endpoints.empty()) {
    s += "  endpoints the source does not have: " + text::join(report->missing_endpoints, ", ") + "\n";
  }
  if (!report->skipped.empty()) {
    s += "  skipped records: " + std::to_string(report->skipped.size()) + "\n";
    for (const auto& k : report->skipped) s += "    " + k.endpoint + " " + k.key + ": " + k.reason + "\n";
  }
  for (const auto& f : report->failed) s += "  FAILED " + f.endpoint + " (previous data kept): " + f.error + "\n";
  for (const auto& a : report->accepted_incomplete) {
    s += "  ACCEPTED " + a.endpoint + " as it is (--accept-incomplete): " + a.error + "\n";
  }
  if (!log_failure.empty()) {
    s += "  note: " + log_note(cfg.db_path, log_failure) + "\n";
  }
  if (!report->skipped_recent_failures.empty()) {
    s += "  not retried (failed less than " + std::to_string(cfg.error_cache_ttl_seconds) +
         " s ago; --force to retry): " + text::join(report->skipped_recent_failures, ", ") + "\n";
  }
  std::fputs(s.c_str(), stderr);
  return report->failed.empty() ? 0 : 1;
}

int print_tool_result(const tools::ToolResult& r, bool as_json) {
  if (r.is_error) {
    std::fprintf(stderr, "lorekeeper: %s\n", r.text.c_str());
    return 1;
  }
  out(as_json ? r.structured.dump(2) + "\n" : r.text);
  return 0;
}

int cmd_search(const Config& cfg, const SearchRequest& request, Output output) {
  if (auto call = search_call(request); !call) {  // a usage error is found before the store is opened
    std::fprintf(stderr, "lorekeeper search: %s\n", call.status().message().c_str());
    return 2;
  }
  tools::Engine engine = make_engine(cfg);
  engine.set_semantic(one_shot_semantic(cfg, engine));
  return run_search(engine, request, output);
}

int cmd_get(const Config& cfg, const std::string& key_or_name, const std::string& kind, bool include_source,
            Output output) {
  tools::Engine engine = make_engine(cfg);
  engine.set_semantic(one_shot_semantic(cfg, engine));
  return run_get(engine, key_or_name, kind, include_source, output);
}

int cmd_documents(const Config& cfg, const std::string& source, bool as_json) {
  tools::Engine engine = make_engine(cfg);
  json args = json::object();
  if (!source.empty()) args["source"] = source;
  return print_tool_result(engine.call("list_documents", args), as_json);
}

int cmd_tool(const Config& cfg, const std::string& name, const std::string& args_text, bool as_json) {
  if (tools::find_tool(name, cfg.legacy_tools) == nullptr) {
    std::vector<std::string> names;
    for (const auto* s : tools::tool_specs(cfg.legacy_tools)) names.push_back(s->name);
    std::fprintf(stderr, "lorekeeper tool: unknown tool '%s'. Tools: %s\n", name.c_str(),
                 text::join(names, ", ").c_str());
    return 2;
  }
  std::string why;
  auto parsed = args_text.empty() ? std::optional<json>(json::object()) : json_util::parse(args_text, &why);
  if (!parsed || !parsed->is_object()) {
    std::fprintf(stderr, "lorekeeper tool: ARGS must be a JSON object%s\n", parsed ? "" : (" (" + why + ")").c_str());
    return 2;
  }
  const json& args = *parsed;
  tools::Engine engine = make_engine(cfg);
  engine.set_semantic(one_shot_semantic(cfg, engine));
  return print_tool_result(engine.call(name, args), as_json);
}

// One tool call a command line made (roll, encounter, spells, odds), printed as `lorekeeper tool` prints it.
int cmd_call(const Config& cfg, const ToolCall& call, bool as_json) {
  tools::Engine engine = make_engine(cfg);
  return print_tool_result(engine.call(call.tool, call.args), as_json);
}

int cmd_embed(const std::vector<std::string>& texts, bool as_json) {
  auto encoder = embed::Encoder::load(embed::default_model_dir());
  if (!encoder) {
    std::fprintf(stderr,
                 "lorekeeper embed: %s\nInstall the model with scripts/setup.sh (or set LOREKEEPER_MODEL_DIR).\n",
                 encoder.status().to_string().c_str());
    return 1;
  }
  json all = json::array();
  std::string readable;
  for (const auto& t : texts) {
    const auto ids = (*encoder)->tokenizer().encode(t);
    const auto vec = (*encoder)->encode_ids(ids);
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
  auto encoder = embed::Encoder::load(embed::default_model_dir());
  if (!encoder) {
    std::fprintf(stderr,
                 "lorekeeper index: %s\nInstall the model with scripts/setup.sh (or set LOREKEEPER_MODEL_DIR).\n",
                 encoder.status().to_string().c_str());
    return 1;
  }
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
  auto report = search::update_vectors(**opened, **encoder, options, progress, &stop);
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

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"LoreKeeper: D&D 5e reference content for AI assistants, over MCP and on the command line.",
               "lorekeeper"};
  app.set_version_flag("--version", std::string("lorekeeper ") + kVersion);
  app.require_subcommand(1);
  std::string db_flag;
  std::string log_level_flag;
  std::string env_file = ".env";
  app.add_option("--db", db_flag,
                 "Store file (default: $LOREKEEPER_DB_PATH, else $XDG_DATA_HOME/lorekeeper/lorekeeper.db)");
  app.add_option("--log-level", log_level_flag,
                 "debug, info, warning, error or off (default: $LOREKEEPER_LOG_LEVEL or info)");
  app.add_option("--env-file", env_file, "Settings file read before the environment (default: ./.env)");
  app.footer(
      "Settings, highest precedence first: flags, LOREKEEPER_* environment variables, the .env file, defaults.\n"
      "Environment: LOREKEEPER_DB_PATH, LOREKEEPER_LOG_LEVEL, LOREKEEPER_ENV_FILE, LOREKEEPER_OPEN5E_BASE_URL,\n"
      "LOREKEEPER_CACHE_TTL_DAYS, LOREKEEPER_ERROR_CACHE_TTL_SECONDS, LOREKEEPER_LEGACY_TOOLS.");

  std::string auto_sync;
  bool legacy_tools_flag = false;
  bool serve_http_flag = false;
  std::string http_host_flag;
  int http_port_flag = -1;
  std::string http_token_flag;
  std::vector<std::string> http_allowed_host_flags;
  std::vector<std::string> http_cors_origin_flags;
  int http_threads_flag = 0;
  auto* serve = app.add_subcommand(
      "serve", "Serve MCP over stdio (the default transport of MCP hosts), or over Streamable HTTP with --http");
  serve->add_flag("--http", serve_http_flag,
                  "Serve Streamable HTTP on http://HOST:PORT/mcp (both protocol eras; GET /health) instead of stdio");
  serve->add_option("--host", http_host_flag,
                    "Address to bind with --http (default: $LOREKEEPER_HTTP_HOST or 127.0.0.1); any other than "
                    "loopback requires a token");
  serve
      ->add_option("--port", http_port_flag,
                   "Port with --http; 0 picks a free one (default: $LOREKEEPER_HTTP_PORT or 8080)")
      ->check(CLI::Range(0, 65535));
  serve->add_option("--token", http_token_flag,
                    "Bearer token clients must send with --http (default: $LOREKEEPER_HTTP_TOKEN; prefer the "
                    "variable: flags are visible to other local users)");
  serve->add_option("--allowed-host", http_allowed_host_flags,
                    "Extra Host header value accepted with --http, \"name\" or \"name:port\" (repeatable; default: "
                    "$LOREKEEPER_HTTP_ALLOWED_HOSTS, comma-separated)");
  serve->add_option("--cors-origin", http_cors_origin_flags,
                    "Browser origin allowed to call with --http, answered with CORS headers (repeatable; default: "
                    "$LOREKEEPER_HTTP_CORS_ORIGINS, comma-separated)");
  serve
      ->add_option("--http-threads", http_threads_flag,
                   "Worker threads with --http, each with its own store connection (default: "
                   "$LOREKEEPER_HTTP_THREADS or 32)")
      ->check(CLI::Range(1, 256));
  serve->add_flag("--legacy-tools", legacy_tools_flag,
                  "Also serve the older tool names (lookup_spell, ..., search_dnd_content); default: "
                  "$LOREKEEPER_LEGACY_TOOLS");
  serve
      ->add_option("--auto-sync", auto_sync,
                   "Refresh stale data from the API in the background: auto (when it is reachable; default), on, "
                   "off (default: $LOREKEEPER_AUTO_SYNC or auto)")
      ->check(CLI::IsMember({"auto", "on", "off"}));

  bool status_json = false;
  auto* status = app.add_subcommand("status", "Show the store: path, counts per kind and document, data age");
  status->add_flag("--json", status_json, "Machine-readable output");

  std::string sync_source;
  bool sync_quiet = false;
  bool sync_force = false;
  bool sync_json = false;
  bool sync_accept_incomplete = false;
  bool sync_move_aside = false;
  int sync_page_size = 100;
  auto* sync = app.add_subcommand("sync", "Fill or refresh the store from the Open5e API or recorded pages");
  sync->add_option("--source", sync_source,
                   "A base URL (default: $LOREKEEPER_OPEN5E_BASE_URL, https://api.open5e.com), \"bundled\" (the "
                   "snapshot inside this binary), a directory of recorded pages or a .tar.zst of them "
                   "(docs/formats/mirror-layout.md)");
  sync->add_flag("--force", sync_force, "Sync even if the data is fresh, and retry endpoints that failed recently");
  sync->add_option("--page-size", sync_page_size, "Records per page requested from the API (1-1000)")
      ->check(CLI::Range(1, 1000));
  sync->add_flag("--quiet", sync_quiet, "No progress output");
  sync->add_flag("--move-aside", sync_move_aside,
                 "When the store is damaged or not a LoreKeeper store, rename it to <file>.damaged-<time> and build "
                 "a new one");
  sync->add_flag("--accept-incomplete", sync_accept_incomplete,
                 "Store listings that end short of their own count or hold less than half of what the stored data "
                 "came from (otherwise those endpoints fail and keep their data)");
  sync->add_flag("--json", sync_json, "Print the sync report as JSON on stdout");

  std::string query;
  std::string kind;
  std::vector<std::string> filters;
  std::vector<std::string> documents;
  int limit = 0;
  bool search_json = false;
  auto* search = app.add_subcommand("search", "Search like the MCP tools do");
  search->add_option("query", query, "Name or words (may be empty with --kind and filters)");
  search->add_option("-k,--kind", kind,
                     "spell, creature, class, race, background, feat, weapon, armor, item, magic-item, equipment, "
                     "or a rule type (rule, condition, skill, ...); default: all kinds");
  // One value per -f and -d, so that a query after them ("-f cr=5 goblin") stays the query.
  search
      ->add_option("-f,--filter", filters,
                   "Tool parameter as key=value, read as the parameter's type (level=3, school=evocation, "
                   "documents=srd-2014,tob); repeatable")
      ->allow_extra_args(false);
  search->add_option("-d,--document", documents, "Only this source document (repeatable)")->allow_extra_args(false);
  search->add_option("-n,--limit", limit, "Maximum results (1-100)");
  std::string edition;
  search->add_option("-e,--edition", edition, "Only these rules: 2014 (SRD 5.1), 2024 (SRD 5.2) or a5e (Level Up)");
  auto* search_json_opt = search->add_flag("--json", search_json, "Print the structured result as JSON");
  bool search_table = false;
  bool search_full = false;
  auto* search_table_opt = search->add_flag("--table", search_table, "One line per result (the default on a terminal)");
  search->add_flag("--full", search_full, "Every result in full, as the tools answer (the default in a pipe)")
      ->excludes(search_table_opt)
      ->excludes(search_json_opt);
  search_table_opt->excludes(search_json_opt);

  std::string get_key;
  std::string get_kind;
  bool get_json = false;
  bool get_source = false;
  auto* get = app.add_subcommand("get", "Print one entity by key, or by name (every kind of that name)");
  get->add_option("key", get_key, "Key (srd_fireball) or exact name (Fireball)")->required();
  get->add_option("-k,--kind", get_kind, "Kind, when a key or name has several (spell, armor, ...)");
  get->add_flag("--source", get_source, "Add the original API record");
  get->add_flag("--json", get_json, "Print the structured result as JSON");

  std::string doc_source;
  bool doc_json = false;
  auto* docs = app.add_subcommand("documents", "List the source documents in the store");
  docs->add_option("--source", doc_source, "open5e_v2, open5e_v1 or orcbrew");
  docs->add_flag("--json", doc_json, "Machine-readable output");

  std::vector<std::string> embed_texts;
  bool embed_json = false;
  auto* embed_cmd = app.add_subcommand("embed", "Token ids and sentence embeddings (all-MiniLM-L6-v2) of texts");
  embed_cmd->add_option("text", embed_texts, "Texts to embed")->required();
  embed_cmd->add_flag("--json", embed_json, "Print [{text, ids, vector}] as JSON");

  int index_threads = 0;
  bool index_quiet = false;
  bool index_json = false;
  auto* index_cmd = app.add_subcommand(
      "index", "Embed the entities for meaning-based search (only those changed since the last run; resumable)");
  index_cmd->add_option("--threads", index_threads, "Encoder threads (default: $LOREKEEPER_EMBED_THREADS or 1)")
      ->check(CLI::Range(1, 64));
  index_cmd->add_flag("--quiet", index_quiet, "No progress output");
  index_cmd->add_flag("--json", index_json, "Print the report as JSON");
  bool index_recompute = false;
  std::string index_export;
  index_cmd->add_flag("--recompute", index_recompute,
                      "Embed every entity with the model, ignoring stored and bundled vectors");
  index_cmd->add_option("--export", index_export,
                        "Then write the store's vectors to FILE as a precomputed set (data/open5e-vectors.bin)");

  std::string eval_file;
  std::string eval_ranking = "hybrid";
  bool eval_json = false;
  auto* eval_cmd = app.add_subcommand("eval", "Run a search evaluation set (JSONL) and report hit@k and MRR@10");
  eval_cmd->add_option("file", eval_file, "Evaluation set (tests/eval/queries.jsonl; format in its README)")
      ->required();
  eval_cmd->add_option("--ranking", eval_ranking, "hybrid, lexical, semantic or all")
      ->check(CLI::IsMember({"hybrid", "lexical", "semantic", "all"}));
  eval_cmd->add_flag("--json", eval_json, "Print the metrics (and every row's rank) as JSON");

  std::vector<std::string> import_files;
  bool import_dry_run = false;
  bool import_json = false;
  bool import_no_embed = false;
  auto* import_cmd =
      app.add_subcommand("import", "Import OrcBrew homebrew packs (.orcbrew); importing a pack again replaces it");
  import_cmd->add_option("file", import_files, "OrcBrew files")->required();
  import_cmd->add_flag("--dry-run", import_dry_run, "Read and report what would be imported; write nothing");
  import_cmd->add_flag("--json", import_json, "Print the report as JSON");
  import_cmd->add_flag("--no-embed", import_no_embed, "Do not embed the imported entities for semantic search");

  std::vector<std::string> remove_packs;
  bool remove_json = false;
  auto* remove_cmd = app.add_subcommand("remove", "Remove imported OrcBrew packs and their entities");
  remove_cmd
      ->add_option("pack", remove_packs, "Pack names or document keys (see: lorekeeper documents --source orcbrew)")
      ->required();
  remove_cmd->add_flag("--json", remove_json, "Print the report as JSON");

  ModelFetchOptions fetch_options;
  auto* model_cmd = app.add_subcommand("model", "Manage the sentence embedding model (all-MiniLM-L6-v2)");
  model_cmd->require_subcommand(1);
  auto* fetch_cmd = model_cmd->add_subcommand(
      "fetch", "Download the model from Hugging Face into the model directory (sha256 checked; atomic)");
  fetch_options.base_url = kModelBaseUrl;
  fetch_cmd->add_option("--url", fetch_options.base_url, "Base URL of the model's files")
      ->envname("LOREKEEPER_MODEL_URL")
      ->capture_default_str();
  fetch_cmd->add_flag("--force", fetch_options.force, "Download even when a valid model is installed");
  fetch_cmd->add_flag("--quiet", fetch_options.quiet, "No progress output");

  std::string tool_name;
  std::string tool_args;
  bool tool_json = false;
  RollRequest roll_request;
  int roll_target = 0, roll_times = 0;
  long long roll_seed = 0;
  bool roll_json = false, roll_advantage = false, roll_disadvantage = false;
  auto* roll =
      app.add_subcommand("roll", "Roll dice with their exact odds, as roll_dice answers (roll 8d6 --target 30)");
  roll->add_option("notation", roll_request.notation, "Dice: 8d6, 1d20+5, 4d6kh3, 2d20kh1+7")->required();
  auto* roll_target_opt =
      roll->add_option("-t,--target", roll_target, "Also the exact chance of a total at least this");
  auto* roll_times_opt = roll->add_option("-n,--times", roll_times, "How many rolls (default 1)");
  auto* roll_advantage_opt =
      roll->add_flag("--advantage", roll_advantage, "Roll each plain 1d20 twice and keep the higher");
  roll->add_flag("--disadvantage", roll_disadvantage, "Roll each plain 1d20 twice and keep the lower")
      ->excludes(roll_advantage_opt);
  auto* roll_seed_opt = roll->add_option("--seed", roll_seed, "Seed: the same seed gives the same dice");
  roll->add_flag("--json", roll_json, "Print the structured result as JSON");

  EncounterRequest encounter_request;
  long long encounter_seed = 0;
  bool encounter_json = false;
  auto* encounter = app.add_subcommand(
      "encounter",
      "How hard a fight is for a party (creatures given), or fights to build for it (none given), as "
      "evaluate_encounter and build_encounter answer");
  encounter->add_option("creatures", encounter_request.creatures,
                        "Creatures: goblin, \"4 goblin\", \"goblin x4\", srd_bugbear, \"cr 1/2\"");
  encounter->add_option("-p,--party", encounter_request.party, "The party's levels: 3,3,3,4, or 4x5 for four level-5")
      ->required();
  encounter->add_option("-r,--rules", encounter_request.rules, "2014 or 2024 (default: the preferred edition)");
  encounter->add_option("--difficulty", encounter_request.difficulty,
                        "To build: easy, medium, hard, deadly (2014); low, moderate, high (2024)");
  encounter->add_option("--theme", encounter_request.theme, "To build: what the fight is about, in words");
  encounter->add_option("--environment", encounter_request.environment, "To build: swamp, mountain, underworld, ...");
  auto* encounter_seed_opt =
      encounter->add_option("--seed", encounter_seed, "To build: the same seed, the same groups");
  encounter->add_option("-d,--document", encounter_request.documents, "Only this source document (repeatable)")
      ->allow_extra_args(false);
  encounter->add_flag("--json", encounter_json, "Print the structured result as JSON");

  SpellsRequest spells_request;
  int spells_modifier = 0;
  bool spells_json = false;
  auto* spells = app.add_subcommand(
      "spells",
      "What a class casts at a level: slots, cantrips, prepared spells and its list, as class_spells answers");
  spells->add_option("class", spells_request.class_name, "Class (or subclass) by name or key: cleric, \"Life Domain\"")
      ->required();
  spells->add_option("level", spells_request.level, "Character level in the class, 1-20")->required();
  spells->add_option("-s,--subclass", spells_request.subclass, "Also this subclass's granted spells: life, devotion");
  spells->add_option("-r,--rules", spells_request.rules, "2014 or 2024 (default: the preferred edition)");
  auto* spells_modifier_opt = spells->add_option(
      "-m,--modifier", spells_modifier, "Spellcasting ability modifier, to count a 2014 class's prepared spells");
  spells->add_option("-d,--document", spells_request.documents, "Spells of this source document (repeatable)")
      ->allow_extra_args(false);
  spells->add_flag("--json", spells_json, "Print the structured result as JSON");

  OddsRequest odds_request;
  int odds_bonus = 0, odds_ac = 0, odds_attacks = 0, odds_crit = 0, odds_save_dc = 0, odds_save_bonus = 0;
  bool odds_json = false, odds_advantage = false, odds_disadvantage = false;
  auto* odds = app.add_subcommand(
      "odds", "Exact odds of attacks and saves and their damage, as attack_odds answers (odds --bonus 5 --ac 16)");
  auto* odds_bonus_opt = odds->add_option("-b,--bonus", odds_bonus, "Attack bonus (+5 is 5)");
  auto* odds_ac_opt = odds->add_option("--ac", odds_ac, "The target's armor class");
  auto* odds_attacks_opt = odds->add_option("-n,--attacks", odds_attacks, "How many such attacks");
  odds->add_option("--damage", odds_request.damage, "Damage dice of a hit: 1d8+3");
  odds->add_option("-c,--creature", odds_request.creature, "A creature's attacks, by name or key: ogre");
  odds->add_option("--action", odds_request.action, "With --creature: only this action");
  auto* odds_crit_opt = odds->add_option("--crit", odds_crit, "Lowest natural roll that crits (default 20)");
  auto* odds_save_dc_opt = odds->add_option("--save-dc", odds_save_dc, "A saving throw's DC (with --save-bonus)");
  auto* odds_save_bonus_opt =
      odds->add_option("--save-bonus", odds_save_bonus, "The target's save bonus (a creature's save effects too)");
  auto* odds_advantage_opt = odds->add_flag("--advantage", odds_advantage, "Roll with advantage");
  odds->add_flag("--disadvantage", odds_disadvantage, "Roll with disadvantage")->excludes(odds_advantage_opt);
  odds->add_flag("--table", odds_request.table, "Also the chance to hit each AC near the target");
  odds->add_option("-d,--document", odds_request.documents, "Look for the creature in this document (repeatable)")
      ->allow_extra_args(false);
  odds->add_flag("--json", odds_json, "Print the structured result as JSON");

  auto* tool = app.add_subcommand("tool", "Call one MCP tool directly with JSON arguments");
  tool->add_option("name", tool_name, "Tool name (e.g. search_spell)")->required();
  tool->add_option("args", tool_args, "Arguments as a JSON object");
  tool->add_flag("--json", tool_json, "Print the structured result as JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // An unknown first word is a command the user expected to exist: name the ones that do.
    const std::vector<std::string> rest = app.remaining();
    if (e.get_exit_code() != 0 && !rest.empty() && !rest.front().empty() && rest.front()[0] != '-' &&
        app.get_subcommands().empty()) {
      std::vector<std::string> names;
      for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
      std::fprintf(stderr, "lorekeeper: unknown command '%s'. Commands: %s.\nRun with --help for more information.\n",
                   rest.front().c_str(), text::join(names, ", ").c_str());
      return 2;
    }
    // --help and --version exit 0; every usage error exits 2, as documented.
    return app.exit(e) == 0 ? 0 : 2;
  }

  auto env = process_env();
  if (auto f = env("LOREKEEPER_ENV_FILE"); f && env_file == ".env") env_file = *f;
  auto cfg = load_config(env, env_file);
  if (!cfg) {
    std::fprintf(stderr, "lorekeeper: %s\n", cfg.status().message().c_str());
    return 2;
  }
  if (!db_flag.empty()) {
    cfg->db_path = db_flag;
    cfg->origin["db_path"] = "flag";
  }
  if (!log_level_flag.empty()) {
    cfg->log_level = log_level_flag;
    cfg->origin["log_level"] = "flag";
  }
  log::Level level;
  if (!log::parse_level(cfg->log_level, &level)) {
    std::fprintf(stderr, "lorekeeper: unknown log level '%s' (debug, info, warning, error, off)\n",
                 cfg->log_level.c_str());
    return 2;
  }
  log::set_level(level);

  if (*serve) {
    if (auto_sync.empty()) auto_sync = cfg->auto_sync;
    if (legacy_tools_flag) {
      cfg->legacy_tools = true;
      cfg->origin["legacy_tools"] = "flag";
    }
    if (!http_host_flag.empty()) cfg->http_host = http_host_flag;
    if (http_port_flag >= 0) cfg->http_port = http_port_flag;
    if (!http_token_flag.empty()) cfg->http_token = http_token_flag;
    if (!http_allowed_host_flags.empty()) cfg->http_allowed_hosts = text::join(http_allowed_host_flags, ",");
    if (!http_cors_origin_flags.empty()) cfg->http_cors_origins = text::join(http_cors_origin_flags, ",");
    if (http_threads_flag > 0) cfg->http_threads = http_threads_flag;
    return serve::serve(*cfg, auto_sync, serve_http_flag, kVersion);
  }
  if (*status) return cmd_status(*cfg, status_json);
  if (*sync)
    return cmd_sync(*cfg, sync_source, sync_force, sync_quiet, sync_page_size, sync_accept_incomplete, sync_move_aside,
                    sync_json);
  if (*search) {
    const Output output = search_json    ? Output::kJson
                          : search_full  ? Output::kFull
                          : search_table ? Output::kTable
                                         : Output::kAuto;
    return cmd_search(*cfg, SearchRequest{query, kind, filters, documents, limit, edition}, output);
  }
  if (*get) return cmd_get(*cfg, get_key, get_kind, get_source, get_json ? Output::kJson : Output::kAuto);
  if (*docs) return cmd_documents(*cfg, doc_source, doc_json);
  if (*tool) return cmd_tool(*cfg, tool_name, tool_args, tool_json);
  if (*roll) {
    if (roll_target_opt->count() > 0) roll_request.target = roll_target;
    if (roll_times_opt->count() > 0) roll_request.times = roll_times;
    if (roll_seed_opt->count() > 0) roll_request.seed = roll_seed;
    roll_request.mode = roll_advantage ? "advantage" : roll_disadvantage ? "disadvantage" : "";
    return cmd_call(*cfg, roll_call(roll_request), roll_json);
  }
  if (*encounter) {
    if (encounter_seed_opt->count() > 0) encounter_request.seed = encounter_seed;
    auto call = encounter_call(encounter_request);
    if (!call) {
      std::fprintf(stderr, "lorekeeper encounter: %s\n", call.status().message().c_str());
      return 2;
    }
    return cmd_call(*cfg, *call, encounter_json);
  }
  if (*spells) {
    if (spells_modifier_opt->count() > 0) spells_request.modifier = spells_modifier;
    return cmd_call(*cfg, spells_call(spells_request), spells_json);
  }
  if (*odds) {
    const std::pair<CLI::Option*, std::pair<int*, std::optional<int>*>> given[] = {
        {odds_bonus_opt, {&odds_bonus, &odds_request.bonus}},
        {odds_ac_opt, {&odds_ac, &odds_request.ac}},
        {odds_attacks_opt, {&odds_attacks, &odds_request.attacks}},
        {odds_crit_opt, {&odds_crit, &odds_request.crit}},
        {odds_save_dc_opt, {&odds_save_dc, &odds_request.save_dc}},
        {odds_save_bonus_opt, {&odds_save_bonus, &odds_request.save_bonus}}};
    for (const auto& [option, value] : given) {
      if (option->count() > 0) *value.second = *value.first;
    }
    odds_request.mode = odds_advantage ? "advantage" : odds_disadvantage ? "disadvantage" : "";
    return cmd_call(*cfg, odds_call(odds_request), odds_json);
  }
  if (*embed_cmd) return cmd_embed(embed_texts, embed_json);
  if (*index_cmd) return cmd_index(*cfg, index_threads, index_quiet, index_json, index_recompute, index_export);
  if (*eval_cmd) return cmd_eval(*cfg, eval_file, eval_ranking, eval_json);
  if (*import_cmd) {
    ImportOptions options;
    options.dry_run = import_dry_run;
    options.as_json = import_json;
    options.embed = !import_no_embed && cfg->embed != "off";
    options.model_dir = embed::default_model_dir();
    options.threads = cfg->embed_threads;
    options.max_passages = cfg->embed_passages;
    options.bootstrap = [c = *cfg](const std::string& path) { return serve::bootstrap_from_bundled(c, path); };
    return run_import(cfg->db_path, import_files, options);
  }
  if (*remove_cmd) return run_remove(cfg->db_path, remove_packs, remove_json);
  if (*fetch_cmd) {
    fetch_options.dir = embed::default_model_dir();
    return run_model_fetch(fetch_options);
  }
  return 2;
}

}  // namespace lorekeeper::cli
