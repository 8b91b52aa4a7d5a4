#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/store/files.hpp"
#include "lorekeeper/store/store.hpp"
#include "test_support.hpp"

namespace lorekeeper::store {
namespace {

std::unique_ptr<Store> open_rw(const std::string& path) {
  auto s = Store::open(path, Store::Mode::kReadWrite);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  return s.is_ok() ? std::move(*s) : nullptr;
}

std::unique_ptr<Store> fixture() {
  auto s = Store::open(testing::fixture_store(), Store::Mode::kExistingOnly);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  return s.is_ok() ? std::move(*s) : nullptr;
}

model::Entity make(const std::string& key, const std::string& name, const std::string& source = "test") {
  model::Entity e;
  e.kind = model::Kind::kSpell;
  e.key = key;
  e.name = name;
  e.document = {"doc-" + source, "Document " + source, "", "Pub", "cc-by-40", "5e-2014", source, "", ""};
  e.source_api = source;
  e.url = "https://example.invalid/" + key;
  e.data = {{"desc", name + " text"}};
  e.raw = {{"key", key}, {"name", name}};
  e.facets.level = 1;
  e.facets.school = "evocation";
  e.facets.classes = {"wizard"};
  return e;
}

// The keys of the text search's hits for `word`, sorted.
std::vector<std::string> text_keys(Store& st, const std::string& word) {
  std::vector<std::string> out;
  auto hits = st.text_search(Query{}, {word}, 10);
  EXPECT_TRUE(hits.is_ok()) << hits.status().to_string();
  if (hits.is_ok()) {
    for (const auto& h : *hits) out.push_back(h.key);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs `sql` on the file directly, as an older lorekeeper or another program would have left it.
void exec_raw(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << sql;
}

// The first column of every row `sql` gives, read from the file directly.
std::vector<std::string> query_raw(const std::string& path, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const int rc = sqlite3_exec(
      db, sql.c_str(),
      [](void* rows, int, char** values, char**) {
        static_cast<std::vector<std::string>*>(rows)->push_back(values[0] ? values[0] : "");
        return 0;
      },
      &out, nullptr);
  sqlite3_close(db);
  EXPECT_EQ(rc, SQLITE_OK) << sql;
  return out;
}

// The text index as schema versions 1 and 2 made it: no stemming, and empty.
constexpr const char* kUnstemmedTextIndex =
    "DROP TRIGGER entities_fts_delete; DROP TABLE entities_fts;"
    "CREATE VIRTUAL TABLE entities_fts USING fts5 (name, text, tokenize = 'unicode61 remove_diacritics 2');"
    "CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN DELETE FROM entities_fts WHERE rowid = "
    "old.id; END;";

TEST(Store, CreatesVersionedSchemaInWalMode) {
  const std::string path = testing::temp_dir() + "/sub/dir/store.db";
  auto st = open_rw(path);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->schema_version(), kSchemaVersion);
  EXPECT_TRUE(std::filesystem::exists(path));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
  sqlite3_close(db);
  // Reopening does not migrate again.
  st.reset();
  auto again = open_rw(path);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->schema_version(), kSchemaVersion);
}

TEST(Store, ExistingOnlyReportsAMissingStore) {
  auto st = Store::open(testing::temp_dir() + "/none.db", Store::Mode::kExistingOnly);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.status().code(), StatusCode::kNotFound);
}

TEST(Store, RejectsAFileThatIsNotADatabase) {
  const std::string path = testing::temp_dir() + "/garbage.db";
  testing::write_file(path, std::string(4096, 'x'));
  auto st = Store::open(path, Store::Mode::kExistingOnly);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.status().code(), StatusCode::kCorruption);
  EXPECT_NE(st.status().message().find("not a LoreKeeper store"), std::string::npos);
  // The file is left untouched.
  EXPECT_EQ(testing::read_file(path), std::string(4096, 'x'));
}

TEST(Store, RejectsANewerSchema) {
  const std::string path = testing::temp_dir() + "/newer.db";
  { ASSERT_TRUE(open_rw(path)); }
  ASSERT_NO_FATAL_FAILURE(exec_raw(path, "PRAGMA user_version = 99"));
  auto st = Store::open(path, Store::Mode::kExistingOnly);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.status().code(), StatusCode::kCorruption);
  EXPECT_NE(st.status().message().find("newer"), std::string::npos);
}

TEST(Store, RejectsAForeignSqliteDatabase) {
  const std::string path = testing::temp_dir() + "/foreign.db";
  ASSERT_NO_FATAL_FAILURE(exec_raw(path, "CREATE TABLE t(x); PRAGMA user_version = 1"));
  auto st = Store::open(path, Store::Mode::kExistingOnly);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.status().message().find("another program"), std::string::npos) << st.status().message();
  // Nothing was added to it.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), 1);
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST(Store, TextSearchMatchesWordForms) {
  auto st = open_rw(testing::temp_dir() + "/stem.db");
  ASSERT_TRUE(st);
  auto troll = make("troll", "Troll");
  troll.text = "The troll regains 10 hit points at the start of its turn (Regeneration).";
  auto other = make("other", "Other");
  other.text = "A creature heals nothing here.";
  ASSERT_TRUE(st->upsert({troll.document}, {troll, other}).is_ok());
  auto hits = st->text_search(Query{}, {"regenerates"}, 10);
  ASSERT_TRUE(hits.is_ok()) << hits.status().to_string();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].key, "troll");
  EXPECT_EQ((*hits)[0].matched_terms, 1);
  hits = st->text_search(Query{}, {"healing", "regained"}, 10);
  ASSERT_TRUE(hits.is_ok());
  EXPECT_EQ(hits->size(), 2u);
}

