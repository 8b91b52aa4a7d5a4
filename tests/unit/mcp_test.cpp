#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/mcp/server.hpp"
#include "lorekeeper/mcp/stdio_transport.hpp"
#include "test_support.hpp"

namespace lorekeeper::mcp {
namespace {

json req(const json& id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json modern_meta() {
  return {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
          {"io.modelcontextprotocol/clientCapabilities", json::object()}};
}

class McpTest : public ::testing::Test {
 protected:
  McpTest() : engine_(testing::fixture_store()), server_(engine_, ServerOptions{}) {}
  json send(const json& m) {
    auto r = server_.handle(m);
    return r ? *r : json();
  }
  json init(const std::string& version = "2025-11-25") {
    return send(req(0, "initialize",
                    {{"protocolVersion", version},
                     {"capabilities", json::object()},
                     {"clientInfo", {{"name", "test"}, {"version", "1"}}}}));
  }
  tools::Engine engine_;
  Server server_;
};

TEST_F(McpTest, InitializeNegotiatesVersions) {
  EXPECT_EQ(init("2025-11-25")["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(init("2025-06-18")["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(init("2025-03-26")["result"]["protocolVersion"], "2025-03-26");
  EXPECT_EQ(init("2024-11-05")["result"]["protocolVersion"], "2024-11-05");
  json r = init("1999-01-01");
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "lorekeeper");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  EXPECT_TRUE(r["result"]["capabilities"].contains("logging"));
  EXPECT_FALSE(r["result"]["instructions"].get<std::string>().empty());
  EXPECT_FALSE(r["result"].contains("resultType"));
}

TEST_F(McpTest, IdsArePreservedExactly) {
  EXPECT_EQ(send(req(0, "ping"))["id"], 0);
  EXPECT_EQ(send(req("0", "ping"))["id"], "0");
  EXPECT_EQ(send(req("abc", "ping"))["id"], "abc");
  EXPECT_EQ(send(req(9007199254740991LL, "ping"))["id"], 9007199254740991LL);
}

TEST_F(McpTest, MalformedMessagesGetExactErrors) {
  auto parse = server_.handle_text("{not json");
  ASSERT_TRUE(parse);
  EXPECT_EQ((*parse)["error"]["code"], -32700);
  EXPECT_TRUE((*parse)["id"].is_null());
  // A lone surrogate escape in a string (a JavaScript client's) is read as U+FFFD: the call is answered with its
  // id rather than a parse error with id null, which left the client waiting for its own timeout.
  auto lone = server_.handle_text(
      R"({"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"search_spell","arguments":{"search":"fire\ud800ball"}}})");
  ASSERT_TRUE(lone);
  EXPECT_EQ((*lone)["id"], 31) << lone->dump();
  EXPECT_FALSE(lone->contains("error")) << lone->dump();
  EXPECT_EQ(send(json(42))["error"]["code"], -32600);
  EXPECT_EQ(send(json("hello"))["error"]["code"], -32600);
  EXPECT_EQ(send({{"jsonrpc", "1.0"}, {"id", 1}, {"method", "ping"}})["error"]["code"], -32600);
  json null_id = send({{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}});
  EXPECT_EQ(null_id["error"]["code"], -32600);
  EXPECT_TRUE(null_id["id"].is_null());
  json bool_id = send({{"jsonrpc", "2.0"}, {"id", true}, {"method", "ping"}});
  EXPECT_EQ(bool_id["error"]["code"], -32600);
  EXPECT_TRUE(bool_id["id"].is_null()) << "an unreadable id is never guessed";
  EXPECT_EQ(send({{"jsonrpc", "2.0"}, {"id", 1.5}, {"method", "ping"}})["error"]["code"], -32600);
  EXPECT_EQ(send({{"jsonrpc", "2.0"}, {"id", 3}, {"method", 7}})["error"]["code"], -32600);
  EXPECT_EQ(send(req(4, "no/such/method"))["error"]["code"], -32601);
  EXPECT_EQ(send({{"jsonrpc", "2.0"}, {"id", 5}, {"method", "tools/list"}, {"params", "x"}})["error"]["code"], -32602);
  // Batches only exist in 2025-03-26.
  EXPECT_EQ(send(json::array({req(1, "ping")}))["error"]["code"], -32600);
}

TEST_F(McpTest, NotificationsAndClientResponsesAreNeverAnswered) {
  EXPECT_FALSE(server_.handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
  EXPECT_FALSE(
      server_.handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 3}}}}));
  EXPECT_FALSE(server_.handle({{"jsonrpc", "2.0"}, {"method", "no/such/notification"}}));
  EXPECT_FALSE(server_.handle({{"jsonrpc", "2.0"}, {"id", 7}, {"result", json::object()}}));
}

