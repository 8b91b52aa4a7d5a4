#include "tool_table.hpp"

#include <algorithm>

namespace lorekeeper::tools {

namespace {

std::vector<ToolDef> build_table() {
  std::vector<ToolDef> table = search_tool_rows();
  // The encounter tools read and validate their creature filters as search_creature does.
  const auto creature =
      std::find_if(table.begin(), table.end(), [](const ToolDef& d) { return d.spec.name == "search_creature"; });
  const std::vector<ParamSpec> creature_filters =
      creature != table.end() ? creature->spec.params : std::vector<ParamSpec>{};
  for (auto& row : gm_tools::rows(creature_filters)) table.push_back(std::move(row));
  table.push_back(count_tool::row());
  table.push_back(compare_tool::row());
  table.push_back(class_spells_tool::row());
  table.push_back(attack_odds_tool::row());
  table.push_back(attunement_tool::row());
  return table;
}

}  // namespace

ToolDef documents_row(ToolSpec spec, std::function<ToolResult(const ToolCall&, const DocFilter& docs)> run) {
  ToolDef d{std::move(spec)};
  d.empty_store = EmptyStoreAnswer::kError;
  d.run = [run = std::move(run)](const ToolCall& c) {
    if (c.st == nullptr) return run(c, DocFilter{});
    auto docs = required_documents(*c.st, c.args);
    if (!docs) return error_result(docs.status().message());
    ToolResult r = run(c, *docs);
    // Documents given that no store holds ("Unknown document(s): ...") are said ahead of the answer.
    if (!docs->message.empty() && !r.is_error) {
      r.text = docs->message + "\n\n" + r.text;
      const std::string said = r.structured.value("message", "");
      r.structured["message"] = said.empty() ? docs->message : docs->message + " " + said;
    }
    return r;
  };
  return d;
}

const std::vector<ToolDef>& tool_table() {
  static const std::vector<ToolDef> kTable = build_table();
  return kTable;
}

const std::vector<ToolDef>& legacy_tool_table() {
  static const std::vector<ToolDef> kTable = legacy_rows();
  return kTable;
}

const ToolDef* find_tool_def(std::string_view name, bool include_legacy) {
  for (const ToolDef& d : tool_table()) {
    if (d.spec.name == name) return &d;
  }
  if (include_legacy) {
    for (const ToolDef& d : legacy_tool_table()) {
      if (d.spec.name == name) return &d;
    }
  }
  return nullptr;
}

const std::vector<ToolSpec>& tool_specs() {
  static const std::vector<ToolSpec> kSpecs = [] {
    std::vector<ToolSpec> specs;
    for (const ToolDef& d : tool_table()) specs.push_back(d.spec);
    return specs;
  }();
  return kSpecs;
}

std::vector<const ToolSpec*> tool_specs(bool include_legacy) {
  std::vector<const ToolSpec*> out;
  for (const ToolDef& d : tool_table()) out.push_back(&d.spec);
  if (include_legacy) {
    for (const ToolDef& d : legacy_tool_table()) out.push_back(&d.spec);
  }
  return out;
}

const ToolSpec* find_tool(const std::string& name, bool include_legacy) {
  const ToolDef* d = find_tool_def(name, include_legacy);
  return d ? &d->spec : nullptr;
}

}  // namespace lorekeeper::tools
