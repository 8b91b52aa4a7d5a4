// `lorekeeper import` and `lorekeeper remove`: OrcBrew packs into and out of the store.
//
// import: every file is read and mapped first (lk_orcbrew); a file that cannot be read or parsed is reported and
// left out, the others are written in ONE store transaction: for each pack, its previous entities are removed
// and its new ones written (re-importing a pack replaces it; a pack that became empty disappears). If the write
// fails, the store is exactly as it was. Then, unless embedding is off or the model is missing, the imported
// packs' entities (only those) are embedded, so semantic search covers them at once. A dry run reads, maps and
// reports, and touches nothing. Exit status: 0 when every file was imported (entities skipped inside a pack are
// reported, not fatal), 1 when a file could not be imported or the store could not be written.
//
// remove: deletes the packs named (by pack name, any case, or document key) with their entities and vectors,
// in one transaction; an unknown name is an error that lists the imported packs and changes nothing.
#pragma once

#include <string>
#include <vector>

#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::cli {

struct ImportOptions {
  bool dry_run = false;
  bool as_json = false;
  bool embed = true;                   // embed the imported entities when the model is available
  std::string model_dir;               // where the sentence model is
  int threads = 1;                     // encoder threads
  int max_passages = 1;                // passages per entity (LOREKEEPER_EMBED_PASSAGES)
  tools::Engine::Bootstrap bootstrap;  // builds a missing store (from the bundled snapshot) before importing
};

// The note a writer's report carries when its data is committed but the write-ahead log could not be copied into
// the store file (store::Store::checkpoint_failure, e.g. a full disk).
std::string log_note(const std::string& db_path, const std::string& failure);

int run_import(const std::string& db_path, const std::vector<std::string>& files, const ImportOptions& options);

int run_remove(const std::string& db_path, const std::vector<std::string>& packs, bool as_json);

}  // namespace lorekeeper::cli
