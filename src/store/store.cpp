#include "lorekeeper/store/store.hpp"

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <variant>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"
#include "migrations.hpp"
#include "sqlite_handle.hpp"
#include "text_index.hpp"

namespace lorekeeper::store {

using sqlite::Stmt;

namespace {

long long now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The schema version the file records (PRAGMA user_version; 0 for a new file).
Result<int> user_version(sqlite3* db) {
  auto st = Stmt::prepare(db, "PRAGMA user_version");
  if (!st) return st.status();
  auto row = st->step();
  if (!row) return row.status();
  return *row ? static_cast<int>(st->int64(0)) : 0;
}

// RAII transaction: rolls back unless committed.
// Rolls back the open transaction and gives the write-ahead log's space back to the filesystem (a failed sync may
// have written a hundred megabytes into it, and a full disk needs them back). The truncation is skipped by SQLite
// while another connection still reads from the log.
void rollback_and_shrink_log(sqlite3* db) {
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
}

// Entity data the store wrote itself is read back at the depth the OrcBrew reader allows (EDN nests up to 512
// levels); what enters from outside is held to json_util::kMaxDepth where it is parsed.
constexpr size_t kStoredJsonDepth = 512;

// PRAGMA application_id of a LoreKeeper store ("LKPR"), set when the store is created.
constexpr int kApplicationId = 0x4C4B5052;

bool on_read_only_filesystem(const std::string& path) {
  struct statvfs fs {};
  return ::statvfs(path.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY) != 0;
}

// `path` for an SQLite file: URI ('%', '?' and '#' percent-encoded).
std::string uri_path(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// The bytes free for an unprivileged writer on the filesystem holding `path`; none when it cannot be told.
std::optional<unsigned long long> free_bytes(const std::string& path) {
  struct statvfs fs {};
  if (::statvfs(path.c_str(), &fs) != 0) return std::nullopt;
  return static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
}

// Whether the filesystem holding the file `path` has at least `times` its size free (false when either is unknown).
bool room_for(const std::string& path, unsigned long long times) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const auto free = free_bytes(path);
  return !ec && free && *free >= times * static_cast<unsigned long long>(size);
}

// Why `path` (or, for a file not yet made, its directory) cannot be written, for error messages: a read-only
// filesystem, no permission, or a full disk; "" when none of these.
std::string writable(const std::string& path) {
  std::error_code ec;
  std::string target = std::filesystem::exists(path, ec) ? path : std::filesystem::path(path).parent_path().string();
  if (target.empty()) target = ".";
  if (::access(target.c_str(), W_OK) != 0) {
    if (errno == EROFS) return " (" + target + " is on a read-only filesystem)";
    if (errno == EACCES) return " (no permission to write " + target + ")";
  }
  if (const auto free = free_bytes(target); free && *free < (1u << 20)) {
    return " (the disk holding " + target + " is full: free some space and try again)";
  }
  return "";
}

class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  Status begin() {
    Status s = sqlite::exec(db_, "BEGIN IMMEDIATE");
    active_ = s.is_ok();
    return s;
  }
  Status commit() {
    Status s = sqlite::exec(db_, "COMMIT");
    if (s.is_ok()) active_ = false;
    return s;
  }
  ~Transaction() {
    if (active_) rollback_and_shrink_log(db_);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

 private:
  sqlite3* db_;
  bool active_ = false;
};

using BindValue = std::variant<long long, double, std::string>;

void bind_all(Stmt& st, const std::vector<BindValue>& values) {
  int i = 1;
  for (const auto& v : values) {
    if (const auto* n = std::get_if<long long>(&v))
      st.bind(i, *n);
    else if (const auto* d = std::get_if<double>(&v))
      st.bind(i, *d);
    else
      st.bind(i, std::string_view(std::get<std::string>(v)));
    ++i;
  }
}

// Columns read back for a query result, in this order.
constexpr const char* kEntityColumns =
    "e.kind, e.key, e.name, e.document_key, e.source_api, e.url, b.text, b.data, "
    "d.name, d.display_name, d.publisher, d.license, d.game_system, d.url, "
    "e.level, e.school, e.cr, e.type, e.size, e.rarity, e.parent_key, e.section";

Entity read_entity(const Stmt& st) {
  Entity e;
  e.kind = model::parse_kind(st.text(0)).value_or(Kind::kSpell);
  e.key = st.text(1);
  e.name = st.text(2);
  e.document.key = st.text(3);
  e.source_api = st.text(4);
  e.document.source_api = e.source_api;
  e.url = st.text(5);
  e.text = st.text(6);
  std::string err;
  e.data = json_util::parse(st.text(7), &err, nullptr, kStoredJsonDepth).value_or(model::json::object());
  e.document.name = st.text(8);
  e.document.display_name = st.text(9);
  e.document.publisher = st.text(10);
  e.document.license = st.text(11);
  e.document.game_system = st.text(12);
  e.document.url = st.text(13);
  if (!st.is_null(14)) e.facets.level = static_cast<int>(st.int64(14));
  e.facets.school = st.text(15);
  if (!st.is_null(16)) e.facets.cr = st.real(16);
  e.facets.type = st.text(17);
  e.facets.size = st.text(18);
  e.facets.rarity = st.text(19);
  e.facets.parent_key = st.text(20);
  e.facets.section = st.text(21);
  return e;
}

bool has_document(const Query& q, const std::string& document_key) {
  return !q.document_keys ||
         std::find(q.document_keys->begin(), q.document_keys->end(), document_key) != q.document_keys->end();
}

// The join that build_where's conditions on the document need (only game_system reads it); the read paths
// that return document fields join it themselves.
std::string document_join(const Query& q) {
  return q.game_system.empty() ? std::string() : std::string(" JOIN documents d ON d.key = e.document_key");
}

// Builds the WHERE clause for a query from fixed fragments; every value is a bound parameter.
void build_where(const Query& q, std::string* sql, std::vector<BindValue>* binds) {
  auto add = [&](const char* fragment) {
    *sql += " AND ";
    *sql += fragment;
  };
  if (!q.kinds.empty()) {
    *sql += " AND e.kind IN (";
    for (size_t i = 0; i < q.kinds.size(); ++i) {
      *sql += i ? ",?" : "?";
      binds->emplace_back(std::string(model::kind_name(q.kinds[i])));
    }
    *sql += ")";
  }
  if (q.document_keys) {
    if (q.document_keys->empty()) {
      add("0");
    } else {
      *sql += " AND e.document_key IN (";
      for (size_t i = 0; i < q.document_keys->size(); ++i) {
        *sql += i ? ",?" : "?";
        binds->emplace_back((*q.document_keys)[i]);
      }
      *sql += ")";
    }
  }
  if (!q.game_system.empty()) {
    add("d.game_system = ?");
    binds->emplace_back(q.game_system);
  }
  if (!q.name_exact.empty()) {
    // A union of two index lookups: an OR over two columns would make SQLite scan the whole kind.
    add("e.id IN (SELECT id FROM entities WHERE name_fold = ? UNION ALL SELECT id FROM entities WHERE key = ?)");
    binds->emplace_back(text::fold(q.name_exact));
    binds->emplace_back(text::trim(q.name_exact));
  }
  for (const auto& word : q.name_contains) {
    if (word.empty()) continue;
    add("instr(e.name_fold, ?) > 0");
    binds->emplace_back(word);
  }
  auto opt_int = [&](const std::optional<int>& v, const char* fragment) {
    if (v) {
      add(fragment);
      binds->emplace_back(static_cast<long long>(*v));
    }
  };
  auto opt_real = [&](const std::optional<double>& v, const char* fragment) {
    if (v) {
      add(fragment);
      binds->emplace_back(*v);
    }
  };
  auto opt_bool = [&](const std::optional<bool>& v, const char* fragment) {
    if (v) {
      add(fragment);
      binds->emplace_back(static_cast<long long>(*v ? 1 : 0));
    }
  };
  auto str = [&](const std::string& v, const char* fragment) {
    if (!v.empty()) {
      add(fragment);
      binds->emplace_back(v);
    }
  };
  opt_int(q.level, "e.level = ?");
  opt_int(q.level_min, "e.level >= ?");
  opt_int(q.level_max, "e.level <= ?");
  str(q.school, "e.school = ?");
  str(q.class_key, "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'class' AND value = ?)");
  str(q.casting_time, "e.casting_time = ?");
  // What deals a damage type or inflicts a condition: its own attacks and effects, or a spell it casts: the spell of
  // that name in the creature's own document, or, when its document has none, in a document of its game system.
  const auto own_or_cast = [&](const std::string& value, const char* tag, bool saved) {
    if (value.empty()) return;
    const std::string t(tag);
    add(("(e.id IN (SELECT entity_id FROM entity_tags WHERE tag = '" + t +
         "' AND value = ?) OR e.id IN (SELECT c.entity_id FROM entity_tags c JOIN entities ce ON ce.id = c.entity_id "
         "JOIN documents cd ON cd.key = ce.document_key JOIN entities s ON s.kind = 'spell' AND s.name_fold = "
         "c.value JOIN documents sd ON sd.key = s.document_key JOIN entity_tags t ON t.entity_id = s.id AND t.tag = '" +
         t + "' AND t.value = ? WHERE c.tag = 'casts' " +
         std::string(saved ? "AND EXISTS (SELECT 1 FROM entity_tags v WHERE v.entity_id = s.id AND v.tag = 'save') "
                           : "") +
         "AND (s.document_key = ce.document_key OR (sd.game_system = "
         "cd.game_system AND NOT EXISTS (SELECT 1 FROM entities o WHERE o.kind = 'spell' AND o.name_fold = c.value "
         "AND o.document_key = ce.document_key)))))")
            .c_str());
    binds->emplace_back(value);
    binds->emplace_back(value);
  };
  own_or_cast(q.damage_type, "damage_type", false);
  // A spell's conditions are the caster's only when the spell calls for a save: Invisibility, Lesser Restoration
  // and Gaseous Form name conditions they give an ally or end, not ones the caster inflicts.
  own_or_cast(q.condition, "condition", true);
  if (!q.casts_spell.empty()) {
    std::string any = "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'casts' AND value IN (?";
    for (size_t i = 1; i < q.casts_spell.size(); ++i) any += ",?";
    add((any + "))").c_str());
    for (const auto& v : q.casts_spell) binds->emplace_back(v);
  }
  str(q.save_ability, "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'save' AND value = ?)");
  str(q.attack_range, "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'attack' AND value = ?)");
  str(q.movement, "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'moves' AND value = ?)");
  str(q.skill, "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'skill' AND value = ?)");
  if (!q.environments.empty()) {
    // model::environment_matches: the whole name, or one of its words.
    std::string any = "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'environment' AND (0";
    for (const auto& v : q.environments) {
      any += " OR value = ? OR instr(' ' || value || ' ', ' ' || ? || ' ') > 0";
      binds->emplace_back(v);
      binds->emplace_back(v);
    }
    add((any + "))").c_str());
  }
  if (q.lives_anywhere) {
    add(*q.lives_anywhere ? "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'environment' AND value = ?)"
                          : "e.id NOT IN (SELECT entity_id FROM entity_tags WHERE tag = 'environment' AND value = ?)");
    binds->emplace_back(std::string(model::kAnywhere));
  }
  for (const auto& t : q.traits)
    str(t, "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'trait' AND value = ?)");
  for (const auto& t : q.without_traits) {
    str(t, "e.id NOT IN (SELECT entity_id FROM entity_tags WHERE tag = 'trait' AND value = ?)");
  }
  opt_bool(q.concentration, "e.concentration = ?");
  opt_bool(q.ritual, "e.ritual = ?");
  opt_real(q.cr, "abs(e.cr - ?) < 1e-6");
  opt_real(q.cr_min, "e.cr >= ? - 1e-6");
  opt_real(q.cr_max, "e.cr <= ? + 1e-6");
  str(q.type, "e.type = ?");
  str(q.size, "e.size = ?");
  opt_int(q.armor_class_min, "e.armor_class >= ?");
  opt_int(q.hit_points_min, "e.hit_points >= ?");
  str(q.rarity, "e.rarity = ?");
  opt_bool(q.requires_attunement, "e.requires_attunement = ?");
  str(q.damage_dice, "e.damage_dice = ?");
  opt_bool(q.is_simple, "e.is_simple = ?");
  for (const auto& p : q.properties) {
    str(p, "e.id IN (SELECT entity_id FROM entity_tags WHERE tag = 'property' AND value = ?)");
  }
  opt_real(q.cost_min, "e.cost >= ?");
  opt_real(q.cost_max, "e.cost <= ?");
  opt_real(q.weight_max, "e.weight <= ?");
  str(q.section, "instr(e.section, ?) > 0");
  str(q.parent_key, "e.parent_key = ?");
  if (q.top_level) add(*q.top_level ? "e.parent_key IS NULL" : "e.parent_key IS NOT NULL");
  for (const auto& k : q.exclude_keys) str(k, "e.key <> ?");
}

// Every multi-valued facet of an entity and the tag it is stored under: the record's (class, property, and a spell's
// damage_type) and the derived ones (model/derived.hpp), which Store::refresh_derived rewrites.
struct TagFacet {
  std::string_view tag;
  std::vector<std::string> model::Facets::*values;
  bool derived;
};
constexpr TagFacet kTagFacets[] = {
    {"class", &model::Facets::classes, false},
    {"property", &model::Facets::properties, false},
    {"damage_type", &model::Facets::damage_types, false},
    {"casts", &model::Facets::casts, true},
    {"condition", &model::Facets::conditions, true},
    {"save", &model::Facets::save_abilities, true},
    {"attack", &model::Facets::attack_ranges, true},
    {"moves", &model::Facets::movement, true},
    {"skill", &model::Facets::skills, true},
    {"trait", &model::Facets::traits, true},
    {"environment", &model::Facets::environments, true},
};

Status write_tags(Stmt& tag_st, long long id, const model::Facets& f) {
  for (const TagFacet& t : kTagFacets) {
    for (const auto& v : f.*t.values) {
      tag_st.reset();
      tag_st.bind(1, id);
      tag_st.bind(2, t.tag);
      tag_st.bind(3, std::string_view(v));
      LOREKEEPER_RETURN_IF_ERROR(tag_st.run());
    }
  }
  return Status::ok();
}

}  // namespace

// Prepared statements of the read paths, by SQL text; they are reset before each use.
struct Store::StatementCache {
  std::map<std::string, Stmt> statements;
};

// What an in-memory copy of the data was read at: it stays valid while neither the file's data version (commits
// by other connections) nor this connection's change count moves.
struct Store::ChangeMark {
  int64_t data_version = -1;
  int64_t own_changes = -1;
  bool operator==(const ChangeMark&) const = default;
};

Result<Store::ChangeMark> Store::change_mark() {
  auto version = data_version();
  if (!version) return version.status();
  return ChangeMark{*version, static_cast<int64_t>(sqlite3_total_changes64(db_))};
}

// Every entity's name.
struct Store::NameCache {
  ChangeMark read_at;
  std::vector<NameEntry> all;     // by folded name, then document key, key and kind
  std::vector<std::string> keys;  // every key, sorted
  // (kind, key) -> index into `all`, sorted by (kind, key).
  std::vector<std::pair<std::pair<int, std::string>, size_t>> ids;
  std::map<std::string, model::Document, std::less<>> documents;  // by key

