// The entity store: one SQLite file (WAL mode, versioned schema) holding documents and entities with their
// typed facets. A Store is a single connection: use it from one thread at a time; open one Store per thread.
// Several processes may open the same file at once (one writer, many readers). A write that finds another
// process writing waits its turn (saying so on the log after a few seconds) for up to kBusyWaitSeconds, then
// fails with Unavailable. Opening refuses another program's SQLite database without writing to it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/model/hints.hpp"

struct sqlite3;

namespace lorekeeper::store::sqlite {
class Stmt;
}

namespace lorekeeper::store {

using model::Document;
using model::Entity;
using model::Kind;

class TextIndex;

// The schema version this build reads and writes.
inline constexpr int kSchemaVersion = 7;
// How long a write waits for another process's write transaction (a full sync holds one for about a minute).
inline constexpr int kBusyWaitSeconds = 900;

// Structured constraints; every field is optional and fields combine with AND. String facet values must be
// given in their stored, normalised form (lower-case keys; see model::Facets).
struct Query {
  std::vector<Kind> kinds;                                // empty: every kind
  std::optional<std::vector<std::string>> document_keys;  // nullopt: any document; empty: none
  std::string game_system;
  std::string name_exact;                  // matches a name equal after text::fold, or exactly the key
  std::vector<std::string> name_contains;  // folded words that must all occur in the folded name
  std::optional<int> level, level_min, level_max;
  std::string school, class_key, casting_time;
  // Deals this damage type: by its record or its text, or (creatures) through a spell it casts.
  std::string damage_type;
  // Derived facets (model/derived.hpp): casts a spell (folded name), inflicts a condition, calls for a saving
  // throw of an ability, has an attack of a range ("melee", "ranged", "reach"; creatures and weapons), has every
  // trait listed.
  std::vector<std::string> casts_spell;  // folded spell names, any of them
  std::string condition, save_ability, attack_range;
  std::string movement;  // has a speed of this mode ("fly", "swim", "climb", "burrow")
  std::string skill;     // (creatures) lists a bonus in this skill ("stealth")
  // (creatures) lists one of these environments (folded), by model::environment_matches: "swamp" is listed by a
  // record naming "Swamp or Marsh". lives_anywhere: true, only records that list (nearly) every environment
  // (model::kAnywhere); false, only the others.
  std::vector<std::string> environments;
  std::optional<bool> lives_anywhere;
  std::vector<std::string> traits, without_traits;
  std::optional<bool> concentration, ritual;
  std::optional<double> cr, cr_min, cr_max;
  std::string type, size;
  std::optional<int> armor_class_min, hit_points_min;
  std::string rarity;
  std::optional<bool> requires_attunement;
  std::string damage_dice;
  std::optional<bool> is_simple;
  std::vector<std::string> properties;  // every one required
  std::optional<double> cost_min, cost_max, weight_max;
  std::string section;
  std::string parent_key;
  std::optional<bool> top_level;  // true: no parent (classes, species); false: only children
  std::vector<std::string> exclude_keys;
  int limit = 20;
  int offset = 0;
};

// Whether `q` filters by anything besides kinds, documents and its name (name_exact, name_contains): such
// queries need the entities table; the others can be answered from the in-memory name list.
bool has_attribute_filters(const Query& q);

struct QueryResult {
  std::vector<Entity> entities;  // sorted by name, then document key, then key; `raw` left empty
  int total = 0;                 // matches before limit/offset
};

struct DocumentInfo {
  Document document;
  int entity_count = 0;
  std::map<std::string, int> entity_types;  // kind name -> count
};

struct NameEntry {
  Kind kind;
  std::string key;
  std::string name;
  std::string document_key;
  std::string name_fold;  // text::fold(name), as stored (filled by names())
};

struct Stats {
  int total = 0;
  std::map<std::string, int> per_kind;
  std::map<std::string, int> per_document;
  std::map<std::string, std::string> meta;  // e.g. "synced_at:open5e_v2" -> ISO time
};

// When `path` is a symbolic link whose target does not exist: what to say about it ("<path> is a symbolic link to
// <target>, which does not exist ..."). A store is neither built nor looked for through such a link: building one
// beside the link would fail, and did so again on every call.
std::optional<std::string> dangling_link(const std::string& path);

class Store {
 public:
  enum class Mode {
    kReadWrite,     // create the file and apply migrations as needed
    kExistingOnly,  // open an existing store for reading and writing; NotFound if there is none
  };

