// What the data holds and lacks, per document and kind: the statements of data/coverage.tsv (compiled in;
// docs/formats/coverage.md). An answer that touches a gap says so, so that a model does not fill it from memory.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lorekeeper::model {

// A topic a statement says is missing, the phrases of a question that ask for it (folded, text::fold), and the
// document that has it under other rules (empty when none does).
struct CoverageTopic {
  std::string name;
  std::vector<std::string> phrases;
  std::string elsewhere;
  std::string name_folded;  // the name without a bracketed qualifier, folded: a question that is only this asks
};

// What `document` holds of `kind` and what it does not; `elsewhere` names a document that has more of it under other
// rules (empty when none does).
struct CoverageStatement {
  std::string document;
  std::string kind;
  std::string text;
  std::string elsewhere;
  std::vector<CoverageTopic> topics;
};

// Every statement, in the file's order. The file is read once; a line that is not one of its two shapes is a
// build-time mistake the unit tests catch (coverage_errors).
const std::vector<CoverageStatement>& coverage();
// The lines of the compiled-in file that could not be read, as "line N: why"; empty when every line was.
const std::vector<std::string>& coverage_errors();

// The topic of `statement` that `query` asks for: the query is its name alone, or holds a phrase of it among its
// folded words (a whole-word match); else nullptr.
const CoverageTopic* topic_asked(const CoverageStatement& statement, std::string_view query);

}  // namespace lorekeeper::model