TEST_F(McpTest, BatchesUnder20250326) {
  init("2025-03-26");
  json r =
      send(json::array({req(1, "ping"), {{"jsonrpc", "2.0"}, {"method", "notifications/x"}}, req(2, "tools/list")}));
  ASSERT_TRUE(r.is_array());
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0]["id"], 1);
  EXPECT_EQ(r[1]["id"], 2);
}

TEST_F(McpTest, ToolsListIsStableAndAnnotated) {
  init();
  json r = send(req(1, "tools/list"));
  const json& t = r["result"]["tools"];
  std::vector<std::string> names;
  for (const auto& x : t) {
    names.push_back(x["name"]);
    EXPECT_EQ(x["annotations"]["readOnlyHint"], true);
    EXPECT_EQ(x["annotations"]["idempotentHint"], true);
    EXPECT_EQ(x["inputSchema"]["type"], "object");
    EXPECT_EQ(x["outputSchema"]["type"], "object");
  }
  const std::vector<std::string> expected = {"search_spell",     "search_creature",    "search_character_option",
                                             "search_equipment", "search_rule",        "search_all",
                                             "get_entity",       "find_similar",       "list_documents",
                                             "roll_dice",        "evaluate_encounter", "build_encounter",
                                             "count_entities",   "compare_editions",   "class_spells",
                                             "attack_odds",      "check_attunement"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(send(req(2, "tools/list"))["result"], r["result"]);
  EXPECT_EQ(send(req(3, "tools/list", {{"cursor", "garbage"}}))["error"]["code"], -32602);
  EXPECT_EQ(send(req(4, "tools/list", {{"cursor", ""}}))["result"]["tools"].size(), expected.size());
}

TEST_F(McpTest, ToolsCallResultsAndErrors) {
  init();
  json ok = send(req(1, "tools/call", {{"name", "search_spell"}, {"arguments", {{"search", "Fireball"}}}}));
  ASSERT_TRUE(ok.contains("result")) << ok.dump();
  EXPECT_EQ(ok["result"]["isError"], false);
  EXPECT_EQ(ok["result"]["content"][0]["type"], "text");
  EXPECT_EQ(ok["result"]["structuredContent"]["result"][2]["_score"], 1.0);
  EXPECT_EQ(ok["result"]["structuredContent"]["result"][2]["name"], "Fireball");
  json bad_arg = send(req(2, "tools/call", {{"name", "search_spell"}, {"arguments", {{"level", 12}}}}));
  EXPECT_EQ(bad_arg["result"]["isError"], true);
  EXPECT_FALSE(bad_arg["result"].contains("structuredContent"));
  json unknown = send(req(3, "tools/call", {{"name", "cast_spell"}, {"arguments", json::object()}}));
  EXPECT_EQ(unknown["error"]["code"], -32602);
  EXPECT_EQ(send(req(4, "tools/call", {{"name", "search_spell"}, {"arguments", "x"}}))["error"]["code"], -32602);
  EXPECT_EQ(send(req(5, "tools/call", json::object()))["error"]["code"], -32602);
}

TEST_F(McpTest, ModernEraIsStatelessAndTagged) {
  json d = send(req("server-discover-probe-1", "server/discover", {{"_meta", modern_meta()}}));
  ASSERT_TRUE(d.contains("result")) << d.dump();
  EXPECT_EQ(d["result"]["resultType"], "complete");
  EXPECT_EQ(d["result"]["supportedVersions"][0], "2026-07-28");
  EXPECT_TRUE(d["result"].contains("ttlMs"));
  EXPECT_EQ(d["result"]["cacheScope"], "public");
  // No initialize needed.
  json l = send(req(1, "tools/list", {{"_meta", modern_meta()}}));
  EXPECT_EQ(l["result"]["resultType"], "complete");
  EXPECT_TRUE(l["result"].contains("ttlMs"));
  EXPECT_EQ(l["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "lorekeeper");
  json c = send(
      req(2, "tools/call", {{"name", "search_spell"}, {"arguments", {{"search", "Wish"}}}, {"_meta", modern_meta()}}));
  EXPECT_EQ(c["result"]["resultType"], "complete");
  EXPECT_FALSE(c["result"].contains("ttlMs"));
  json old = send(req(3, "tools/list",
                      {{"_meta",
                        {{"io.modelcontextprotocol/protocolVersion", "2027-01-01"},
                         {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}));
  EXPECT_EQ(old["error"]["code"], -32022);
  EXPECT_EQ(old["error"]["data"]["supported"][0], "2026-07-28");
  json nocaps = send(req(4, "tools/list", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}}));
  EXPECT_EQ(nocaps["error"]["code"], -32602);
  EXPECT_EQ(send(req(5, "ping", {{"_meta", modern_meta()}}))["error"]["code"], -32601);
  EXPECT_EQ(send(req(6, "logging/setLevel", {{"level", "info"}, {"_meta", modern_meta()}}))["error"]["code"], -32601);
}

TEST_F(McpTest, LoggingSetLevel) {
  init();
  EXPECT_TRUE(send(req(1, "logging/setLevel", {{"level", "warning"}})).contains("result"));
  EXPECT_EQ(send(req(2, "logging/setLevel", {{"level", "loud"}}))["error"]["code"], -32602);
}

TEST_F(McpTest, ResourcesReadAndNotFoundPerEra) {
  init();
  json t = send(req(1, "resources/templates/list"));
  EXPECT_EQ(t["result"]["resourceTemplates"][0]["uriTemplate"], "lorekeeper://{kind}/{key}");
  json r = send(req(2, "resources/read", {{"uri", "lorekeeper://spell/srd_fireball"}}));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_NE(r["result"]["contents"][0]["text"].get<std::string>().find("Fireball"), std::string::npos);
  json legacy = send(req(3, "resources/read", {{"uri", "lorekeeper://spell/no-such"}}));
  EXPECT_EQ(legacy["error"]["code"], -32002);
  EXPECT_EQ(legacy["error"]["data"]["uri"], "lorekeeper://spell/no-such");
  json modern = send(req(4, "resources/read", {{"uri", "lorekeeper://spell/no-such"}, {"_meta", modern_meta()}}));
  EXPECT_EQ(modern["error"]["code"], -32602);
  EXPECT_EQ(send(req(5, "resources/read", {{"uri", "https://evil"}}))["error"]["code"], -32002);
}

TEST_F(McpTest, ResourcesListDocumentsAndKindsInOnePageAndEachReads) {
  init();
  json r = send(req(1, "resources/list"));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_FALSE(r["result"].contains("nextCursor"));  // a picker gets everything at once
  std::set<std::string> uris;
  for (const auto& x : r["result"]["resources"]) {
    EXPECT_TRUE(uris.insert(x["uri"]).second) << "duplicate " << x["uri"];
    EXPECT_FALSE(x["description"].get<std::string>().empty());
    json read = send(req(2, "resources/read", {{"uri", x["uri"]}}));
    ASSERT_TRUE(read.contains("result")) << x["uri"] << read.dump();
    EXPECT_FALSE(read["result"]["contents"][0]["text"].get<std::string>().empty());
  }
  std::string why;
  store::Store* st = engine_.store(&why);
  ASSERT_NE(st, nullptr) << why;
  auto docs = st->documents();
  const size_t kinds = st->stats()->per_kind.size();
  EXPECT_EQ(uris.size(), docs->size() + kinds + 1);  // and the coverage
  ASSERT_TRUE(uris.count("lorekeeper://documents/srd-2014"));
  ASSERT_TRUE(uris.count("lorekeeper://coverage"));
  const std::string coverage =
      send(req(6, "resources/read", {{"uri", "lorekeeper://coverage"}}))["result"]["contents"][0]["text"];
  EXPECT_NE(coverage.find("### System Reference Document 5.1 (`srd-2014`)"), std::string::npos) << coverage;
  EXPECT_NE(coverage.find("SRD 5.1 holds one background, the Acolyte"), std::string::npos) << coverage;
  ASSERT_TRUE(uris.count("lorekeeper://kinds/spell"));
  EXPECT_FALSE(uris.count("lorekeeper://spell/srd_fireball"));  // entries come through the template

  const std::string doc =
      send(req(3, "resources/read", {{"uri", "lorekeeper://documents/srd-2014"}}))["result"]["contents"][0]["text"];
  EXPECT_NE(doc.find("### System Reference Document 5.1"), std::string::npos) << doc;
  std::map<std::string, int> spells_per_document;
  for (const auto& d : *docs) {
    if (d.entity_types.count("spell")) spells_per_document[d.document.key] = d.entity_types.at("spell");
  }
  EXPECT_NE(doc.find("| spell | " + std::to_string(spells_per_document["srd-2014"]) + " |"), std::string::npos) << doc;
  EXPECT_NE(doc.find("documents: [\"srd-2014\"]"), std::string::npos) << doc;
  EXPECT_NE(doc.find("Coverage (feat): SRD 5.1 holds one feat, Grappler"), std::string::npos) << doc;
  const std::string spells =
      send(req(4, "resources/read", {{"uri", "lorekeeper://kinds/spell"}}))["result"]["contents"][0]["text"];
  EXPECT_NE(spells.find("### Spells (`spell`)\n\n16 spells in " + std::to_string(spells_per_document.size()) +
                        " documents. Search them with `search_spell`"),
            std::string::npos)
      << spells;
  EXPECT_NE(spells.find("| System Reference Document 5.2 | `srd-2024` | 5e-2024 | " +
                        std::to_string(spells_per_document["srd-2024"]) + " |"),
            std::string::npos)
      << spells;
  const std::string conditions =
      send(req(5, "resources/read", {{"uri", "lorekeeper://kinds/condition"}}))["result"]["contents"][0]["text"];
  EXPECT_NE(conditions.find("`search_rule` with `rule_type: \"condition\"`"), std::string::npos) << conditions;

  for (const char* missing : {"lorekeeper://documents/no-such", "lorekeeper://kinds/spel", "lorekeeper://kinds/"}) {
    EXPECT_EQ(send(req(6, "resources/read", {{"uri", missing}}))["error"]["code"], -32002) << missing;
  }
  EXPECT_EQ(send(req(99, "resources/list", {{"cursor", "o999999"}}))["error"]["code"], -32602);
  // Past what an int holds: an unknown cursor, not an internal error.
  for (const char* cursor : {"o99999999999", "o2147483648"}) {
    EXPECT_EQ(send(req(100, "resources/list", {{"cursor", cursor}}))["error"]["code"], -32602) << cursor;
    EXPECT_EQ(send(req(101, "tools/list", {{"cursor", cursor}}))["error"]["code"], -32602) << cursor;
  }
}

TEST_F(McpTest, ResourcesListPagesWhenItsPageIsSmall) {
  ServerOptions small;
  small.resources_page_size = 7;
  Server server(engine_, small);
  std::set<std::string> uris;
  json params = json::object();
  int pages = 0;
  while (pages < 100) {
    auto r = server.handle(req(pages, "resources/list", params));
    ASSERT_TRUE(r && r->contains("result")) << (r ? r->dump() : "");
    EXPECT_LE((*r)["result"]["resources"].size(), 7u);
    for (const auto& x : (*r)["result"]["resources"]) EXPECT_TRUE(uris.insert(x["uri"]).second) << x["uri"];
    ++pages;
    if (!(*r)["result"].contains("nextCursor")) break;
    params = {{"cursor", (*r)["result"]["nextCursor"]}};
  }
  auto whole = send(req(0, "resources/list"));
  EXPECT_EQ(uris.size(), whole["result"]["resources"].size());
  EXPECT_EQ(pages, static_cast<int>((uris.size() + 6) / 7));
}

TEST_F(McpTest, CompletionForKindsAndKeys) {
  init();
  json k = send(req(1, "completion/complete",
                    {{"ref", {{"type", "ref/resource"}, {"uri", "lorekeeper://{kind}/{key}"}}},
                     {"argument", {{"name", "kind"}, {"value", "sp"}}}}));
  EXPECT_EQ(k["result"]["completion"]["values"], json::array({"spell", "species", "spell-school"}));
  json key = send(req(2, "completion/complete",
                      {{"ref", {{"type", "ref/resource"}, {"uri", "lorekeeper://{kind}/{key}"}}},
                       {"argument", {{"name", "key"}, {"value", "srd_fire"}}},
                       {"context", {{"arguments", {{"kind", "spell"}}}}}}));
  auto values = key["result"]["completion"]["values"];
  EXPECT_NE(std::find(values.begin(), values.end(), "srd_fireball"), values.end());
  EXPECT_NE(std::find(values.begin(), values.end(), "srd_fire-bolt"), values.end());
}

TEST_F(McpTest, PromptsAndTheirCompletions) {
  init();
  json list = send(req(1, "prompts/list"));
  ASSERT_EQ(list["result"]["prompts"].size(), 2u);
  EXPECT_EQ(list["result"]["prompts"][0]["name"], "lookup_entry");
  json got =
      send(req(2, "prompts/get", {{"name", "lookup_entry"}, {"arguments", {{"kind", "spell"}, {"name", "fireball"}}}}));
  ASSERT_TRUE(got.contains("result")) << got.dump();
  // The instruction, then the entry of each edition as an embedded resource.
  EXPECT_EQ(got["result"]["messages"].size(), 4u);
  EXPECT_EQ(got["result"]["messages"][1]["content"]["type"], "resource");
  EXPECT_EQ(
      send(req(3, "prompts/get", {{"name", "lookup_entry"}, {"arguments", {{"kind", "spell"}}}}))["error"]["code"],
      -32602);
  EXPECT_EQ(send(req(4, "prompts/get",
                     {{"name", "plan_encounter"}, {"arguments", {{"party_level", "25"}}}}))["error"]["code"],
            -32602);
  // An argument past the string bound is refused, naming it, whatever the prompt would make of it.
  json too_long = send(req(
      9, "prompts/get",
      {{"name", "plan_encounter"}, {"arguments", {{"party_level", "5"}, {"environment", std::string(1001, 'x')}}}}));
  EXPECT_EQ(too_long["error"]["code"], -32602);
  EXPECT_NE(too_long["error"]["message"].get<std::string>().find("'environment' is longer than 1000"),
            std::string::npos)
      << too_long.dump();
  json enc = send(req(5, "prompts/get", {{"name", "plan_encounter"}, {"arguments", {{"party_level", "5"}}}}));
  EXPECT_NE(enc["result"]["messages"][0]["content"]["text"].get<std::string>().find(
                "build_encounter tool with party_size 4, party_level 5:"),
            std::string::npos);
  enc = send(req(8, "prompts/get",
                 {{"name", "plan_encounter"},
                  {"arguments", {{"party_level", "3"}, {"creature_type", "undead"}, {"difficulty", "hard"}}}}));
  EXPECT_NE(enc["result"]["messages"][0]["content"]["text"].get<std::string>().find(
                "difficulty \"hard\", theme \"undead\", type \"undead\""),
            std::string::npos)
      << enc.dump();
  json kinds = send(req(
      6, "completion/complete",
      {{"ref", {{"type", "ref/prompt"}, {"name", "lookup_entry"}}}, {"argument", {{"name", "kind"}, {"value", "c"}}}}));
  EXPECT_EQ(kinds["result"]["completion"]["values"], json::array({"creature", "class", "condition"}));
  json types = send(req(7, "completion/complete",
                        {{"ref", {{"type", "ref/prompt"}, {"name", "plan_encounter"}}},
                         {"argument", {{"name", "creature_type"}, {"value", "und"}}}}));
  EXPECT_EQ(types["result"]["completion"]["values"], json::array({"Undead"}));
}

// Writes all of `data` to `fd` and closes it.
void write_and_close(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
}

// Runs serve_stdio over pipes with `input`, returning what it wrote.
std::string run_stdio(Server& server, const std::string& input) {
  int in[2];
  int out[2];
  if (pipe(in) != 0 || pipe(out) != 0) return "";
  std::thread writer([&] { write_and_close(in[1], input); });
  std::string output;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = read(out[0], buf, sizeof buf)) > 0) output.append(buf, static_cast<size_t>(n));
  });
  const int rc = serve_stdio(server, in[0], out[1]);
  close(out[1]);
  writer.join();
  reader.join();
  close(in[0]);
  close(out[0]);
  EXPECT_EQ(rc, 0);
  return output;
}

