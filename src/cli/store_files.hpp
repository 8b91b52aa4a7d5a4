// The files of a store on disk: building a new store privately and linking it into place, moving a damaged store
// aside, and removing what a killed build left behind.
//
// A new store is never built at its own path: a build writes <db>.<label>-<pid> and links it to <db> only when
// complete, so no process ever sees a half-built store and a build killed half-way leaves no store behind (only
// its private file, which the next build removes once its process is gone).
#pragma once

#include <string>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::cli {

// The private file a build by this process labelled `label` ("bootstrap", "sync") writes: <db>.<label>-<pid>.
std::string private_build_path(const std::string& db_path, const std::string& label);

// Links the complete store at `built` (closed, its write-ahead log folded in: store::Store::fold_log) to `db_path`
// and removes `built` (with its -wal and -shm files). Returns false, removing `built` all the same, when a store
// appeared at `db_path` meanwhile (another process built one): the store found there is kept. IoError, placing
// nothing, when a write-ahead log is still beside `built`.
Result<bool> link_into_place(const std::string& built, const std::string& db_path);

// Removes the private build files of `db_path` whose process no longer runs (a build killed by SIGKILL, a crash or
// a power cut); returns how many stores were removed.
int remove_stale_builds(const std::string& db_path);

// Renames a damaged store (and its -wal and -shm files) to <path>.damaged-<UTC time>; returns the new name.
Result<std::string> move_aside(const std::string& path);

// Deletes a store file with its -wal, -shm and -journal files.
void remove_store_files(const std::string& path);

}  // namespace lorekeeper::cli
