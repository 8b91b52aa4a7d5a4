#include "lorekeeper/serve/engines.hpp"

#include <filesystem>
#include <mutex>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/open5e/page_source.hpp"
#include "lorekeeper/open5e/sync.hpp"
#include "lorekeeper/search/precomputed.hpp"
#include "lorekeeper/store/files.hpp"

namespace lorekeeper::serve {

void seed_bundled_vectors(const Config& cfg, store::Store& st) {
  if (cfg.embed == "off") return;
  auto seeded = search::seed_vectors(st, cfg.embed_passages);
  if (!seeded) {
    log::warning("taking the bundled vectors failed (the entities are embedded instead): " +
                 seeded.status().to_string());
  } else if (*seeded > 0) {
    log::info("took the bundled vectors of " + std::to_string(*seeded) + " entities");
  }
}

Status bootstrap_from_bundled(const Config& cfg, const std::string& db_path) {
  static std::mutex one_at_a_time;
  std::lock_guard<std::mutex> lock(one_at_a_time);
  if (auto dangling = store::dangling_link(db_path)) return Status::invalid_argument(*dangling);
  std::error_code exists_ec;
  if (std::filesystem::exists(db_path, exists_ec)) return Status::ok();
  log::info("no store at " + db_path + "; building it from the bundled Open5e snapshot");
  const std::string tmp = store::begin_private_build(db_path, "bootstrap");
  auto st = store::Store::open(tmp, store::Store::Mode::kReadWrite);
  Status built = [&]() -> Status {
    if (!st) return st.status();
    auto src = open5e::make_bundled_source();
    if (!src) return src.status();
    auto report = open5e::sync(**src, **st, open5e::SyncOptions{});
    if (!report) return report.status();
    log::info("loaded " + std::to_string(report->total_entities()) + " entities from the bundled snapshot");
    seed_bundled_vectors(cfg, **st);
    return Status::ok();
  }();
  if (!built.is_ok()) {
    if (st) st->reset();  // closed before its files are removed
    store::remove_store_files(tmp);
    return built;
  }
  return store::place_built_store(std::move(*st), tmp, db_path).status();
}

std::shared_ptr<search::Semantic> make_semantic(const Config& cfg, bool deferred) {
  if (cfg.embed == "off") return nullptr;
  return std::make_shared<search::Semantic>(embed::default_model_dir(), cfg.embed_passages, deferred);
}

tools::Engine make_engine(const Config& cfg, std::shared_ptr<search::Semantic> semantic, std::function<void()> built) {
  tools::Engine engine(cfg.db_path, [cfg, built](const std::string& path) {
    Status s = bootstrap_from_bundled(cfg, path);
    if (s.is_ok() && built) built();
    return s;
  });
  engine.set_legacy_tools(cfg.legacy_tools);
  engine.set_preferred_edition(cfg.preferred_edition);
  engine.set_semantic(std::move(semantic));
  return engine;
}

tools::Engine make_long_lived_engine(const Config& cfg, std::shared_ptr<search::Semantic> semantic,
                                     std::function<void()> built) {
  tools::Engine engine = make_engine(cfg, std::move(semantic), std::move(built));
  engine.set_text_index_in_memory(true);
  engine.set_memory_mapped(false);
  engine.set_check_on_open(true);
  return engine;
}

std::shared_ptr<search::Semantic> one_shot_semantic(const Config& cfg, tools::Engine& engine) {
  auto semantic = make_semantic(cfg);
  if (!semantic || !semantic->has_model()) return semantic;
  store::Store* st = engine.store(nullptr);
  if (st == nullptr) return semantic;
  Status loaded = semantic->reload(*st, true);
  if (!loaded.is_ok()) log::warning("meaning-based search unavailable: " + loaded.to_string());
  return semantic;
}

}  // namespace lorekeeper::serve