std::vector<json> lines(const std::string& s) {
  std::vector<json> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(json::parse(s.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

TEST_F(McpTest, StdioAnswersLineByLineAndSkipsBlankLines) {
  const std::string input = req(1, "ping").dump() + "\r\n\n   \n" + req(2, "ping").dump() + "\n" +
                            json({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).dump() + "\n";
  auto out = lines(run_stdio(server_, input));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["id"], 1);
  EXPECT_EQ(out[1]["id"], 2);
}

TEST_F(McpTest, StdioRejectsAnOversizedLineAndCarriesOn) {
  ServerOptions small;
  small.max_message_bytes = 1000;
  Server server(engine_, small);
  const std::string huge = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"" +
                           std::string(10 * 1024 * 1024, 'x') + "\"}}";
  auto out = lines(run_stdio(server, huge + "\n" + req(2, "ping").dump() + "\n"));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["error"]["code"], -32600);
  EXPECT_TRUE(out[0]["id"].is_null());
  EXPECT_EQ(out[1]["id"], 2);
  EXPECT_TRUE(out[1].contains("result"));
}

// A ping is answered at once, not behind the call in progress or the calls read before it; a cancelled request
// that still waits is not run and gets no answer, nor does one cancelled while it is being answered. Request 1 is
// held in progress (through the transport's seam) until the ping's answer has been written, so the order is the
// transport's, not the machine's speed.
TEST_F(McpTest, StdioAnswersPingAtOnceAndHonoursCancellation) {
  init();
  auto call = [](int id) {
    return json{{"jsonrpc", "2.0"},
                {"id", id},
                {"method", "tools/call"},
                {"params", {{"name", "search_all"}, {"arguments", {{"query", "a creature that breathes fire"}}}}}}
        .dump();
  };
  auto cancel = [](int id) {
    return json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", id}}}}.dump();
  };
  std::string input;
  for (int id = 1; id <= 6; ++id) input += call(id) + "\n";
  input += cancel(5) + "\n" + cancel(1) + "\n" + cancel(6) + "\n" + req(99, "ping").dump() + "\n";

  int in[2];
  int out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  std::mutex mu;
  std::condition_variable pinged;
  bool ping_answered = false;
  bool first_held = false;
  std::string output;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = read(out[0], buf, sizeof buf)) > 0) {
      std::lock_guard<std::mutex> lock(mu);
      output.append(buf, static_cast<size_t>(n));
      if (output.find("\"id\":99") != std::string::npos) ping_answered = true;
      pinged.notify_all();
    }
  });
  // Written only once request 1 is in progress, so every line after it arrives while it is being answered.
  std::thread writer([&] {
    {
      std::unique_lock<std::mutex> lock(mu);
      pinged.wait(lock, [&] { return first_held; });
    }
    write_and_close(in[1], input);
  });
  const std::string first = call(1) + "\n";
  input.erase(0, first.size());
  ASSERT_EQ(write(in[1], first.data(), first.size()), static_cast<ssize_t>(first.size()));
  const int rc = serve_stdio(server_, in[0], out[1], [&](const json& request) {
    if (request.value("id", json()) != 1) return;
    std::unique_lock<std::mutex> lock(mu);
    first_held = true;
    pinged.notify_all();
    EXPECT_TRUE(pinged.wait_for(lock, std::chrono::seconds(60), [&] { return ping_answered; }))
        << "the ping was not answered while a call was in progress";
  });
  close(out[1]);
  writer.join();
  reader.join();
  close(in[0]);
  close(out[0]);
  EXPECT_EQ(rc, 0);
  auto answers = lines(output);
  ASSERT_FALSE(answers.empty());
  std::vector<int> answered;
  for (const auto& o : answers) answered.push_back(o["id"].get<int>());
  EXPECT_EQ(answered, (std::vector<int>{99, 2, 3, 4})) << "a cancelled request was answered";
}