  // The first entry whose folded name is `fold`, or the end when there is none.
  std::vector<NameEntry>::const_iterator first_named(const std::string& fold) const {
    const auto at = std::lower_bound(all.begin(), all.end(), fold,
                                     [](const NameEntry& n, const std::string& f) { return n.name_fold < f; });
    return at != all.end() && at->name_fold == fold ? at : all.end();
  }
};

// The in-memory full-text index and when it was last checked against the stamp, with this connection's query
// tokenizer.
struct Store::TextState {
  bool on = false;
  bool failed = false;  // loading failed once: FTS5 answers from then on
  ChangeMark checked_at;
  std::shared_ptr<const TextIndex> index;
  std::unique_ptr<QueryTokenizer> tokenizer;
};

// The busy handler's state: when the current wait began, and whether the log was told.
struct Store::BusyWait {
  std::string path;
  std::chrono::steady_clock::time_point since;
  bool told = false;

  // SQLite's busy handler: non-zero to try again. Sleeps 1 ms growing to 100 ms between tries.
  static int wait(void* self, int attempt) {
    auto* b = static_cast<BusyWait*>(self);
    const auto now = std::chrono::steady_clock::now();
    if (attempt == 0) {
      b->since = now;
      b->told = false;
    }
    const auto waited = now - b->since;
    if (waited > std::chrono::seconds(kBusyWaitSeconds)) {
      log::warning("gave up waiting for another process writing to " + b->path);
      return 0;
    }
    if (!b->told && waited > std::chrono::seconds(3)) {
      b->told = true;
      log::info("waiting for another process (a sync, import or index) to finish writing to " + b->path + " ...");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(100, 1 << std::min(attempt, 7))));
    return 1;
  }
};

// SQLite's automatic checkpoint, run by the store itself. SQLite runs it inside COMMIT and returns its error as
// COMMIT's, although the transaction is durable in the log by then: on a full disk, a write that had succeeded
// was reported as "nothing was changed". Here a failed checkpoint is kept for the writer's report and the commit
// stands.
struct Store::Checkpoints {
  static constexpr int kPages = 1000;  // what PRAGMA wal_autocheckpoint defaults to
  std::mutex mu;
  std::string failure;

  static int after_commit(void* self, sqlite3* db, const char* name, int pages) {
    if (pages < kPages) return SQLITE_OK;
    auto* c = static_cast<Checkpoints*>(self);
    const int rc = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    // Another connection checkpointing (busy, locked) is not a failure: the log is copied all the same.
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) return SQLITE_OK;
    const std::lock_guard<std::mutex> lock(c->mu);
    c->failure = rc == SQLITE_OK ? "" : std::string(sqlite3_errstr(rc));
    return SQLITE_OK;
  }
};

std::string Store::checkpoint_failure() const {
  const std::lock_guard<std::mutex> lock(checkpoints_->mu);
  return checkpoints_->failure;
}

Store::Store(sqlite3* db, std::string path)
    : db_(db),
      path_(std::move(path)),
      hints_(&model::Hints::bundled()),
      cache_(std::make_unique<StatementCache>()),
      busy_(std::make_unique<BusyWait>()),
      checkpoints_(std::make_unique<Checkpoints>()),
      names_(std::make_unique<NameCache>()),
      text_(std::make_unique<TextState>()) {}

Store::~Store() {
  text_.reset();   // the tokenizer belongs to the connection's FTS5 module
  cache_.reset();  // statements are finalized before the connection closes
  sqlite3_close_v2(db_);
}

Result<Stmt*> Store::cached(const std::string& sql) {
  auto it = cache_->statements.find(sql);
  if (it == cache_->statements.end()) {
    auto st = Stmt::prepare(db_, sql);
    if (!st) return st.status();
    it = cache_->statements.emplace(sql, std::move(*st)).first;
  }
  it->second.reset();
  return &it->second;
}

std::optional<std::string> dangling_link(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec)) || std::filesystem::exists(path, ec)) {
    return std::nullopt;
  }
  const std::string target = std::filesystem::read_symlink(path, ec).string();
  return path + " is a symbolic link to " + target +
         ", which does not exist: create the store there (lorekeeper --db " + target +
         " sync --source bundled), or remove the link";
}

