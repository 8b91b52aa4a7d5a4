#include "migrations.hpp"

namespace lorekeeper::store {

const std::vector<const char*>& migrations() {
  static const std::vector<const char*> kMigrations = {
      // 1: documents, entities with typed facets, multi-valued tags, full-text index, metadata.
      R"sql(
CREATE TABLE documents (
  key TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  display_name TEXT,
  publisher TEXT,
  license TEXT,
  game_system TEXT,
  source_api TEXT,
  url TEXT,
  description TEXT
);
CREATE TABLE entities (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  name TEXT NOT NULL,
  name_fold TEXT NOT NULL,
  document_key TEXT NOT NULL,
  source_api TEXT NOT NULL,
  url TEXT,
  level INTEGER,
  school TEXT,
  concentration INTEGER,
  ritual INTEGER,
  casting_time TEXT,
  cr REAL,
  type TEXT,
  size TEXT,
  armor_class INTEGER,
  hit_points INTEGER,
  rarity TEXT,
  requires_attunement INTEGER,
  damage_dice TEXT,
  is_simple INTEGER,
  cost REAL,
  weight REAL,
  parent_key TEXT,
  section TEXT,
  updated_at INTEGER NOT NULL,
  UNIQUE (kind, key)
);
-- The large columns live apart so that rows of `entities` stay small: a filter scans few pages and reads a
-- body only for the entities it returns.
CREATE TABLE entity_bodies (
  id INTEGER PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
  text TEXT,
  data TEXT NOT NULL,
  raw TEXT NOT NULL
);
CREATE INDEX entities_kind_name ON entities (kind, name_fold);
CREATE INDEX entities_key ON entities (key);
CREATE INDEX entities_name_fold ON entities (name_fold);
CREATE INDEX entities_document ON entities (document_key);
CREATE INDEX entities_source ON entities (source_api);
CREATE INDEX entities_kind_level ON entities (kind, level);
CREATE INDEX entities_kind_cr ON entities (kind, cr);
CREATE TABLE entity_tags (
  entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (tag, value, entity_id)
) WITHOUT ROWID;
CREATE INDEX entity_tags_entity ON entity_tags (entity_id);
CREATE VIRTUAL TABLE entities_fts USING fts5 (name, text, tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN
  DELETE FROM entities_fts WHERE rowid = old.id;
END;
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
)sql",
      // 2: sentence embeddings, keyed by entity kind and key (stable across syncs) and passage number, with the
      // model that made them and a hash of the text embedded, so only changed texts are embedded again.
      R"sql(
CREATE TABLE entity_vectors (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  passage INTEGER NOT NULL,
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (kind, key, passage)
) WITHOUT ROWID;
)sql",
      // 3: the full-text index stems English words (Porter), so "heals" finds "healing" and "regenerates"
      // finds "regeneration"; rebuilt from the stored names and texts.
      R"sql(
DROP TRIGGER entities_fts_delete;
DROP TABLE entities_fts;
CREATE VIRTUAL TABLE entities_fts USING fts5 (name, text, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO entities_fts (rowid, name, text)
  SELECT e.id, e.name, b.text FROM entities e JOIN entity_bodies b ON b.id = e.id;
CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN
  DELETE FROM entities_fts WHERE rowid = old.id;
END;
)sql",
      // 4: the indexes of the two commonest range filters (spell level, creature CR) carry the key, so the keys
      // of every entity a filter allows (the mask of a meaning-based search) come from the index alone.
      R"sql(
DROP INDEX IF EXISTS entities_kind_level;
DROP INDEX IF EXISTS entities_kind_cr;
CREATE INDEX IF NOT EXISTS entities_kind_level_key ON entities (kind, level, key);
CREATE INDEX IF NOT EXISTS entities_kind_cr_key ON entities (kind, cr, key);
ANALYZE entities;
)sql",
      // 5: a content stamp renewed (at random) by every write to the entities, in the writing transaction: the
      // identity of the full-text index's content, so the in-memory copy of it (TextIndex) built by one
      // connection serves every connection of the process that reads the same content.
      R"sql(
CREATE TABLE IF NOT EXISTS content_stamp (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  stamp TEXT NOT NULL
);
INSERT OR REPLACE INTO content_stamp (id, stamp) VALUES (1, lower(hex(randomblob(8))));
CREATE TRIGGER IF NOT EXISTS entities_stamp_insert AFTER INSERT ON entities BEGIN
  UPDATE content_stamp SET stamp = lower(hex(randomblob(8))) WHERE id = 1;
END;
CREATE TRIGGER IF NOT EXISTS entities_stamp_update AFTER UPDATE ON entities BEGIN
  UPDATE content_stamp SET stamp = lower(hex(randomblob(8))) WHERE id = 1;
END;
CREATE TRIGGER IF NOT EXISTS entities_stamp_delete AFTER DELETE ON entities BEGIN
  UPDATE content_stamp SET stamp = lower(hex(randomblob(8))) WHERE id = 1;
END;
)sql",
      // 6: the full-text index has a third column, each entity's search hint (model/hints.hpp): how players
      // describe it without its name. Rebuilt from the stored names and texts; the hints are filled in by
      // Store::refresh_hints when the store is opened (they come with the program, not the file).
      R"sql(
DROP TRIGGER entities_fts_delete;
DROP TABLE entities_fts;
CREATE VIRTUAL TABLE entities_fts USING fts5 (name, text, hint, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO entities_fts (rowid, name, text, hint)
  SELECT e.id, e.name, b.text, '' FROM entities e JOIN entity_bodies b ON b.id = e.id;
CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN
  DELETE FROM entities_fts WHERE rowid = old.id;
END;
DELETE FROM meta WHERE key = 'search_hints';
UPDATE content_stamp SET stamp = lower(hex(randomblob(8))) WHERE id = 1;
)sql",
      // 7: the vectors move to a rowid table: in a WITHOUT ROWID table a row is stored in an index B-tree, whose
      // cells hold about 1 KB, so every 1.5 KB vector spilled onto an overflow page of its own (44 MB of pages for
      // 15 MB of vectors in the bundled store; 20 MB now, and the vectors read in about two thirds of the time).
      // (kind, key, passage) stays unique and gives the order vectors are read in.
      R"sql(
CREATE TABLE entity_vectors_rows (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  passage INTEGER NOT NULL,
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  UNIQUE (kind, key, passage)
);
INSERT INTO entity_vectors_rows (kind, key, passage, model, text_hash, vector)
  SELECT kind, key, passage, model, text_hash, vector FROM entity_vectors ORDER BY kind, key, passage;
DROP TABLE entity_vectors;
ALTER TABLE entity_vectors_rows RENAME TO entity_vectors;
)sql",
  };
  return kMigrations;
}

bool migration_frees_pages(int version) { return version == 7; }

bool migration_is_layout_only(int version) { return version == 7; }

}  // namespace lorekeeper::store