TEST_F(McpTest, StdioDropsAMessageCutOffByEof) {
  auto out = lines(run_stdio(server_, req(1, "ping").dump() + "\n{\"jsonrpc\":\"2.0\",\"id\":2,\"meth"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]["id"], 1);
}

TEST_F(McpTest, ANulInsideAStringArgumentIsAToolError) {
  init();
  const std::string nul_search = std::string("fire") + '\0' + "ball";
  const std::vector<std::pair<std::string, json>> calls = {
      {"search_spell", {{"search", nul_search}}},
      {"search_creature", {{"search", nul_search}}},
      {"search_equipment", {{"search", nul_search}}},
      {"search_rule", {{"search", nul_search}, {"rule_type", "rule"}}},
      {"search_character_option", {{"search", nul_search}, {"type", "class"}}},
      {"search_all", {{"query", nul_search}}},
      {"find_similar", {{"name", nul_search}}},
      {"get_entity", {{"key", nul_search}}},
      {"search_spell", {{"documents", json::array({nul_search})}}},
  };
  for (const auto& [tool, args] : calls) {
    json r = send(req(1, "tools/call", {{"name", tool}, {"arguments", args}}));
    ASSERT_TRUE(r.contains("result")) << tool << ": " << r.dump();
    EXPECT_EQ(r["result"]["isError"], true) << tool;
    const std::string text = r["result"]["content"][0]["text"];
    EXPECT_NE(text.find("must not contain a NUL character"), std::string::npos) << tool << ": " << text;
    EXPECT_EQ(text.find("internal error"), std::string::npos) << tool << ": " << text;
  }
}