Result<std::unique_ptr<Store>> Store::open(const std::string& path, Mode mode, const model::Hints* hints) {
  std::error_code ec;
  if (auto dangling = dangling_link(path)) return Status::invalid_argument(*dangling);
  const bool exists = std::filesystem::exists(path, ec);
  if (mode == Mode::kExistingOnly && !exists) {
    return Status::not_found("no store at " + path);
  }
  if (!exists) {
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) {
      std::filesystem::create_directories(parent, ec);
      if (ec) return Status::io_error("cannot create " + parent.string() + ": " + ec.message());
    }
  }
  // SQLite's memory statistics take one process-wide mutex on every allocation, which the threads of a serve
  // (answers, loading the text index and the vectors) would contend for; nothing reads them. Set before SQLite
  // initializes (a later call is refused, harmlessly).
  static std::once_flag no_memstatus;
  std::call_once(no_memstatus, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (mode == Mode::kReadWrite) flags |= SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  sqlite::DbPtr guard(raw);
  if (rc != SQLITE_OK) {
    const Status s = sqlite::status_from(raw, rc, "open " + path);
    return Status(s.code(), s.message() + writable(path));
  }
  sqlite3_extended_result_codes(raw, 1);
  std::unique_ptr<Store> store(new Store(guard.release(), path));
  store->busy_->path = path;
  sqlite3_busy_handler(store->db_, &BusyWait::wait, store->busy_.get());
  sqlite3_wal_hook(store->db_, &Checkpoints::after_commit, store->checkpoints_.get());
  if (hints != nullptr) store->hints_ = hints;
  // Reading the schema version is the first access to the file: a non-database fails here.
  {
    auto version = user_version(store->db_);
    if (!version && version.status().code() == StatusCode::kIoError && on_read_only_filesystem(path)) {
      // A WAL database cannot make its shared-memory file on read-only media; read it as an immutable file
      // instead (writes then fail, saying the filesystem is read-only).
      sqlite3* ro = nullptr;
      const std::string uri = "file:" + uri_path(path) + "?immutable=1";
      if (sqlite3_open_v2(uri.c_str(), &ro, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr) ==
          SQLITE_OK) {
        sqlite3_close_v2(store->db_);
        store->db_ = ro;
        sqlite3_extended_result_codes(ro, 1);
        version = user_version(store->db_);
      } else {
        sqlite3_close_v2(ro);
      }
    }
    if (!version && version.status().code() == StatusCode::kCorruption) {
      return Status::corruption(path + " is not a LoreKeeper store (" + version.status().message() + ")");
    }
    if (!version) return Status(version.status().code(), path + ": " + version.status().message() + writable(path));
    store->schema_version_ = *version;
  }
  if (store->schema_version_ > kSchemaVersion) {
    return Status::corruption(path + " has schema version " + std::to_string(store->schema_version_) +
                              ", newer than this lorekeeper supports (" + std::to_string(kSchemaVersion) + ")");
  }
  // Memory-mapped reads and a page cache large enough for the facet tables and indexes of a full corpus.
  LOREKEEPER_RETURN_IF_ERROR(
      sqlite::exec(store->db_, "PRAGMA foreign_keys = ON; PRAGMA mmap_size = 268435456; PRAGMA cache_size = -16384"));
  // Another program's database is never modified: it is recognised before any migration, by an application id
  // other than ours, by a schema version without our tables, or (at version 0, where the first migration would
  // create our tables) by holding any table at all.
  {
    auto app = Stmt::prepare(store->db_, "PRAGMA application_id");
    if (!app) return Status::corruption(path + " is not a LoreKeeper store (" + app.status().message() + ")");
    auto row = app->step();
    if (!row) return Status::corruption(path + " is not a LoreKeeper store (" + row.status().message() + ")");
    const long long id = *row ? app->int64(0) : 0;
    auto tables = Stmt::prepare(store->db_, "SELECT count(*) FROM sqlite_schema");
    if (!tables) return tables.status();
    auto counted = tables->step();
    if (!counted) return counted.status();
    const long long objects = *counted ? tables->int64(0) : 0;
    const bool ours_by_tables =
        store->schema_version_ > 0 ? Stmt::prepare(store->db_, "SELECT count(*) FROM entities").is_ok() : objects == 0;
    if ((id != 0 && id != kApplicationId) || !ours_by_tables) {
      return Status::invalid_argument(path +
                                      " is not a LoreKeeper store: it is an SQLite database of another program, which "
                                      "LoreKeeper does not modify");
    }
  }
  // A store that cannot be written (read-only media, a write-protected file) is read as it is when every upgrade it
  // lacks changes only its layout (both layouts read alike); one that lacks an upgrade of its contents cannot be.
  if (store->schema_version_ < kSchemaVersion &&
      (sqlite3_db_readonly(store->db_, "main") == 1 || on_read_only_filesystem(path))) {
    bool layout_only = true;
    for (int v = store->schema_version_ + 1; v <= kSchemaVersion; ++v)
      layout_only = layout_only && migration_is_layout_only(v);
    if (!layout_only) {
      return Status::io_error(path + " has schema version " + std::to_string(store->schema_version_) +
                              ", older than this lorekeeper's (" + std::to_string(kSchemaVersion) +
                              "), and cannot be written to upgrade it: open it once where it can be written" +
                              writable(path));
    }
    log::info("the store " + path + " cannot be written: it is read at schema " +
              std::to_string(store->schema_version_) + " (its upgrade to " + std::to_string(kSchemaVersion) +
              " changes only its layout and runs once it can be written)");
  } else if (store->schema_version_ < kSchemaVersion) {
    LOREKEEPER_RETURN_IF_ERROR(sqlite::exec(store->db_, "PRAGMA journal_mode = WAL"));
    if (store->schema_version_ == 0) {
      LOREKEEPER_RETURN_IF_ERROR(
          sqlite::exec(store->db_, ("PRAGMA application_id = " + std::to_string(kApplicationId)).c_str()));
    }
    LOREKEEPER_RETURN_IF_ERROR(store->migrate());
  }
  if (Status refreshed = store->refresh_hints(); !refreshed.is_ok()) {
    log::warning("the search hints of " + path + " could not be updated: " + refreshed.to_string());
  }
  if (Status refreshed = store->refresh_derived(); !refreshed.is_ok()) {
    log::warning("the derived facets of " + path + " could not be updated: " + refreshed.to_string());
  }
  return store;
}

Status Store::refresh_if_stale(const char* meta_key, const std::string& stamp, const std::function<Status()>& rewrite) {
  auto current = [&]() -> Result<bool> {
    auto recorded = meta(meta_key);
    if (!recorded) return recorded.status();
    return *recorded && **recorded == stamp;
  };
  auto up_to_date = current();
  if (!up_to_date) return up_to_date.status();
  if (*up_to_date) return Status::ok();
  Transaction tx(db_);
  LOREKEEPER_RETURN_IF_ERROR(tx.begin());
  // Another process may have refreshed it while this one waited for the lock.
  up_to_date = current();
  if (!up_to_date) return up_to_date.status();
  if (*up_to_date) return tx.commit();
  LOREKEEPER_RETURN_IF_ERROR(rewrite());
  LOREKEEPER_RETURN_IF_ERROR(set_meta(meta_key, stamp));
  return tx.commit();
}

Status Store::refresh_derived() {
  return refresh_if_stale("derived_facets", std::string(model::kDerivedFacetsVersion), [&]() -> Status {
    // Every tag the rules write; a creature's damage types all come from them, a spell's also from its record
    // (data.damage_types), which is read back below.
    std::string derived_tags;
    for (const TagFacet& t : kTagFacets) {
      if (t.derived) derived_tags += std::string(derived_tags.empty() ? "'" : ", '") + std::string(t.tag) + "'";
    }
    const std::string clear = "DELETE FROM entity_tags WHERE tag IN (" + derived_tags +
                              ") OR (tag = 'damage_type' AND entity_id IN (SELECT id FROM entities WHERE kind IN "
                              "('creature', 'spell')))";
    LOREKEEPER_RETURN_IF_ERROR(sqlite::exec(db_, clear.c_str()));
    auto rows = Stmt::prepare(db_,
                              "SELECT e.id, e.kind, e.name, b.data FROM entities e JOIN entity_bodies b ON b.id = e.id"
                              " WHERE e.kind IN ('creature', 'spell', 'weapon')");
    if (!rows) return rows.status();
    auto tag_st = Stmt::prepare(db_, "INSERT OR IGNORE INTO entity_tags (entity_id, tag, value) VALUES (?,?,?)");
    if (!tag_st) return tag_st.status();
    size_t count = 0;
    while (true) {
      auto row = rows->step();
      if (!row) return row.status();
      if (!*row) break;
      Entity e;
      e.kind = model::parse_kind(rows->text_view(1)).value_or(model::Kind::kSpell);
      e.name = std::string(rows->text_view(2));
      e.data = nlohmann::json::parse(rows->text_view(3), nullptr, false);
      if (!e.data.is_object()) continue;
      if (auto dt = e.data.find("damage_types");
          e.kind == model::Kind::kSpell && dt != e.data.end() && dt->is_array()) {
        for (const auto& t : *dt) {
          if (t.is_string()) e.facets.damage_types.push_back(text::lower(t.get<std::string>()));
        }
      }
      model::derive_facets(e);
      const long long id = rows->int64(0);
      LOREKEEPER_RETURN_IF_ERROR(write_tags(*tag_st, id, e.facets));
      ++count;
    }
    LOREKEEPER_RETURN_IF_ERROR(
        sqlite::exec(db_, "UPDATE content_stamp SET stamp = lower(hex(randomblob(8))) WHERE id = 1"));
    if (count > 0) log::info("derived facets updated for " + std::to_string(count) + " creatures, spells and weapons");
    return Status::ok();
  });
}

Status Store::refresh_hints() {
  return refresh_if_stale("search_hints", hints_->stamp(), [&]() -> Status {
    auto rows = Stmt::prepare(db_,
                              "SELECT e.id, e.kind, e.name, f.hint FROM entities e"
                              " JOIN entities_fts f ON f.rowid = e.id");
    if (!rows) return rows.status();
    std::vector<std::pair<long long, std::string>> changed;
    while (true) {
      auto row = rows->step();
      if (!row) return row.status();
      if (!*row) break;
      const auto kind = model::parse_kind(rows->text_view(1));
      const std::string_view hint = kind ? hints_->find(*kind, rows->text_view(2)) : std::string_view();
      if (hint != rows->text_view(3)) changed.emplace_back(rows->int64(0), std::string(hint));
    }
    rows->reset();
    auto update = Stmt::prepare(db_, "UPDATE entities_fts SET hint = ? WHERE rowid = ?");
    if (!update) return update.status();
    for (const auto& [id, hint] : changed) {
      update->reset();
      update->bind(1, std::string_view(hint));
      update->bind(2, id);
      LOREKEEPER_RETURN_IF_ERROR(update->run());
    }
    if (!changed.empty()) {
      LOREKEEPER_RETURN_IF_ERROR(
          sqlite::exec(db_, "UPDATE content_stamp SET stamp = lower(hex(randomblob(8))) WHERE id = 1"));
    }
    return Status::ok();
  });
}