  // Opens (and, in kReadWrite, creates and migrates) the store at `path`; parent directories are created.
  // Errors: NotFound (kExistingOnly and no file), Corruption (not a database, or a newer schema), IoError.
  // The full-text index holds each entity's search hint from `hints` (the bundled ones when null; kept alive by
  // the caller while the store is open); when the hints it holds are other ones, they are replaced at opening,
  // in one transaction (a failure to write, as on a read-only file, is logged and leaves the old hints).
  static Result<std::unique_ptr<Store>> open(const std::string& path, Mode mode, const model::Hints* hints = nullptr);
  // open(), then check(): the store, or the damage (or the failed read) its integrity check found.
  static Result<std::unique_ptr<Store>> open_checked(const std::string& path, Mode mode);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }
  // The search hints this store's full-text index holds.
  const model::Hints& hints() const { return *hints_; }
  int schema_version() const { return schema_version_; }

  // What a replacement removes first: every entity of a source, or of one kind within it, or of one document
  // within it (an OrcBrew pack).
  struct Scope {
    std::string source_api;
    std::optional<Kind> kind;
    std::string document_key;  // empty: every document of the source
  };
  // Replaces, in one transaction, every entity within `scopes` with `entities`, upserts `documents` and drops
  // documents left without entities. Readers see either the old set or the new one, never a mix. On error
  // nothing changes.
  Status replace(const std::vector<Scope>& scopes, const std::vector<Document>& documents,
                 const std::vector<Entity>& entities);
  // A write transaction holding several replacements, so a caller can write as it goes (a sync, one endpoint
  // at a time) and still publish everything at once. Rolled back unless committed; while it is open other
  // writers wait and readers keep seeing the previous data.
  class Batch {
   public:
    ~Batch();
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;
    // Removes the entities within `scope`.
    Status remove(const Scope& scope);
    // Inserts or replaces `documents` and `entities` (by kind and key).
    Status write(const std::vector<Document>& documents, const std::vector<Entity>& entities);
    // Nested undo points: everything written after savepoint(name) is undone by rollback_to(name).
    Status savepoint(const std::string& name);
    Status release(const std::string& name);
    Status rollback_to(const std::string& name);
    // Drops documents left without entities, commits, and refreshes the planner's statistics.
    Status commit();

   private:
    friend class Store;
    explicit Batch(Store& store) : store_(store) {}
    Store& store_;  // must outlive the batch
    bool open_ = false;
  };
  Result<std::unique_ptr<Batch>> begin_batch();

  // A read transaction held for the scope's life: every read through this store sees one snapshot of the file,
  // so an answer built from several queries never mixes data from before and after another connection's commit
  // (an import, a sync). Only for readers: writing through the store while it is open fails.
  class ReadSnapshot {
   public:
    explicit ReadSnapshot(Store& store);
    ~ReadSnapshot();
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;

   private:
    Store& store_;
    bool open_ = false;
  };

  // replace() with one whole-source scope per entry of `sources`.
  Status replace_sources(const std::vector<std::string>& sources, const std::vector<Document>& documents,
                         const std::vector<Entity>& entities);
  // Inserts or replaces entities (by kind and key) and documents, in one transaction.
  Status upsert(const std::vector<Document>& documents, const std::vector<Entity>& entities);

  // SQLite's data version: changes whenever another connection (process or thread) commits to the file, so a
  // long-lived reader can notice an import or sync without re-reading anything.
  Result<int64_t> data_version();

  Status set_meta(const std::string& key, const std::string& value);
  Result<std::optional<std::string>> meta(const std::string& key);
  // A token that changes whenever an entity is written or its derived facets or search hints are refreshed
  // (what the embedded passages are made of); vectors and meta do not change it.
  Result<std::string> content_stamp();

  Result<QueryResult> query(const Query& q);
  // How many entities matching `q` (its limit and offset ignored) have each value of `facet`: a column ("kind",
  // "document", "game_system", "level", "school", "casting_time", "cr", "type", "size", "rarity", "section") or a
  // tag ("class", "property", "damage_type", "casts", "condition", "save", "attack", "moves", "skill", "trait",
  // "environment"; an entity with several values counts once under each). Values as stored (cr as a number: "0.25");
  // entities without a value are left out. Ordered by count, highest first, then by value. InvalidArgument for another
  // facet.
  Result<std::vector<std::pair<std::string, int>>> count_by(const Query& q, std::string_view facet);

  // Kinds, keys and names of the entities matching `q` (its limit applies; bodies are not read), by name. Served
  // from the in-memory name list when `q` has no attribute filters (and its exact name is no entity's key), or
  // when no name has its words at all.
  Result<std::vector<NameEntry>> match_names(const Query& q);
  // Whether some entity, of any kind or document, has the name `name_or_key` (after text::fold) or exactly that
  // key: a cheap test from memory before looking for an exact name under filters.
  Result<bool> has_name_or_key(const std::string& name_or_key);
  // Kinds and keys of every entity matching `q`'s filters, in no particular order (its limit, offset and
  // search words do not apply): what a filter mask over another index needs, without sorting by name. `visit`
  // sees each kind and key, the key valid during the call only.
  Status for_each_matching_key(const Query& q, const std::function<void(Kind, std::string_view)>& visit);