TEST(McpDamagedStore, ToolsAndResourcesSayTheStoreCannotBeUsed) {
  const std::string path = ::testing::TempDir() + "/damaged-store.db";
  testing::write_file(path, std::string(4096, 'x'));
  tools::Engine engine(path);
  Server server(engine, ServerOptions{});
  auto call = server.handle(req(1, "tools/call", {{"name", "search_spell"}, {"arguments", {{"search", "fireball"}}}}));
  ASSERT_TRUE(call);
  EXPECT_EQ((*call)["result"]["isError"], true) << call->dump();
  EXPECT_NE((*call)["result"]["content"][0]["text"].get<std::string>().find("--move-aside"), std::string::npos);
  auto list = server.handle(req(2, "resources/list"));
  ASSERT_TRUE(list);
  EXPECT_EQ((*list)["error"]["code"], -32603) << list->dump();
  EXPECT_NE((*list)["error"]["message"].get<std::string>().find("not a LoreKeeper store"), std::string::npos);
  std::remove(path.c_str());
}

TEST_F(McpTest, DeeplyNestedJsonIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  auto r = server_.handle_text(deep);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["error"]["code"], -32600);
  EXPECT_NE((*r)["error"]["message"].get<std::string>().find("deeper than 64"), std::string::npos);
}