Status Store::migrate() {
  const auto& all = migrations();
  // A migration that rewrote a large table of an existing store freed much of its file: give it back.
  const bool existing = schema_version_ > 0;
  bool compact = false, migrated = false;
  // Freed pages are not overwritten with zeros while migrating (SQLite's secure_delete, on in Debian's build, would
  // write every page of a dropped table into the log: 44 MB for the vectors' old table); restored afterwards.
  long long secure_delete = 0;
  if (existing && schema_version_ < static_cast<int>(all.size())) {
    auto st = Stmt::prepare(db_, "PRAGMA secure_delete");
    if (st) {
      auto row = st->step();
      if (row && *row) secure_delete = st->int64(0);
    }
    sqlite3_exec(db_, "PRAGMA secure_delete = 0", nullptr, nullptr, nullptr);
  }
  for (int v = schema_version_; v < static_cast<int>(all.size()); ++v) {
    Transaction tx(db_);
    LOREKEEPER_RETURN_IF_ERROR(tx.begin());
    // Another process opening the same store may have applied this migration while we waited for the lock.
    auto now = user_version(db_);
    if (!now) return now.status();
    if (*now > v) {
      LOREKEEPER_RETURN_IF_ERROR(tx.commit());
      schema_version_ = *now;
      v = *now - 1;
      continue;
    }
    // A rewrite needs room for the rewritten table and its log (about twice the table, at most the file): where
    // the disk lacks it, a layout-only migration is not run, so the upgrade cannot leave the store unable to write.
    bool rewrite = true;
    if (existing && migration_is_layout_only(v + 1) && !room_for(path_, 1)) {
      rewrite = false;
      log::info("the store " + path_ + " keeps its layout of schema " + std::to_string(v) +
                " (too little free disk space to rewrite it); it reads and writes as before");
    }
    if (rewrite) LOREKEEPER_RETURN_IF_ERROR(sqlite::exec(db_, all[static_cast<size_t>(v)]));
    const std::string set_version = "PRAGMA user_version = " + std::to_string(v + 1);
    LOREKEEPER_RETURN_IF_ERROR(sqlite::exec(db_, set_version.c_str()));
    LOREKEEPER_RETURN_IF_ERROR(tx.commit());
    schema_version_ = v + 1;
    migrated = existing;
    compact = compact || (existing && rewrite && migration_frees_pages(v + 1));
  }
  if (compact) {
    // Best effort: the file is whole either way. VACUUM writes a copy of the store (into the log, then the file):
    // without room for twice the file it is not tried, and another process using the store or a disk filling up
    // meanwhile only leaves the freed pages for later writes to reuse.
    if (!room_for(path_, 2)) {
      log::info("the store " + path_ +
                " was not compacted after its upgrade (too little free disk space); its free "
                "pages are reused by later writes");
    } else {
      log::info("compacting " + path_ + " after its upgrade");
      if (Status vacuumed = sqlite::exec(db_, "VACUUM"); !vacuumed.is_ok()) {
        log::info("the store was not compacted (its free pages are reused by later writes): " + vacuumed.to_string());
      }
    }
  }
  if (existing && secure_delete != 0) {
    sqlite3_exec(db_, ("PRAGMA secure_delete = " + std::to_string(secure_delete)).c_str(), nullptr, nullptr, nullptr);
  }
  // The upgrade's log (as large as the tables it rewrote, and the whole store after VACUUM) is given back now, not
  // when the last connection closes (skipped by SQLite while another connection reads from it).
  if (migrated) sqlite3_exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  return Status::ok();
}