// The in-memory full-text index must answer as the FTS5 query does: the same hits with the same scores (bit for
// bit: the same bm25 arithmetic), the same term counts, under kind and document filters, for words of the corpus in
// other forms, unknown words, repeated words and words FTS5 splits into phrases.
TEST(Store, InMemoryTextIndexRanksAsFts5) {
  auto sql = fixture();
  auto memory = fixture();
  ASSERT_TRUE(sql && memory);
  memory->set_text_index_in_memory(true);
  // Words of the fixture corpus's names, texts and search hints, and some it lacks or that FTS5 splits.
  std::vector<std::string> vocabulary;
  std::set<std::string> seen;
  ASSERT_TRUE(sql->scan([&](const model::Entity& e) {
                   std::string word;
                   for (char c : e.name + " " + e.text + " " + std::string(sql->hints().find(e.kind, e.name)) + " ") {
                     if (std::isalpha(static_cast<unsigned char>(c))) {
                       word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                     } else {
                       if (word.size() >= 3 && seen.insert(word).second) vocabulary.push_back(word);
                       word.clear();
                     }
                   }
                   return true;
                 })
                  .is_ok());
  ASSERT_GT(vocabulary.size(), 500u);
  for (const char* w : {"regenerates", "healing", "zxqvv", "fire-bolt", "giant's", "éclair", "dragons"}) {
    vocabulary.push_back(w);
  }
  // Kind and document filters, then attribute filters (the memory path marks the rows the table allows).
  std::vector<Query> filters(8);
  filters[1].kinds = {Kind::kCreature};
  filters[2].kinds = {Kind::kSpell, Kind::kItem};
  filters[3].document_keys = std::vector<std::string>{"srd-2014"};
  filters[4].document_keys = std::vector<std::string>{};
  filters[5].kinds = {Kind::kCreature};
  filters[5].cr_max = 2;
  filters[6].kinds = {Kind::kSpell};
  filters[6].level_min = 1;
  filters[6].level_max = 3;
  filters[6].document_keys = std::vector<std::string>{"srd-2024"};
  filters[7].exclude_keys = {"srd_goblin"};
  uint32_t seed = 12345;
  auto next = [&](size_t n) {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<size_t>(seed >> 8) % n;
  };
  int compared = 0, nonempty = 0, hint_only = 0, attribute_filtered_nonempty = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> words;
    const size_t count = 1 + next(4);
    for (size_t i = 0; i < count; ++i) words.push_back(vocabulary[next(vocabulary.size())]);
    if (round % 10 == 0) words.push_back(words.front());  // a repeated word is a second phrase
    if (round % 7 == 0) words.push_back(vocabulary[vocabulary.size() - 1 - next(7)]);
    const Query& q = filters[static_cast<size_t>(round) % filters.size()];
    auto expected = sql->text_search(q, words, 1000);
    auto got = memory->text_search(q, words, 1000);
    ASSERT_TRUE(expected.is_ok() && got.is_ok()) << expected.status().to_string() << got.status().to_string();
    // Ties are in no particular order in SQL: compare by score, then kind and key.
    auto order = [](std::vector<Store::TextHit> hits) {
      std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
        return std::tie(b.rank, a.kind, a.key) < std::tie(a.rank, b.kind, b.key);
      });
      return hits;
    };
    const auto e = order(*expected), g = order(*got);
    ASSERT_EQ(e.size(), g.size()) << words.front();
    for (size_t i = 0; i < e.size(); ++i) {
      EXPECT_EQ(e[i].key, g[i].key) << words.front() << " #" << i;
      EXPECT_EQ(e[i].kind, g[i].kind);
      EXPECT_EQ(e[i].rank, g[i].rank) << e[i].key;
      EXPECT_EQ(e[i].matched_terms, g[i].matched_terms) << e[i].key;
      EXPECT_EQ(e[i].in_hint(), g[i].in_hint()) << e[i].key;
      EXPECT_EQ(e[i].hint_terms, g[i].hint_terms) << e[i].key;
      EXPECT_EQ(e[i].in_body, g[i].in_body) << e[i].key;
      hint_only += e[i].in_hint() && !e[i].in_body ? 1 : 0;
    }
    // A short page holds the same scores (which of several tied hits fills its last place may differ).
    auto page = memory->text_search(q, words, 5);
    ASSERT_TRUE(page.is_ok());
    ASSERT_EQ(page->size(), std::min<size_t>(5, e.size()));
    for (size_t i = 0; i < page->size(); ++i) EXPECT_EQ((*page)[i].rank, e[i].rank);
    auto any_sql = sql->any_text_match(words);
    auto any_memory = memory->any_text_match(words);
    ASSERT_TRUE(any_sql.is_ok() && any_memory.is_ok());
    EXPECT_EQ(*any_sql, *any_memory) << words.front();
    ++compared;
    nonempty += e.empty() ? 0 : 1;
    attribute_filtered_nonempty += !e.empty() && has_attribute_filters(q) ? 1 : 0;
  }
  EXPECT_NE(memory->text_index_identity(), nullptr);  // the comparison did read the memory index
  EXPECT_EQ(sql->text_index_identity(), nullptr);
  EXPECT_GT(nonempty, compared / 3);
  EXPECT_GE(attribute_filtered_nonempty, 20);
  EXPECT_GT(hint_only, 0) << "some hits matched by their search hint alone";
}

// The memory index follows writes, through this connection and through another, and is shared by stores reading
// the same content.
TEST(Store, InMemoryTextIndexFollowsWritesAndIsShared) {
  const std::string path = testing::temp_dir() + "/memory-text.db";
  auto writer = open_rw(path);
  auto reader = open_rw(path);
  ASSERT_TRUE(writer && reader);
  writer->set_text_index_in_memory(true);
  reader->set_text_index_in_memory(true);
  auto troll = make("troll", "Troll");
  troll.text = "The troll regains hit points (Regeneration).";
  ASSERT_TRUE(writer->upsert({troll.document}, {troll}).is_ok());
  EXPECT_EQ(text_keys(*reader, "regenerate"), std::vector<std::string>{"troll"});
  EXPECT_EQ(text_keys(*writer, "regenerate"), std::vector<std::string>{"troll"});
  EXPECT_EQ(reader->text_index_identity(), writer->text_index_identity());
  const void* before = reader->text_index_identity();
  // Another connection's commit: the reader sees it on its next search.
  auto hydra = make("hydra", "Hydra");
  hydra.text = "Whenever the hydra takes damage it regenerates heads.";
  ASSERT_TRUE(writer->upsert({hydra.document}, {hydra}).is_ok());
  EXPECT_EQ(text_keys(*reader, "regenerate"), (std::vector<std::string>{"hydra", "troll"}));
  EXPECT_NE(reader->text_index_identity(), before);
  // This connection's own write.
  ASSERT_TRUE(reader->replace({Store::Scope{"test", std::nullopt, ""}}, {}, {hydra}).is_ok());
  EXPECT_EQ(text_keys(*reader, "regenerate"), std::vector<std::string>{"hydra"});
  EXPECT_EQ(text_keys(*writer, "regenerate"), std::vector<std::string>{"hydra"});
  EXPECT_EQ(text_keys(*reader, "troll"), std::vector<std::string>{});
  // A store opened later finds the index already loaded.
  auto late = open_rw(path);
  ASSERT_TRUE(late);
  late->set_text_index_in_memory(true);
  ASSERT_TRUE(late->warm_text_index().is_ok());
  EXPECT_EQ(late->text_index_identity(), reader->text_index_identity());
}

