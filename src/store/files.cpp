#include "lorekeeper/store/files.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

namespace lorekeeper::store {

namespace {

constexpr const char* kBuildLabels[] = {"bootstrap", "sync"};

// Whether the process `pid` still runs (or may: one we may not signal exists).
bool process_runs(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

}  // namespace

std::string private_build_path(const std::string& db_path, const std::string& label) {
  return db_path + "." + label + "-" + std::to_string(::getpid());
}

std::string begin_private_build(const std::string& db_path, const std::string& label) {
  remove_stale_builds(db_path);
  const std::string built = private_build_path(db_path, label);
  remove_store_files(built);
  return built;
}

Result<bool> place_built_store(std::unique_ptr<Store> st, const std::string& built, const std::string& db_path) {
  Status folded = st->fold_log();
  st.reset();  // closed before it is linked, or removed
  if (!folded.is_ok()) {
    remove_store_files(built);
    return folded;
  }
  return link_into_place(built, db_path);
}

Result<bool> link_into_place(const std::string& built, const std::string& db_path) {
  Result<bool> placed = [&]() -> Result<bool> {
    // The file alone must hold the store: a write-ahead log left beside it (its fold failed) would be lost.
    std::error_code ec;
    if (const auto wal = std::filesystem::file_size(built + "-wal", ec); !ec && wal > 0) {
      return Status::io_error(
          "the new store's write-ahead log could not be folded into it (is the disk full?); "
          "nothing was placed at " +
          db_path);
    }
    if (::link(built.c_str(), db_path.c_str()) == 0) return true;
    int err = errno;
    if (err == EPERM || err == EOPNOTSUPP || err == ENOTSUP || err == EMLINK) {
      // A filesystem without hard links (exFAT, some network and FUSE mounts): renamed into place instead, unless
      // a store is there by now (checked just before; two builds racing here could both place one, and the second
      // would replace the first, each whole).
      if (std::filesystem::exists(db_path, ec)) return false;
      if (::rename(built.c_str(), db_path.c_str()) == 0) return true;
      err = errno;
    }
    if (err == EEXIST) return false;
    return Status::io_error("cannot create " + db_path + ": " + std::strerror(err));
  }();
  remove_store_files(built);
  return placed;
}

int remove_stale_builds(const std::string& db_path) {
  namespace fs = std::filesystem;
  const fs::path db(db_path);
  const fs::path dir = db.has_parent_path() ? db.parent_path() : fs::path(".");
  const std::string base = db.filename().string();
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    for (const char* label : kBuildLabels) {
      const std::string prefix = base + "." + label + "-";
      if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
      // <prefix><pid>, the store itself; its -wal and -shm files go with it.
      const std::string pid = name.substr(prefix.size());
      if (pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9) continue;
      if (process_runs(std::stol(pid))) continue;
      remove_store_files(it->path().string());
      ++removed;
    }
  }
  return removed;
}

Result<std::string> move_aside(const std::string& path) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  const std::string target = path + ".damaged-" + stamp;
  std::error_code ec;
  std::filesystem::rename(path, target, ec);
  if (ec) return Status::io_error("cannot move " + path + " aside: " + ec.message());
  for (const char* suffix : {"-wal", "-shm"}) {
    if (std::filesystem::exists(path + suffix, ec)) std::filesystem::rename(path + suffix, target + suffix, ec);
  }
  return target;
}

void remove_store_files(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

}  // namespace lorekeeper::store