Status Store::write_entities(const std::vector<Document>& documents, const std::vector<Entity>& entities) {
  auto doc_st = Stmt::prepare(db_,
                              "INSERT INTO documents (key, name, display_name, publisher, license, game_system, "
                              "source_api, url, description) VALUES (?,?,?,?,?,?,?,?,?) "
                              "ON CONFLICT(key) DO UPDATE SET name=excluded.name, display_name=excluded.display_name, "
                              "publisher=excluded.publisher, license=excluded.license, "
                              "game_system=excluded.game_system, source_api=excluded.source_api, url=excluded.url, "
                              "description=excluded.description");
  if (!doc_st) return doc_st.status();
  for (const auto& d : documents) {
    doc_st->reset();
    doc_st->bind(1, std::string_view(d.key));
    doc_st->bind(2, std::string_view(d.name.empty() ? d.key : d.name));
    doc_st->bind_text_or_null(3, d.display_name);
    doc_st->bind_text_or_null(4, d.publisher);
    doc_st->bind_text_or_null(5, d.license);
    doc_st->bind_text_or_null(6, d.game_system);
    doc_st->bind_text_or_null(7, d.source_api);
    doc_st->bind_text_or_null(8, d.url);
    doc_st->bind_text_or_null(9, d.description);
    LOREKEEPER_RETURN_IF_ERROR(doc_st->run());
  }
  // Every entity's document must be stored: the read paths that filter without joining documents rely on it.
  std::set<std::string> documented;
  for (const auto& d : documents) documented.insert(d.key);
  auto doc_exists = Stmt::prepare(db_, "SELECT 1 FROM documents WHERE key = ?");
  if (!doc_exists) return doc_exists.status();
  for (const auto& e : entities) {
    if (documented.count(e.document.key)) continue;
    doc_exists->reset();
    doc_exists->bind(1, std::string_view(e.document.key));
    auto row = doc_exists->step();
    if (!row) return row.status();
    if (!*row) {
      return Status::invalid_argument("entity '" + e.key + "' names document '" + e.document.key +
                                      "', which is neither stored nor being written");
    }
    documented.insert(e.document.key);
  }
  auto del_st = Stmt::prepare(db_, "DELETE FROM entities WHERE kind = ? AND key = ?");
  if (!del_st) return del_st.status();
  auto ins_st = Stmt::prepare(
      db_,
      "INSERT INTO entities (kind, key, name, name_fold, document_key, source_api, url, level, school, "
      "concentration, ritual, casting_time, cr, type, size, armor_class, hit_points, rarity, requires_attunement, "
      "damage_dice, is_simple, cost, weight, parent_key, section, updated_at) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!ins_st) return ins_st.status();
  auto body_st = Stmt::prepare(db_, "INSERT INTO entity_bodies (id, text, data, raw) VALUES (?,?,?,?)");
  if (!body_st) return body_st.status();
  auto fts_st = Stmt::prepare(db_, "INSERT INTO entities_fts (rowid, name, text, hint) VALUES (?,?,?,?)");
  if (!fts_st) return fts_st.status();
  auto tag_st = Stmt::prepare(db_, "INSERT OR IGNORE INTO entity_tags (entity_id, tag, value) VALUES (?,?,?)");
  if (!tag_st) return tag_st.status();
  const long long now = now_unix();
  for (const auto& e : entities) {
    if (e.key.empty() || e.name.empty() || e.document.key.empty()) {
      return Status::invalid_argument("entity without key, name or document: '" + e.key + "'");
    }
    const std::string kind(model::kind_name(e.kind));
    del_st->reset();
    del_st->bind(1, std::string_view(kind));
    del_st->bind(2, std::string_view(e.key));
    LOREKEEPER_RETURN_IF_ERROR(del_st->run());
    auto& st = *ins_st;
    st.reset();
    const auto& f = e.facets;
    st.bind(1, std::string_view(kind));
    st.bind(2, std::string_view(e.key));
    st.bind(3, std::string_view(e.name));
    st.bind(4, std::string_view(text::fold(e.name)));
    st.bind(5, std::string_view(e.document.key));
    st.bind(6, std::string_view(e.source_api));
    st.bind_text_or_null(7, e.url);
    st.bind_opt(8, f.level);
    st.bind_text_or_null(9, f.school);
    st.bind_opt_bool(10, f.concentration);
    st.bind_opt_bool(11, f.ritual);
    st.bind_text_or_null(12, f.casting_time);
    st.bind_opt(13, f.cr);
    st.bind_text_or_null(14, f.type);
    st.bind_text_or_null(15, f.size);
    st.bind_opt(16, f.armor_class);
    st.bind_opt(17, f.hit_points);
    st.bind_text_or_null(18, f.rarity);
    st.bind_opt_bool(19, f.requires_attunement);
    st.bind_text_or_null(20, f.damage_dice);
    st.bind_opt_bool(21, f.is_simple);
    st.bind_opt(22, f.cost);
    st.bind_opt(23, f.weight);
    st.bind_text_or_null(24, f.parent_key);
    st.bind_text_or_null(25, f.section);
    st.bind(26, now);
    LOREKEEPER_RETURN_IF_ERROR(st.run());
    const long long id = sqlite3_last_insert_rowid(db_);
    body_st->reset();
    body_st->bind(1, id);
    body_st->bind_text_or_null(2, e.text);
    body_st->bind(3, std::string_view(json_util::dump(e.data)));
    body_st->bind(4, std::string_view(json_util::dump(e.raw)));
    LOREKEEPER_RETURN_IF_ERROR(body_st->run());
    fts_st->reset();
    fts_st->bind(1, id);
    fts_st->bind(2, std::string_view(e.name));
    fts_st->bind_text_or_null(3, e.text);
    fts_st->bind(4, hints_->find(e.kind, e.name));
    LOREKEEPER_RETURN_IF_ERROR(fts_st->run());
    LOREKEEPER_RETURN_IF_ERROR(write_tags(*tag_st, id, f));
  }
  return Status::ok();
}

Status Store::replace(const std::vector<Scope>& scopes, const std::vector<Document>& documents,
                      const std::vector<Entity>& entities) {
  auto batch = begin_batch();
  if (!batch) return batch.status();
  for (const auto& scope : scopes) LOREKEEPER_RETURN_IF_ERROR((*batch)->remove(scope));
  LOREKEEPER_RETURN_IF_ERROR((*batch)->write(documents, entities));
  return (*batch)->commit();
}

Result<std::unique_ptr<Store::Batch>> Store::begin_batch() {
  std::unique_ptr<Batch> batch(new Batch(*this));
  LOREKEEPER_RETURN_IF_ERROR(sqlite::exec(db_, "BEGIN IMMEDIATE"));
  batch->open_ = true;
  return batch;
}

Store::Batch::~Batch() {
  if (open_) rollback_and_shrink_log(store_.db_);
}

Status Store::Batch::remove(const Scope& scope) {
  if (!open_) return Status::internal("batch is closed");
  std::string sql = "DELETE FROM entities WHERE source_api = ?";
  if (scope.kind) sql += " AND kind = ?";
  if (!scope.document_key.empty()) sql += " AND document_key = ?";
  auto del = Stmt::prepare(store_.db_, sql);
  if (!del) return del.status();
  int n = 1;
  del->bind(n++, std::string_view(scope.source_api));
  if (scope.kind) del->bind(n++, model::kind_name(*scope.kind));
  if (!scope.document_key.empty()) del->bind(n++, std::string_view(scope.document_key));
  return del->run();
}

Status Store::Batch::write(const std::vector<Document>& documents, const std::vector<Entity>& entities) {
  if (!open_) return Status::internal("batch is closed");
  return store_.write_entities(documents, entities);
}

Status Store::Batch::savepoint(const std::string& name) {
  auto st = Stmt::prepare(store_.db_, "SAVEPOINT \"" + name + "\"");
  return st ? st->run() : st.status();
}

Status Store::Batch::release(const std::string& name) {
  auto st = Stmt::prepare(store_.db_, "RELEASE \"" + name + "\"");
  return st ? st->run() : st.status();
}

Status Store::Batch::rollback_to(const std::string& name) {
  auto st = Stmt::prepare(store_.db_, "ROLLBACK TO \"" + name + "\"");
  if (!st) return st.status();
  LOREKEEPER_RETURN_IF_ERROR(st->run());
  return release(name);
}

Status Store::Batch::commit() {
  if (!open_) return Status::internal("batch is closed");
  LOREKEEPER_RETURN_IF_ERROR(
      sqlite::exec(store_.db_, "DELETE FROM documents WHERE key NOT IN (SELECT DISTINCT document_key FROM entities)"));
  LOREKEEPER_RETURN_IF_ERROR(sqlite::exec(store_.db_, "COMMIT"));
  open_ = false;
  // The query planner's statistics: worth refreshing after a large write, but the write is committed whether or
  // not they can be (a full disk), so their failure is not the write's.
  if (Status analyzed = sqlite::exec(store_.db_, "ANALYZE"); !analyzed.is_ok()) {
    log::warning("the store's query statistics were not updated: " + analyzed.to_string());
  }
  return Status::ok();
}

Status Store::replace_sources(const std::vector<std::string>& sources, const std::vector<Document>& documents,
                              const std::vector<Entity>& entities) {
  std::vector<Scope> scopes;
  for (const auto& s : sources) scopes.push_back({s, std::nullopt, ""});
  return replace(scopes, documents, entities);
}

Status Store::upsert(const std::vector<Document>& documents, const std::vector<Entity>& entities) {
  Transaction tx(db_);
  LOREKEEPER_RETURN_IF_ERROR(tx.begin());
  LOREKEEPER_RETURN_IF_ERROR(write_entities(documents, entities));
  return tx.commit();
}

Status Store::set_meta(const std::string& key, const std::string& value) {
  auto st = Stmt::prepare(db_,
                          "INSERT INTO meta (key, value) VALUES (?, ?) "
                          "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  if (!st) return st.status();
  st->bind(1, std::string_view(key));
  st->bind(2, std::string_view(value));
  return st->run();
}

Result<int64_t> Store::data_version() {
  auto st = cached("PRAGMA data_version");
  if (!st) return st.status();
  auto row = (*st)->step();
  if (!row) return row.status();
  if (!*row) return Status::internal("PRAGMA data_version returned no row");
  const auto version = static_cast<int64_t>((*st)->int64(0));
  (*st)->reset();  // a statement left mid-step would hold a read transaction, pinning this connection's snapshot
  return version;
}

Result<std::string> Store::content_stamp() {
  auto st = cached("SELECT stamp FROM content_stamp WHERE id = 1");
  if (!st) return st.status();
  auto row = (*st)->step();
  if (!row) return row.status();
  if (!*row) return Status::corruption("the store has no content stamp");
  std::string stamp = (*st)->text(0);
  (*st)->reset();
  return stamp;
}

Result<std::optional<std::string>> Store::meta(const std::string& key) {
  auto st = Stmt::prepare(db_, "SELECT value FROM meta WHERE key = ?");
  if (!st) return st.status();
  st->bind(1, std::string_view(key));
  auto row = st->step();
  if (!row) return row.status();
  if (!*row) return std::optional<std::string>();
  return std::optional<std::string>(st->text(0));
}

bool has_attribute_filters(const Query& q) {
  return !q.game_system.empty() || q.level || q.level_min || q.level_max || !q.school.empty() || !q.class_key.empty() ||
         !q.casting_time.empty() || !q.damage_type.empty() || !q.casts_spell.empty() || !q.condition.empty() ||
         !q.save_ability.empty() || !q.attack_range.empty() || !q.movement.empty() || !q.skill.empty() ||
         !q.environments.empty() || !q.traits.empty() || !q.without_traits.empty() || q.concentration || q.ritual ||
         q.cr || q.cr_min || q.cr_max || !q.type.empty() || !q.size.empty() || q.armor_class_min || q.hit_points_min ||
         !q.rarity.empty() || q.requires_attunement || !q.damage_dice.empty() || q.is_simple || !q.properties.empty() ||
         q.cost_min || q.cost_max || q.weight_max || !q.section.empty() || !q.parent_key.empty() || q.top_level ||
         !q.exclude_keys.empty();
}

Result<std::vector<std::pair<std::string, int>>> Store::count_by(const Query& q, std::string_view facet) {
  static const std::map<std::string_view, const char*> kColumns = {{"kind", "e.kind"},
                                                                   {"document", "e.document_key"},
                                                                   {"game_system", "d.game_system"},
                                                                   {"level", "e.level"},
                                                                   {"school", "e.school"},
                                                                   {"casting_time", "e.casting_time"},
                                                                   {"cr", "e.cr"},
                                                                   {"type", "e.type"},
                                                                   {"size", "e.size"},
                                                                   {"rarity", "e.rarity"},
                                                                   {"section", "e.section"}};
  const bool tag =
      std::any_of(std::begin(kTagFacets), std::end(kTagFacets), [&](const TagFacet& t) { return t.tag == facet; });
  std::string where = " WHERE 1";
  std::vector<BindValue> binds;
  build_where(q, &where, &binds);
  std::string sql;
  if (auto it = kColumns.find(facet); it != kColumns.end()) {
    sql = std::string("SELECT CAST(") + it->second +
          " AS TEXT) AS v, count(*) AS n FROM entities e JOIN documents d ON " + "d.key = e.document_key" + where +
          " AND " + it->second + " IS NOT NULL AND CAST(" + it->second +
          " AS TEXT) <> '' GROUP BY v ORDER BY n DESC, v";
  } else if (tag) {
    sql =
        "SELECT t.value AS v, count(*) AS n FROM entities e JOIN documents d ON d.key = e.document_key JOIN "
        "entity_tags t ON t.entity_id = e.id AND t.tag = ?" +
        where + " GROUP BY v ORDER BY n DESC, v";
    binds.insert(binds.begin(), std::string(facet));
  } else {
    return Status::invalid_argument("no facet '" + std::string(facet) + "' to count by");
  }
  auto prepared = cached(sql);
  if (!prepared) return prepared.status();
  Stmt& st = **prepared;
  bind_all(st, binds);
  std::vector<std::pair<std::string, int>> out;
  while (true) {
    auto row = st.step();
    if (!row) return row.status();
    if (!*row) break;
    out.emplace_back(std::string(st.text_view(0)), static_cast<int>(st.int64(1)));
  }
  st.reset();  // ends the read transaction (see data_version)
  return out;
}

Result<QueryResult> Store::query(const Query& q) {
  std::string where = " WHERE 1";
  std::vector<BindValue> binds;
  build_where(q, &where, &binds);
  const std::string from = " FROM entities e JOIN documents d ON d.key = e.document_key";
  QueryResult out;
  if (q.limit > 0) {
    // One pass: the window count sees every match before LIMIT; bodies are read for the page's rows only.
    auto prepared = cached(std::string("SELECT ") + kEntityColumns +
                           ", page.total FROM (SELECT e.id AS id, count(*) OVER () AS total" + from + where +
                           " ORDER BY e.name_fold, e.document_key, e.key, e.kind LIMIT ? OFFSET ?) page"
                           " JOIN entities e ON e.id = page.id JOIN documents d ON d.key = e.document_key"
                           " JOIN entity_bodies b ON b.id = e.id"
                           " ORDER BY e.name_fold, e.document_key, e.key, e.kind");
    if (!prepared) return prepared.status();
    Stmt& st = **prepared;
    bind_all(st, binds);
    st.bind(static_cast<int>(binds.size()) + 1, static_cast<long long>(q.limit));
    st.bind(static_cast<int>(binds.size()) + 2, static_cast<long long>(q.offset));
    while (true) {
      auto row = st.step();
      if (!row) return row.status();
      if (!*row) break;
      out.entities.push_back(read_entity(st));
      out.total = static_cast<int>(st.int64(22));
    }
    if (!out.entities.empty()) return out;
  }
  // No page (limit 0, or an offset past the end): count alone.
  auto prepared = cached("SELECT count(*)" + from + where);
  if (!prepared) return prepared.status();
  Stmt& st = **prepared;
  bind_all(st, binds);
  auto row = st.step();
  if (!row) return row.status();
  out.total = *row ? static_cast<int>(st.int64(0)) : 0;
  st.reset();  // ends the read transaction (see data_version)
  return out;
}

Result<std::vector<NameEntry>> Store::match_names(const Query& q) {
  if (q.name_exact.empty()) {
    // From memory when kinds and documents are the only filters; with others, the table is asked only when
    // some name has the words at all (most searches' words are in no name).
    const bool complete = !has_attribute_filters(q);
    const size_t wanted = complete ? static_cast<size_t>(std::max(0, q.limit)) : 1;
    std::vector<NameEntry> out;
    if (wanted > 0) {
      LOREKEEPER_RETURN_IF_ERROR(for_each_name(q.kinds, [&](const NameEntry& n) {
        const bool named = has_document(q, n.document_key) &&
                           std::all_of(q.name_contains.begin(), q.name_contains.end(), [&](const std::string& w) {
                             return w.empty() || n.name_fold.find(w) != std::string::npos;
                           });
        if (named) out.push_back({n.kind, n.key, n.name, n.document_key, ""});
        return out.size() < wanted;
      }));
    }
    if (complete || out.empty()) return out;
  } else if (!has_attribute_filters(q) && q.name_contains.empty()) {
    // An exact name from memory too (a typo search asks for up to fifty), unless it is also some entity's key.
    LOREKEEPER_RETURN_IF_ERROR(refresh_names());
    const std::string key = text::trim(q.name_exact);
    if (!std::binary_search(names_->keys.begin(), names_->keys.end(), key)) {
      // The list is in the order of the query below (name, document, key, kind).
      const std::string fold = text::fold(q.name_exact);
      const size_t wanted = static_cast<size_t>(std::max(0, q.limit));
      std::vector<NameEntry> out;
      for (auto at = names_->first_named(fold); out.size() < wanted && at != names_->all.end() && at->name_fold == fold;
           ++at) {
        if ((q.kinds.empty() || std::find(q.kinds.begin(), q.kinds.end(), at->kind) != q.kinds.end()) &&
            has_document(q, at->document_key)) {
          out.push_back({at->kind, at->key, at->name, at->document_key, ""});
        }
      }
      return out;
    }
  }
  std::string where = " WHERE 1";
  std::vector<BindValue> binds;
  build_where(q, &where, &binds);
  auto prepared = cached("SELECT e.kind, e.key, e.name, e.document_key FROM entities e" + document_join(q) + where +
                         " ORDER BY e.name_fold, e.document_key, e.key, e.kind LIMIT ?");
  if (!prepared) return prepared.status();
  Stmt& st = **prepared;
  bind_all(st, binds);
  st.bind(static_cast<int>(binds.size()) + 1, static_cast<long long>(q.limit));
  std::vector<NameEntry> out;
  while (true) {
    auto row = st.step();
    if (!row) return row.status();
    if (!*row) break;
    out.push_back({model::parse_kind(st.text(0)).value_or(Kind::kSpell), st.text(1), st.text(2), st.text(3), ""});
  }
  return out;
}

Status Store::for_each_matching_key(const Query& q, const std::function<void(Kind, std::string_view)>& visit) {
  std::string where = " WHERE 1";
  std::vector<BindValue> binds;
  build_where(q, &where, &binds);
  auto prepared = cached("SELECT e.kind, e.key FROM entities e" + document_join(q) + where);
  if (!prepared) return prepared.status();
  Stmt& st = **prepared;
  bind_all(st, binds);
  while (true) {
    auto row = st.step();
    if (!row) return row.status();
    if (!*row) break;
    visit(model::parse_kind(st.text_view(0)).value_or(Kind::kSpell), st.text_view(1));
  }
  return Status::ok();
}

Result<std::vector<int64_t>> Store::matching_ids(const Query& q) {
  std::string where = " WHERE 1";
  std::vector<BindValue> binds;
  build_where(q, &where, &binds);
  auto prepared = cached("SELECT e.id FROM entities e" + document_join(q) + where);
  if (!prepared) return prepared.status();
  Stmt& st = **prepared;
  bind_all(st, binds);
  std::vector<int64_t> ids;
  while (true) {
    auto row = st.step();
    if (!row) return row.status();
    if (!*row) break;
    ids.push_back(st.int64(0));
  }
  std::sort(ids.begin(), ids.end());  // cheaper here than as SQLite's ORDER BY
  return ids;
}

namespace {

// BM25's column weights: a word in the name counts ten times one in the text, and one in the search hint, which
// is a few words chosen to say what the entity is, more than one among the text's hundreds. Each is exact in
// binary with few digits (TextIndex::Weights).
constexpr TextIndex::Weights kWeights{10.0, 1.0, 2.0};

// FTS5 queries of quoted terms; bound as parameters, so no input reaches the SQL text.
std::string fts_quote(const std::string& w) {
  std::string quoted = "\"";
  for (char c : w) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// "a" OR "b" OR ... over the non-empty words; empty when there are none.
std::string fts_any(const std::vector<std::string>& words) {
  std::string match;
  for (const auto& w : words) {
    if (!w.empty()) match += (match.empty() ? "" : " OR ") + fts_quote(w);
  }
  return match;
}

}  // namespace

Store::ReadSnapshot::ReadSnapshot(Store& store) : store_(store) {
  // Deferred: the snapshot is taken by the first read. A failure leaves reads unwrapped, as before.
  open_ = sqlite3_get_autocommit(store_.db_) != 0 && sqlite::exec(store_.db_, "BEGIN").is_ok();
}

Store::ReadSnapshot::~ReadSnapshot() {
  if (!open_) return;
  // Statements left mid-step would keep the transaction open; reset them first.
  for (sqlite3_stmt* st = sqlite3_next_stmt(store_.db_, nullptr); st != nullptr;
       st = sqlite3_next_stmt(store_.db_, st)) {
    sqlite3_reset(st);
  }
  (void)sqlite::exec(store_.db_, "COMMIT");
}

Result<bool> Store::any_text_match(const std::vector<std::string>& words) {
  const std::string match = fts_any(words);
  if (match.empty()) return false;
  if (text_->on) {
    std::vector<std::string> terms;
    auto index = memory_terms(words, &terms);
    if (!index) return index.status();
    if (*index != nullptr) return (*index)->contains_any(terms);
  }
  auto st = cached("SELECT 1 FROM entities_fts WHERE entities_fts MATCH ? LIMIT 1");
  if (!st) return st.status();
  (*st)->bind(1, std::string_view(match));
  auto row = (*st)->step();
  if (!row) return row.status();
  const bool found = *row;
  (*st)->reset();
  return found;
}

void Store::set_text_index_in_memory(bool on) {
  text_->on = on;
  if (!on) text_->index.reset();
}

Status Store::warm_text_index() { return text_index(true).status(); }

Status Store::release_memory() { return sqlite::exec(db_, "PRAGMA shrink_memory"); }

Status Store::set_memory_mapped(bool on) {
  return sqlite::exec(db_, on ? "PRAGMA mmap_size = 268435456" : "PRAGMA mmap_size = 0");
}

const TextIndex* Store::memory_text_index() {
  auto index = text_index(false);
  if (index) return *index;
  // The FTS5 query gives the same answer; the copy is not tried again on this connection.
  log::warning("the in-memory text index is unavailable, searching with FTS5: " + index.status().to_string());
  text_->failed = true;
  text_->index.reset();
  return nullptr;
}

const void* Store::text_index_identity() const { return text_->index.get(); }

Result<const TextIndex*> Store::text_index(bool wait) {
  TextState& t = *text_;
  if (!t.on || t.failed) return static_cast<const TextIndex*>(nullptr);
  // Within this connection's own write transaction the content may yet be rolled back, which neither the data
  // version nor the change count would reveal: such reads query FTS5.
  if (sqlite3_txn_state(db_, "main") == SQLITE_TXN_WRITE) return static_cast<const TextIndex*>(nullptr);
  // The mark is read before the stamp: a commit between the two makes the next call look again.
  auto mark = change_mark();
  if (!mark) return mark.status();
  if (t.index && *mark == t.checked_at) return t.index.get();
  auto stamp = content_stamp();
  if (!stamp) return stamp.status();
  if (!t.index || t.index->stamp() != *stamp) {
    // Stamp and postings are read in one snapshot (unless the caller already holds one). Every statement used
    // here is reset or finalized before the snapshot ends.
    const bool own_snapshot = sqlite3_get_autocommit(db_) != 0;
    if (own_snapshot) LOREKEEPER_RETURN_IF_ERROR(sqlite::exec(db_, "BEGIN"));
    auto loaded = [&]() -> Result<std::shared_ptr<const TextIndex>> {
      auto current = content_stamp();
      if (!current) return current.status();
      return TextIndex::shared(
          *current, [&] { return TextIndex::load(db_, *current); }, wait);
    }();
    if (own_snapshot && !sqlite::exec(db_, "COMMIT").is_ok()) (void)sqlite::exec(db_, "ROLLBACK");
    if (!loaded) return loaded.status();
    // Another thread is loading it: this call searches with FTS5, and the next looks again.
    if (*loaded == nullptr) return static_cast<const TextIndex*>(nullptr);
    t.index = std::move(*loaded);
  }
  t.checked_at = *mark;
  return t.index.get();
}

Result<const TextIndex*> Store::memory_terms(const std::vector<std::string>& words, std::vector<std::string>* terms) {
  const TextIndex* index = memory_text_index();
  if (index == nullptr) return index;
  if (!text_->tokenizer) {
    auto made = QueryTokenizer::create(db_);
    if (!made) return made.status();
    text_->tokenizer = std::move(*made);
  }
  terms->clear();
  for (const auto& w : words) {
    if (w.empty()) continue;
    auto tokens = text_->tokenizer->tokens(w);
    if (!tokens) return tokens.status();
    if (tokens->size() != 1) return static_cast<const TextIndex*>(nullptr);
    terms->push_back(std::move(tokens->front()));
  }
  return index;
}

Result<std::vector<Store::TextHit>> Store::text_search(const Query& q, const std::vector<std::string>& words,
                                                       int limit) {
  std::vector<std::string> terms;
  for (const auto& w : words) {
    if (!w.empty()) terms.push_back(w);
  }
  std::vector<TextHit> out;
  if (terms.empty() || limit <= 0) return out;
  if (text_->on && q.name_exact.empty() && q.name_contains.empty()) {
    std::vector<std::string> tokens;
    auto index = memory_terms(terms, &tokens);
    if (!index) return index.status();
    if (*index != nullptr) {
      // Attribute filters: the entities they allow, by id from the table, mark the rows the ranking may return.
      std::optional<std::vector<uint8_t>> rows;
      if (has_attribute_filters(q)) {
        auto ids = matching_ids(q);
        if (!ids) return ids.status();
        rows = (*index)->rows_with_ids(*ids);
      }
      const auto hits = (*index)->search(tokens, kWeights, q.kinds, q.document_keys ? &*q.document_keys : nullptr,
                                         limit, rows ? &*rows : nullptr);
      for (const auto& h : hits) {
        const auto& row = (*index)->row(h.row);
        out.push_back({row.kind, row.key, h.rank, h.matched_terms, h.in_body, h.hint_terms});
      }
      return out;
    }
  }
  const std::string match = fts_any(terms);
  std::string where = " WHERE entities_fts MATCH ?";
  std::vector<BindValue> binds = {match};
  build_where(q, &where, &binds);
  auto prepared = cached("SELECT e.kind, e.key, e.id, -bm25(entities_fts, " + std::to_string(kWeights.name) + ", " +
                         std::to_string(kWeights.text) + ", " + std::to_string(kWeights.hint) +
                         ") AS rank FROM entities_fts"
                         " JOIN entities e ON e.id = entities_fts.rowid" +
                         document_join(q) + where + " ORDER BY rank DESC LIMIT ?");
  if (!prepared) return prepared.status();
  Stmt& st = **prepared;
  bind_all(st, binds);
  st.bind(static_cast<int>(binds.size()) + 1, static_cast<long long>(limit));
  std::vector<long long> ids;
  while (true) {
    auto row = st.step();
    if (!row) return row.status();
    if (!*row) break;
    out.push_back({model::parse_kind(st.text(0)).value_or(Kind::kSpell), st.text(1), st.real(3), 0, false, false});
    ids.push_back(st.int64(2));
  }
  if (out.empty()) return out;
  // How many of the terms each hit contains, and in which columns: two index lookups per term (the name and
  // text columns, then the hint), each row they yield looked up among the (at most `limit`) hits.
  std::vector<std::pair<long long, size_t>> by_id;
  for (size_t i = 0; i < ids.size(); ++i) by_id.emplace_back(ids[i], i);
  std::sort(by_id.begin(), by_id.end());
  auto term_rows = cached("SELECT rowid FROM entities_fts WHERE entities_fts MATCH ?");
  if (!term_rows) return term_rows.status();
  std::vector<uint8_t> has_term(out.size());
  for (const auto& t : terms) {
    std::fill(has_term.begin(), has_term.end(), 0);
    for (const bool hint : {false, true}) {
      Stmt& ts = **term_rows;
      ts.reset();
      ts.bind(1, std::string_view((hint ? "hint : " : "{name text} : ") + fts_quote(t)));
      while (true) {
        auto row = ts.step();
        if (!row) return row.status();
        if (!*row) break;
        const long long rowid = ts.int64(0);
        const auto at = std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(rowid, size_t{0}));
        for (auto it = at; it != by_id.end() && it->first == rowid; ++it) {
          TextHit& h = out[it->second];
          if (hint) {
            ++h.hint_terms;
          } else {
            h.in_body = true;
          }
          if (has_term[it->second]++ == 0) ++h.matched_terms;
        }
      }
    }
  }
  return out;
}

Status Store::read_tags(std::vector<Entity>& entities) {
  auto prepared = cached(
      "SELECT t.tag, t.value FROM entity_tags t JOIN entities e ON e.id = t.entity_id WHERE e.kind = ? AND e.key = ?");
  if (!prepared) return prepared.status();
  Stmt& st = **prepared;
  static const std::map<std::string_view, std::vector<std::string> model::Facets::*> kByTag = [] {
    std::map<std::string_view, std::vector<std::string> model::Facets::*> by_tag;
    for (const TagFacet& t : kTagFacets) by_tag[t.tag] = t.values;
    return by_tag;
  }();
  for (Entity& e : entities) {
    model::Facets& f = e.facets;
    for (const TagFacet& t : kTagFacets) (f.*t.values).clear();
    st.reset();
    st.bind(1, model::kind_name(e.kind));
    st.bind(2, std::string_view(e.key));
    while (true) {
      auto row = st.step();
      if (!row) return row.status();
      if (!*row) break;
      auto it = kByTag.find(st.text_view(0));
      if (it != kByTag.end()) (f.*(it->second)).push_back(std::string(st.text_view(1)));
    }
  }
  return Status::ok();
}

Result<std::vector<Entity>> Store::get(const std::string& key, std::optional<Kind> kind, bool with_raw) {
  // The record as the API sent it is read only when asked for: it is the largest column (its overflow pages
  // are read with the row), and a search reads dozens of entities for showing.
  std::string sql = std::string("SELECT ") + kEntityColumns + (with_raw ? ", b.raw" : "") +
                    " FROM entities e JOIN documents d ON d.key = e.document_key"
                    " JOIN entity_bodies b ON b.id = e.id WHERE e.key = ?";
  if (kind) sql += " AND e.kind = ?";
  sql += " ORDER BY e.kind";
  auto prepared = cached(sql);
  if (!prepared) return prepared.status();
  Stmt& st = **prepared;
  st.bind(1, std::string_view(key));
  if (kind) st.bind(2, model::kind_name(*kind));
  std::vector<Entity> out;
  while (true) {
    auto row = st.step();
    if (!row) return row.status();
    if (!*row) break;
    Entity e = read_entity(st);
    if (with_raw) {
      std::string err;
      e.raw = json_util::parse(st.text(22), &err, nullptr, kStoredJsonDepth).value_or(model::json::object());
    }
    out.push_back(std::move(e));
  }
  return out;
}

Status Store::refresh_names() {
  auto mark = change_mark();
  if (!mark) return mark.status();
  if (*mark == names_->read_at) return Status::ok();
  auto prepared = cached(
      "SELECT kind, key, name, document_key, name_fold FROM entities ORDER BY name_fold, document_key, key, kind");
  if (!prepared) return prepared.status();
  Stmt& st = **prepared;
  std::vector<NameEntry> all;
  while (true) {
    auto row = st.step();
    if (!row) return row.status();
    if (!*row) break;
    all.push_back(
        {model::parse_kind(st.text(0)).value_or(Kind::kSpell), st.text(1), st.text(2), st.text(3), st.text(4)});
  }
  std::vector<std::string> keys;
  keys.reserve(all.size());
  for (const auto& n : all) keys.push_back(n.key);
  std::sort(keys.begin(), keys.end());
  std::vector<std::pair<std::pair<int, std::string>, size_t>> ids;
  ids.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) ids.push_back({{static_cast<int>(all[i].kind), all[i].key}, i});
  std::sort(ids.begin(), ids.end());
  auto docs = cached(
      "SELECT key, name, display_name, publisher, license, game_system, source_api, url, description FROM documents");
  if (!docs) return docs.status();
  std::map<std::string, model::Document, std::less<>> documents;
  while (true) {
    auto row = (*docs)->step();
    if (!row) return row.status();
    if (!*row) break;
    Stmt& d = **docs;
    documents[d.text(0)] = {d.text(0), d.text(1), d.text(2), d.text(3), d.text(4),
                            d.text(5), d.text(6), d.text(7), d.text(8)};
  }
  names_->all = std::move(all);
  names_->keys = std::move(keys);
  names_->ids = std::move(ids);
  names_->documents = std::move(documents);
  names_->read_at = *mark;
  return Status::ok();
}

Status Store::for_each_name(const std::vector<Kind>& kinds, const std::function<bool(const NameEntry&)>& visit) {
  LOREKEEPER_RETURN_IF_ERROR(refresh_names());
  for (const auto& n : names_->all) {
    if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), n.kind) == kinds.end()) continue;
    if (!visit(n)) break;
  }
  return Status::ok();
}

