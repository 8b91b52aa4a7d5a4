// The files of a store on disk: building a new store privately and linking it into place, moving a damaged store
// aside, and removing what a killed build left behind.
//
// A new store is never built at its own path: a build writes <db>.<label>-<pid> and links it to <db> only when
// complete, so no process ever sees a half-built store and a build killed half-way leaves no store behind (only
// its private file, which the next build removes once its process is gone).
#pragma once

#include <memory>
#include <string>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::store {

// The private file a build by this process labelled `label` ("bootstrap", "sync") writes: <db>.<label>-<pid>.
std::string private_build_path(const std::string& db_path, const std::string& label);

// Begins a build of a new store for `db_path` labelled `label`: removes the private build files of processes
// that no longer run (remove_stale_builds) and a leftover of an earlier process that had this one's pid (never
// built upon), and returns the private file to build in (private_build_path).
std::string begin_private_build(const std::string& db_path, const std::string& label);

// Ends a build begun by begin_private_build: folds `st`'s write-ahead log into its file, closes it and links it
// into place (link_into_place). On an error the built files are removed and nothing is placed.
Result<bool> place_built_store(std::unique_ptr<Store> st, const std::string& built, const std::string& db_path);

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

}  // namespace lorekeeper::store
