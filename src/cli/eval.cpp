#include "eval.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"

namespace lorekeeper::cli {

namespace {

using json = nlohmann::json;

struct Row {
  std::string id, category, kind, tool;
  json args;
  std::set<std::string> expect;  // folded (text::fold): "Scale mail" is "Scale Mail"
  std::set<std::string> expect_documents;
};

struct Tally {
  int n = 0;
  int hit1 = 0, hit3 = 0, hit5 = 0, hit10 = 0;
  double rr = 0;  // sum of reciprocal ranks within 10
  int empty = 0;  // for "none" rows: answers with no results
};

// The results of a tool answer, best first: a list, or search_all's groups merged by score.
std::vector<json> ranked_results(const json& structured) {
  std::vector<json> out;
  const json& r = structured.contains("result") ? structured["result"] : json();
  if (r.is_array()) {
    for (const auto& x : r) out.push_back(x);
  } else if (r.is_object()) {
    for (const auto& [kind, items] : r.items()) {
      for (const auto& x : items) out.push_back(x);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const json& a, const json& b) { return a.value("_score", 0.0) > b.value("_score", 0.0); });
  }
  return out;
}

// One table of tallies, headed by what they are grouped by, also written into `out` as JSON.
std::string tally_table(const std::string& heading, const std::map<std::string, Tally>& tallies, json& out) {
  std::string text;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-14s    n   hit@1  hit@3  hit@5  hit@10  MRR@10\n", heading.c_str());
  text += buf;
  for (const auto& [group, t] : tallies) {
    const double n = std::max(1, t.n);
    out[group] = {{"n", t.n},
                  {"hit@1", t.hit1 / n},
                  {"hit@3", t.hit3 / n},
                  {"hit@5", t.hit5 / n},
                  {"hit@10", t.hit10 / n},
                  {"mrr@10", t.rr / n}};
    std::snprintf(buf, sizeof buf, "%-14s %4d   %.3f  %.3f  %.3f  %.3f   %.3f\n", group.c_str(), t.n, t.hit1 / n,
                  t.hit3 / n, t.hit5 / n, t.hit10 / n, t.rr / n);
    text += buf;
  }
  return text;
}

}  // namespace

int run_eval(const std::string& file, const std::vector<std::pair<std::string, tools::Engine*>>& engines,
             bool as_json) {
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "lorekeeper eval: cannot read %s\n", file.c_str());
    return 2;
  }
  std::vector<Row> rows;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (text::trim(line).empty()) continue;
    const json j = json_util::parse(line, nullptr).value_or(json());
    if (!j.is_object() || !j.contains("tool") || !j.contains("args") || !j.contains("expect") ||
        !j["expect"].is_array() || !j["args"].is_object()) {
      std::fprintf(stderr, "lorekeeper eval: %s:%d: not a row {id, category, tool, args, expect[]}\n", file.c_str(),
                   line_no);
      return 2;
    }
    Row r;
    r.id = j.value("id", std::to_string(line_no));
    r.category = j.value("category", "other");
    r.kind = j.value("kind", "other");
    r.tool = j["tool"].get<std::string>();
    r.args = j["args"];
    if (!r.args.contains("limit")) r.args["limit"] = 10;
    for (const auto& e : j["expect"]) r.expect.insert(text::fold(e.get<std::string>()));
    if (j.contains("expect_documents")) {
      for (const auto& d : j["expect_documents"]) r.expect_documents.insert(d.get<std::string>());
    }
    rows.push_back(std::move(r));
  }
  json report = json::object();
  std::string text_out;
  for (const auto& [label, engine] : engines) {
    std::map<std::string, Tally> tallies;  // by category, and "all"
    std::map<std::string, Tally> kinds;    // by the expected entities' kind
    std::vector<double> millis;
    json per_row = json::array();
    for (const auto& r : rows) {
      const auto t0 = std::chrono::steady_clock::now();
      const tools::ToolResult res = engine->call(r.tool, r.args);
      millis.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      // A row the tools refuse (an unknown tool, a misspelt parameter) measures nothing: counted as a miss, or as
      // the empty answer a `none` row expects, it would pass for a ranking result.
      if (res.is_error) {
        std::fprintf(stderr, "lorekeeper eval: %s: row %s: %s refused the call: %s\n", file.c_str(), r.id.c_str(),
                     r.tool.c_str(), res.text.c_str());
        return 2;
      }
      const auto results = ranked_results(res.structured);
      int rank = 0;
      for (size_t i = 0; i < results.size() && i < 10; ++i) {
        const std::string name = text::fold(results[i].value("name", ""));
        const std::string doc =
            results[i].contains("document") ? results[i]["document"].value("key", "") : std::string();
        if (r.expect.count(name) && (r.expect_documents.empty() || r.expect_documents.count(doc))) {
          rank = static_cast<int>(i) + 1;
          break;
        }
      }
      for (Tally* x : {&tallies[r.category], &tallies["all"], &kinds[r.kind]}) {
        ++x->n;
        if (r.expect.empty()) {
          x->empty += results.empty() ? 1 : 0;
          x->rr += results.empty() ? 1 : 0;
          x->hit1 += results.empty() ? 1 : 0;
          x->hit3 += results.empty() ? 1 : 0;
          x->hit5 += results.empty() ? 1 : 0;
          x->hit10 += results.empty() ? 1 : 0;
          continue;
        }
        x->hit1 += rank == 1;
        x->hit3 += rank >= 1 && rank <= 3;
        x->hit5 += rank >= 1 && rank <= 5;
        x->hit10 += rank >= 1 && rank <= 10;
        x->rr += rank > 0 ? 1.0 / rank : 0;
      }
      json top = json::array();
      for (size_t i = 0; i < results.size() && i < 3; ++i) top.push_back(results[i].value("name", ""));
      per_row.push_back(
          {{"id", r.id}, {"rank", rank}, {"results", results.size()}, {"top", top}, {"ms", millis.back()}});
    }
    std::sort(millis.begin(), millis.end());
    auto pct = [&](double p) { return millis.empty() ? 0 : millis[static_cast<size_t>(p * (millis.size() - 1))]; };
    text_out += "== " + label + " (" + std::to_string(rows.size()) + " queries; call p50 " +
                text::format_number(std::round(pct(0.5) * 100) / 100) + " ms, p95 " +
                text::format_number(std::round(pct(0.95) * 100) / 100) + " ms)\n";
    json metrics = json::object();
    json by_kind = json::object();
    text_out += tally_table("category", tallies, metrics);
    text_out += tally_table("kind", kinds, by_kind);
    text_out += "(\"none\" rows count as hits when the answer is empty.)\n\n";
    report[label] = {{"metrics", metrics},
                     {"by_kind", by_kind},
                     {"latency_ms", {{"p50", pct(0.5)}, {"p95", pct(0.95)}}},
                     {"rows", per_row}};
  }
  if (as_json) {
    std::printf("%s\n", report.dump(2).c_str());
  } else {
    std::printf("%s", text_out.c_str());
  }
  return 0;
}

}  // namespace lorekeeper::cli