Result<std::vector<NameEntry>> Store::names_starting(const std::string& fold_prefix, const std::vector<Kind>& kinds) {
  LOREKEEPER_RETURN_IF_ERROR(refresh_names());
  std::vector<NameEntry> out;
  auto at = std::lower_bound(names_->all.begin(), names_->all.end(), fold_prefix,
                             [](const NameEntry& n, const std::string& f) { return n.name_fold < f; });
  for (; at != names_->all.end() && at->name_fold.compare(0, fold_prefix.size(), fold_prefix) == 0; ++at) {
    if (kinds.empty() || std::find(kinds.begin(), kinds.end(), at->kind) != kinds.end()) out.push_back(*at);
  }
  return out;
}

Result<std::vector<std::optional<NameEntry>>> Store::name_entries(const std::vector<std::pair<int, std::string>>& ids) {
  LOREKEEPER_RETURN_IF_ERROR(refresh_names());
  const auto& index = names_->ids;
  std::vector<std::optional<NameEntry>> out;
  out.reserve(ids.size());
  for (const auto& id : ids) {
    const auto at =
        std::lower_bound(index.begin(), index.end(), id, [](const auto& e, const auto& v) { return e.first < v; });
    out.push_back(at != index.end() && at->first == id ? std::optional<NameEntry>(names_->all[at->second])
                                                       : std::nullopt);
  }
  return out;
}

