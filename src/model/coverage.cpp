#include "lorekeeper/model/coverage.hpp"

#include <algorithm>

#include "lorekeeper/core/text.hpp"

extern "C" const char lorekeeper_coverage_begin[];
extern "C" const char lorekeeper_coverage_end[];

namespace lorekeeper::model {
namespace {

std::vector<std::string> split(std::string_view line, char sep) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    const size_t next = line.find(sep, at);
    out.emplace_back(line.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  return out;
}

struct Coverage {
  std::vector<CoverageStatement> statements;
  std::vector<std::string> errors;

  Coverage() {
    const std::string_view data(lorekeeper_coverage_begin,
                                static_cast<size_t>(lorekeeper_coverage_end - lorekeeper_coverage_begin));
    size_t number = 0;
    for (const std::string& raw : split(data, '\n')) {
      ++number;
      const std::string line = text::trim(raw);
      if (line.empty() || line[0] == '#') continue;
      const auto cols = split(raw, '\t');
      const std::string where = "line " + std::to_string(number) + ": ";
      const size_t want = cols[0] == "topic" ? 6 : 5;
      if (cols.size() != want) {
        errors.push_back(where + "expected " + std::to_string(want) + " tab-separated columns, got " +
                         std::to_string(cols.size()));
        continue;
      }
      const auto key = [](const std::string& c) { return c == "-" ? std::string() : c; };
      if (cols[0] == "statement") {
        statements.push_back({cols[1], cols[2], cols[3], key(cols[4]), {}});
      } else if (cols[0] == "topic") {
        auto it = std::find_if(statements.begin(), statements.end(),
                               [&](const CoverageStatement& s) { return s.document == cols[1] && s.kind == cols[2]; });
        if (it == statements.end()) {
          errors.push_back(where + "a topic of " + cols[1] + " " + cols[2] + " before its statement");
          continue;
        }
        CoverageTopic topic{cols[3], {}, key(cols[5]), {}};
        // The name alone asks for the topic too ("Attack [Action]": "attack").
        const std::string bare = text::fold(cols[3].substr(0, cols[3].find(" [")));
        for (const auto& p : split(cols[4], '|')) {
          if (std::string folded = text::fold(p); !folded.empty()) topic.phrases.push_back(std::move(folded));
        }
        if (topic.phrases.empty() || bare.empty()) {
          errors.push_back(where + "a topic without a name or phrases");
          continue;
        }
        topic.name_folded = bare;
        it->topics.push_back(std::move(topic));
      } else {
        errors.push_back(where + "expected 'statement' or 'topic', got '" + cols[0] + "'");
      }
    }
  }
};

const Coverage& loaded() {
  static const Coverage c;
  return c;
}

}  // namespace

const std::vector<CoverageStatement>& coverage() { return loaded().statements; }
const std::vector<std::string>& coverage_errors() { return loaded().errors; }

const CoverageTopic* topic_asked(const CoverageStatement& statement, std::string_view query) {
  const std::string folded = text::fold(query);
  const std::string asked = " " + folded + " ";
  for (const auto& topic : statement.topics) {
    if (folded == topic.name_folded) return &topic;
    for (const auto& phrase : topic.phrases) {
      if (asked.find(" " + phrase + " ") != std::string::npos) return &topic;
    }
  }
  return nullptr;
}

}  // namespace lorekeeper::model
