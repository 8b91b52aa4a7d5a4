#include "sqlite_handle.hpp"

namespace lorekeeper::store::sqlite {

Status status_from(sqlite3* db, int rc, std::string_view context) {
  const int primary = rc & 0xff;
  std::string msg(context);
  msg += ": ";
  msg += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (primary) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE: return Status::ok();
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return Status::corruption(msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return Status::unavailable(msg);
    case SQLITE_FULL:
      return Status::io_error("the disk is full (" + msg + "); free some space and try again, nothing was changed");
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return Status::io_error("the store cannot be written: its file, its directory or the filesystem is read-only (" +
                              msg + ")");
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR: return Status::io_error(msg);
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
    case SQLITE_TOOBIG: return Status::invalid_argument(msg);
    default: return Status::internal(msg);
  }
}

Status exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    Status s = status_from(db, rc, err ? err : "exec");
    sqlite3_free(err);
    return s;
  }
  return Status::ok();
}

Result<Stmt> Stmt::prepare(sqlite3* db, std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &s, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(s);
    return status_from(db, rc, "prepare");
  }
  return Stmt(db, s);
}

Result<bool> Stmt::step() {
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return status_from(db_, rc, "step");
}

Status Stmt::run() {
  while (true) {
    auto r = step();
    if (!r) return r.status();
    if (!*r) return Status::ok();
  }
}

}  // namespace lorekeeper::store::sqlite
