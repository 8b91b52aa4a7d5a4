#include "lorekeeper/mcp/server.hpp"

#include <algorithm>
#include <limits>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/tools/prompts.hpp"
#include "lorekeeper/tools/render.hpp"
#include "resources.hpp"

namespace lorekeeper::mcp {

namespace {

constexpr const char* kMetaVersion = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kMetaCapabilities = "io.modelcontextprotocol/clientCapabilities";
constexpr const char* kMetaServerInfo = "io.modelcontextprotocol/serverInfo";
constexpr long long kTtlMs = 3600 * 1000;
constexpr const char* kResourceScheme = "lorekeeper://";

constexpr const char* kInstructions =
    "LoreKeeper answers D&D 5e questions from Open5e data (SRD 5.1, SRD 5.2, third-party books) and imported "
    "homebrew; quote what it returns rather than rules from memory. Use the search_* tool of the kind asked about "
    "(search_all when unsure): its search takes an exact name (every edition of that entry, nothing else), words "
    "or a description, and filters narrow the list. get_entity(key) gives one entry in full, find_similar(key) "
    "alternatives, compare_editions what changed between editions, count_entities how many match, class_spells a "
    "class's slots and spell list at a level, attack_odds the odds and damage of attacks and saves, check_attunement "
    "who may attune to items, roll_dice exact "
    "odds, evaluate_encounter and build_encounter fights for "
    "a party. documents "
    "(keys from list_documents) restricts sources; game_system picks 2014 (5e-2014) or 2024 (5e-2024) rules.";

json to_json(const tools::ojson& o) { return json::parse(o.dump()); }

json with_result_meta(json result, bool modern, bool cacheable, const json& server_info) {
  if (modern) {
    result["resultType"] = "complete";
    result["_meta"][kMetaServerInfo] = server_info;
    if (cacheable) {
      result["ttlMs"] = kTtlMs;
      result["cacheScope"] = "public";
    }
  }
  return result;
}

// Parses an opaque pagination cursor ("o<offset>"); empty means the first page.
bool parse_cursor(const json& params, int* offset) {
  *offset = 0;
  if (!params.is_object() || !params.contains("cursor") || params["cursor"].is_null()) return true;
  if (!params["cursor"].is_string()) return false;
  const std::string c = params["cursor"].get<std::string>();
  if (c.empty()) return true;
  if (c.size() < 2 || c[0] != 'o' || c.size() > 12) return false;
  long long value = 0;
  for (size_t i = 1; i < c.size(); ++i) {
    if (c[i] < '0' || c[i] > '9') return false;
    value = value * 10 + (c[i] - '0');  // at most 11 digits: no overflow
  }
  if (value > std::numeric_limits<int>::max()) return false;
  *offset = static_cast<int>(value);
  return true;
}

}  // namespace

const std::vector<std::string>& legacy_versions() {
  static const std::vector<std::string> kVersions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return kVersions;
}

json make_error(const json& id, int code, const std::string& message, const json& data) {
  json err = {{"code", code}, {"message", message}};
  if (!data.is_null()) err["data"] = data;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", err}};
}

Server::Server(tools::Engine& engine, ServerOptions options) : engine_(engine), options_(std::move(options)) {}

json Server::oversized_reply() const {
  return make_error(nullptr, kInvalidRequest,
                    "Message exceeds " + std::to_string(options_.max_message_bytes) + " bytes and was not read.");
}

std::optional<json> Server::handle_text(const std::string& text) {
  if (text.size() > options_.max_message_bytes) return oversized_reply();
  std::string err;
  json_util::ParseFailure failure = json_util::ParseFailure::kNone;
  auto parsed = json_util::parse(text, &err, &failure, options_.max_depth);
  if (!parsed) return parse_failure_reply(failure, options_.max_depth);
  return handle(*parsed);
}

json parse_failure_reply(json_util::ParseFailure failure, size_t max_depth) {
  if (failure == json_util::ParseFailure::kTooDeep) {
    return make_error(nullptr, kInvalidRequest,
                      "Invalid Request: the message nests arrays and objects deeper than " + std::to_string(max_depth) +
                          " levels and was not read.");
  }
  return make_error(nullptr, kParseError, "Parse error: the message is not valid JSON.");
}

std::optional<json> Server::handle(const json& message) {
  if (message.is_array()) return handle_batch(message);
  return handle_one(message);
}

std::optional<json> Server::handle_batch(const json& batch) {
  // Batches exist only in 2025-03-26.
  if (negotiated_ != "2025-03-26") {
    return make_error(nullptr, kInvalidRequest, "Batches are not supported in this protocol version.");
  }
  if (batch.empty()) return make_error(nullptr, kInvalidRequest, "Empty batch.");
  if (batch.size() > options_.max_batch) {
    return make_error(nullptr, kInvalidRequest,
                      "Invalid Request: a batch holds at most " + std::to_string(options_.max_batch) +
                          " messages; this one holds " + std::to_string(batch.size()) + ".");
  }
  json replies = json::array();
  size_t reply_bytes = 0;
  for (const auto& m : batch) {
    const json id =
        m.is_object() && m.contains("id") && (m["id"].is_string() || m["id"].is_number_integer()) ? m["id"] : json();
    if (!m.is_object()) {
      replies.push_back(make_error(nullptr, kInvalidRequest, "Invalid Request: a batch holds JSON-RPC objects."));
      continue;
    }
    if (json_util::str(m, "method") == "initialize") {
      replies.push_back(make_error(id, kInvalidRequest, "initialize must not be part of a batch."));
      continue;
    }
    if (reply_bytes > options_.max_batch_reply_bytes) {
      if (m.contains("id") && m.contains("method")) {
        replies.push_back(make_error(id, kServerBusy,
                                     "Not run: the batch's replies already exceed " +
                                         std::to_string(options_.max_batch_reply_bytes) +
                                         " bytes; send this request again on its own."));
      }
      continue;
    }
    if (auto r = handle_one(m)) {
      reply_bytes += json_util::dump(*r).size();
      replies.push_back(std::move(*r));
    }
  }
  if (replies.empty()) return std::nullopt;
  return replies;
}

std::optional<json> Server::handle_one(const json& message) {
  if (!message.is_object()) {
    return make_error(nullptr, kInvalidRequest, "Invalid Request: a message must be a JSON object.");
  }
  const bool has_id = message.contains("id");
  json id = has_id ? message["id"] : json();
  const bool id_ok = has_id && (id.is_string() || id.is_number_integer());
  if (message.value("jsonrpc", json()) != "2.0") {
    return make_error(id_ok ? id : json(), kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\".");
  }
  if (!message.contains("method")) {
    // A response from the client (we send no requests) or garbage.
    if (has_id && (message.contains("result") || message.contains("error"))) return std::nullopt;
    return make_error(id_ok ? id : json(), kInvalidRequest, "Invalid Request: no method.");
  }
  if (!message["method"].is_string()) {
    return make_error(id_ok ? id : json(), kInvalidRequest, "Invalid Request: method must be a string.");
  }
  const std::string method = message["method"].get<std::string>();
  if (!has_id) {
    // Notifications are never answered; known ones need no action from a server of static data.
    log::debug("notification " + method);
    return std::nullopt;
  }
  if (!id_ok) {
    return make_error(nullptr, kInvalidRequest, "Invalid Request: id must be a string or an integer.");
  }
  const json params = message.contains("params") ? message["params"] : json::object();
  if (!params.is_object()) {
    return make_error(id, kInvalidParams, "Invalid params: params must be an object.");
  }
  // The era is chosen per request: the modern version key in _meta makes a request stateless-modern.
  bool modern = false;
  if (params.contains("_meta") && params["_meta"].is_object() && params["_meta"].contains(kMetaVersion)) {
    const json& meta = params["_meta"];
    const json& v = meta[kMetaVersion];
    if (!v.is_string() || v.get<std::string>() != kModernVersion) {
      return make_error(id, kUnsupportedProtocolVersion, "Unsupported protocol version.",
                        {{"supported", {kModernVersion}}, {"requested", v}});
    }
    if (method != "server/discover" && (!meta.contains(kMetaCapabilities) || !meta[kMetaCapabilities].is_object())) {
      return make_error(id, kInvalidParams,
                        std::string("Invalid params: _meta[\"") + kMetaCapabilities + "\"] is required.");
    }
    modern = true;
  }
  try {
    return dispatch(id, method, params, modern);
  } catch (const std::exception& e) {
    log::error(std::string("internal error in ") + method + ": " + e.what());
    return make_error(id, kInternalError, "Internal error.");
  }
}

json Server::server_info() const {
  return {{"name", "lorekeeper"},
          {"title", "LoreKeeper"},
          {"version", options_.version},
          {"description", "D&D 5e reference content (spells, creatures, options, equipment, rules) for assistants."}};
}

json Server::capabilities() const {
  json caps = {{"tools", json::object()},
               {"resources", json::object()},
               {"prompts", json::object()},
               {"completions", json::object()}};
  return caps;
}

json Server::initialize(const json& params) {
  std::string requested = json_util::str(params, "protocolVersion");
  const auto& known = legacy_versions();
  negotiated_ = std::find(known.begin(), known.end(), requested) != known.end() ? requested : kLatestLegacyVersion;
  json caps = capabilities();
  caps["logging"] = json::object();
  return {{"protocolVersion", negotiated_},
          {"capabilities", caps},
          {"serverInfo", server_info()},
          {"instructions", kInstructions}};
}

json Server::discover() {
  std::vector<std::string> versions = {kModernVersion};
  for (const auto& v : legacy_versions()) versions.push_back(v);
  return {{"supportedVersions", versions},
          {"capabilities", capabilities()},
          {"serverInfo", server_info()},
          {"instructions", kInstructions}};
}

json Server::dispatch(const json& id, const std::string& method, const json& params, bool modern) {
  auto reply = [&](json result, bool cacheable) {
    return json{{"jsonrpc", "2.0"},
                {"id", id},
                {"result", with_result_meta(std::move(result), modern, cacheable,
                                            {{"name", "lorekeeper"}, {"version", options_.version}})}};
  };
  bool ok = true;
  json error;
  if (method == "initialize") {
    if (modern) return make_error(id, kMethodNotFound, "initialize is not part of protocol version 2026-07-28.");
    return reply(initialize(params), false);
  }
  if (method == "server/discover") {
    json r = discover();
    r["resultType"] = "complete";
    r["_meta"][kMetaServerInfo] = {{"name", "lorekeeper"}, {"version", options_.version}};
    r["ttlMs"] = kTtlMs;
    r["cacheScope"] = "public";
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", r}};
  }
  if (method == "ping") {
    if (modern) return make_error(id, kMethodNotFound, "ping is not part of protocol version 2026-07-28.");
    return reply(json::object(), false);
  }
  if (method == "logging/setLevel") {
    if (modern) return make_error(id, kMethodNotFound, "logging/setLevel is not part of protocol version 2026-07-28.");
    static const std::vector<std::string> kLevels = {"debug", "info",     "notice", "warning",
                                                     "error", "critical", "alert",  "emergency"};
    const std::string level = json_util::str(params, "level");
    if (std::find(kLevels.begin(), kLevels.end(), level) == kLevels.end()) {
      return make_error(id, kInvalidParams, "Invalid params: level must be one of " + text::join(kLevels, ", ") + ".");
    }
    log::Level l = log::Level::kError;
    if (level == "debug")
      l = log::Level::kDebug;
    else if (level == "info" || level == "notice")
      l = log::Level::kInfo;
    else if (level == "warning")
      l = log::Level::kWarning;
    if (options_.apply_log_level) log::set_level(l);
    return reply(json::object(), false);
  }
  json result;
  bool cacheable = true;
  if (method == "tools/list") {
    result = tools_list(params, &ok, &error);
  } else if (method == "tools/call") {
    result = tools_call(params, &ok, &error);
    cacheable = false;
  } else if (method == "resources/list") {
    result = resources_list(params, &ok, &error);
  } else if (method == "resources/templates/list") {
    int offset = 0;
    if (!parse_cursor(params, &offset) || offset != 0) {
      ok = false;
      error = {{"code", kInvalidParams}, {"message", "Invalid params: unknown cursor."}};
    } else {
      result = {{"resourceTemplates",
                 json::array({{{"uriTemplate", "lorekeeper://{kind}/{key}"},
                               {"name", "entry"},
                               {"title", "LoreKeeper entry"},
                               {"description",
                                "One entry in full as Markdown, e.g. lorekeeper://spell/srd_fireball. kind is spell, "
                                "creature, class, species, background, feat, weapon, armor, item, magic-item, rule, "
                                "condition, ...; key is the entry's key from a search result."},
                               {"mimeType", "text/markdown"}}})}};
    }
  } else if (method == "resources/read") {
    result = resources_read(params, modern, &ok, &error);
  } else if (method == "completion/complete") {
    result = complete(params, &ok, &error);
    cacheable = false;
  } else if (method == "prompts/list") {
    int offset = 0;
    if (!parse_cursor(params, &offset) || offset != 0) {
      ok = false;
      error = {{"code", kInvalidParams}, {"message", "Invalid params: unknown cursor."}};
    } else {
      json prompts = json::array();
      for (const auto& p : tools::prompt_specs()) {
        json args = json::array();
        for (const auto& a : p.arguments) {
          args.push_back({{"name", a.name}, {"description", a.description}, {"required", a.required}});
        }
        prompts.push_back({{"name", p.name}, {"title", p.title}, {"description", p.description}, {"arguments", args}});
      }
      result = {{"prompts", prompts}};
    }
  } else if (method == "prompts/get") {
    const std::string name = json_util::str(params, "name");
    const json args = params.value("arguments", json::object());
    if (name.empty() || !args.is_object()) {
      return make_error(id, kInvalidParams, "Invalid params: name (string) and arguments (object) are required.");
    }
    auto prompt = tools::get_prompt(engine_, name, args);
    if (!prompt) return make_error(id, kInvalidParams, "Invalid params: " + prompt.status().message());
    result = std::move(*prompt);
    cacheable = false;
  } else if (method == "resources/subscribe" || method == "resources/unsubscribe") {
    return make_error(id, kMethodNotFound, "Method not found: " + method + " (capability not offered).");
  } else {
    return make_error(id, kMethodNotFound, "Method not found: " + method);
  }
  if (!ok) {
    json e = {{"jsonrpc", "2.0"}, {"id", id}, {"error", error}};
    return e;
  }
  return reply(std::move(result), cacheable);
}

json Server::tools_list(const json& params, bool* ok, json* error) {
  int offset = 0;
  const auto specs = tools::tool_specs(engine_.legacy_tools());
  if (!parse_cursor(params, &offset) || (offset != 0 && offset >= static_cast<int>(specs.size()))) {
    *ok = false;
    *error = {{"code", kInvalidParams}, {"message", "Invalid params: unknown cursor."}};
    return {};
  }
  json list = json::array();
  const int end = std::min(static_cast<int>(specs.size()), offset + options_.tools_page_size);
  for (int i = offset; i < end; ++i) {
    const auto& s = *specs[static_cast<size_t>(i)];
    tools::ojson t = tools::ojson::object();
    t["name"] = s.name;
    t["title"] = s.title;
    t["description"] = s.description;
    t["inputSchema"] = tools::input_schema(s.params);
    t["outputSchema"] = s.output_schema;
    t["annotations"] = {{"title", s.title},
                        {"readOnlyHint", true},
                        {"destructiveHint", false},
                        {"idempotentHint", true},
                        {"openWorldHint", false}};
    list.push_back(to_json(t));
  }
  json result = {{"tools", list}};
  if (end < static_cast<int>(specs.size())) result["nextCursor"] = "o" + std::to_string(end);
  return result;
}

json Server::tools_call(const json& params, bool* ok, json* error) {
  if (!params.contains("name") || !params["name"].is_string()) {
    *ok = false;
    *error = {{"code", kInvalidParams}, {"message", "Invalid params: name (string) is required."}};
    return {};
  }
  const std::string name = params["name"].get<std::string>();
  if (tools::find_tool(name, engine_.legacy_tools()) == nullptr) {
    std::vector<std::string> names;
    for (const auto* s : tools::tool_specs(engine_.legacy_tools())) names.push_back(s->name);
    *ok = false;
    *error = {{"code", kInvalidParams},
              {"message", "Unknown tool: " + name + ". Tools: " + text::join(names, ", ") + "."}};
    return {};
  }
  const json args = params.contains("arguments") ? params["arguments"] : json::object();
  if (!args.is_null() && !args.is_object()) {
    *ok = false;
    *error = {{"code", kInvalidParams}, {"message", "Invalid params: arguments must be an object."}};
    return {};
  }
  tools::ToolResult r = engine_.call(name, args);
  json result = {{"content", json::array({{{"type", "text"}, {"text", r.text}}})}, {"isError", r.is_error}};
  if (!r.is_error) result["structuredContent"] = std::move(r.structured);
  return result;
}

json Server::resources_list(const json& params, bool* ok, json* error) {
  int offset = 0;
  if (!parse_cursor(params, &offset)) {
    *ok = false;
    *error = {{"code", kInvalidParams}, {"message", "Invalid params: unknown cursor."}};
    return {};
  }
  json resources = json::array();
  json result = json::object();
  std::string why;
  store::Store* st = engine_.store(&why);
  if (st == nullptr && engine_.store_status().code() != StatusCode::kNotFound) {
    *ok = false;
    *error = {{"code", kInternalError}, {"message", "The LoreKeeper store cannot be used: " + why}};
    return {};
  }
  if (st != nullptr) {
    auto listed = guide_resources(*st);
    if (!listed) {
      *ok = false;
      *error = {{"code", kInternalError}, {"message", "Listing failed: " + listed.status().message()}};
      return {};
    }
    const int total = static_cast<int>(listed->size());
    if (offset > 0 && offset >= total) {
      *ok = false;
      *error = {{"code", kInvalidParams}, {"message", "Invalid params: unknown cursor."}};
      return {};
    }
    const int end = std::min(total, offset + options_.resources_page_size);
    for (int i = offset; i < end; ++i) resources.push_back(std::move((*listed)[static_cast<size_t>(i)]));
    if (end < total) result["nextCursor"] = "o" + std::to_string(end);
  } else if (offset != 0) {
    *ok = false;
    *error = {{"code", kInvalidParams}, {"message", "Invalid params: unknown cursor."}};
    return {};
  }
  result["resources"] = resources;
  return result;
}

json Server::resources_read(const json& params, bool modern, bool* ok, json* error) {
  const std::string uri = json_util::str(params, "uri");
  auto not_found = [&](const std::string& why) {
    *ok = false;
    *error = {{"code", modern ? kInvalidParams : kResourceNotFoundLegacy},
              {"message", "Resource not found: " + why},
              {"data", {{"uri", uri}}}};
    return json();
  };
  if (uri.empty()) {
    *ok = false;
    *error = {{"code", kInvalidParams}, {"message", "Invalid params: uri (string) is required."}};
    return {};
  }
  const std::string scheme = kResourceScheme;
  if (uri.rfind(scheme, 0) != 0) return not_found(uri + " is not a lorekeeper:// URI");
  if (uri.rfind(kDocumentsPrefix, 0) == 0 || uri.rfind(kKindsPrefix, 0) == 0 || uri == kCoverageUri) {
    std::string why;
    store::Store* st = engine_.store(&why);
    if (st == nullptr) return not_found("the store is empty (" + why + ")");
    auto guide = read_guide_resource(*st, uri);
    if (!guide->is_ok()) return not_found(guide->status().message());
    return {{"contents", json::array({{{"uri", uri}, {"mimeType", "text/markdown"}, {"text", **guide}}})}};
  }
  const std::string rest = uri.substr(scheme.size());
  const size_t slash = rest.find('/');
  if (slash == std::string::npos) return not_found("expected lorekeeper://{kind}/{key}");
  auto kind = model::parse_kind(rest.substr(0, slash));
  const std::string key = rest.substr(slash + 1);
  if (!kind || key.empty()) return not_found("expected lorekeeper://{kind}/{key}");
  std::string why;
  store::Store* st = engine_.store(&why);
  if (st == nullptr) return not_found("the store is empty (" + why + ")");
  auto got = st->get(key, kind, false);
  if (!got || got->empty()) return not_found(uri);
  tools::ToolResult r = engine_.call("get_entity", {{"key", key}, {"kind", std::string(model::kind_name(*kind))}});
  if (r.is_error) return not_found(uri);
  return {{"contents", json::array({{{"uri", uri}, {"mimeType", "text/markdown"}, {"text", r.text}}})}};
}

json Server::complete(const json& params, bool* ok, json* error) {
  const json& ref = params.value("ref", json::object());
  const json& arg = params.value("argument", json::object());
  if (!ref.is_object() || !arg.is_object() || !arg.contains("name") || !arg["name"].is_string()) {
    *ok = false;
    *error = {{"code", kInvalidParams}, {"message", "Invalid params: ref and argument {name, value} are required."}};
    return {};
  }
  const std::string type = json_util::str(ref, "type");
  const std::string name = arg["name"].get<std::string>();
  const std::string value = json_util::str(arg, "value");
  std::vector<std::string> values;
  if (type == "ref/resource" && json_util::str(ref, "uri") == "lorekeeper://{kind}/{key}") {
    if (name == "kind") {
      for (auto k : model::all_kinds()) {
        const std::string n(model::kind_name(k));
        if (n.rfind(text::lower(value), 0) == 0) values.push_back(n);
      }
    } else if (name == "key") {
      std::vector<model::Kind> kinds;
      const json& ctx = params.value("context", json::object());
      if (ctx.is_object() && ctx.contains("arguments") && ctx["arguments"].is_object()) {
        if (auto k = model::parse_kind(json_util::str(ctx["arguments"], "kind"))) kinds.push_back(*k);
      }
      std::string why;
      if (store::Store* st = engine_.store(&why)) {
        auto names = st->names(kinds);
        if (names) {
          for (const auto& n : *names) {
            if (n.key.rfind(value, 0) == 0) values.push_back(n.key);
            if (values.size() > 100) break;
          }
        }
      }
    }
  } else if (type == "ref/prompt") {
    const json& ctx = params.value("context", json::object());
    const json ctx_args = ctx.is_object() ? ctx.value("arguments", json::object()) : json::object();
    values = tools::complete_prompt_argument(engine_, json_util::str(ref, "name"), name, value, ctx_args, 101);
  } else if (type != "ref/resource") {
    *ok = false;
    *error = {{"code", kInvalidParams}, {"message", "Invalid params: ref.type must be ref/resource or ref/prompt."}};
    return {};
  }
  const bool more = values.size() > 100;
  if (more) values.resize(100);
  return {{"completion", {{"values", values}, {"hasMore", more}}}};
}

}  // namespace lorekeeper::mcp
