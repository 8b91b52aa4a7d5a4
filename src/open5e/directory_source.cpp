#include "lorekeeper/open5e/directory_source.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "lorekeeper/core/json_util.hpp"

namespace lorekeeper::open5e {

namespace {

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

Result<json> read_page(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::not_found("missing page " + file.string());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string err;
  auto j = json_util::parse(ss.str(), &err);
  if (!j) return Status::corruption(file.string() + ": " + err);
  if (!j->is_object() || !(*j)["results"].is_array()) {
    return Status::corruption(file.string() + ": not a list page (no \"results\" array)");
  }
  return std::move(*j);
}

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

std::string page_file_name(const std::string& url) {
  const size_t q = url.find('?');
  if (q == std::string::npos || q + 1 >= url.size()) return "_.json";
  std::vector<std::string> params;
  std::stringstream ss(url.substr(q + 1));
  std::string p;
  while (std::getline(ss, p, '&')) {
    if (!p.empty()) params.push_back(percent_decode(p));
  }
  std::sort(params.begin(), params.end(), [](const std::string& a, const std::string& b) {
    return a.substr(0, a.find('=')) < b.substr(0, b.find('='));
  });
  std::string out;
  for (size_t i = 0; i < params.size(); ++i) out += (i ? "&" : "") + params[i];
  return (out.empty() ? "_" : out) + ".json";
}

Result<LoadReport> load_directory(const std::string& dir, store::Store& store, const ProgressFn& progress) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(dir) / "v2";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return Status::not_found(dir + " is not a recorded Open5e mirror (no v2/ directory)");
  }
  LoadReport report;
  MappingContext ctx;

  // Walks one endpoint's pages, calling `each` per record.
  auto walk = [&](const std::string& endpoint, const std::function<void(const json&)>& each) -> Status {
    fs::path file = root / endpoint / "limit=100.json";
    if (!fs::exists(file, ec)) {
      report.missing_endpoints.push_back(endpoint);
      return Status::ok();
    }
    std::set<std::string> visited;
    int pages = 0;
    int records = 0;
    while (true) {
      if (!visited.insert(file.filename().string()).second) {
        return Status::corruption(file.string() + ": `next` links loop back to a page already read");
      }
      auto page = read_page(file);
      if (!page) return page.status();
      for (const auto& rec : (*page)["results"]) {
        each(rec);
        ++records;
      }
      ++pages;
      ++report.pages;
      if (progress) progress(endpoint, pages, records);
      const json& next = (*page)["next"];
      if (!next.is_string()) break;
      file = root / endpoint / page_file_name(next.get<std::string>());
    }
    report.records[endpoint] = records;
    return Status::ok();
  };

  std::vector<model::Document> documents;
  LOREKEEPER_RETURN_IF_ERROR(walk("documents", [&](const json& rec) {
    auto d = map_v2_document(rec);
    if (!d) {
      report.skipped.push_back({"documents", json_util::str(rec, "key"), d.status().message()});
      return;
    }
    ctx.documents[d->key] = *d;
    documents.push_back(*d);
  }));

  std::vector<model::Entity> entities;
  std::set<std::pair<int, std::string>> seen;
  for (const auto& ep : v2_endpoints()) {
    const std::string endpoint(ep.path);
    LOREKEEPER_RETURN_IF_ERROR(walk(endpoint, [&](const json& rec) {
      auto e = map_v2_record(ep, rec, ctx);
      if (!e) {
        report.skipped.push_back({endpoint, json_util::str(rec, "key"), e.status().message()});
        return;
      }
      if (!seen.insert({static_cast<int>(e->kind), e->key}).second) {
        ++report.duplicates;
        return;
      }
      if (ep.kind == Kind::kRuleSection) ctx.rule_section_names[e->key] = e->name;
      report.entities[std::string(model::kind_name(e->kind))]++;
      if (std::none_of(documents.begin(), documents.end(),
                       [&](const model::Document& d) { return d.key == e->document.key; })) {
        documents.push_back(e->document);
      }
      entities.push_back(std::move(*e));
    }));
  }
  LOREKEEPER_RETURN_IF_ERROR(store.replace_sources({"open5e_v2"}, documents, entities));
  LOREKEEPER_RETURN_IF_ERROR(store.set_meta("synced_at:open5e_v2", iso_now()));
  LOREKEEPER_RETURN_IF_ERROR(store.set_meta("source:open5e_v2", fs::absolute(dir).string()));
  return report;
}

}  // namespace lorekeeper::open5e