  struct TextHit {
    Kind kind;
    std::string key;
    double rank = 0;                                 // BM25 relevance, higher is better (> 0)
    int matched_terms = 0;                           // how many of the words this entity contains
    bool in_body = false;                            // some word is in its name or text
    int hint_terms = 0;                              // how many of the words are in its search hint
    bool in_hint() const { return hint_terms > 0; }  // some word is in its search hint
  };
  // Full-text search (FTS5, BM25 over the name, the search hint and the text, weighted in that order) among the
  // entities matching `q`'s filters, best first, at most `limit`. `words` are matched as terms (any of them, in any
  // English word form: the index stems with Porter's algorithm, so "regenerates" finds "Regeneration"); empty words are
  // ignored. Hits carry keys only: load the few that are shown with get().
  Result<std::vector<TextHit>> text_search(const Query& q, const std::vector<std::string>& words, int limit);
  // Whether any of `words` occurs in any entity's name, hint or text (in any word form), filters aside.
  Result<bool> any_text_match(const std::vector<std::string>& words);
  // Whether text_search() and any_text_match() read an in-memory copy of the full-text index (for a search with
  // attribute filters, among the entities the table says they allow; not with name filters): the same hits and
  // scores as the FTS5 query, without its cost (about a millisecond over the full corpus). For long-lived readers
  // (serve, eval): the copy is loaded on first use (about a third of a second and 15 MB for the full corpus), again
  // after the data changed, and shared by every Store of the process that reads the same content. Off by default:
  // one-shot commands query FTS5.
  void set_text_index_in_memory(bool on);
  // Loads the in-memory full-text index now when it is on and not current, so a search does not wait for it.
  // Searches never fail for want of it: they query FTS5 when it cannot be loaded.
  Status warm_text_index();
  // Whether this connection reads the file through a memory mapping (the default: fast reads, but every page it
  // touched stays in the process's resident memory while the connection lives) or through its bounded page cache
  // (for connections that read in bulk once, such as loading the vectors).
  Status set_memory_mapped(bool on);
  // Frees this connection's page cache (it fills again as it reads).
  Status release_memory();
  // The in-memory full-text index in use, as an opaque identity (null when off or not loaded): Stores reading the
  // same content have the same one.
  const void* text_index_identity() const;
  // One entity by key (and kind, when given; a key can exist in several kinds). With `with_raw` the original
  // record is loaded too.
  Result<std::vector<Entity>> get(const std::string& key, std::optional<Kind> kind, bool with_raw);
  // Replaces the multi-valued facets of `entities` (classes, properties, damage types and the derived ones) with
  // the store's tags for their kind and key: an entity the store does not hold gets empty lists.
  Status read_tags(std::vector<Entity>& entities);
  // Names and keys of the given kinds (all when empty), by folded name, for completion, close spellings and "did
  // you mean" suggestions. Served from memory: the list is read once and again only after the data changed (a
  // write through this connection, or a commit by another seen by data_version()).
  Result<std::vector<NameEntry>> names(const std::vector<Kind>& kinds);
  // The same list without copying it: `visit` sees each entry of the given kinds (all when empty) in that order;
  // returning false stops.
  Status for_each_name(const std::vector<Kind>& kinds, const std::function<bool(const NameEntry&)>& visit);
  // The names of `kinds` (all when empty) whose folded name begins with `fold_prefix`, in folded-name order, from
  // the in-memory name list (no scan of the table).
  Result<std::vector<NameEntry>> names_starting(const std::string& fold_prefix, const std::vector<Kind>& kinds);
  // The name list's entries of the entities `ids` (kind, key), in order (none for an entity the store does not
  // hold), and a document by key, both from memory (refreshed with the name list): for ranking without reading
  // entities.
  Result<std::vector<std::optional<NameEntry>>> name_entries(const std::vector<std::pair<int, std::string>>& ids);
  Result<std::optional<model::Document>> document(std::string_view key);
  Result<std::vector<DocumentInfo>> documents();

  // Every entity with its text, data and facets (and `raw` when `with_raw`), in kind and key order; `visit`
  // returning false stops the scan.
  Status scan(const std::function<bool(const Entity&)>& visit, bool with_raw = false);

