// RAII wrappers over the SQLite C API, private to the store library.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::store::sqlite {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;

// Maps an SQLite result code and the connection's message to a Status.
Status status_from(sqlite3* db, int rc, std::string_view context);

// Executes SQL without results (several statements allowed).
Status exec(sqlite3* db, const char* sql);

// A prepared statement. Bind indexes are 1-based; values are always bound, never pasted into SQL.
class Stmt {
 public:
  static Result<Stmt> prepare(sqlite3* db, std::string_view sql);

  void bind(int i, std::string_view v) {
    sqlite3_bind_text(stmt_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind(int i, long long v) { sqlite3_bind_int64(stmt_.get(), i, v); }
  void bind(int i, int v) { sqlite3_bind_int64(stmt_.get(), i, v); }
  void bind(int i, double v) { sqlite3_bind_double(stmt_.get(), i, v); }
  void bind_null(int i) { sqlite3_bind_null(stmt_.get(), i); }
  void bind_blob(int i, const void* data, size_t size) {
    sqlite3_bind_blob(stmt_.get(), i, data, static_cast<int>(size), SQLITE_TRANSIENT);
  }
  template <typename T>
  void bind_opt(int i, const std::optional<T>& v) {
    if (v)
      bind(i, *v);
    else
      bind_null(i);
  }
  void bind_opt_bool(int i, const std::optional<bool>& v) {
    if (v)
      bind(i, *v ? 1 : 0);
    else
      bind_null(i);
  }
  void bind_text_or_null(int i, const std::string& v) {
    if (v.empty())
      bind_null(i);
    else
      bind(i, std::string_view(v));
  }

  // Steps once: true when a row is available, false when done; an error Status otherwise.
  Result<bool> step();
  // Steps to completion, expecting no rows.
  Status run();
  void reset() {
    sqlite3_reset(stmt_.get());
    sqlite3_clear_bindings(stmt_.get());
  }

  bool is_null(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }
  long long int64(int col) const { return sqlite3_column_int64(stmt_.get(), col); }
  double real(int col) const { return sqlite3_column_double(stmt_.get(), col); }
  // The bytes of a BLOB column (valid until the next step or reset).
  std::string_view blob(int col) const {
    const void* p = sqlite3_column_blob(stmt_.get(), col);
    if (p == nullptr) return {};
    return {static_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col))};
  }
  // The text of a column without copying it (valid until the next step or reset).
  std::string_view text_view(int col) const {
    const unsigned char* p = sqlite3_column_text(stmt_.get(), col);
    if (p == nullptr) return {};
    return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col))};
  }
  std::string text(int col) const {
    const unsigned char* p = sqlite3_column_text(stmt_.get(), col);
    if (p == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col)));
  }

 private:
  Stmt(sqlite3* db, sqlite3_stmt* s) : db_(db), stmt_(s) {}
  sqlite3* db_;  // not owned; must outlive the statement
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> stmt_;
};

}  // namespace lorekeeper::store::sqlite