// A store that never held an entity (FTS5's averages record is then empty) searches to nothing, without error.
TEST(Store, InMemoryTextIndexOfAnEmptyStore) {
  auto st = open_rw(testing::temp_dir() + "/memory-empty.db");
  ASSERT_TRUE(st);
  st->set_text_index_in_memory(true);
  ASSERT_TRUE(st->warm_text_index().is_ok());
  EXPECT_NE(st->text_index_identity(), nullptr);
  auto hits = st->text_search(Query{}, {"troll"}, 10);
  ASSERT_TRUE(hits.is_ok()) << hits.status().to_string();
  EXPECT_TRUE(hits->empty());
  auto any = st->any_text_match({"troll"});
  ASSERT_TRUE(any.is_ok());
  EXPECT_FALSE(*any);
}

// Within its own write transaction a connection searches the uncommitted content through FTS5, and after a
// rollback it does not keep what was rolled back.
TEST(Store, InMemoryTextIndexIgnoresUncommittedWrites) {
  const std::string path = testing::temp_dir() + "/memory-rollback.db";
  auto st = open_rw(path);
  ASSERT_TRUE(st);
  st->set_text_index_in_memory(true);
  auto troll = make("troll", "Troll");
  troll.text = "Regeneration.";
  ASSERT_TRUE(st->upsert({troll.document}, {troll}).is_ok());
  EXPECT_EQ(text_keys(*st, "regenerate"), std::vector<std::string>{"troll"});
  {
    auto batch = st->begin_batch();
    ASSERT_TRUE(batch.is_ok());
    auto hydra = make("hydra", "Hydra");
    hydra.text = "It regenerates heads.";
    ASSERT_TRUE((*batch)->write({hydra.document}, {hydra}).is_ok());
    EXPECT_EQ(text_keys(*st, "regenerate"), (std::vector<std::string>{"hydra", "troll"}));  // its own write, by FTS5
  }                                                                                         // rolled back
  EXPECT_EQ(text_keys(*st, "regenerate"), std::vector<std::string>{"troll"});
  EXPECT_EQ(text_keys(*st, "heads"), std::vector<std::string>{});
  EXPECT_NE(st->text_index_identity(), nullptr);
}

// Every write to the entities renews the content stamp in its own transaction; a rolled-back write leaves it.
TEST(Store, WritesRenewTheContentStamp) {
  const std::string path = testing::temp_dir() + "/stamp.db";
  auto st = open_rw(path);
  ASSERT_TRUE(st);
  auto stamp = [&] {
    const auto rows = query_raw(path, "SELECT stamp FROM content_stamp");
    return rows.empty() ? std::string() : rows.front();
  };
  const std::string empty = stamp();
  EXPECT_EQ(empty.size(), 16u);
  auto a = make("a", "A");
  ASSERT_TRUE(st->upsert({a.document}, {a}).is_ok());
  const std::string one = stamp();
  EXPECT_NE(one, empty);
  auto bad = make("b", "B");
  bad.document.key = "nowhere";  // refused: the document is neither stored nor written
  EXPECT_FALSE(st->upsert({}, {a, bad}).is_ok());
  EXPECT_EQ(stamp(), one);
  ASSERT_TRUE(st->replace({Store::Scope{"test", std::nullopt, ""}}, {}, {}).is_ok());
  EXPECT_NE(stamp(), one);
}

TEST(Store, MigratesVectorsOutOfAWithoutRowidTableKeepingThem) {
  const std::string path = testing::temp_dir() + "/v6.db";
  {
    auto st = open_rw(path);
    ASSERT_TRUE(st);
    auto troll = make("troll", "Troll");
    auto ogre = make("ogre", "Ogre");
    ASSERT_TRUE(st->upsert({troll.document}, {troll, ogre}).is_ok());
  }
  // Back to schema version 6: vectors in a WITHOUT ROWID table, as that version wrote them (out of key order).
  ASSERT_NO_FATAL_FAILURE(exec_raw(
      path,
      "DROP TABLE entity_vectors;"
      "CREATE TABLE entity_vectors (kind TEXT NOT NULL, key TEXT NOT NULL, passage INTEGER NOT NULL, model TEXT NOT "
      "NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (kind, key, passage)) WITHOUT ROWID;"
      "INSERT INTO entity_vectors VALUES ('spell', 'troll', 1, 'm', 'h2', x'0000404000008040');"
      "INSERT INTO entity_vectors VALUES ('spell', 'ogre', 0, 'm', 'h0', x'0000803f00000040');"
      "INSERT INTO entity_vectors VALUES ('spell', 'troll', 0, 'm', 'h1', x'0000a0400000c040');"
      "PRAGMA user_version = 6"));
  auto st = open_rw(path);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->schema_version(), kSchemaVersion);
  auto matrix = st->vector_matrix("m", 2);
  ASSERT_TRUE(matrix.is_ok()) << matrix.status().to_string();
  ASSERT_EQ(matrix->rows.size(), 3u);
  EXPECT_EQ(matrix->rows[0].key, "ogre");
  EXPECT_EQ(matrix->rows[1].key, "troll");
  EXPECT_EQ(matrix->rows[1].passage, 0);
  EXPECT_EQ(matrix->rows[2].passage, 1);
  EXPECT_EQ(matrix->data, (std::vector<float>{1, 2, 5, 6, 3, 4}));
  // The old table's pages were given back (the upgrade compacts the file once), and so was the upgrade's log,
  // while the store is still open.
  EXPECT_EQ(query_raw(path, "PRAGMA freelist_count"), std::vector<std::string>{"0"});
  std::error_code ec;
  EXPECT_EQ(std::filesystem::file_size(path + "-wal", ec), 0u) << ec.message();
  auto hashes = st->vectors("m", false);
  ASSERT_TRUE(hashes.is_ok());
  ASSERT_EQ(hashes->size(), 3u);
  EXPECT_EQ((*hashes)[2].text_hash, "h2");
  // A passage is still one row: writing it again replaces it.
  ASSERT_TRUE(st->write_vectors("m", {{Kind::kSpell, "troll", 0, "h9", {7, 8}, ""}}, {}).is_ok());
  matrix = st->vector_matrix("m", 2);
  ASSERT_TRUE(matrix.is_ok());
  EXPECT_EQ(matrix->data, (std::vector<float>{1, 2, 7, 8}));
}