Result<std::optional<model::Document>> Store::document(std::string_view key) {
  LOREKEEPER_RETURN_IF_ERROR(refresh_names());
  const auto at = names_->documents.find(key);
  if (at == names_->documents.end()) return std::optional<model::Document>();
  return std::optional<model::Document>(at->second);
}

Result<bool> Store::has_name_or_key(const std::string& name_or_key) {
  LOREKEEPER_RETURN_IF_ERROR(refresh_names());
  if (names_->first_named(text::fold(name_or_key)) != names_->all.end()) return true;
  return std::binary_search(names_->keys.begin(), names_->keys.end(), text::trim(name_or_key));
}

Result<std::vector<NameEntry>> Store::names(const std::vector<Kind>& kinds) {
  std::vector<NameEntry> out;
  LOREKEEPER_RETURN_IF_ERROR(for_each_name(kinds, [&](const NameEntry& n) {
    out.push_back(n);
    return true;
  }));
  return out;
}

Result<std::vector<DocumentInfo>> Store::documents() {
  auto st = Stmt::prepare(db_,
                          "SELECT d.key, d.name, d.display_name, d.publisher, d.license, d.game_system, d.source_api, "
                          "d.url, d.description, e.kind, count(e.id) FROM documents d "
                          "JOIN entities e ON e.document_key = d.key GROUP BY d.key, e.kind ORDER BY d.key, e.kind");
  if (!st) return st.status();
  std::vector<DocumentInfo> out;
  while (true) {
    auto row = st->step();
    if (!row) return row.status();
    if (!*row) break;
    const std::string key = st->text(0);
    if (out.empty() || out.back().document.key != key) {
      DocumentInfo info;
      info.document = {key,         st->text(1), st->text(2), st->text(3), st->text(4),
                       st->text(5), st->text(6), st->text(7), st->text(8)};
      out.push_back(std::move(info));
    }
    const int n = static_cast<int>(st->int64(10));
    out.back().entity_types[st->text(9)] = n;
    out.back().entity_count += n;
  }
  return out;
}

