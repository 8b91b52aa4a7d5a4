#include "lorekeeper/open5e/sync.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <optional>
#include <set>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/open5e/corrections.hpp"

namespace lorekeeper::open5e {

namespace {

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

using PageHandler = std::function<Status(std::vector<json>& records)>;

// The lists whose records the corrections file mends: v2's, but the items (folded into the weapons and armor they
// are, which a correction taken back could not map again). Every list read page by page can hold evidence.
bool corrected_list(std::string_view endpoint) {
  return endpoint.rfind("v2/", 0) == 0 && endpoint != "v2/items" && endpoint != "v2/documents";
}

// An entity mapped from a record the corrections file mended (open5e/corrections.hpp) carries their marks, and keeps
// the record as the API sent it.
void mark_corrected(model::Entity& e, const json& as_sent, const json& marks) {
  json& list = e.data["corrections"];
  if (!list.is_array()) list = json::array();
  for (const auto& m : marks) list.push_back(m);
  if (e.raw.is_object() && e.raw.contains(kRawV2)) {
    e.raw[kRawV2] = as_sent;
  } else {
    e.raw = as_sent;
  }
}

// The path of a request without its query or slashes: "v2/spells/?page=2" -> "v2/spells".
std::string endpoint_of(const std::string& request) {
  std::string path = request_path(request);
  path = path.substr(0, path.find('?'));
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

std::string count_text(long long n) { return text::format_number(static_cast<double>(n)); }

// The listing size behind each endpoint's stored data, from the report the last sync stored.
std::map<std::string, int> stored_listing_sizes(store::Store& store) {
  std::map<std::string, int> out;
  auto meta = store.meta("sync_report:open5e");
  if (!meta || !*meta) return out;
  auto report = json_util::parse(**meta, nullptr);
  if (!report || !report->is_object()) return out;
  // Reports written before stored_records existed hold only the endpoints read.
  const json& sizes = report->contains("stored_records") ? (*report)["stored_records"] : (*report)["records"];
  if (!sizes.is_object()) return out;
  for (const auto& [endpoint, n] : sizes.items()) {
    if (n.is_number_integer() && n.get<long long>() > 0 && n.get<long long>() < (1LL << 31)) {
      out[endpoint] = n.get<int>();
    }
  }
  return out;
}

// Walks one list endpoint to its end, handing each page's records to `on_page`, and checks the listing against
// its own count and against `baseline` (the listing behind the stored data, 0 when none); the rules are in
// sync.hpp. NotFound on the first page means the source has no such list (the caller decides whether that is
// believable); any other failure (or a handler error) fails the endpoint.
Status walk(PageSource& source, const std::string& endpoint, const SyncOptions& options, SyncReport& report,
            int baseline, const PageHandler& on_page) {
  std::string request = endpoint + "/?limit=" + std::to_string(options.page_size);
  std::set<std::string> seen;
  int pages = 0;
  long long records = 0;
  long long expected = 0;  // the count announced by the first page
  int max_pages = kMaxPages;
  while (true) {
    if (options.cancelled && options.cancelled()) return Status(StatusCode::kCancelled, "sync cancelled");
    const std::string where = endpoint + " page " + std::to_string(pages + 1);
    if (!seen.insert(recorded_name(request)).second) {
      return Status::corruption(endpoint + ": `next` links loop back to " + request);
    }
    if (pages >= max_pages) {
      return Status::corruption(endpoint + ": the listing runs past " + std::to_string(pages) +
                                " pages, more than its " + count_text(expected) + " records need");
    }
    auto body = source.get(request);
    if (!body) {
      if (pages == 0 && body.status().code() == StatusCode::kNotFound) return body.status();
      // A later page that is missing vanished during the walk: that is a failure, not the end of the list.
      const StatusCode code =
          body.status().code() == StatusCode::kNotFound ? StatusCode::kUnavailable : body.status().code();
      return Status(code, where + ": " + body.status().message());
    }
    if (body->size() > kMaxPageBytes) {
      return Status::corruption(where + ": " + count_text(static_cast<long long>(body->size())) +
                                " bytes, more than a page may hold (" + count_text(kMaxPageBytes) + ")");
    }
    std::string err;
    auto page = json_util::parse(*body, &err);
    body->clear();
    if (!page || !page->is_object() || !(*page)["results"].is_array()) {
      return Status::corruption(where + " (" + request + "): not a JSON list page" + (page ? "" : " (" + err + ")"));
    }
    const json& count = (*page)["count"];
    if (!count.is_number_integer() || count.get<long long>() < 0) {
      return Status::corruption(where + ": the page has no record count");
    }
    auto& results = (*page)["results"].get_ref<json::array_t&>();
    const long long n = static_cast<long long>(results.size());
    if (pages == 0) {
      expected = count.get<long long>();
      // Pages the count allows at the size the first page shows (the API may serve fewer than requested), and one
      // more for a record added during the walk.
      const long long per_page = std::max<long long>(1, std::min<long long>(options.page_size, n));
      const long long needed = expected / per_page + (expected % per_page != 0 ? 1 : 0);
      if (needed >= kMaxPages) {
        return Status::corruption(where + ": the listing announces " + count_text(expected) +
                                  " records, more pages than any Open5e list needs");
      }
      max_pages = static_cast<int>(needed + 1);
    } else if (count.get<long long>() != expected) {
      return Status::unavailable(where + ": the listing changed during the walk (its count went from " +
                                 count_text(expected) + " to " + count_text(count.get<long long>()) +
                                 "); try again later");
    }
    if (n > options.page_size) {
      return Status::corruption(where + ": " + std::to_string(n) + " records, more than the " +
                                std::to_string(options.page_size) + " requested");
    }
    records += n;
    if (records > expected) {
      return Status::corruption(where + ": the listing runs past its count (" + count_text(records) + " records of " +
                                count_text(expected) + ")");
    }
    LOREKEEPER_RETURN_IF_ERROR(on_page(results));
    ++pages;
    ++report.pages;
    if (options.progress) options.progress(endpoint, pages, static_cast<int>(records), static_cast<int>(expected));
    const json& next = (*page)["next"];
    if (next.is_null()) break;
    if (!next.is_string() || endpoint_of(next.get<std::string>()) != endpoint) {
      return Status::corruption(where + ": its `next` link " + json_util::dump(next).substr(0, 200) +
                                " does not continue " + endpoint);
    }
    request = request_path(next.get<std::string>());
  }
  std::string incomplete;
  if (records < expected) {
    incomplete =
        "the listing ended after " + count_text(records) + " of the " + count_text(expected) + " records it announced";
  } else if (baseline > 0 && records * 2 < baseline) {
    incomplete =
        "the listing holds " + count_text(records) + " records where the stored data came from " + count_text(baseline);
  }
  if (!incomplete.empty()) {
    if (!options.accept_incomplete) {
      return Status::unavailable(endpoint + ": " + incomplete + " (accept it with --accept-incomplete)");
    }
    report.accepted_incomplete.push_back({endpoint, incomplete});
  }
  report.records[endpoint] = static_cast<int>(records);
  // The baseline only rises with a written listing (so a hostile source cannot halve it sync after sync) and
  // falls only when the user accepted a smaller one.
  report.stored_records[endpoint] =
      options.accept_incomplete ? static_cast<int>(records) : std::max(static_cast<int>(records), baseline);
  return Status::ok();
}

}  // namespace

int SyncReport::total_entities() const {
  int n = 0;
  for (const auto& [k, v] : entities) n += v;
  return n;
}

std::vector<std::string> sync_endpoints() {
  std::vector<std::string> out = {"v2/documents",
                                  std::string(kV1MonstersEndpoint),
                                  std::string(kV1SpellsEndpoint),
                                  std::string(kV1RacesEndpoint),
                                  std::string(kV1BackgroundsEndpoint),
                                  std::string(kV1ClassesEndpoint),
                                  std::string(kV2ServicesEndpoint)};
  for (const auto& e : v2_endpoints()) out.push_back("v2/" + std::string(e.path));
  out.push_back("v1/documents");
  for (const auto& e : v1_endpoints()) out.push_back("v1/" + std::string(e.path));
  return out;
}

Result<SyncReport> sync(PageSource& source, store::Store& store, const SyncOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  SyncReport report;
  report.source = source.describe();
  MappingContext ctx;
  ctx.base_url = options.base_url;
  Corrector corrector(options.corrections ? *options.corrections : bundled_corrections());
  if (!options.corrections && !corrections_error().empty())
    log::error("sync: no record error is corrected: " + corrections_error());
  const std::map<std::string, int> baselines = stored_listing_sizes(store);
  auto baseline = [&](const std::string& endpoint) {
    auto it = baselines.find(endpoint);
    return it == baselines.end() ? 0 : it->second;
  };
  // An endpoint that keeps its stored data (failed, or not retried) carries its listing size forward.
  auto keep_baseline = [&](const std::string& endpoint) {
    if (const int b = baseline(endpoint); b > 0) report.stored_records[endpoint] = b;
  };
  auto skipped_now = [&](const std::string& endpoint) {
    if (std::find(options.skip_endpoints.begin(), options.skip_endpoints.end(), endpoint) ==
        options.skip_endpoints.end()) {
      return false;
    }
    report.skipped_recent_failures.push_back(endpoint);
    keep_baseline(endpoint);
    return true;
  };

  // Documents first: without them nothing can be attributed, so their failure fails the sync.
  std::vector<model::Document> documents;
  Status docs =
      walk(source, "v2/documents", options, report, baseline("v2/documents"), [&](std::vector<json>& records) {
        for (const auto& rec : records) {
          auto d = map_v2_document(rec);
          if (!d) {
            report.skipped.push_back({"v2/documents", json_util::str(rec, "key"), d.status().message()});
            continue;
          }
          ctx.documents[d->key] = *d;
          documents.push_back(*d);
        }
        return Status::ok();
      });
  if (docs.code() == StatusCode::kCancelled) return docs;
  if (docs.code() == StatusCode::kNotFound) {
    return Status::not_found(report.source + " has no v2/documents list; is it an Open5e API?");
  }
  if (!docs.is_ok()) return docs;

  // Seven v1 lists carry what v2's records lack, and are read before the v2 lists: the monsters (what v2's creature
  // records lack), the SRD 5.1 weapon table's properties, the class spell lists, and the races, backgrounds, classes
  // and magic items (traits, descriptions, subclass introductions and texts some v2 records lack or cut short). So is
  // /v2/services/, whose records are stored as items. `read_early` walks one: kKeepStored when the stored entities must
  // lend what it would have given (skipped after a recent failure, or failing now); kMissing for a list the source does
  // not have on a fresh store (nothing to lend).
  enum class Early { kRead, kMissing, kKeepStored };
  auto read_early = [&](const std::string& endpoint, const std::function<void(const json&)>& note) -> Result<Early> {
    if (skipped_now(endpoint)) return Early::kKeepStored;
    Status s = walk(source, endpoint, options, report, baseline(endpoint), [&](std::vector<json>& records) {
      for (const auto& rec : records) note(rec);
      return Status::ok();
    });
    if (s.code() == StatusCode::kCancelled) return s;
    if (s.code() == StatusCode::kNotFound && baseline(endpoint) == 0) {
      report.missing_endpoints.push_back(endpoint);
      return Early::kMissing;
    }
    if (s.is_ok()) return Early::kRead;
    report.failed.push_back({endpoint, s.code() == StatusCode::kNotFound
                                           ? endpoint + ": the source answers 404 for a list the stored data came from"
                                           : s.message()});
    keep_baseline(endpoint);
    return Early::kKeepStored;
  };
  const std::string monsters(kV1MonstersEndpoint);
  const auto preambles = read_early(monsters, [&](const json& rec) { note_v1_monster(rec, ctx); });
  if (!preambles) return preambles.status();
  const std::string v1_weapons(kV1WeaponsEndpoint);
  const auto weapons = read_early(v1_weapons, [&](const json& rec) { note_srd_weapon(rec, ctx); });
  if (!weapons) return weapons.status();
  const auto spells = read_early(std::string(kV1SpellsEndpoint), [&](const json& rec) { note_v1_spell(rec, ctx); });
  if (!spells) return spells.status();
  std::set<Kind> lore_kept;  // species, background, class, magic item: the kinds whose v1 list lends from the store
  // The names of /v1/magicitems/ per v1 document: which v1 record a v2 variant is of (name_is_v1s).
  std::map<std::string, std::vector<std::string>> v1_item_names;
  static const std::vector<std::string> kNoNames;
  // The v1 lists the v1 loop walks again (weapons, magic items): one that failed, was skipped or was missing when
  // read ahead is not tried again.
  std::map<std::string, Early> read_ahead = {{std::string(kV1WeaponsEndpoint), *weapons}};
  for (const auto& list :
       {std::pair{kV1RacesEndpoint, Kind::kSpecies}, std::pair{kV1BackgroundsEndpoint, Kind::kBackground},
        std::pair{kV1ClassesEndpoint, Kind::kClass}, std::pair{kV1MagicItemsEndpoint, Kind::kMagicItem}}) {
    const Kind kind = list.second;  // a variable, not a structured binding: lambdas capture it in every compiler
    const auto lore = read_early(std::string(list.first), [&](const json& rec) {
      note_v1_lore(rec, kind, ctx);
      if (kind == Kind::kMagicItem)
        v1_item_names[json_util::str(rec, "document__slug")].push_back(json_util::str(rec, "name"));
    });
    if (!lore) return lore.status();
    read_ahead[std::string(list.first)] = *lore;
    if (*lore == Early::kKeepStored) {
      lore_kept.insert(kind);
      std::erase_if(ctx.v1_lore, [&](const auto& n) { return n.first.first == kind; });
    }
  }
  const auto services =
      read_early(std::string(kV2ServicesEndpoint), [&](const json& rec) { ctx.services.push_back(rec); });
  if (!services) return services.status();
  const bool keep_stored_services = *services == Early::kKeepStored;
  if (keep_stored_services) ctx.services.clear();
  const bool keep_stored_preambles = *preambles == Early::kKeepStored;
  const bool keep_stored_weapons = *weapons == Early::kKeepStored;
  const bool keep_stored_classes = *spells == Early::kKeepStored;
  if (keep_stored_preambles || keep_stored_weapons || keep_stored_classes || !lore_kept.empty() ||
      keep_stored_services) {
    if (keep_stored_preambles) ctx.v1_monsters.clear();
    if (keep_stored_weapons) ctx.srd_weapon_properties.clear();
    if (keep_stored_classes) ctx.v1_spell_classes.clear();
    LOREKEEPER_RETURN_IF_ERROR(store.scan(
        [&](const model::Entity& e) {
          if (e.source_api != "open5e_v2") return true;
          // A stored creature keeps the v1 record it was completed from in its raw.
          if (keep_stored_preambles && e.kind == Kind::kCreature && e.raw.contains(kRawV1) && e.raw[kRawV1].is_object())
            ctx.v1_monsters[e.key] = e.raw[kRawV1];
          // A stored service is an item whose raw is its /v2/services/ record.
          if (keep_stored_services && e.kind == Kind::kItem && e.data.value("category", "") == "Service" &&
              e.raw.is_object())
            ctx.services.push_back(e.raw);
          // A stored species or background completed from v1 keeps that record in its raw too.
          if (lore_kept.count(e.kind) && e.raw.contains(kRawV1) && e.raw[kRawV1].is_object())
            ctx.v1_lore[{e.kind, v1_note_key(e.document.key, e.name)}] = e.raw[kRawV1];
          if (keep_stored_weapons && e.kind == Kind::kWeapon && e.document.key == "srd-2014") {
            if (auto noted = noted_properties(e); !noted.empty()) ctx.srd_weapon_properties[e.key] = std::move(noted);
          }
          // A stored spell's lists are what v1 gave it (its classes are v1's and the record's own, none a grant).
          if (keep_stored_classes && e.kind == Kind::kSpell) {
            V1SpellClasses kept;
            for (const auto& c : e.data.value("classes", json::array())) {
              if (c.is_string()) kept.classes.push_back(c.get<std::string>());
            }
            for (const auto& g : e.data.value("subclass_grants", json::array())) {
              if (g.is_string()) kept.subclass_grants.push_back(g.get<std::string>());
            }
            kept.range = e.data.value("range", "");
            kept.casting_time = e.data.value("casting_time", "");
            // Every spell: one with no class may still have v1's fuller range ("Self (15-foot cone)").
            ctx.v1_spell_classes[v1_note_key(e.document.key, e.name)] = std::move(kept);
          }
          return true;
        },
        /*with_raw=*/keep_stored_preambles || !lore_kept.empty() || keep_stored_services));
  }

  // Everything is written in one batch, page by page, and published by one commit at the end. Each endpoint
  // runs under a savepoint: if it fails part-way, its partial writes are undone and its previous data stays.
  auto batch = store.begin_batch();
  if (!batch) return batch.status();
  std::set<std::pair<int, std::string>> seen;                                // (kind, key) of every entity written
  std::set<std::pair<int, std::string>> v2_kind_documents;                   // (kind, document) pairs v2 has
  std::map<std::pair<int, std::string>, std::vector<std::string>> v2_names;  // the names v2 has of each
  std::map<std::pair<int, std::string>, std::vector<std::string>> v2_texts;  // of its magic items (text_words)
  std::set<int> v2_failed_kinds;
  int written_endpoints = 0;

  // Runs one entity endpoint: `map` turns a record into the entities to keep (none to leave it out; several when
  // a record holds one entry per document).
  using Mapper = std::function<std::vector<model::Entity>(const json& rec)>;
  // A failure of the store itself (a full disk, a read-only file) is not an endpoint's failure: it ends the sync,
  // the batch rolls back and the error says what happened.
  Status store_error;
  auto stored = [&](Status s) {
    if (!s.is_ok() && store_error.is_ok()) store_error = s;
    return s;
  };
  // `extra` entities (records another endpoint noted for this one) are written after its listing.
  auto run_endpoint = [&](const std::string& endpoint, const store::Store::Scope& scope, const Mapper& map,
                          const std::function<std::vector<model::Entity>()>& extra = {}) -> Status {
    LOREKEEPER_RETURN_IF_ERROR(stored((*batch)->savepoint("endpoint")));
    LOREKEEPER_RETURN_IF_ERROR(stored((*batch)->remove(scope)));
    std::vector<std::pair<int, std::string>> added;
    std::map<std::string, int> kinds;
    std::map<std::string, int> per_document;
    int duplicates = 0;
    size_t skipped_before = report.skipped.size();
    const int stored_from = baseline(endpoint);
    auto write_entities = [&](std::vector<model::Entity> mapped) {
      std::vector<model::Entity> entities;
      for (auto& e : mapped) {
        if (!seen.insert({static_cast<int>(e.kind), e.key}).second) {
          ++duplicates;
          continue;
        }
        added.push_back({static_cast<int>(e.kind), e.key});
        kinds[std::string(model::kind_name(e.kind))]++;
        per_document[e.document.key]++;
        if (std::none_of(documents.begin(), documents.end(),
                         [&](const model::Document& d) { return d.key == e.document.key; })) {
          documents.push_back(e.document);
        }
        entities.push_back(std::move(e));
      }
      return stored((*batch)->write(documents, entities));
    };
    Status walked = walk(source, endpoint, options, report, stored_from, [&](std::vector<json>& records) {
      std::vector<model::Entity> mapped;
      for (auto& rec : records) {
        json as_sent;
        json marks = json::array();
        if (corrected_list(endpoint)) {
          marks = corrector.apply(endpoint, rec, as_sent);
        } else {
          corrector.note(endpoint, rec);
        }
        for (auto& e : map(rec)) {
          if (!marks.empty()) mark_corrected(e, as_sent, marks);
          mapped.push_back(std::move(e));
        }
      }
      return write_entities(std::move(mapped));
    });
    if (walked.is_ok() && extra) walked = write_entities(extra());
    if (walked.code() == StatusCode::kCancelled || !store_error.is_ok()) return walked;  // the whole batch rolls back
    if (walked.is_ok()) {
      // A listing of the announced size whose records cannot be stored (unmappable, or one key repeated) would
      // replace the data with next to nothing.
      const long long unusable = duplicates + static_cast<long long>(report.skipped.size() - skipped_before);
      const long long read = report.records[endpoint];
      if (unusable >= 5 && unusable * 10 > read) {
        const std::string why = std::to_string(unusable) + " of its " + std::to_string(read) +
                                " records could not be stored (unmappable or repeated keys)";
        if (options.accept_incomplete) {
          report.accepted_incomplete.push_back({endpoint, why});
        } else {
          walked = Status::unavailable(endpoint + ": " + why + " (accept it with --accept-incomplete)");
        }
      }
    }
    if (!walked.is_ok()) {
      LOREKEEPER_RETURN_IF_ERROR(stored((*batch)->rollback_to("endpoint")));
      corrector.forget(endpoint);
      for (const auto& k : added) seen.erase(k);
      report.skipped.resize(skipped_before);
      report.records.erase(endpoint);
      report.stored_records.erase(endpoint);
      report.accepted_incomplete.erase(
          std::remove_if(report.accepted_incomplete.begin(), report.accepted_incomplete.end(),
                         [&](const EndpointFailure& a) { return a.endpoint == endpoint; }),
          report.accepted_incomplete.end());
      if (walked.code() == StatusCode::kNotFound && stored_from == 0) {
        report.missing_endpoints.push_back(endpoint);
        return walked;
      }
      // A list that answered before and is gone now is a broken source, not a removed list: keep its data.
      const std::string why = walked.code() == StatusCode::kNotFound
                                  ? endpoint + ": the source answers 404 for a list the stored data came from"
                                  : walked.message();
      log::warning("sync: " + why + "; keeping the previous " + endpoint);
      report.failed.push_back({endpoint, why});
      keep_baseline(endpoint);
      return Status::unavailable(why);
    }
    LOREKEEPER_RETURN_IF_ERROR(stored((*batch)->release("endpoint")));
    for (const auto& [k, n] : kinds) report.entities[k] += n;
    for (const auto& [k, n] : per_document) report.per_document[k] += n;
    report.duplicates += duplicates;
    ++written_endpoints;
    return Status::ok();
  };

  std::string srd51_rule_texts;  // squashed, for the rules of /v1/sections/ that v2 lacks
  for (const auto& ep : v2_endpoints()) {
    const std::string endpoint = "v2/" + std::string(ep.path);
    if (skipped_now(endpoint)) {
      v2_failed_kinds.insert(static_cast<int>(ep.kind));
      continue;
    }
    struct Named {
      int kind;
      std::string document, name, words;  // words: of the text of a magic item (text_words)
    };
    std::vector<Named> kind_documents;  // of every entity written
    int merged = 0;
    // Items that are armor with no armor record of their own are written as armor, with the armor endpoint; the
    // services as items, with the items endpoint. `from` names the list a record that cannot be mapped came from.
    using NotedMapper = Result<model::Entity> (*)(const json&, const MappingContext&);
    auto noted = [&](const std::vector<json>& records, std::string from, NotedMapper map) {
      return [&, from = std::move(from), map] {
        std::vector<model::Entity> out;
        for (const json& rec : records) {
          auto e = map(rec, ctx);
          if (!e) {
            report.skipped.push_back({from, json_util::str(rec, "key"), e.status().message()});
            continue;
          }
          kind_documents.push_back({static_cast<int>(e->kind), e->document.key, e->name, {}});
          out.push_back(std::move(*e));
        }
        return out;
      };
    };
    std::function<std::vector<model::Entity>()> extra;
    if (ep.kind == Kind::kItem) extra = noted(ctx.services, std::string(kV2ServicesEndpoint), map_v2_service);
    if (ep.kind == Kind::kArmor) extra = noted(ctx.standalone_armor, "v2/items", map_standalone_armor);
    Status s = run_endpoint(
        endpoint, {"open5e_v2", ep.kind, ""},
        [&](const json& rec) -> std::vector<model::Entity> {
          const size_t standalone_before = ctx.standalone_armor.size();
          if (ep.kind == Kind::kItem && note_gear_item(rec, ctx)) {
            if (ctx.standalone_armor.size() == standalone_before) ++merged;  // else stored as armor
            return {};
          }
          auto e = map_v2_record(ep, rec, ctx);
          if (!e) {
            report.skipped.push_back({endpoint, json_util::str(rec, "key"), e.status().message()});
            return {};
          }
          if (ep.kind == Kind::kRuleSection) {
            ctx.rule_section_names[e->key] = e->name;
            note_ruleset(rec, ctx);
          }
          std::vector<model::Entity> out = split_by_document(std::move(*e), ctx);
          for (const auto& x : out) {
            kind_documents.push_back({static_cast<int>(x.kind), x.document.key, x.name,
                                      x.kind == Kind::kMagicItem ? text_words(x.text) : std::string()});
            if (x.document.key == "srd-2014" &&
                (x.kind == Kind::kRule || x.kind == Kind::kRuleSection || x.kind == Kind::kCondition)) {
              srd51_rule_texts += squashed(x.text) + '\n';
            }
          }
          return out;
        },
        extra);
    if (s.code() == StatusCode::kCancelled) return s;
    if (!store_error.is_ok()) return store_error;
    if (s.is_ok()) {
      report.merged_items += merged;
      for (const auto& n : kind_documents) {
        v2_kind_documents.insert({n.kind, n.document});
        v2_names[{n.kind, n.document}].push_back(n.name);
        if (!n.words.empty()) v2_texts[{n.kind, n.document}].push_back(n.words);
      }
    } else if (s.code() != StatusCode::kNotFound) {
      v2_failed_kinds.insert(static_cast<int>(ep.kind));
    }
  }

  // SRD 5.1's rules that only v1's rule chapters hold. Which those are depends on v2's rules, rule sections and
  // conditions: without them (failed or skipped) the stored ones stay.
  const std::string sections(kV1SectionsEndpoint);
  if (!skipped_now(sections)) {
    if (v2_failed_kinds.count(static_cast<int>(Kind::kRule)) ||
        v2_failed_kinds.count(static_cast<int>(Kind::kRuleSection)) ||
        v2_failed_kinds.count(static_cast<int>(Kind::kCondition))) {
      keep_baseline(sections);
    } else {
      std::map<std::string, int> replaced;  // per document: v2 rules whose place a v1 rule took (counted once)
      Status s = run_endpoint(sections, {"open5e_v1", Kind::kRule, ""}, [&](const json& rec) {
        std::vector<model::Entity> rules = map_v1_section(rec, ctx, srd51_rule_texts);
        // A v2 rule of the same key holds another rule's text (SRD 5.1's Critical Hits holds Damage Rolls'): the
        // rule v1's chapter gives takes its place.
        for (auto& e : rules) {
          if (seen.erase({static_cast<int>(e.kind), e.key})) {
            ++replaced[e.document.key];
            e.data["corrections"] =
                json::array({{{"record", "v2/rules/" + e.key},
                              {"field", "desc"},
                              {"reason",
                               "the Open5e v2 record of this rule holds another rule's text; this is the rule's text "
                               "from the SRD 5.1 chapter as v1 records it"},
                              {"evidence", json::array({"v1/sections " + json_util::str(e.raw, "slug") +
                                                        ": desc holds the rule under its heading (" + e.url + ")"})}}});
          }
        }
        return rules;
      });
      if (s.code() == StatusCode::kCancelled) return s;
      if (!store_error.is_ok()) return store_error;
      if (s.is_ok()) {
        for (const auto& [document, n] : replaced) {
          report.entities[std::string(model::kind_name(Kind::kRule))] -= n;
          report.per_document[document] -= n;
        }
      }
    }
  }

  // v1: only the documents and kinds v2 lacks.
  if (!skipped_now("v1/documents")) {
    Status v1_docs =
        walk(source, "v1/documents", options, report, baseline("v1/documents"), [&](std::vector<json>& records) {
          for (const auto& rec : records) {
            auto d = map_v1_document(rec, ctx);
            if (d)
              ctx.v1_documents[json_util::str(rec, "slug")] = *d;
            else
              report.skipped.push_back({"v1/documents", json_util::str(rec, "slug"), d.status().message()});
          }
          return Status::ok();
        });
    if (v1_docs.code() == StatusCode::kCancelled) return v1_docs;
    if (v1_docs.code() == StatusCode::kNotFound && baseline("v1/documents") == 0) {
      report.missing_endpoints.push_back("v1/documents");
    } else if (!v1_docs.is_ok()) {
      // Without v1's documents no v1 list can be attributed: every v1 endpoint keeps its data.
      report.failed.push_back({"v1/documents", v1_docs.code() == StatusCode::kNotFound
                                                   ? "v1/documents: the source answers 404 for a list the stored "
                                                     "data came from"
                                                   : v1_docs.message()});
      keep_baseline("v1/documents");
      for (const auto& ep : v1_endpoints()) keep_baseline("v1/" + std::string(ep.path));
    } else {
      for (const auto& ep : v1_endpoints()) {
        const std::string endpoint = "v1/" + std::string(ep.path);
        // Deciding what v2 lacks needs v2's answer for this kind; without it the v1 data stays as it was.
        if (v2_failed_kinds.count(static_cast<int>(ep.kind))) {
          keep_baseline(endpoint);
          continue;
        }
        // A list read ahead (weapons, magic items) is not tried again when it failed, was skipped or was missing
        // there.
        if (const auto it = read_ahead.find(endpoint);
            it != read_ahead.end() ? it->second != Early::kRead : skipped_now(endpoint))
          continue;
        int covered = 0;
        Status s =
            run_endpoint(endpoint, {"open5e_v1", ep.kind, ""}, [&](const json& rec) -> std::vector<model::Entity> {
              auto e = map_v1_record(ep, rec, ctx);
              if (!e) {
                report.skipped.push_back({endpoint, json_util::str(rec, "slug"), e.status().message()});
                return {};
              }
              // A record of a document and kind v2 has is v2's, unless no v2 name covers it (Vault of Magic's Armor of
              // Spite, SRD 5.1's Berserker Axe): then it is v2's lack, filled.
              const std::pair<int, std::string> kind_document{static_cast<int>(e->kind), e->document.key};
              if (e->kind == Kind::kArmor && v1_armor_is_a_formula(rec) && v2_kind_documents.count(kind_document)) {
                ++covered;
                return {};
              }
              if (v2_kind_documents.count(kind_document)) {
                const auto& names = v2_names[kind_document];
                const auto& v1_names = v1_item_names[json_util::str(rec, "document__slug")];
                // Or by its text, under another name: v2 splits Vault of Magic's Forgefire Hammer into a Maul and a
                // Warhammer, spells Labrys right.
                auto by_text = [&] {
                  std::string opening = text_words(json_util::str(rec, "desc")).substr(0, 80);
                  opening = opening.substr(0, opening.rfind(' '));
                  const auto& texts = v2_texts[kind_document];
                  return opening.size() >= 40 && std::any_of(texts.begin(), texts.end(), [&](const std::string& t) {
                           return t.find(opening) != std::string::npos;
                         });
                };
                if (std::any_of(names.begin(), names.end(),
                                [&](const std::string& n) {
                                  return name_is_v1s(n, e->name, e->kind == Kind::kMagicItem ? v1_names : kNoNames);
                                }) ||
                    by_text()) {
                  ++covered;
                  return {};
                }
              }
              std::vector<model::Entity> out;
              out.push_back(std::move(*e));
              return out;
            });
        if (s.code() == StatusCode::kCancelled) return s;
        if (!store_error.is_ok()) return store_error;
        if (s.is_ok()) report.v1_covered += covered;
      }
    }
  }

  if (written_endpoints == 0) {
    return Status::unavailable("no endpoint could be read from " + report.source + "; the store was not changed");
  }
  // A correction whose evidence the records read do not bear out (the API changed them) is taken back: its record is
  // mapped again as sent, with the corrections that still hold.
  std::set<std::string> read;  // the endpoints written this time
  for (const auto& [endpoint, n] : report.records) read.insert(endpoint);
  for (const auto& id : corrector.take_back_unproven()) {
    if (!read.count(id.first)) continue;  // a list that failed keeps its stored data
    const json* sent = corrector.as_sent(id);
    const auto ep = std::find_if(v2_endpoints().begin(), v2_endpoints().end(),
                                 [&](const Endpoint& x) { return "v2/" + std::string(x.path) == id.first; });
    if (!sent || ep == v2_endpoints().end()) continue;
    json rec = *sent;
    json as_sent;
    const json marks = corrector.apply(id.first, rec, as_sent);
    auto e = map_v2_record(*ep, rec, ctx);
    if (!e) continue;
    std::vector<model::Entity> again = split_by_document(std::move(*e), ctx);
    for (auto& x : again) {
      if (!marks.empty()) mark_corrected(x, as_sent, marks);
    }
    LOREKEEPER_RETURN_IF_ERROR(stored((*batch)->write(documents, again)));
  }
  LOREKEEPER_RETURN_IF_ERROR((*batch)->commit());
  report.corrections = corrector.applied(read);
  report.corrections_unapplied = corrector.unapplied(read);
  for (const auto& c : report.corrections_unapplied) log::warning("sync: a correction was not applied: " + c);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  LOREKEEPER_RETURN_IF_ERROR(store.set_meta("synced_at:open5e", iso_now()));
  LOREKEEPER_RETURN_IF_ERROR(
      store.set_meta("synced_unix:open5e", std::to_string(static_cast<long long>(std::time(nullptr)))));
  LOREKEEPER_RETURN_IF_ERROR(store.set_meta("source:open5e", report.source));
  LOREKEEPER_RETURN_IF_ERROR(store.set_meta("sync_report:open5e", report_json(report)));
  return report;
}

LastSync last_sync(store::Store& store) {
  LastSync last;
  auto read = [&store](const char* key) {
    auto value = store.meta(key);
    return value && *value ? **value : std::string();
  };
  last.source = read("source:open5e");
  last.at = read("synced_at:open5e");
  last.unix_time = std::atoll(read("synced_unix:open5e").c_str());
  return last;
}

std::string report_json(const SyncReport& r) {
  json j = {{"source", r.source},
            {"entities", r.entities},
            {"per_document", r.per_document},
            {"records", r.records},
            {"stored_records", r.stored_records},
            {"duplicates", r.duplicates},
            {"v1_covered_by_v2", r.v1_covered},
            {"items_merged_into_weapons_and_armor", r.merged_items},
            {"pages", r.pages},
            {"seconds", std::round(r.seconds * 100) / 100},
            {"missing_endpoints", r.missing_endpoints},
            {"corrections", r.corrections},
            {"corrections_unapplied", r.corrections_unapplied},
            {"skipped_recent_failures", r.skipped_recent_failures}};
  json skipped = json::array();
  for (const auto& s : r.skipped) skipped.push_back({{"endpoint", s.endpoint}, {"key", s.key}, {"reason", s.reason}});
  j["skipped"] = skipped;
  json failed = json::array();
  for (const auto& f : r.failed) failed.push_back({{"endpoint", f.endpoint}, {"error", f.error}});
  j["failed"] = failed;
  json accepted = json::array();
  for (const auto& a : r.accepted_incomplete) accepted.push_back({{"endpoint", a.endpoint}, {"note", a.error}});
  j["accepted_incomplete"] = accepted;
  return json_util::dump(j);
}

}  // namespace lorekeeper::open5e