TEST(Store, MigratesAnUnstemmedTextIndexKeepingItsRows) {
  const std::string path = testing::temp_dir() + "/v2.db";
  {
    auto st = open_rw(path);
    ASSERT_TRUE(st);
    auto troll = make("troll", "Troll");
    troll.text = "Regeneration: the troll regains hit points.";
    ASSERT_TRUE(st->upsert({troll.document}, {troll}).is_ok());
  }
  // Back to schema version 2: the unstemmed text index, holding the stored names and texts.
  ASSERT_NO_FATAL_FAILURE(exec_raw(path, std::string(kUnstemmedTextIndex) +
                                             "INSERT INTO entities_fts (rowid, name, text) SELECT e.id, e.name, "
                                             "b.text FROM entities e JOIN entity_bodies b ON b.id = e.id;"
                                             "PRAGMA user_version = 2"));
  auto st = open_rw(path);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->schema_version(), kSchemaVersion);
  auto hits = st->text_search(Query{}, {"regenerates"}, 10);
  ASSERT_TRUE(hits.is_ok()) << hits.status().to_string();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].key, "troll");
  // Deleting an entity still removes its text row.
  ASSERT_TRUE(st->replace({Store::Scope{"test", std::nullopt, ""}}, {}, {}).is_ok());
  hits = st->text_search(Query{}, {"troll"}, 10);
  ASSERT_TRUE(hits.is_ok());
  EXPECT_TRUE(hits->empty());
}

// Hints for the tests' spells, and the words only the hint of each has.
model::Hints test_hints(const std::string& pegasus_hint) {
  auto hints = model::Hints::parse("kind\tname\thint\nspell\tPegasus Call\t" + pegasus_hint + "\n");
  EXPECT_TRUE(hints.is_ok()) << hints.status().to_string();
  return hints.is_ok() ? std::move(*hints) : model::Hints();
}

model::Entity pegasus_call() {
  auto e = make("pegasus-call", "Pegasus Call");
  e.text = "You whistle, and hooves answer.";
  return e;
}

TEST(Store, TextSearchReadsTheSearchHint) {
  const std::string path = testing::temp_dir() + "/hints.db";
  const model::Hints hints = test_hints("summon a winged horse");
  auto opened = Store::open(path, Store::Mode::kReadWrite, &hints);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  Store& st = **opened;
  EXPECT_EQ(&st.hints(), &hints);
  const auto e = pegasus_call();
  ASSERT_TRUE(st.upsert({e.document}, {e}).is_ok());
  for (const bool memory : {false, true}) {
    st.set_text_index_in_memory(memory);
    auto hits = st.text_search(Query{}, {"winged", "horses"}, 10);
    ASSERT_TRUE(hits.is_ok()) << hits.status().to_string();
    ASSERT_EQ(hits->size(), 1u) << memory;
    EXPECT_EQ((*hits)[0].matched_terms, 2);
    EXPECT_TRUE((*hits)[0].in_hint());
    EXPECT_FALSE((*hits)[0].in_body) << "no word is in the name or the text";
    hits = st.text_search(Query{}, {"hooves", "pegasus"}, 10);
    ASSERT_TRUE(hits.is_ok());
    ASSERT_EQ(hits->size(), 1u);
    EXPECT_FALSE((*hits)[0].in_hint());
    EXPECT_TRUE((*hits)[0].in_body);
    hits = st.text_search(Query{}, {"hooves", "horse"}, 10);
    ASSERT_TRUE(hits.is_ok());
    ASSERT_EQ(hits->size(), 1u);
    EXPECT_TRUE((*hits)[0].in_hint() && (*hits)[0].in_body);
    auto any = st.any_text_match({"winged"});
    ASSERT_TRUE(any.is_ok());
    EXPECT_TRUE(*any);
  }
}

// A store whose facets were derived by other rules (an older program's, or none) is re-derived when opened, from
// the data it holds, in one transaction; opening it again writes nothing.
TEST(Store, RederivesTheDerivedFacetsWhenTheRulesChange) {
  const std::string path = testing::temp_dir() + "/derived-change.db";
  model::Entity lich;
  lich.kind = Kind::kCreature;
  lich.key = "lich";
  lich.name = "Lich";
  lich.document.key = "doc";
  lich.document.name = "Doc";
  lich.data["actions"] = model::json::array({{{"name", "Paralyzing Touch"},
                                              {"desc",
                                               "Hit: 10 (3d6) cold damage. The target must succeed on a DC 18 "
                                               "Constitution saving throw or be paralyzed for 1 minute."}}});
  lich.data["traits"] = model::json::array({{{"name", "Spellcasting"}, {"desc", "At will: ray of frost, mage hand"}}});
  lich.data["environments"] = model::json::array({"Swamp or Marsh", "Tomb"});
  auto paralyzers = [](Store& st) {
    Query q;
    q.condition = "paralyzed";
    q.casts_spell = {"ray of frost"};
    auto r = st.query(q);
    EXPECT_TRUE(r.is_ok());
    return r.is_ok() ? r->total : -1;
  };
  {
    auto st = Store::open(path, Store::Mode::kReadWrite);
    ASSERT_TRUE(st.is_ok());
    ASSERT_TRUE((*st)->upsert({lich.document}, {lich}).is_ok());  // written without derived facets
    EXPECT_EQ(paralyzers(**st), 0);
  }
  // Tags older rules wrote and these do not: removed, damage types included.
  exec_raw(path,
           "UPDATE meta SET value = 'older rules' WHERE key = 'derived_facets';"
           "INSERT INTO entity_tags (entity_id, tag, value) SELECT id, 'damage_type', 'thunder' FROM entities;"
           "INSERT INTO entity_tags (entity_id, tag, value) SELECT id, 'condition', 'prone' FROM entities;"
           "INSERT INTO entity_tags (entity_id, tag, value) SELECT id, 'environment', 'hills' FROM entities;");
  auto st = Store::open(path, Store::Mode::kExistingOnly);
  ASSERT_TRUE(st.is_ok());
  EXPECT_EQ(paralyzers(**st), 1);
  for (auto [tag, value] : {std::pair{"damage_type", "thunder"}, {"condition", "prone"}, {"damage_type", "cold"}}) {
    Query q;
    if (std::string(tag) == "condition")
      q.condition = value;
    else
      q.damage_type = value;
    auto r = (*st)->query(q);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->total, std::string(value) == "cold" ? 1 : 0) << tag << " " << value;
  }
  for (auto [asked, found] : {std::pair{"marsh", 1}, {"swamp or marsh", 1}, {"tomb", 1}, {"hills", 0}, {"mar", 0}}) {
    Query q;
    q.environments = {asked};
    auto r = (*st)->query(q);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->total, found) << asked;
    q.lives_anywhere = false;
    r = (*st)->query(q);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->total, found) << asked << " (a record of two places does not live anywhere)";
    q.lives_anywhere = true;
    r = (*st)->query(q);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->total, 0) << asked;
  }
  auto recorded = (*st)->meta("derived_facets");
  ASSERT_TRUE(recorded.is_ok() && recorded->has_value());
  EXPECT_EQ(**recorded, std::string(model::kDerivedFacetsVersion));
  const int64_t seen = *(*st)->data_version();
  auto again = Store::open(path, Store::Mode::kExistingOnly);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(*(*st)->data_version(), seen);
}

