#include "lookup.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/render.hpp"
#include "lorekeeper/tools/routes.hpp"

namespace lorekeeper::cli {

namespace {

using json = nlohmann::json;

void print(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

using json_util::str;

// Display width of UTF-8 text, counted in code points (every character of the data is one column wide).
size_t columns(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The first `width` columns of `s`, ending in "…" when something was cut; never splits a character.
std::string fit(const std::string& s, size_t width) {
  if (columns(s) <= width) return s;
  if (width == 0) return "";
  size_t kept = 0, i = 0;
  while (i < s.size()) {
    size_t len = 1;
    while (i + len < s.size() && (static_cast<unsigned char>(s[i + len]) & 0xC0) == 0x80) ++len;
    if (kept + 1 >= width) break;
    i += len;
    ++kept;
  }
  return s.substr(0, i) + "\xE2\x80\xA6";
}

std::string pad(const std::string& s, size_t width) {
  const size_t w = columns(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

// `s` broken into lines of at most `width` columns at spaces (a word longer than a line stands alone); unbroken when
// width is 0 (not a terminal).
std::string wrapped(const std::string& s, size_t width) {
  if (width == 0 || columns(s) <= width) return s;
  std::string out, line;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(' ', start);
    if (end == std::string::npos) end = s.size();
    const std::string word = s.substr(start, end - start);
    if (!line.empty() && columns(line) + 1 + columns(word) > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line;
}

// Every result of a list answer, in order: search_all's groups flattened.
std::vector<json> results_of(const json& structured) {
  std::vector<json> out;
  const json& r = structured.contains("result") ? structured["result"] : json();
  if (r.is_array()) {
    for (const auto& x : r) out.push_back(x);
  } else if (r.is_object() && !r.contains("key")) {
    for (auto it = r.begin(); it != r.end(); ++it) {
      if (it->is_array()) {
        for (const auto& x : *it) out.push_back(x);
      }
    }
  }
  return out;
}

// Whether every result is named exactly what was asked: the stat blocks are what the person wants.
bool all_named(const std::vector<json>& results, const std::string& query) {
  if (results.empty() || query.empty()) return false;
  const std::string want = text::fold(query);
  return std::all_of(results.begin(), results.end(), [&](const json& r) { return text::fold(str(r, "name")) == want; });
}

std::string document_key(const json& r) {
  return r.contains("document") && r["document"].is_object() ? str(r["document"], "key") : "";
}

int tool_error(const char* command, const tools::ToolResult& r) {
  std::fprintf(stderr, "lorekeeper %s: %s\n", command, r.text.c_str());
  return 1;
}

}  // namespace

Terminal stdout_terminal() {
  Terminal t;
  t.tty = isatty(STDOUT_FILENO) != 0;
  if (!t.tty) return t;
  const char* no_colour = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  t.colour = (no_colour == nullptr || *no_colour == '\0') && !(term != nullptr && std::string(term) == "dumb");
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) t.width = ws.ws_col;
  if (t.width == 0) {
    if (const char* c = std::getenv("COLUMNS")) t.width = std::max(0, std::atoi(c));
  }
  return t;
}

std::vector<std::string> search_kinds() {
  std::vector<std::string> kinds = {"all"};
  for (const tools::KindRoute& r : tools::kind_routes()) {
    kinds.emplace_back(r.value);
    if (r.value == "creature") kinds.push_back("monster");
    if (r.value == "item") kinds.push_back("equipment");
  }
  return kinds;
}

namespace {

// A --filter value as the parameter's declared type: text stays text ("5e-2024" is an edition, not the number
// 5e-2024), numbers and booleans are read as such, lists are split at commas, objects are read as JSON. A value
// that is not of its type is passed as written, for the tool to name what is valid.
json filter_value(const tools::ParamSpec* p, const std::string& v) {
  auto parsed = [&v] {
    auto j = json_util::parse(v, nullptr);
    return j ? *j : json(v);
  };
  auto split = [&v] {
    json out = json::array();
    for (const auto& part : text::split_commas(v)) out.push_back(part);
    return out;
  };
  if (p == nullptr) return parsed();
  switch (p->type) {
    case tools::ParamType::kString:
    case tools::ParamType::kFraction: return v;
    case tools::ParamType::kInteger:
    case tools::ParamType::kNumber: {
      const json j = parsed();
      return j.is_number() ? j : json(v);
    }
    case tools::ParamType::kBoolean: {
      const std::string l = text::lower(v);
      if (l == "true" || l == "yes" || l == "1") return true;
      if (l == "false" || l == "no" || l == "0") return false;
      return v;
    }
    case tools::ParamType::kStringArray: return split();
    case tools::ParamType::kIntegerArray: {
      json out = json::array();
      for (const auto& part : text::split_commas(v)) {
        auto j = json_util::parse(part, nullptr);
        out.push_back(j && j->is_number() ? *j : json(part));
      }
      return out;
    }
    case tools::ParamType::kObjectArray:
    case tools::ParamType::kObject: return parsed();
  }
  return v;
}

}  // namespace

Result<ToolCall> search_call(const SearchRequest& request) {
  ToolCall call{"", json::object()};
  json& args = call.args;
  // Beside the routes' values the command line takes "monster" for creature and "equipment" for every kind of the
  // tool that holds items.
  std::string k = text::lower(request.kind);
  if (k == "monster") k = "creature";
  const bool equipment = k == "equipment";
  if (k.empty() || k == "all") {
    call.tool = "search_all";
    args["query"] = request.query;
  } else if (const tools::KindRoute* route = tools::route_named(equipment ? "item" : k)) {
    call.tool = std::string(route->tool);
    if (!route->param.empty()) args[std::string(route->param)] = equipment ? "all" : std::string(route->value);
  } else {
    return Status::invalid_argument("unknown kind '" + request.kind + "'. Kinds: " + text::join(search_kinds(), ", ") +
                                    ".");
  }
  if (call.tool != "search_all" && !request.query.empty()) args["search"] = request.query;
  const tools::ToolSpec* spec = tools::find_tool(call.tool);
  for (const auto& f : request.filters) {
    const size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status::invalid_argument("--filter expects key=value, got '" + f + "'");
    const std::string name = text::trim(f.substr(0, eq));
    const tools::ParamSpec* p = nullptr;
    for (const auto& candidate : spec->params) {
      if (candidate.name == name) p = &candidate;
    }
    args[name] = filter_value(p, f.substr(eq + 1));
  }
  if (!request.edition.empty()) args["game_system"] = request.edition;
  if (!request.documents.empty()) args["documents"] = request.documents;
  if (request.limit > 0) args["limit"] = request.limit;
  return call;
}

std::string render_table(const std::vector<json>& rows, const Terminal& terminal) {
  if (rows.empty()) return "";
  bool several_kinds = false;
  for (const auto& r : rows) several_kinds = several_kinds || str(r, "kind") != str(rows[0], "kind");
  struct Cells {
    std::string name, kind, facts, doc, key;
  };
  std::vector<Cells> cells;
  size_t w_name = 4, w_kind = 4, w_facts = 5, w_doc = 8, w_key = 3;
  for (const auto& r : rows) {
    Cells c{str(r, "name"), str(r, "kind"), tools::key_facts(r), document_key(r), str(r, "key")};
    w_name = std::max(w_name, columns(c.name));
    w_kind = std::max(w_kind, columns(c.kind));
    w_facts = std::max(w_facts, columns(c.facts));
    w_doc = std::max(w_doc, columns(c.doc));
    w_key = std::max(w_key, columns(c.key));
    cells.push_back(std::move(c));
  }
  if (!several_kinds) w_kind = 0;
  // Fit the terminal: the key and document stay whole (they are what the next command needs); facts, then names,
  // give way, down to a useful minimum.
  if (terminal.width > 0) {
    const size_t gaps = several_kinds ? 8 : 6;
    const size_t fixed = w_kind + w_doc + w_key + gaps;
    const size_t room = static_cast<size_t>(terminal.width) > fixed ? terminal.width - fixed : 0;
    while (w_name + w_facts > room && w_facts > 12) --w_facts;
    while (w_name + w_facts > room && w_name > 16) --w_name;
  }
  auto style = [&](const std::string& s, const char* code) {
    return terminal.colour ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
  };
  auto line = [&](const Cells& c, bool header) {
    std::string s = style(pad(fit(c.name, w_name), w_name), header ? "1;4" : "1") + "  ";
    if (several_kinds) s += pad(fit(c.kind, w_kind), w_kind) + "  ";
    s += (header ? style(pad(c.facts, w_facts), "1;4") : pad(fit(c.facts, w_facts), w_facts)) + "  ";
    s += style(pad(c.doc, w_doc), header ? "1;4" : "2") + "  " + style(c.key, header ? "1;4" : "36");
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line({"NAME", "KIND", "FACTS", "DOCUMENT", "KEY"}, true);
  for (const auto& c : cells) out += line(c, false);
  return out;
}

int run_search(tools::Engine& engine, const SearchRequest& request, Output output) {
  auto call = search_call(request);
  if (!call) {
    std::fprintf(stderr, "lorekeeper search: %s\n", call.status().message().c_str());
    return 2;
  }
  const Terminal terminal = stdout_terminal();
  // A table shows one line per result: it asks for them so (the answer's note on results shown as one line then
  // says nothing a table needs); the Markdown is asked for again in full when the answer is not shown as a table.
  const bool may_table = output == Output::kTable || (output == Output::kAuto && terminal.tty);
  json args = call->args;
  if (may_table && !args.contains("detail")) args["detail"] = "summary";
  tools::ToolResult r = engine.call(call->tool, args);
  if (r.is_error) return tool_error("search", r);
  if (output == Output::kJson) {
    print(r.structured.dump(2) + "\n");
    return 0;
  }
  std::vector<json> results = results_of(r.structured);
  // search_all answers kind by kind; in one table an entry named exactly what was asked comes first, whatever
  // its kind (the spell Fireball was row 19 of 25, after the creatures).
  const std::string want = text::fold(request.query);
  std::stable_partition(results.begin(), results.end(),
                        [&](const json& x) { return !want.empty() && text::fold(str(x, "name")) == want; });
  const bool table =
      output == Output::kTable || (output == Output::kAuto && terminal.tty && !all_named(results, request.query));
  if (!table || results.empty()) {
    if (args != call->args) r = engine.call(call->tool, call->args);
    if (r.is_error) return tool_error("search", r);
    print(r.text);
    return 0;
  }
  // The answer's first line ("Found 30 creatures (showing the first 20 by name; ...)") heads the table, and its
  // message (what the data lacks, which rows live anywhere, ...) follows it: a table never drops what the answer says.
  const std::string header = r.text.substr(0, r.text.find('\n'));
  const std::string message = r.structured.value("message", "");
  std::string s = header + (message.empty() ? "" : "\n" + wrapped(message, static_cast<size_t>(terminal.width))) +
                  "\n\n" + render_table(results, terminal);
  const std::string hint = "lorekeeper get KEY prints one in full (--full: all of them).";
  s += "\n" + (terminal.colour ? "\033[2m" + hint + "\033[0m" : hint) + "\n";
  print(s);
  return 0;
}

int run_get(tools::Engine& engine, const std::string& key_or_name, const std::string& kind, bool include_source,
            Output output) {
  json args = {{"key", key_or_name}};
  if (!kind.empty()) args["kind"] = kind;
  if (include_source) args["include_source"] = true;
  tools::ToolResult by_key = engine.call("get_entity", args);
  if (!by_key.is_error) {
    print(output == Output::kJson ? by_key.structured.dump(2) + "\n" : by_key.text);
    return 0;
  }
  // A key that several kinds share (srd_shield: the spell and the armor): every one of them.
  std::string why;
  if (store::Store* st = kind.empty() ? engine.store(&why) : nullptr) {
    auto same_key = st->get(key_or_name, std::nullopt, false);
    if (same_key && same_key->size() > 1) {
      json structured = json::array();
      std::string text;
      for (const auto& e : *same_key) {
        json one = {{"key", e.key}, {"kind", std::string(model::kind_name(e.kind))}};
        if (include_source) one["include_source"] = true;
        const tools::ToolResult r = engine.call("get_entity", one);
        if (r.is_error) return tool_error("get", r);
        structured.push_back(r.structured);
        text += (text.empty() ? "" : "\n") + r.text;
      }
      print(output == Output::kJson ? structured.dump(2) + "\n" : text);
      return 0;
    }
  }
  // Not a key: a name. The search lists every edition of an exact name, the preferred one first.
  SearchRequest request;
  request.query = key_or_name;
  request.kind = kind;
  request.limit = 50;
  auto call = search_call(request);
  if (!call) return tool_error("get", by_key);
  const tools::ToolResult found = engine.call(call->tool, call->args);
  std::vector<json> named;
  std::vector<json> others;
  if (!found.is_error) {
    const std::string want = text::fold(key_or_name);
    for (auto& r : results_of(found.structured)) {
      (text::fold(str(r, "name")) == want ? named : others).push_back(std::move(r));
    }
  }
  if (named.empty()) {
    std::string message = by_key.text;
    if (message.find("No entry has the key") == 0 && !others.empty()) {
      std::vector<std::string> close;
      for (size_t i = 0; i < others.size() && i < 5; ++i) {
        close.push_back(str(others[i], "name") + " (`" + str(others[i], "key") + "`)");
      }
      message = "No entry has the key or name '" + key_or_name + "'. Close: " + text::join(close, ", ") + ".";
    }
    std::fprintf(stderr, "lorekeeper get: %s\n", message.c_str());
    return 1;
  }
  // The first of each kind in full; the other editions by key.
  std::map<std::string, std::vector<std::string>> other_editions;
  std::vector<std::pair<std::string, std::string>> shown;  // kind, key
  for (const auto& r : named) {
    const std::string k = str(r, "kind");
    if (std::none_of(shown.begin(), shown.end(), [&](const auto& s) { return s.first == k; })) {
      shown.emplace_back(k, str(r, "key"));
    } else {
      other_editions[k].push_back("`" + str(r, "key") + "` (" + document_key(r) + ")");
    }
  }
  json structured = json::array();
  std::string text;
  for (const auto& [k, key] : shown) {
    json one = {{"key", key}, {"kind", k}};
    if (include_source) one["include_source"] = true;
    const tools::ToolResult r = engine.call("get_entity", one);
    if (r.is_error) return tool_error("get", r);
    structured.push_back(r.structured);
    if (!text.empty()) text += "\n";
    text += r.text;
    if (auto it = other_editions.find(k); it != other_editions.end()) {
      text += "\n*Other editions: " + text::join(it->second, ", ") + " (lorekeeper get KEY)*\n";
    }
  }
  print(output == Output::kJson ? (structured.size() == 1 ? structured[0] : structured).dump(2) + "\n" : text);
  return 0;
}

}  // namespace lorekeeper::cli