  // One stored embedding: passage `passage` of an entity's text, embedded by `model`.
  struct VectorRow {
    Kind kind = Kind::kSpell;
    std::string key;
    int passage = 0;
    std::string text_hash;
    std::vector<float> vector;  // empty when read without vectors
    std::string document_key;   // filled by vectors(), ignored by write_vectors()
  };
  // The stored embeddings of `model` for entities that still exist, by kind, key and passage; with
  // `with_vectors` false only their hashes are read.
  Result<std::vector<VectorRow>> vectors(const std::string& model, bool with_vectors);
  // The stored embeddings of `model` with exactly `dims` components, for entities that still exist, in kind,
  // key and passage order, read into one array (row i's vector is data[i * dims, (i + 1) * dims)): the vector
  // index's form, without a container per row. Vectors of another size are left out.
  struct VectorMatrix {
    struct Ref {
      Kind kind = Kind::kSpell;
      std::string key;
      int passage = 0;
      std::string document_key;
    };
    std::vector<Ref> rows;
    std::vector<float> data;
  };
  Result<VectorMatrix> vector_matrix(const std::string& model, int dims);
  // In one transaction: replaces every passage of each entity named in `rows` with `rows`, and deletes the
  // vectors of `remove` (kind, key) entities. Vectors of other models for those entities go too.
  Status write_vectors(const std::string& model, const std::vector<VectorRow>& rows,
                       const std::vector<std::pair<Kind, std::string>>& remove);
  // Deletes vectors of entities no longer in the store and of models other than `model`; returns how many.
  Result<int> prune_vectors(const std::string& model);
  Result<Stats> stats();
  // SQLite's integrity check of the whole file (about a tenth of a second for the bundled corpus): Corruption
  // naming the first problems found when the file is damaged (a flipped page reads back as other data, so counts
  // and searches would silently answer wrong), ok otherwise.
  Status check();
  // Whether the store holds no document at all: a store whose first sync or import did not finish, or a file
  // created empty. Such a store is never served as if the data had nothing to say.
  Result<bool> is_empty();
  // Copies the whole write-ahead log into the store file and empties it; an error (a full disk, another
  // connection reading) when it cannot. A new store is linked into place only after this succeeded, so that the
  // file alone holds all of it.
  Status fold_log();
  // Why the last copy of the write-ahead log into the store file failed (a full disk); empty when it did not.
  // Such a failure does not undo a commit: the data is in the log, read from there, and copied into the file by a
  // later write once there is room. Writers say so in their reports.
  std::string checkpoint_failure() const;

 private:
  Store(sqlite3* db, std::string path);
  Status migrate();
  Status write_entities(const std::vector<Document>& documents, const std::vector<Entity>& entities);
  Status refresh_names();
  // Replaces the search hints in the full-text index when they are not those of hints_ (by stamp).
  Status refresh_hints();
  // Re-derives the derived facets (model/derived.hpp) of every creature and spell when the store's were derived
  // by other rules (meta "derived_facets" != model::kDerivedFacetsVersion), in one transaction.
  Status refresh_derived();
  // Runs `rewrite` and records `stamp` under `meta_key`, in one transaction, unless `stamp` is recorded already.
  Status refresh_if_stale(const char* meta_key, const std::string& stamp, const std::function<Status()>& rewrite);

  struct StatementCache;
  struct BusyWait;
  struct Checkpoints;
  struct ChangeMark;
  struct NameCache;
  struct TextState;
  Result<ChangeMark> change_mark();
  // The in-memory full-text index, current with the file; null when off, within a write transaction of this
  // connection (whose content may yet be rolled back), or, unless `wait`, while another thread loads it.
  Result<const TextIndex*> text_index(bool wait);
  // text_index() for a search: null (FTS5 answers) when it is off or failed to load (said once in the log).
  const TextIndex* memory_text_index();
  // The in-memory index a search for `words` can use, with their FTS5 terms in *terms (one per non-empty word);
  // null (FTS5 answers) when there is none or some word is not exactly one term (a phrase, which the FTS5 query
  // matches by position).
  Result<const TextIndex*> memory_terms(const std::vector<std::string>& words, std::vector<std::string>* terms);
  // The ids (entities.id) of every entity matching `q`'s filters, ascending (its limit and offset aside).
  Result<std::vector<int64_t>> matching_ids(const Query& q);
  // A prepared statement for `sql`, reset and ready to bind; owned by the cache.
  Result<sqlite::Stmt*> cached(const std::string& sql);

  sqlite3* db_;  // owned; closed in the destructor
  std::string path_;
  const model::Hints* hints_;
  int schema_version_ = 0;
  std::unique_ptr<StatementCache> cache_;
  std::unique_ptr<BusyWait> busy_;
  std::unique_ptr<Checkpoints> checkpoints_;
  std::unique_ptr<NameCache> names_;
  std::unique_ptr<TextState> text_;
};

}  // namespace lorekeeper::store
