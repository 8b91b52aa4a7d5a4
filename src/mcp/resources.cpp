#include "resources.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/coverage.hpp"
#include "lorekeeper/tools/engine.hpp"
#include "lorekeeper/tools/routes.hpp"

namespace lorekeeper::mcp {

namespace {

using json = nlohmann::json;

// "magic items", "classes", "species", "item rarities".
std::string plural(std::string_view kind) {
  std::string s(kind);
  std::replace(s.begin(), s.end(), '-', ' ');
  if (s == "species") return s;
  if (s.size() > 1 && s.back() == 'y' && std::string("aeiou").find(s[s.size() - 2]) == std::string::npos) {
    return s.substr(0, s.size() - 1) + "ies";
  }
  if (s.back() == 's') return s + "es";
  return s + "s";
}

std::string counted(int n, std::string_view kind) {
  return text::group_thousands(n) + " " + (n == 1 ? std::string(kind) : plural(kind));
}

// How a model searches a kind: the tool and the argument that picks the kind.
std::string search_hint(std::string_view kind) {
  const auto parsed = model::parse_kind(kind);
  const tools::KindRoute* route = parsed ? tools::route_of(*parsed) : nullptr;
  if (route == nullptr) return "`search_all`";
  std::string hint = "`" + std::string(route->tool) + "`";
  if (!route->param.empty()) hint += " with `" + std::string(route->param) + ": \"" + std::string(route->value) + "\"`";
  return hint;
}

// A document's kinds, the most numerous first.
std::vector<std::pair<std::string, int>> kinds_by_count(const store::DocumentInfo& info) {
  std::vector<std::pair<std::string, int>> kinds(info.entity_types.begin(), info.entity_types.end());
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return kinds;
}

int total_of(const std::map<std::string, int>& per_document) {
  int total = 0;
  for (const auto& [doc, n] : per_document) total += n;
  return total;
}

// Kind -> (document key -> count), over every document.
std::map<std::string, std::map<std::string, int>> kinds_by_document(const std::vector<store::DocumentInfo>& docs) {
  std::map<std::string, std::map<std::string, int>> out;
  for (const auto& d : docs) {
    for (const auto& [kind, n] : d.entity_types) out[kind][d.document.key] += n;
  }
  return out;
}

std::string document_markdown(const store::DocumentInfo& info) {
  const auto& d = info.document;
  std::string s = "### " + d.name + "\n";
  std::vector<std::string> facts = {"document `" + d.key + "`"};
  for (const auto* f : {&d.game_system, &d.publisher, &d.license}) {
    if (!f->empty()) facts.push_back(*f);
  }
  s += "*" + text::join(facts, " · ") + "*\n\n";
  if (!d.description.empty()) {
    std::string desc = text::trim(d.description);
    if (desc.size() > 1200) desc = desc.substr(0, text::utf8_boundary(desc, 1200)) + " …";
    s += desc + "\n\n";
  }
  s += counted(info.entity_count, "entry") + ":\n\n| Kind | Entries |\n|---|---|\n";
  for (const auto& [kind, n] : kinds_by_count(info)) s += "| " + kind + " | " + text::group_thousands(n) + " |\n";
  for (const auto& statement : model::coverage()) {
    if (statement.document == d.key) s += "\nCoverage (" + statement.kind + "): " + statement.text + "\n";
  }
  s += "\nSearch only this document: pass `documents: [\"" + d.key +
       "\"]` to a search tool. Read one entry: `lorekeeper://{kind}/{key}` with a key from a search result.\n";
  return s;
}

std::string kind_markdown(store::Store& store, const std::string& kind, const std::map<std::string, int>& per_document,
                          const std::vector<store::DocumentInfo>& docs) {
  const int total = total_of(per_document);
  std::string title = plural(kind);
  title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  std::string s = "### " + title + " (`" + kind + "`)\n\n";
  s += counted(total, kind) + " in " + counted(static_cast<int>(per_document.size()), "document") +
       ". Search them with " + search_hint(kind) + " (names, words of their text, and meaning, under filters). ";
  std::string example;
  if (auto k = model::parse_kind(kind)) {
    auto names = store.names({*k});
    if (names && !names->empty()) example = (*names)[0].key;
  }
  s += "Read one: `lorekeeper://" + kind + "/{key}`" +
       (example.empty() ? std::string(".") : ", e.g. `lorekeeper://" + kind + "/" + example + "`.") + "\n\n";
  s += "| Document | Key | Game system | Entries |\n|---|---|---|---|\n";
  for (const auto& d : docs) {
    auto it = per_document.find(d.document.key);
    if (it == per_document.end()) continue;
    s += "| " + d.document.name + " | `" + d.document.key + "` | " + d.document.game_system + " | " +
         text::group_thousands(it->second) + " |\n";
  }
  return s;
}

// Every statement of what a document holds and lacks, under its document, with the document's entries per kind.
std::string coverage_markdown(const std::vector<store::DocumentInfo>& docs) {
  std::string s =
      "## What the data holds and lacks\n\nEach source document's entries per kind are in "
      "`lorekeeper://documents/{key}`. What a document is known to lack, so that an answer is not completed from "
      "memory (an answer that touches one of these says so):\n";
  for (const auto& info : docs) {
    std::string lines;
    for (const auto& statement : model::coverage()) {
      if (statement.document != info.document.key) continue;
      lines += "- **" + statement.kind + "**: " + statement.text;
      if (!statement.topics.empty()) {
        std::vector<std::string> names;
        for (const auto& t : statement.topics) names.push_back(t.name);
        lines += " Missing: " + text::join(names, ", ") + ".";
      }
      lines += "\n";
    }
    if (!lines.empty()) s += "\n### " + info.document.name + " (`" + info.document.key + "`)\n\n" + lines;
  }
  return s;
}

}  // namespace

Result<std::vector<json>> guide_resources(store::Store& store) {
  auto docs = store.documents();
  if (!docs) return docs.status();
  std::vector<json> out;
  for (const auto& info : *docs) {
    const auto kinds = kinds_by_count(info);
    std::vector<std::string> top;
    for (size_t i = 0; i < kinds.size() && i < 3; ++i) top.push_back(counted(kinds[i].second, kinds[i].first));
    out.push_back({{"uri", kDocumentsPrefix + info.document.key},
                   {"name", info.document.key},
                   {"title", info.document.name},
                   {"description", "Source document: " + counted(info.entity_count, "entry") + " (" +
                                       text::join(top, ", ") + (kinds.size() > 3 ? ", ..." : "") + ")"},
                   {"mimeType", "text/markdown"}});
  }
  out.push_back({{"uri", kCoverageUri},
                 {"name", "coverage"},
                 {"title", "What the data holds and lacks"},
                 {"description",
                  "Per source document: what it is known to lack (SRD 5.2's rules glossary, SRD 5.1's "
                  "one background and feat, ...), so that answers are not completed from memory"},
                 {"mimeType", "text/markdown"}});
  const auto per_kind = kinds_by_document(*docs);
  for (auto k : model::all_kinds()) {
    const std::string kind(model::kind_name(k));
    auto it = per_kind.find(kind);
    if (it == per_kind.end()) continue;
    const int total = total_of(it->second);
    out.push_back({{"uri", kKindsPrefix + kind},
                   {"name", kind},
                   {"title", "All " + plural(kind)},
                   {"description", "Kind of content: " + counted(total, kind) + " in " +
                                       counted(static_cast<int>(it->second.size()), "document")},
                   {"mimeType", "text/markdown"}});
  }
  return out;
}

std::optional<Result<std::string>> read_guide_resource(store::Store& store, const std::string& uri) {
  if (uri == kCoverageUri) {
    auto docs = store.documents();
    if (!docs) return Result<std::string>(docs.status());
    return Result<std::string>(coverage_markdown(*docs));
  }
  const bool is_document = uri.rfind(kDocumentsPrefix, 0) == 0;
  const bool is_kind = uri.rfind(kKindsPrefix, 0) == 0;
  if (!is_document && !is_kind) return std::nullopt;
  const std::string name = uri.substr(std::string(is_document ? kDocumentsPrefix : kKindsPrefix).size());
  auto docs = store.documents();
  if (!docs) return Result<std::string>(docs.status());
  if (is_document) {
    for (const auto& info : *docs) {
      if (info.document.key == name) return Result<std::string>(document_markdown(info));
    }
    return Result<std::string>(Status::not_found("no document '" + name + "' in the store"));
  }
  const auto per_kind = kinds_by_document(*docs);
  auto it = per_kind.find(name);
  if (it == per_kind.end()) return Result<std::string>(Status::not_found("no entries of kind '" + name + "'"));
  return Result<std::string>(kind_markdown(store, name, it->second, *docs));
}

}  // namespace lorekeeper::mcp