TEST(Store, ReplacesTheSearchHintsWhenTheyChange) {
  const std::string path = testing::temp_dir() + "/hints-change.db";
  const model::Hints before = test_hints("summon a winged horse");
  const model::Hints after = test_hints("call a flying steed");
  ASSERT_NE(before.stamp(), after.stamp());
  {
    auto st = Store::open(path, Store::Mode::kReadWrite, &before);
    ASSERT_TRUE(st.is_ok());
    const auto e = pegasus_call();
    ASSERT_TRUE((*st)->upsert({e.document}, {e}).is_ok());
    EXPECT_EQ(text_keys(**st, "winged"), std::vector<std::string>{"pegasus-call"});
  }
  auto st = Store::open(path, Store::Mode::kExistingOnly, &after);
  ASSERT_TRUE(st.is_ok());
  (*st)->set_text_index_in_memory(true);
  EXPECT_TRUE(text_keys(**st, "winged").empty()) << "the old hint is gone";
  EXPECT_EQ(text_keys(**st, "steed"), std::vector<std::string>{"pegasus-call"});
  EXPECT_EQ(text_keys(**st, "hooves"), std::vector<std::string>{"pegasus-call"}) << "the text is kept";
  auto recorded = (*st)->meta("search_hints");
  ASSERT_TRUE(recorded.is_ok() && recorded->has_value());
  EXPECT_EQ(**recorded, after.stamp());
  // The in-memory copy sees the new hints: the refresh renewed the content stamp.
  EXPECT_NE((*st)->text_index_identity(), nullptr);
  // Opening again with the same hints writes nothing.
  auto changes = [&] {
    auto version = (*st)->data_version();
    EXPECT_TRUE(version.is_ok());
    return version.is_ok() ? *version : -1;
  };
  const int64_t seen = changes();
  auto again = Store::open(path, Store::Mode::kExistingOnly, &after);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(changes(), seen);
}

TEST(Store, MigratesToAHintColumn) {
  const std::string path = testing::temp_dir() + "/v5.db";
  const model::Hints hints = test_hints("summon a winged horse");
  {
    auto st = open_rw(path);
    ASSERT_TRUE(st);
    const auto e = pegasus_call();
    ASSERT_TRUE(st->upsert({e.document}, {e}).is_ok());
  }
  // Back to schema version 5: a stemmed text index of names and texts, and no record of hints.
  ASSERT_NO_FATAL_FAILURE(exec_raw(
      path,
      "DROP TRIGGER entities_fts_delete; DROP TABLE entities_fts;"
      "CREATE VIRTUAL TABLE entities_fts USING fts5 (name, text, tokenize = 'porter unicode61 remove_diacritics 2');"
      "INSERT INTO entities_fts (rowid, name, text) SELECT e.id, e.name, b.text FROM entities e JOIN entity_bodies b "
      "ON b.id = e.id; CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN DELETE FROM entities_fts "
      "WHERE rowid = old.id; END; DELETE FROM meta; PRAGMA user_version = 5"));
  auto st = Store::open(path, Store::Mode::kExistingOnly, &hints);
  ASSERT_TRUE(st.is_ok()) << st.status().to_string();
  EXPECT_EQ((*st)->schema_version(), kSchemaVersion);
  EXPECT_EQ(text_keys(**st, "winged"), std::vector<std::string>{"pegasus-call"});
  EXPECT_EQ(text_keys(**st, "hooves"), std::vector<std::string>{"pegasus-call"});
  EXPECT_EQ(text_keys(**st, "pegasus"), std::vector<std::string>{"pegasus-call"});
}

TEST(Store, MigratesRangeFilterIndexesToCoverTheKey) {
  const std::string path = testing::temp_dir() + "/v3.db";
  { ASSERT_TRUE(open_rw(path)); }
  ASSERT_NO_FATAL_FAILURE(exec_raw(path,
                                   "DROP INDEX entities_kind_level_key; DROP INDEX entities_kind_cr_key;"
                                   "CREATE INDEX entities_kind_level ON entities (kind, level);"
                                   "CREATE INDEX entities_kind_cr ON entities (kind, cr); PRAGMA user_version = 3"));
  auto st = open_rw(path);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->schema_version(), kSchemaVersion);
  st.reset();
  const auto names = query_raw(path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'entities'");
  const std::set<std::string> indexes(names.begin(), names.end());
  EXPECT_TRUE(indexes.count("entities_kind_level_key"));
  EXPECT_TRUE(indexes.count("entities_kind_cr_key"));
  EXPECT_FALSE(indexes.count("entities_kind_level"));
  EXPECT_FALSE(indexes.count("entities_kind_cr"));
}