std::string nested(const std::string& open, const std::string& close, size_t depth, const std::string& inner = "1") {
  std::string s;
  s.reserve(depth * (open.size() + close.size()) + inner.size());
  for (size_t i = 0; i < depth; ++i) s += open;
  s += inner;
  for (size_t i = 0; i < depth; ++i) s += close;
  return s;
}

TEST_F(McpTest, DeepParamsIdsAndBatchesOverStdioAreRefusedAndTheServerCarriesOn) {
  init("2025-03-26");  // the one version with batches, so a nested batch reaches the batch code
  const std::string deep_params =
      R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":)" + nested("[", "]", 60000) + "}}";
  const std::string deep_id = R"({"jsonrpc":"2.0","method":"ping","id":)" + nested("{\"a\":", "}", 60000) + "}";
  const std::string deep_batch = nested("[", "]", 20000, "");
  const std::string input = deep_params + "\n" + deep_id + "\n" + deep_batch + "\n" + req(2, "ping").dump() + "\n";
  auto out = lines(run_stdio(server_, input));
  ASSERT_EQ(out.size(), 4u);
  // The ping is answered at once, so it may come before the refusals.
  const auto ping = std::find_if(out.begin(), out.end(), [](const json& o) { return o["id"] == 2; });
  ASSERT_NE(ping, out.end());
  EXPECT_TRUE(ping->contains("result"));
  out.erase(ping);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i]["error"]["code"], -32600) << i;
    EXPECT_TRUE(out[i]["id"].is_null()) << "an id inside a refused message is never read";
  }
  // Just inside the limit is an ordinary request.
  const std::string within = R"({"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":)" + nested("[", "]", 62) + "}}";
  auto ok = server_.handle_text(within);
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)["id"], 3);
  EXPECT_TRUE(ok->contains("result")) << ok->dump();
}