Result<Stats> Store::stats() {
  Stats s;
  {
    auto st = Stmt::prepare(db_, "SELECT kind, document_key, count(*) FROM entities GROUP BY kind, document_key");
    if (!st) return st.status();
    while (true) {
      auto row = st->step();
      if (!row) return row.status();
      if (!*row) break;
      const int n = static_cast<int>(st->int64(2));
      s.per_kind[st->text(0)] += n;
      s.per_document[st->text(1)] += n;
      s.total += n;
    }
  }
  auto st = Stmt::prepare(db_, "SELECT key, value FROM meta ORDER BY key");
  if (!st) return st.status();
  while (true) {
    auto row = st->step();
    if (!row) return row.status();
    if (!*row) break;
    s.meta[st->text(0)] = st->text(1);
  }
  return s;
}

Result<std::unique_ptr<Store>> Store::open_checked(const std::string& path, Mode mode) {
  auto opened = open(path, mode);
  if (!opened) return opened;
  if (Status checked = (*opened)->check(); !checked.is_ok()) return checked;
  return opened;
}

Status Store::check() {
  // integrity_check, not quick_check: the SQLite of Debian 12 (3.40) has quick_check report every row of a
  // WITHOUT ROWID table whose primary key orders its columns differently as "NULL value in ..." (entity_tags).
  auto st = Stmt::prepare(db_, "PRAGMA integrity_check(5)");
  if (!st) return st.status();
  std::vector<std::string> problems;
  while (true) {
    auto row = st->step();
    // A page that cannot be read as a page is damage; a read that fails (an I/O error, no memory, a writer that
    // holds the file too long) is that, and says nothing of the store.
    if (!row) return Status(row.status().code(), path_ + ": checking it failed: " + row.status().message());
    if (!*row) break;
    if (std::string line = st->text(0); line != "ok") problems.push_back(line);
  }
  if (problems.empty()) return Status::ok();
  return Status::corruption(path_ + " is damaged: " + text::join(problems, "; "));
}

Status Store::fold_log() {
  auto st = Stmt::prepare(db_, "PRAGMA wal_checkpoint(TRUNCATE)");
  if (!st) return st.status();
  auto row = st->step();
  if (!row) return Status(row.status().code(), path_ + ": folding the write-ahead log in: " + row.status().message());
  // (busy, frames in the log, frames copied): -1 frames when the store is not in WAL mode.
  if (*row && (st->int64(0) != 0 || st->int64(1) != st->int64(2))) {
    return Status::unavailable(path_ + ": the write-ahead log could not be folded into the store (" +
                               std::to_string(st->int64(2)) + " of " + std::to_string(st->int64(1)) + " pages copied)" +
                               writable(path_));
  }
  return Status::ok();
}

Result<bool> Store::is_empty() {
  auto st = Stmt::prepare(db_, "SELECT EXISTS (SELECT 1 FROM documents) OR EXISTS (SELECT 1 FROM entities)");
  if (!st) return st.status();
  auto row = st->step();
  if (!row) return row.status();
  return !*row || st->int64(0) == 0;
}

}  // namespace lorekeeper::store

namespace lorekeeper::store {

Status Store::scan(const std::function<bool(const Entity&)>& visit, bool with_raw) {
  auto st = Stmt::prepare(db_, std::string("SELECT ") + kEntityColumns + (with_raw ? ", b.raw" : "") +
                                   " FROM entities e JOIN documents d ON d.key = e.document_key"
                                   " JOIN entity_bodies b ON b.id = e.id ORDER BY e.kind, e.key");
  if (!st) return st.status();
  while (true) {
    auto row = st->step();
    if (!row) return row.status();
    if (!*row) break;
    Entity e = read_entity(*st);
    if (with_raw) {
      std::string err;
      e.raw = json_util::parse(st->text(22), &err, nullptr, kStoredJsonDepth).value_or(model::json::object());
    }
    if (!visit(e)) break;
  }
  return Status::ok();
}

namespace {
// The stored vectors of one model (bound as ?) for entities that still exist, in (kind, key, passage) order. CROSS
// JOIN keeps entity_vectors the outer loop: its primary key gives the order, and entities (wide rows) is only
// probed by its (kind, key) index. The planner's own choice scanned entities and sorted the vectors in a temporary
// B-tree (three times slower on the bundled store).
constexpr const char* kVectorsOfModel =
    " FROM entity_vectors v CROSS JOIN entities e ON e.kind = v.kind AND e.key = v.key"
    " WHERE v.model = ? ORDER BY v.kind, v.key, v.passage";
}  // namespace

Result<std::vector<Store::VectorRow>> Store::vectors(const std::string& model, bool with_vectors) {
  auto st = Stmt::prepare(db_, std::string("SELECT v.kind, v.key, v.passage, v.text_hash, e.document_key") +
                                   (with_vectors ? ", v.vector" : "") + kVectorsOfModel);
  if (!st) return st.status();
  st->bind(1, std::string_view(model));
  std::vector<VectorRow> out;
  while (true) {
    auto row = st->step();
    if (!row) return row.status();
    if (!*row) break;
    VectorRow r;
    r.kind = model::parse_kind(st->text(0)).value_or(Kind::kSpell);
    r.key = st->text(1);
    r.passage = static_cast<int>(st->int64(2));
    r.text_hash = st->text(3);
    r.document_key = st->text(4);
    if (with_vectors) {
      const std::string_view b = st->blob(5);
      if (b.size() % sizeof(float) != 0) {
        return Status::corruption("a stored vector of " + r.key + " has " + std::to_string(b.size()) + " bytes");
      }
      r.vector.resize(b.size() / sizeof(float));
      std::memcpy(r.vector.data(), b.data(), b.size());
    }
    out.push_back(std::move(r));
  }
  return out;
}

Result<Store::VectorMatrix> Store::vector_matrix(const std::string& model, int dims) {
  auto st =
      Stmt::prepare(db_, std::string("SELECT v.kind, v.key, v.passage, e.document_key, v.vector") + kVectorsOfModel);
  if (!st) return st.status();
  st->bind(1, std::string_view(model));
  const size_t bytes = static_cast<size_t>(std::max(dims, 0)) * sizeof(float);
  VectorMatrix out;
  while (true) {
    auto row = st->step();
    if (!row) return row.status();
    if (!*row) break;
    const std::string_view b = st->blob(4);
    if (b.size() != bytes || bytes == 0) continue;
    const size_t at = out.data.size();
    out.data.resize(at + static_cast<size_t>(dims));
    std::memcpy(out.data.data() + at, b.data(), bytes);
    out.rows.push_back({model::parse_kind(st->text(0)).value_or(Kind::kSpell), st->text(1),
                        static_cast<int>(st->int64(2)), st->text(3)});
  }
  return out;
}

Status Store::write_vectors(const std::string& model, const std::vector<VectorRow>& rows,
                            const std::vector<std::pair<Kind, std::string>>& remove) {
  Transaction tx(db_);
  LOREKEEPER_RETURN_IF_ERROR(tx.begin());
  auto del = Stmt::prepare(db_, "DELETE FROM entity_vectors WHERE kind = ? AND key = ?");
  if (!del) return del.status();
  auto ins = Stmt::prepare(
      db_, "INSERT INTO entity_vectors (kind, key, passage, model, text_hash, vector) VALUES (?,?,?,?,?,?)");
  if (!ins) return ins.status();
  auto remove_one = [&](Kind kind, const std::string& key) -> Status {
    del->reset();
    del->bind(1, model::kind_name(kind));
    del->bind(2, std::string_view(key));
    return del->run();
  };
  for (const auto& [kind, key] : remove) LOREKEEPER_RETURN_IF_ERROR(remove_one(kind, key));
  std::set<std::pair<Kind, std::string>> cleared;
  for (const auto& r : rows) {
    if (cleared.insert({r.kind, r.key}).second) LOREKEEPER_RETURN_IF_ERROR(remove_one(r.kind, r.key));
    ins->reset();
    ins->bind(1, model::kind_name(r.kind));
    ins->bind(2, std::string_view(r.key));
    ins->bind(3, r.passage);
    ins->bind(4, std::string_view(model));
    ins->bind(5, std::string_view(r.text_hash));
    ins->bind_blob(6, r.vector.data(), r.vector.size() * sizeof(float));
    LOREKEEPER_RETURN_IF_ERROR(ins->run());
  }
  return tx.commit();
}

Result<int> Store::prune_vectors(const std::string& model) {
  auto st = Stmt::prepare(db_,
                          "DELETE FROM entity_vectors WHERE model <> ? OR NOT EXISTS (SELECT 1 FROM entities e "
                          "WHERE e.kind = entity_vectors.kind AND e.key = entity_vectors.key)");
  if (!st) return st.status();
  st->bind(1, std::string_view(model));
  LOREKEEPER_RETURN_IF_ERROR(st->run());
  return sqlite3_changes(db_);
}

}  // namespace lorekeeper::store