TEST(Store, MigratesToAContentStamp) {
  const std::string path = testing::temp_dir() + "/v4.db";
  {
    auto st = open_rw(path);
    ASSERT_TRUE(st);
    auto troll = make("troll", "Troll");
    troll.text = "Regeneration.";
    ASSERT_TRUE(st->upsert({troll.document}, {troll}).is_ok());
  }
  ASSERT_NO_FATAL_FAILURE(exec_raw(path,
                                   "DROP TRIGGER entities_stamp_insert; DROP TRIGGER entities_stamp_update;"
                                   "DROP TRIGGER entities_stamp_delete; DROP TABLE content_stamp;"
                                   "PRAGMA user_version = 4"));
  auto st = Store::open(path, Store::Mode::kExistingOnly);
  ASSERT_TRUE(st.is_ok()) << st.status().to_string();
  EXPECT_EQ((*st)->schema_version(), kSchemaVersion);
  (*st)->set_text_index_in_memory(true);
  auto hits = (*st)->text_search(Query{}, {"regenerates"}, 10);
  ASSERT_TRUE(hits.is_ok()) << hits.status().to_string();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_NE((*st)->text_index_identity(), nullptr);
}

TEST(Store, StoresOpenedTogetherMigrateOnce) {
  // A store at schema version 1, opened by several threads at once (as several processes would after an
  // upgrade): the migrations are applied once, and every opener ends up at the current version.
  for (int round = 0; round < 5; ++round) {
    const std::string path = testing::temp_dir() + "/v1-" + std::to_string(round) + ".db";
    { ASSERT_TRUE(open_rw(path)); }
    ASSERT_NO_FATAL_FAILURE(
        exec_raw(path, std::string("DROP TABLE entity_vectors;") + kUnstemmedTextIndex + "PRAGMA user_version = 1"));
    std::vector<std::thread> openers;
    std::atomic<int> ok{0};
    std::vector<std::string> errors(4);
    for (int t = 0; t < 4; ++t) {
      openers.emplace_back([&, t] {
        auto st = Store::open(path, Store::Mode::kExistingOnly);
        if (st.is_ok() && (*st)->schema_version() == kSchemaVersion) {
          ++ok;
        } else {
          errors[static_cast<size_t>(t)] = st.is_ok() ? "old version" : st.status().to_string();
        }
      });
    }
    for (auto& t : openers) t.join();
    EXPECT_EQ(ok, 4) << errors[0] << " | " << errors[1] << " | " << errors[2] << " | " << errors[3];
  }
}

TEST(Store, UpsertReplacesByKindAndKey) {
  auto st = open_rw(testing::temp_dir() + "/s.db");
  ASSERT_TRUE(st);
  auto a = make("k1", "Alpha");
  ASSERT_TRUE(st->upsert({a.document}, {a}).is_ok());
  a.name = "Alpha Prime";
  ASSERT_TRUE(st->upsert({a.document}, {a}).is_ok());
  Query q;
  auto r = st->query(q);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->total, 1);
  EXPECT_EQ(r->entities[0].name, "Alpha Prime");
  auto got = st->get("k1", std::nullopt, true);
  ASSERT_TRUE(got.is_ok());
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].raw["key"], "k1");
}

TEST(Store, NameListFollowsWritesFromThisAndOtherConnections) {
  const std::string path = testing::temp_dir() + "/names.db";
  auto st = open_rw(path);
  ASSERT_TRUE(st);
  auto a = make("k1", "Ångström Alpha");
  ASSERT_TRUE(st->upsert({a.document}, {a}).is_ok());
  auto names = [&](Store& s) {
    std::vector<std::string> out;
    EXPECT_TRUE(s.for_each_name({}, [&](const store::NameEntry& n) {
                   out.push_back(n.name + "|" + n.name_fold);
                   return true;
                 }).is_ok());
    return out;
  };
  EXPECT_EQ(names(*st), (std::vector<std::string>{"Ångström Alpha|angstrom alpha"}));
  // A write through the same connection is seen at once.
  auto b = make("k2", "Beta");
  ASSERT_TRUE(st->upsert({b.document}, {b}).is_ok());
  EXPECT_EQ(names(*st), (std::vector<std::string>{"Ångström Alpha|angstrom alpha", "Beta|beta"}));
  // So is a commit by another connection (another process, in real use).
  auto other = open_rw(path);
  ASSERT_TRUE(other);
  auto batch = other->begin_batch();
  ASSERT_TRUE(batch);
  ASSERT_TRUE((*batch)->remove({"test", std::nullopt, ""}).is_ok());
  auto c = make("k3", "Gamma");
  ASSERT_TRUE((*batch)->write({c.document}, {c}).is_ok());
  ASSERT_TRUE((*batch)->commit().is_ok());
  EXPECT_EQ(names(*st), (std::vector<std::string>{"Gamma|gamma"}));
  // names() filters by kind from the same list.
  auto spells = st->names({Kind::kCreature});
  ASSERT_TRUE(spells);
  EXPECT_TRUE(spells->empty());
}

TEST(Store, RefusesAnEntityWhoseDocumentIsUnknown) {
  auto st = open_rw(testing::temp_dir() + "/orphan.db");
  ASSERT_TRUE(st);
  auto fireball = make("fireball", "Fireball");
  ASSERT_TRUE(st->upsert({fireball.document}, {fireball}).is_ok());
  auto again = make("fireball", "Fireball");  // its document is stored already: fine without it
  EXPECT_TRUE(st->upsert({}, {again}).is_ok());
  auto orphan = make("bolt", "Bolt", "elsewhere");
  const Status s = st->upsert({}, {make("bolt2", "Bolt Two"), orphan});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  Query q;
  q.name_contains = {"bolt"};
  auto r = st->match_names(q);
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r->empty()) << "nothing of the refused write is kept";
}