TEST_F(McpTest, BatchesAreHandledOneLevelDeep) {
  init("2025-03-26");
  // An array inside a batch is one invalid request, not a batch to recurse into.
  json r = send(json::array({json::array({req(1, "ping"), req(2, "ping")}), req(3, "ping"), 7}));
  ASSERT_TRUE(r.is_array()) << r.dump();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0]["error"]["code"], -32600);
  EXPECT_TRUE(r[0]["id"].is_null());
  EXPECT_EQ(r[1]["id"], 3);
  EXPECT_TRUE(r[1].contains("result"));
  EXPECT_EQ(r[2]["error"]["code"], -32600);
}

TEST_F(McpTest, BatchLengthAndReplySizeAreBounded) {
  ServerOptions so;
  so.max_batch = 5;
  so.max_batch_reply_bytes = 3000;
  Server server(engine_, so);
  server.assume_version("2025-03-26");
  json too_long = json::array();
  for (int i = 0; i < 6; ++i) too_long.push_back(req(i, "ping"));
  auto r = server.handle(too_long);
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->is_object()) << "a batch over the limit is refused whole";
  EXPECT_EQ((*r)["error"]["code"], -32600);
  EXPECT_NE((*r)["error"]["message"].get<std::string>().find("at most 5"), std::string::npos);

  json searches = json::array();
  for (int i = 0; i < 5; ++i) {
    searches.push_back(req(i, "tools/call", {{"name", "search_spell"}, {"arguments", {{"search", "fire"}}}}));
  }
  r = server.handle(searches);
  ASSERT_TRUE(r && r->is_array());
  ASSERT_EQ(r->size(), 5u);
  EXPECT_TRUE((*r)[0].contains("result"));
  ASSERT_GT(json_util::dump((*r)[0]).size(), 3000u) << "the fixture's answer must exceed the test's reply budget";
  for (int i = 1; i < 5; ++i) {
    EXPECT_EQ((*r)[i]["id"], i);
    EXPECT_EQ((*r)[i]["error"]["code"], -32000) << "not run once the replies exceed the budget";
  }
}

}  // namespace
}  // namespace lorekeeper::mcp
