#include "import.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "lorekeeper/core/files.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/orcbrew/orcbrew.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::cli {

namespace {

using json = nlohmann::json;

// Warnings shown per pack in the text report; --json lists all of them.
constexpr size_t kWarningsShown = 10;

void print(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

// The largest pack file read: the largest OrcBrew packs in circulation are a few megabytes, and reading and
// mapping one costs a few dozen times its size in memory.
constexpr size_t kMaxPackBytes = 64u << 20;

Result<std::string> read_whole(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::invalid_argument(path + ": is a directory");
  return files::read_regular_file(path, kMaxPackBytes);
}

// "1 entity", "2 entities", "3 packs".
std::string plural(int n, const std::string& word) {
  if (n == 1) return "1 " + word;
  if (word.size() > 1 && word.back() == 'y') return std::to_string(n) + " " + word.substr(0, word.size() - 1) + "ies";
  return std::to_string(n) + " " + word + "s";
}

std::string counts_text(const std::map<std::string, int>& counts) {
  std::string s;
  for (const auto& [kind, n] : counts) s += (s.empty() ? "" : ", ") + kind + ": " + std::to_string(n);
  return s;
}

}  // namespace

std::string log_note(const std::string& db_path, const std::string& failure) {
  return "what was written is committed and read from the store's write-ahead log (" + db_path +
         "-wal), which could not yet be copied into the store file (" + failure +
         "); a later write copies it once there is room";
}

namespace {

struct FileResult {
  std::string path;
  std::string label;  // the file name, as lk_orcbrew names it in URLs and messages
  std::string error;  // set when the file could not be read or parsed: nothing of it is imported
  orcbrew::FileImport import;
};

void print_file(const FileResult& f, const std::map<std::string, int>& previous) {
  std::string s = f.path + "\n";
  if (!f.error.empty()) {
    print(s + "  not imported: " + f.error + "\n");
    return;
  }
  for (const auto& w : f.import.warnings) s += "  warning: " + w + "\n";
  if (f.import.packs.empty()) s += "  no packs in this file\n";
  for (const auto& p : f.import.packs) {
    s += "  pack \"" + p.pack_name + "\" -> document " + p.document.key + "\n";
    s += "    imported: " + (p.imported() > 0 ? counts_text(p.imported_per_kind) : std::string("nothing"));
    const auto prev = previous.find(p.document.key);
    if (prev != previous.end() && prev->second > 0) {
      s += " (replacing " + plural(prev->second, "entity") + ")";
    }
    s += "\n";
    if (p.unsupported() > 0) {
      s += "    not imported (kinds LoreKeeper has no model for): " + counts_text(p.unsupported_kinds) + "\n";
    }
    for (const auto& pr : p.problems) {
      std::string where = pr.kind.empty() ? "pack" : pr.key.empty() ? pr.kind : pr.kind + "/" + pr.key;
      s += "    skipped " + where + ": " + pr.reason + "\n";
    }
    for (size_t i = 0; i < p.warnings.size() && i < kWarningsShown; ++i) s += "    warning: " + p.warnings[i] + "\n";
    if (p.warnings.size() > kWarningsShown) {
      s += "    ... and " + std::to_string(p.warnings.size() - kWarningsShown) + " more warnings (--json lists all)\n";
    }
  }
  print(s);
}

// Entity counts of the orcbrew documents in the store, by document key.
Result<std::map<std::string, int>> orcbrew_documents(store::Store& st, std::map<std::string, std::string>* names) {
  auto docs = st.documents();
  if (!docs) return docs.status();
  std::map<std::string, int> out;
  for (const auto& d : *docs) {
    if (d.document.source_api != orcbrew::kSourceApi) continue;
    out[d.document.key] = d.entity_count;
    if (names) (*names)[d.document.key] = d.document.name;
  }
  return out;
}

struct EmbedOutcome {
  std::string note;  // one sentence for the summary
  json report = json::object();
};

EmbedOutcome embed_imported(store::Store& st, const std::vector<std::string>& document_keys,
                            const ImportOptions& options) {
  EmbedOutcome o;
  if (!options.embed) {
    o.note = "Not embedded (embedding is off).";
    o.report = {{"embedded", false}, {"reason", "embedding is off"}};
    return o;
  }
  auto encoder = embed::Encoder::load(options.model_dir);
  if (!encoder) {
    o.note = "Not embedded: " + encoder.status().message() +
             ". Search finds them by name and text; `lorekeeper index` embeds them once the model is installed.";
    o.report = {{"embedded", false}, {"reason", encoder.status().message()}};
    return o;
  }
  search::IndexOptions index;
  index.threads = options.threads;
  index.max_passages = options.max_passages;
  index.document_keys = document_keys;
  auto r = search::update_vectors(st, **encoder, index);
  if (!r) {
    o.note = "Embedding failed (" + r.status().message() +
             "); the import itself is kept. `lorekeeper index` embeds them later.";
    o.report = {{"embedded", false}, {"reason", r.status().message()}};
    return o;
  }
  const auto& p = r->progress;
  o.note = "Embedded " + plural(static_cast<int>(p.entities_done), "entity") + " for semantic search in " +
           text::format_number(std::round(p.seconds * 100) / 100) + " s.";
  o.report = {{"embedded", true},
              {"entities", p.entities_done},
              {"tokens", p.tokens_done},
              {"seconds", std::round(p.seconds * 100) / 100}};
  return o;
}

}  // namespace

int run_import(const std::string& db_path, const std::vector<std::string>& files, const ImportOptions& options) {
  // 1. Read and map every file; nothing is written yet.
  std::vector<FileResult> results;
  bool any_failed = false;
  for (const auto& path : files) {
    FileResult f;
    f.path = path;
    f.label = std::filesystem::path(path).filename().string();
    auto text = read_whole(path);
    if (!text) {
      f.error = text.status().message();
    } else {
      auto mapped = orcbrew::read_orcbrew(std::move(*text), f.label);
      if (!mapped) {
        f.error = mapped.status().message();
      } else {
        f.import = std::move(*mapped);
      }
    }
    any_failed = any_failed || !f.error.empty();
    results.push_back(std::move(f));
  }

  // A pack imported twice in one run: the later file wins, as if imported one after the other.
  std::map<std::string, std::string> pack_file;  // document key -> file that provides it
  std::vector<std::string> notes;
  for (const auto& f : results) {
    if (!f.error.empty()) continue;
    for (const auto& p : f.import.packs) {
      auto [it, fresh] = pack_file.emplace(p.document.key, f.path);
      if (!fresh) {
        notes.push_back("pack \"" + p.pack_name + "\" of " + f.path + " replaces the same pack read from " +
                        it->second);
        it->second = f.path;
      }
    }
  }

  // 2. The store (built from the bundled snapshot when there is none, so imported packs sit beside the SRDs).
  std::unique_ptr<store::Store> st;
  std::map<std::string, int> previous;
  std::error_code ec;
  const bool exists = std::filesystem::exists(db_path, ec);
  if (exists || !options.dry_run) {
    if (!exists && options.bootstrap) {
      Status built = options.bootstrap(db_path);
      if (!built.is_ok()) {
        std::fprintf(stderr, "lorekeeper import: cannot create the store: %s\n", built.to_string().c_str());
        return 1;
      }
    }
    // A damaged store is not written into: what an import adds would sit beside pages that read back wrong.
    auto opened = store::Store::open_checked(db_path, store::Store::Mode::kReadWrite);
    if (!opened) {
      std::fprintf(stderr, "lorekeeper import: %s\n", opened.status().to_string().c_str());
      if (opened.status().code() == StatusCode::kCorruption) {
        std::fprintf(stderr,
                     "Nothing was changed. To rebuild the store: lorekeeper sync --source bundled "
                     "--move-aside (then import again)\n");
      }
      return 1;
    }
    st = std::move(*opened);
    auto prev = orcbrew_documents(*st, nullptr);
    if (!prev) {
      std::fprintf(stderr, "lorekeeper import: %s\n", prev.status().to_string().c_str());
      return 1;
    }
    previous = std::move(*prev);
  }

  // 3. One transaction for every file that was read.
  int entities = 0, packs = 0, replaced = 0, files_read = 0;
  std::vector<std::string> document_keys;
  for (const auto& [key, file] : pack_file) {
    document_keys.push_back(key);
    const auto prev = previous.find(key);
    if (prev != previous.end()) replaced += prev->second;
  }
  for (const auto& f : results) {
    if (!f.error.empty()) continue;
    ++files_read;
    entities += static_cast<int>(f.import.entities.size());
    packs += static_cast<int>(f.import.packs.size());
  }
  std::string write_error;
  if (!options.dry_run && !pack_file.empty()) {
    Status written = [&]() -> Status {
      auto batch = st->begin_batch();
      if (!batch) return batch.status();
      for (const auto& f : results) {
        if (!f.error.empty()) continue;
        for (const auto& p : f.import.packs) {
          LOREKEEPER_RETURN_IF_ERROR(
              (*batch)->remove({std::string(orcbrew::kSourceApi), std::nullopt, p.document.key}));
        }
        LOREKEEPER_RETURN_IF_ERROR((*batch)->write(f.import.documents, f.import.entities));
      }
      return (*batch)->commit();
    }();
    if (!written.is_ok()) write_error = written.to_string();
  }

  EmbedOutcome embedded;
  if (!options.dry_run && write_error.empty() && entities > 0) embedded = embed_imported(*st, document_keys, options);
  if (st) {
    if (std::string log_failure = st->checkpoint_failure(); !log_failure.empty()) {
      notes.push_back(log_note(db_path, log_failure));
    }
  }

  // 4. Report.
  if (options.as_json) {
    json j_files = json::array();
    for (const auto& f : results) {
      if (!f.error.empty()) {
        j_files.push_back({{"file", f.path}, {"error", f.error}});
      } else {
        json r = orcbrew::report_json(f.import, f.label);
        r["file"] = f.path;
        for (auto& p : r["packs"]) {
          const auto prev = previous.find(p["document_key"].get<std::string>());
          p["replaced"] = prev == previous.end() ? 0 : prev->second;
        }
        j_files.push_back(std::move(r));
      }
    }
    json j = {{"dry_run", options.dry_run},
              {"files", std::move(j_files)},
              {"entities", entities},
              {"packs", packs},
              {"replaced", replaced},
              {"notes", notes},
              {"written", !options.dry_run && write_error.empty() && !pack_file.empty()}};
    if (!write_error.empty()) j["error"] = write_error;
    if (!options.dry_run && write_error.empty() && entities > 0) j["embedding"] = embedded.report;
    print(j.dump(2) + "\n");
  } else {
    for (const auto& f : results) print_file(f, previous);
    for (const auto& n : notes) print("note: " + n + "\n");
    const std::string what =
        plural(entities, "entity") + " in " + plural(packs, "pack") + " from " + plural(files_read, "file");
    const std::string replacing = replaced > 0 ? " (replacing " + plural(replaced, "previous entity") + ")" : "";
    if (options.dry_run) {
      print("Dry run: nothing was written. Would import " + what + replacing + ".\n");
    } else if (!write_error.empty()) {
      print("Nothing was imported: the store could not be written (" + write_error + "); it is unchanged.\n");
    } else {
      print("Imported " + what + replacing + "." + (embedded.note.empty() ? "" : " " + embedded.note) + "\n");
    }
  }
  if (any_failed) {
    const size_t failed = static_cast<size_t>(
        std::count_if(results.begin(), results.end(), [](const auto& f) { return !f.error.empty(); }));
    if (failed == results.size()) {
      std::fprintf(stderr, "lorekeeper import: %s (see above); nothing %s.\n",
                   results.size() == 1 ? "the file could not be imported" : "no file could be imported",
                   options.dry_run ? "would be imported" : "was imported");
    } else {
      std::fprintf(stderr,
                   "lorekeeper import: %zu of %zu files could not be imported (see above); the others were %s.\n",
                   failed, results.size(), options.dry_run ? "checked" : "imported");
    }
  }
  return any_failed || !write_error.empty() ? 1 : 0;
}

int run_remove(const std::string& db_path, const std::vector<std::string>& packs, bool as_json) {
  auto opened = store::Store::open(db_path, store::Store::Mode::kExistingOnly);
  if (!opened) {
    std::fprintf(stderr, "lorekeeper remove: %s\n", opened.status().message().c_str());
    return 1;
  }
  store::Store& st = **opened;
  std::map<std::string, std::string> names;
  auto docs = orcbrew_documents(st, &names);
  if (!docs) {
    std::fprintf(stderr, "lorekeeper remove: %s\n", docs.status().to_string().c_str());
    return 1;
  }
  // Each argument names a pack by document key, by name (ignoring case and accents) or by the key its name gives.
  std::vector<std::string> keys, unknown;
  for (const auto& arg : packs) {
    std::string found;
    for (const auto& [key, name] : names) {
      if (key == arg || text::fold(name) == text::fold(arg) || key == orcbrew::document_key_for(arg)) found = key;
    }
    if (found.empty()) {
      unknown.push_back(arg);
    } else if (std::find(keys.begin(), keys.end(), found) == keys.end()) {
      keys.push_back(found);
    }
  }
  if (!unknown.empty()) {
    std::string list;
    for (const auto& [key, name] : names)
      list += "\n  " + name + " (" + key + ", " + plural((*docs)[key], "entity") + ")";
    std::string msg;
    for (const auto& u : unknown) msg += (msg.empty() ? "" : ", ") + ("\"" + u + "\"");
    std::fprintf(stderr, "lorekeeper remove: no imported pack named %s; nothing was removed.\n%s\n", msg.c_str(),
                 names.empty() ? "The store holds no imported packs." : ("Imported packs:" + list).c_str());
    return 1;
  }
  Status removed = [&]() -> Status {
    auto batch = st.begin_batch();
    if (!batch) return batch.status();
    for (const auto& key : keys) {
      LOREKEEPER_RETURN_IF_ERROR((*batch)->remove({std::string(orcbrew::kSourceApi), std::nullopt, key}));
    }
    return (*batch)->commit();
  }();
  if (!removed.is_ok()) {
    std::fprintf(stderr, "lorekeeper remove: %s; nothing was removed.\n", removed.to_string().c_str());
    return 1;
  }
  auto pruned = st.prune_vectors(search::kModelId);
  json j_removed = json::array();
  std::string text;
  for (const auto& key : keys) {
    j_removed.push_back({{"pack", names[key]}, {"document_key", key}, {"entities", (*docs)[key]}});
    text += "Removed pack \"" + names[key] + "\" (" + key + "): " + plural((*docs)[key], "entity") + ".\n";
  }
  if (as_json) {
    print(json{{"removed", std::move(j_removed)}, {"vectors_deleted", pruned ? *pruned : 0}}.dump(2) + "\n");
  } else {
    print(text);
  }
  return 0;
}

}  // namespace lorekeeper::cli