TEST(Store, ReplaceSourcesIsAllOrNothing) {
  auto st = open_rw(testing::temp_dir() + "/s.db");
  ASSERT_TRUE(st);
  auto a = make("a", "Alpha", "src1");
  auto b = make("b", "Beta", "src2");
  ASSERT_TRUE(st->upsert({a.document, b.document}, {a, b}).is_ok());
  // A batch with an invalid entity (no name) fails and changes nothing.
  auto c = make("c", "Gamma", "src1");
  auto bad = make("d", "", "src1");
  Status s = st->replace_sources({"src1"}, {c.document}, {c, bad});
  EXPECT_FALSE(s.is_ok());
  auto all = st->query(Query{});
  ASSERT_TRUE(all.is_ok());
  ASSERT_EQ(all->total, 2);
  EXPECT_EQ(all->entities[0].key, "a");
  // A good batch replaces src1 only.
  ASSERT_TRUE(st->replace_sources({"src1"}, {c.document}, {c}).is_ok());
  all = st->query(Query{});
  ASSERT_EQ(all->total, 2);
  EXPECT_EQ(all->entities[0].key, "b");
  EXPECT_EQ(all->entities[1].key, "c");
}

TEST(Store, FiltersBindValuesNotSql) {
  auto st = open_rw(testing::temp_dir() + "/s.db");
  ASSERT_TRUE(st);
  auto a = make("a", "Robert'); DROP TABLE entities;--");
  ASSERT_TRUE(st->upsert({a.document}, {a}).is_ok());
  Query q;
  q.name_exact = "Robert'); DROP TABLE entities;--";
  auto r = st->query(q);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->total, 1);
  q.name_exact.clear();
  q.school = "' OR 1=1 --";
  r = st->query(q);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->total, 0);
}

TEST(Store, QueriesRealRecordsByFacets) {
  auto st = fixture();
  ASSERT_TRUE(st);
  Query q;
  q.kinds = {model::Kind::kSpell};
  q.level = 3;
  q.class_key = "wizard";
  auto r = st->query(q);
  ASSERT_TRUE(r.is_ok());
  ASSERT_GT(r->total, 0);
  for (const auto& e : r->entities) {
    EXPECT_EQ(e.facets.level, 3);
    bool wizard = false;
    for (const auto& c : e.data["classes"]) wizard = wizard || c == "Wizard";
    EXPECT_TRUE(wizard) << e.key;
  }
  Query c;
  c.kinds = {model::Kind::kCreature};
  c.cr_min = 1;
  c.cr_max = 20;
  c.type = "dragon";
  r = st->query(c);
  ASSERT_TRUE(r.is_ok());
  ASSERT_GT(r->total, 0);
  for (const auto& e : r->entities) {
    ASSERT_TRUE(e.facets.cr.has_value());
    EXPECT_GE(*e.facets.cr, 1);
    EXPECT_LE(*e.facets.cr, 20);
    EXPECT_EQ(e.facets.type, "dragon");
  }
  Query goblin;
  goblin.kinds = {model::Kind::kCreature};
  goblin.cr = 0.25;
  goblin.name_exact = "GOBLIN";
  goblin.document_keys = std::vector<std::string>{"srd-2014"};
  r = st->query(goblin);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->total, 1);
  EXPECT_EQ(r->entities[0].key, "srd_goblin");
}

TEST(Store, MatchingKeysAreExactlyTheFilteredEntities) {
  auto st = fixture();
  ASSERT_TRUE(st);
  Query q;
  q.kinds = {model::Kind::kCreature};
  q.cr_max = 2;
  q.limit = 1;  // not applied
  std::vector<std::pair<model::Kind, std::string>> keys;
  const Status visited =
      st->for_each_matching_key(q, [&](model::Kind kind, std::string_view key) { keys.emplace_back(kind, key); });
  ASSERT_TRUE(visited.is_ok()) << visited.to_string();
  Query all = q;
  all.limit = 100000;
  auto page = st->query(all);
  ASSERT_TRUE(page.is_ok());
  ASSERT_GT(page->total, 1);
  std::set<std::pair<model::Kind, std::string>> expected, got(keys.begin(), keys.end());
  for (const auto& e : page->entities) expected.insert({e.kind, e.key});
  EXPECT_EQ(got, expected);
  EXPECT_EQ(keys.size(), got.size()) << "no duplicates";
}

// match_names's answer to `q` (from memory when `q` allows), expected equal to the table's: the same query with
// an attribute filter that excludes nothing, which forces the SQL path.
std::vector<std::tuple<model::Kind, std::string, std::string, std::string>> memory_and_table_names(Store& st,
                                                                                                   const Query& q) {
  std::vector<std::tuple<model::Kind, std::string, std::string, std::string>> a, b;
  auto memory = st.match_names(q);
  EXPECT_TRUE(memory.is_ok()) << memory.status().to_string();
  Query table = q;
  table.exclude_keys = {"no-such-key"};
  EXPECT_TRUE(has_attribute_filters(table));
  auto sql = st.match_names(table);
  EXPECT_TRUE(sql.is_ok()) << sql.status().to_string();
  if (!memory.is_ok() || !sql.is_ok()) return a;
  for (const auto& n : *memory) a.emplace_back(n.kind, n.key, n.name, n.document_key);
  for (const auto& n : *sql) b.emplace_back(n.kind, n.key, n.name, n.document_key);
  EXPECT_EQ(a, b) << (q.name_exact.empty() ? q.name_contains.front() : q.name_exact);
  return a;
}

// Name words under kind and document filters are answered from the in-memory name list; the answer must be
// the one the entities table gives (an attribute filter that excludes nothing forces the SQL path).
TEST(Store, NameMatchesFromMemoryEqualTheTable) {
  auto st = fixture();
  ASSERT_TRUE(st);
  struct Case {
    std::vector<model::Kind> kinds;
    std::optional<std::vector<std::string>> documents;
    std::vector<std::string> words;
    int limit;
  };
  const std::vector<Case> cases = {
      {{model::Kind::kSpell}, std::nullopt, {"fire"}, 500},
      {{}, std::nullopt, {"dragon", "red"}, 500},
      {{model::Kind::kCreature}, std::vector<std::string>{"srd-2014"}, {"dragon"}, 500},
      {{model::Kind::kCreature, model::Kind::kSpell}, std::nullopt, {"a"}, 7},
      {{}, std::vector<std::string>{}, {"fire"}, 500},
      {{model::Kind::kMagicItem}, std::nullopt, {"zzzz"}, 500},
  };
  for (const auto& c : cases) {
    Query q;
    q.kinds = c.kinds;
    q.document_keys = c.documents;
    q.name_contains = c.words;
    q.limit = c.limit;
    const auto a = memory_and_table_names(*st, q);
    if (c.words[0] == "fire") {
      EXPECT_EQ(a.empty(), c.documents && c.documents->empty());
    }
  }
}

// An exact name (ignoring case and accents) is answered from memory too, equal to the table's answer, in its
// order and under its limit; a key goes to the table.
TEST(Store, ExactNameMatchesFromMemoryEqualTheTable) {
  auto st = fixture();
  ASSERT_TRUE(st);
  struct Case {
    std::vector<model::Kind> kinds;
    std::optional<std::vector<std::string>> documents;
    std::string name;
    int limit;
    size_t at_least;
  };
  const std::vector<Case> cases = {
      {{}, std::nullopt, "Fireball", 20, 2},  // in both SRDs
      {{model::Kind::kSpell}, std::nullopt, "  fIrEbAlL ", 20, 2},
      {{model::Kind::kSpell}, std::nullopt, "Fireball", 1, 1},
      {{model::Kind::kSpell}, std::vector<std::string>{"srd-2024"}, "Fireball", 20, 1},
      {{model::Kind::kCreature}, std::nullopt, "Fireball", 20, 0},
      {{}, std::nullopt, "srd_goblin", 20, 1},  // a key
      {{}, std::nullopt, "Firebal", 20, 0},
  };
  for (const auto& c : cases) {
    Query q;
    q.kinds = c.kinds;
    q.document_keys = c.documents;
    q.name_exact = c.name;
    q.limit = c.limit;
    const auto a = memory_and_table_names(*st, q);
    EXPECT_GE(a.size(), c.at_least) << c.name;
    EXPECT_LE(a.size(), static_cast<size_t>(c.limit)) << c.name;
  }
}

TEST(Store, KnowsWhetherAQueryIsSomeName) {
  auto st = fixture();
  ASSERT_TRUE(st);
  for (const char* yes : {"Fireball", "fIrEbAlL", "  Goblin ", "srd_goblin"}) {
    auto r = st->has_name_or_key(yes);
    ASSERT_TRUE(r.is_ok());
    EXPECT_TRUE(*r) << yes;
  }
  for (const char* no : {"Fireba", "fireball wizard", "srd_gob", ""}) {
    auto r = st->has_name_or_key(no);
    ASSERT_TRUE(r.is_ok());
    EXPECT_FALSE(*r) << no;
  }
}

TEST(Store, DocumentFilterEmptyListMatchesNothing) {
  auto st = fixture();
  ASSERT_TRUE(st);
  Query q;
  q.document_keys = std::vector<std::string>{};
  auto r = st->query(q);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->total, 0);
  q.document_keys = std::vector<std::string>{"srd-2024"};
  q.kinds = {model::Kind::kSpell};
  r = st->query(q);
  ASSERT_TRUE(r.is_ok());
  ASSERT_GT(r->total, 0);
  for (const auto& e : r->entities) EXPECT_EQ(e.document.key, "srd-2024");
}

TEST(Store, DocumentsCountEntitiesPerKind) {
  auto st = fixture();
  ASSERT_TRUE(st);
  auto docs = st->documents();
  ASSERT_TRUE(docs.is_ok());
  bool found = false;
  for (const auto& d : *docs) {
    if (d.document.key != "srd-2014") continue;
    found = true;
    EXPECT_EQ(d.document.name, "System Reference Document 5.1");
    EXPECT_EQ(d.document.publisher, "Wizards of the Coast");
    EXPECT_EQ(d.document.game_system, "5e-2014");
    EXPECT_NE(d.document.license.find("Creative Commons"), std::string::npos);
    EXPECT_GT(d.entity_types.at("spell"), 0);
    int sum = 0;
    for (const auto& [k, n] : d.entity_types) sum += n;
    EXPECT_EQ(sum, d.entity_count);
  }
  EXPECT_TRUE(found);
}

TEST(Store, TwoConnectionsReadWhileOneWrites) {
  const std::string path = testing::temp_dir() + "/s.db";
  auto writer = open_rw(path);
  auto reader = open_rw(path);
  ASSERT_TRUE(writer && reader);
  auto a = make("a", "Alpha");
  ASSERT_TRUE(writer->upsert({a.document}, {a}).is_ok());
  auto r = reader->query(Query{});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->total, 1);
}

}  // namespace
}  // namespace lorekeeper::store

namespace lorekeeper::store {
namespace {

// A new store is placed only whole: a write-ahead log left beside the built file (its fold failed) would be lost
// by linking the file alone, so nothing is placed; a store that appeared meanwhile is kept; the private files of
// a process that no longer runs are removed, those of a running one are not.
TEST(StoreFiles, ANewStoreIsPlacedOnlyWholeAndLeftoversOfTheDeadGo) {
  const std::string dir = testing::temp_dir();
  const std::string db = dir + "/store.db";
  const std::string built = private_build_path(db, "sync");
  testing::write_file(built, "the store");
  testing::write_file(built + "-wal", "a log not folded in");
  auto placed = link_into_place(built, db);
  ASSERT_FALSE(placed.is_ok());
  EXPECT_NE(placed.status().message().find("nothing was placed"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(db));
  EXPECT_FALSE(std::filesystem::exists(built));
  EXPECT_FALSE(std::filesystem::exists(built + "-wal"));

  testing::write_file(built, "the store");
  placed = link_into_place(built, db);
  ASSERT_TRUE(placed.is_ok());
  EXPECT_TRUE(*placed);
  EXPECT_EQ(testing::read_file(db), "the store");
  testing::write_file(built, "another store");
  placed = link_into_place(built, db);
  ASSERT_TRUE(placed.is_ok());
  EXPECT_FALSE(*placed);
  EXPECT_EQ(testing::read_file(db), "the store");
  EXPECT_FALSE(std::filesystem::exists(built));

  // A pid that ran and ended, and this process's.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);
  const std::string dead = db + ".bootstrap-" + std::to_string(child);
  for (const char* suffix : {"", "-wal", "-shm"}) testing::write_file(dead + suffix, "x");
  testing::write_file(built, "being built");
  EXPECT_EQ(remove_stale_builds(db), 1);
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_FALSE(std::filesystem::exists(dead + "-wal"));
  EXPECT_TRUE(std::filesystem::exists(built));
  EXPECT_TRUE(std::filesystem::exists(db));
}

}  // namespace
}  // namespace lorekeeper::store
