#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <regex>
#include <set>

#include "../../src/tools/answer.hpp"
#include "../../src/tools/tool_table.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/hints.hpp"
#include "lorekeeper/model/rules_text.hpp"
#include "lorekeeper/tools/engine.hpp"
#include "lorekeeper/tools/legacy.hpp"
#include "lorekeeper/tools/params.hpp"
#include "lorekeeper/tools/render.hpp"
#include "lorekeeper/tools/routes.hpp"
#include "test_support.hpp"

namespace lorekeeper::tools {
namespace {

class ToolsTest : public ::testing::Test {
 protected:
  ToolsTest() : engine_(testing::fixture_store()) {}
  ToolResult call(const std::string& tool, const json& args) { return engine_.call(tool, args); }
  // Results with a perfect score: the exact-name matches, which come before any other.
  static std::vector<json> exact(const ToolResult& r) {
    std::vector<json> out;
    bool others = false;
    for (const auto& x : r.structured["result"]) {
      if (x.value("_score", 0.0) >= 1.0) {
        EXPECT_FALSE(others) << "an exact match after a partial one";
        out.push_back(x);
      } else {
        others = true;
      }
    }
    return out;
  }
  static std::vector<std::string> keys(const ToolResult& r) {
    std::vector<std::string> out;
    for (const auto& x : r.structured["result"]) out.push_back(x["key"]);
    return out;
  }
  Engine engine_;
};

// Every kind is searched by one route, and each route is a value its tool's type parameter takes (or a tool of that
// kind alone): the type enums are the routes' values, in the routes' order.
TEST(KindRoutes, EveryKindHasARouteTheSchemasAgreeWith) {
  for (model::Kind kind : model::all_kinds()) {
    const KindRoute* route = route_of(kind);
    ASSERT_NE(route, nullptr) << model::kind_name(kind);
    EXPECT_NE(std::find(route->kinds.begin(), route->kinds.end(), kind), route->kinds.end());
    const ToolSpec* spec = find_tool(std::string(route->tool));
    ASSERT_NE(spec, nullptr) << route->tool;
    if (route->param.empty()) {
      EXPECT_EQ(route->kinds.size(), 1u) << route->tool;
      EXPECT_EQ(route->value, model::kind_name(kind));
    }
  }
  for (const std::string tool : {"search_character_option", "search_equipment", "search_rule"}) {
    const ToolSpec* spec = find_tool(tool);
    std::vector<std::string> values;
    for (const auto& p : spec->params) {
      if (p.name == "type" || p.name == "rule_type") values = p.enum_values;
    }
    if (!values.empty() && values.back() == "all") values.pop_back();
    EXPECT_EQ(values, type_values(tool)) << tool;
  }
  EXPECT_EQ(route_of(model::Kind::kSpecies)->value, "race");
  EXPECT_EQ(route_of(model::Kind::kRule)->value, "rule") << "the row that also selects rule sections";
  EXPECT_EQ(kinds_of("search_rule", "proficiency"),
            (std::vector<model::Kind>{model::Kind::kSkill, model::Kind::kWeaponProperty}));
  EXPECT_EQ(kinds_of("search_equipment", "all").size(), 4u);
}

TEST(Params, SchemaComesFromTheSameSpecAsValidation) {
  for (const auto& spec : tool_specs()) {
    ojson schema = input_schema(spec.params);
    EXPECT_EQ(schema["type"], "object") << spec.name;
    // Unknown parameters are refused, and the schema says so.
    EXPECT_EQ(schema["additionalProperties"], false) << spec.name;
    EXPECT_TRUE(validate_arguments(spec.params, {{"no_such_parameter", 1}}).status().code() ==
                StatusCode::kInvalidArgument)
        << spec.name;
    for (const auto& p : spec.params) {
      ASSERT_TRUE(schema["properties"].contains(p.name)) << spec.name << "." << p.name;
      EXPECT_FALSE(schema["properties"][p.name]["description"].get<std::string>().empty());
    }
    // Every tool declares an output schema requiring `result`.
    EXPECT_EQ(spec.output_schema["required"][0], "result") << spec.name;
  }
}

// Every string and array parameter of every tool (legacy ones and the fields of object arrays too) states a bound
// in its schema, and the validator takes a value at the bound and refuses one just past it.
TEST(Params, EveryStringAndArrayIsBoundedInTheSchemaAndTheValidator) {
  std::function<void(const std::string&, const std::vector<ParamSpec>&)> check = [&](const std::string& tool,
                                                                                     const std::vector<ParamSpec>& ps) {
    const ojson schema = input_schema(ps);
    for (const auto& p : ps) {
      const std::string where = tool + "." + p.name;
      const ojson& s = schema["properties"][p.name];
      // A valid value of this parameter at its bound, and one just past it.
      json at, past;
      switch (p.type) {
        case ParamType::kString:
          if (!p.enum_values.empty()) continue;  // bounded by its values
          ASSERT_EQ(s.value("maxLength", size_t{0}), max_length_of(p)) << where;
          // Two-byte characters: the bound counts characters, as JSON Schema's maxLength does.
          at = std::string(max_length_of(p) * 2, 'x');
          for (size_t i = 0; i < max_length_of(p); ++i) at.get_ref<std::string&>().replace(2 * i, 2, "\xC3\xA9");
          past = at.get<std::string>() + "e";
          break;
        case ParamType::kStringArray:
        case ParamType::kIntegerArray:
        case ParamType::kObjectArray: {
          ASSERT_EQ(s.value("maxItems", size_t{0}), max_items_of(p)) << where;
          json item = p.type == ParamType::kIntegerArray  ? json(p.minimum ? static_cast<long long>(*p.minimum) : 1)
                      : p.type == ParamType::kObjectArray ? json::object()
                      : p.enum_values.empty()             ? json("x")
                                                          : json(p.enum_values.front());
          if (p.type == ParamType::kObjectArray) {
            check(where, p.fields);
            for (const auto& f : p.fields) {
              if (f.required) item[f.name] = f.type == ParamType::kString ? json("x") : json(1);
            }
          }
          if (p.type == ParamType::kStringArray && p.enum_values.empty()) {
            ASSERT_EQ(s["items"].value("maxLength", size_t{0}), max_length_of(p)) << where;
            json long_item = json::array({std::string(max_length_of(p) + 1, 'x')});
            EXPECT_FALSE(validate_arguments({p}, {{p.name, long_item}}).is_ok()) << where << ": a long item";
          }
          at = json::array();
          for (size_t i = 0; i < max_items_of(p); ++i) at.push_back(item);
          past = at;
          past.push_back(item);
          break;
        }
        default: continue;
      }
      // The parameter alone, so that the tool's other required parameters do not answer first.
      const std::vector<ParamSpec> alone = {p};
      auto taken = validate_arguments(alone, {{p.name, at}});
      const std::string bound = p.type == ParamType::kString ? " characters long; at most " : " items; at most ";
      EXPECT_TRUE(taken.is_ok() || taken.status().message().find(bound) == std::string::npos)
          << where << ": " << taken.status().message();
      auto refused = validate_arguments(alone, {{p.name, past}});
      ASSERT_FALSE(refused.is_ok()) << where;
      EXPECT_NE(refused.status().message().find(bound), std::string::npos)
          << where << ": " << refused.status().message();
    }
  };
  for (const ToolSpec* spec : tool_specs(true)) check(spec->name, spec->params);
}

// 64 unknown documents of 200 characters each: the answer names five of them, shortened, and counts the rest,
// instead of echoing 13 KB of wrong names (a list of 1.5 MB was echoed whole before the arguments were bounded).
TEST_F(ToolsTest, UnknownDocumentsAreNamedAFewAtATime) {
  json documents = json::array();
  for (int i = 0; i < 64; ++i) documents.push_back("unknown-" + std::to_string(i) + std::string(190, 'q'));
  ToolResult r = call("search_spell", {{"search", "fire"}, {"documents", documents}});
  EXPECT_NE(r.text.find("Unknown document(s): unknown-0"), std::string::npos) << r.text.substr(0, 400);
  EXPECT_NE(r.text.find("and 59 more"), std::string::npos) << r.text.substr(0, 400);
  EXPECT_EQ(r.text.find("unknown-5"), std::string::npos);
  EXPECT_LT(r.text.size(), 2000u);
  documents.push_back("one too many");
  r = call("search_spell", {{"search", "fire"}, {"documents", documents}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("has 65 items; at most 64"), std::string::npos) << r.text;
}

TEST(Params, AFractionsSchemaAllowsEveryStringTheValidatorTakesAndBothRefuseTheSameWords) {
  const ToolSpec* creature = find_tool("search_creature");
  ASSERT_NE(creature, nullptr);
  const ojson schema = input_schema(creature->params);
  const std::string pattern = schema["properties"]["cr"]["anyOf"][1]["pattern"];
  const std::regex re(pattern, std::regex::ECMAScript);
  for (const std::string v : {"1/4", " 1/8 ", "1 / 2", "1/ 4", "0.5", "3", "30", "\t1/4", "0"}) {
    EXPECT_TRUE(validate_arguments(creature->params, {{"cr", v}}).is_ok()) << "'" << v << "'";
    EXPECT_TRUE(std::regex_search(v, re)) << "the schema refuses '" << v << "', which the validator takes";
  }
  for (const std::string v : {"\xC2\xBD", "one", "1/", "/4", "1/4/2", ".5", "1..5", "-1", "1e2", ""}) {
    EXPECT_FALSE(validate_arguments(creature->params, {{"cr", v}}).is_ok()) << "'" << v << "'";
    EXPECT_FALSE(std::regex_search(v, re)) << "the schema allows '" << v << "', which the validator refuses";
  }
}

TEST(Params, ALongValueInAnErrorIsCutBetweenCharacters) {
  const ToolSpec* spell = find_tool("search_spell");
  ASSERT_NE(spell, nullptr);
  for (size_t pad = 0; pad < 4; ++pad) {
    // 64 two-byte characters after `pad` ASCII bytes: every cut position is tried against a character's middle.
    std::string value(pad, 'a');
    for (int i = 0; i < 64; ++i) value += "\xC3\xA9";
    auto r = validate_arguments(spell->params, {{"level", value}});
    ASSERT_FALSE(r.is_ok());
    const std::string message = r.status().message();
    EXPECT_EQ(text::sanitize_utf8(message), message) << "pad " << pad << ": " << message;
    EXPECT_NE(message.find("..."), std::string::npos) << message;
  }
}

TEST(Params, ValidationNamesWhatIsValid) {
  const ToolSpec* spell = find_tool("search_spell");
  ASSERT_NE(spell, nullptr);
  auto r = validate_arguments(spell->params, {{"level", 12}});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("0 to 9"), std::string::npos);
  r = validate_arguments(spell->params, {{"school", "pyromancy"}});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("evocation"), std::string::npos);
  r = validate_arguments(spell->params, {{"level", "3"}});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("integer"), std::string::npos);
  r = validate_arguments(spell->params, {{"level", 2.5}});
  EXPECT_FALSE(r.is_ok());
  r = validate_arguments(spell->params, {{"colour", "red"}});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("Unknown parameter 'colour'"), std::string::npos);
  EXPECT_NE(r.status().message().find("class_key"), std::string::npos);
  r = validate_arguments(spell->params, {{"limit", 0}});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("1 to 100"), std::string::npos);
  r = validate_arguments(spell->params, {{"documents", "srd-2014"}});
  EXPECT_FALSE(r.is_ok());
  r = validate_arguments(spell->params, json::array());
  EXPECT_FALSE(r.is_ok());
}

TEST(Params, EnumsAreCaseInsensitiveAndDefaultsFilled) {
  const ToolSpec* spell = find_tool("search_spell");
  auto r = validate_arguments(spell->params, {{"school", "Evocation"}, {"level", 3.0}, {"ritual", nullptr}});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ((*r)["school"], "evocation");
  EXPECT_EQ((*r)["level"], 3);
  EXPECT_FALSE(r->contains("ritual"));
  EXPECT_EQ((*r)["limit"], 20);
  const ToolSpec* eq = find_tool("search_equipment");
  auto e = validate_arguments(eq->params, {{"rarity", "Very-Rare"}});
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ((*e)["rarity"], "very rare");
  EXPECT_EQ((*e)["type"], "all");
}

TEST_F(ToolsTest, CreaturesByWhatTheyCastInflictDealAndHow) {
  using Keys = std::vector<std::string>;
  auto r = call("search_creature", {{"casts_spell", "FIREBALL"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(keys(r), (Keys{"srd-2024_adult-red-dragon", "srd_lich"}));
  // Combined with every other filter and with a search.
  r = call("search_creature", {{"casts_spell", "fireball"}, {"documents", {"srd-2014"}}});
  EXPECT_EQ(keys(r), (Keys{"srd_lich"}));
  r = call("search_creature", {{"inflicts_condition", "paralyzed"}, {"search", "lich"}});
  EXPECT_EQ(keys(r), (Keys{"srd_lich"}));
  // Fire: the dragons' breath, and the lich through the Fireball it casts (its own attacks are cold and necrotic).
  r = call("search_creature", {{"deals_damage_type", "fire"}, {"documents", {"srd-2014"}}});
  EXPECT_EQ(keys(r), (Keys{"srd_adult-red-dragon", "srd_lich", "srd_red-dragon-wyrmling"}));
  r = call("search_creature", {{"legendary", false}, {"attack_range", "ranged"}, {"documents", {"srd-2014"}}});
  EXPECT_EQ(keys(r), (Keys{"srd_goblin", "srd_hobgoblin"}));
  r = call("search_creature", {{"spellcaster", true}, {"save_ability", "constitution"}});
  EXPECT_EQ(keys(r), (Keys{"srd_lich"}));
  // A spell named with its inventor finds the stat blocks that name it without ("acid arrow").
  r = call("search_creature", {{"casts_spell", "Melf\u2019s Acid Arrow"}});
  EXPECT_EQ(keys(r), (Keys{"srd_lich"}));
  r = call("search_creature", {{"casts_spell", "Melf's Acid Arrow"}});
  EXPECT_EQ(keys(r), (Keys{"srd_lich"}));
  // A value outside the rules' list is an error that names the valid ones.
  r = call("search_creature", {{"inflicts_condition", "confused"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("paralyzed"), std::string::npos) << r.text;
}

TEST_F(ToolsTest, SpellsByTheConditionTheSaveAndTheEffect) {
  using Keys = std::vector<std::string>;
  auto r = call("search_spell", {{"inflicts_condition", "paralyzed"}});
  EXPECT_EQ(keys(r), (Keys{"srd_hold-person"}));
  r = call("search_spell", {{"save_ability", "dexterity"}, {"damage_type", "fire"}, {"documents", {"srd-2014"}}});
  EXPECT_EQ(keys(r), (Keys{"srd_delayed-blast-fireball", "srd_fireball"}));
  r = call("search_spell", {{"effect", "heals"}, {"level", 1}});
  EXPECT_EQ(keys(r), (Keys{"srd_cure-wounds", "srd-2024_cure-wounds"}));
}

TEST_F(ToolsTest, CountsEntitiesByFacetUnderASearchToolsFilters) {
  auto r = call("count_entities", {{"kind", "creature"}, {"filters", {{"documents", {"srd-2014"}}}}, {"by", {"cr"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& by_cr = r.structured["result"]["by"]["cr"];
  int sum = 0;
  for (const auto& v : by_cr) sum += v["count"].get<int>();
  EXPECT_EQ(sum, r.structured["total"].get<int>());
  // CR in its order and as stat blocks print it: the goblin's 1/4 before the lich's 21.
  ASSERT_FALSE(by_cr.empty());
  EXPECT_EQ(by_cr.front()["value"], "1/4");
  EXPECT_EQ(by_cr.back()["value"], "21");
  const auto listed = call("search_creature", {{"documents", {"srd-2014"}}, {"detail", "summary"}});
  EXPECT_EQ(r.structured["total"], listed.structured["total"]);
  // Derived facets count too, under the same filters the search tool takes.
  r = call("count_entities",
           {{"kind", "creature"}, {"filters", {{"inflicts_condition", "frightened"}}}, {"by", {"document", "trait"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  const auto by_search = call("search_creature", {{"inflicts_condition", "frightened"}, {"limit", 50}});
  EXPECT_EQ(r.structured["total"], by_search.structured["total"]);
  EXPECT_NE(r.text.find("legendary"), std::string::npos) << r.text;
  // Spells by default: level and school.
  r = call("count_entities", {{"kind", "spell"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(r.structured["result"]["by"].contains("level"));
  EXPECT_TRUE(r.structured["result"]["by"].contains("school"));
  // Classes as search_character_option lists them: without their subclasses; a 'type' naming another kind refused.
  r = call("count_entities", {{"kind", "class"}});
  EXPECT_EQ(r.structured["total"], call("search_character_option", {{"type", "class"}}).structured["total"]);
  r = call("count_entities", {{"kind", "class"}, {"filters", {{"type", "race"}}}});
  EXPECT_TRUE(r.is_error);
  // A filter of another kind's tool, a ranking word, or an unknown document is a clear error.
  r = call("count_entities", {{"kind", "spell"}, {"filters", {{"cr", 1}}}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("cr"), std::string::npos) << r.text;
  r = call("count_entities", {{"kind", "spell"}, {"filters", {{"search", "fire"}}}});
  EXPECT_TRUE(r.is_error);
  r = call("count_entities", {{"kind", "spell"}, {"filters", "level 3"}});
  EXPECT_TRUE(r.is_error);
  r = call("count_entities", {{"kind", "condition"}, {"filters", {{"documents", {"no-such-book"}}}}});
  EXPECT_TRUE(r.is_error);
}

TEST_F(ToolsTest, AnEntityNamesWhatCastsItAndTheSpellsItCasts) {
  auto r = call("get_entity", {{"key", "srd_fireball"}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& cast_by = r.structured["result"]["_related"]["cast_by"];
  ASSERT_EQ(cast_by["entries"].size(), 1u) << cast_by.dump();
  EXPECT_EQ(cast_by["entries"][0]["key"], "srd_lich");  // its own game system first
  EXPECT_EQ(cast_by["total"], 2);                       // the 2024 red dragon too
  EXPECT_NE(r.text.find("**Cast by:** Lich (`srd_lich`); 2 creatures in all"), std::string::npos) << r.text;
  // The lich's spells, each linked to the spell entry of its own document where there is one.
  r = call("get_entity", {{"key", "srd_lich"}});
  ASSERT_FALSE(r.is_error) << r.text;
  bool linked = false;
  for (const auto& s : r.structured["result"]["_related"]["casts"]) {
    if (s["name"] == "Fireball") linked = s["key"] == "srd_fireball";
  }
  EXPECT_TRUE(linked) << r.structured["result"]["_related"].dump();
  EXPECT_NE(r.text.find("Fireball (`srd_fireball`)"), std::string::npos);
  // Nothing related (no creature of the fixtures casts Shield of Faith): no section.
  r = call("get_entity", {{"key", "srd_shield-of-faith"}});
  EXPECT_FALSE(r.structured["result"].contains("_related"));
}

TEST_F(ToolsTest, ExactNameReturnsEveryEdition) {
  auto r = call("search_spell", {{"search", "fireball"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_EQ(exact(r).size(), 3u);
  // The exact name and nothing else: no Delayed Blast Fireball after it.
  EXPECT_EQ(r.structured["result"].size(), 3u);
  EXPECT_EQ(r.text.find("Delayed Blast"), std::string::npos) << r.text;
  std::set<std::string> docs;
  for (const auto& x : exact(r)) {
    EXPECT_EQ(x["name"], "Fireball");
    EXPECT_EQ(x["_score"], 1.0);
    EXPECT_EQ(x["kind"], "spell");
    EXPECT_TRUE(x["url"].get<std::string>().rfind("https://api.open5e.com/v2/spells/", 0) == 0);
    EXPECT_FALSE(x["source_api"].get<std::string>().empty());
    docs.insert(x["document"]["key"]);
  }
  EXPECT_EQ(docs, (std::set<std::string>{"srd-2014", "srd-2024", "a5e-ag"}));
  EXPECT_NE(r.text.find("### Fireball"), std::string::npos);
}

TEST_F(ToolsTest, EditionsOfOneNameTakeOnePlaceInARankedAnswer) {
  // "fire" matches Fire Bolt (2 editions), Fireball (3) and Delayed Blast Fireball by name: three places, each the
  // preferred edition, the others named with their keys.
  auto r = call("search_spell", {{"search", "fire"}, {"limit", 3}});
  ASSERT_FALSE(r.is_error) << r.text;
  std::map<std::string, json> by_name;
  for (const auto& x : r.structured["result"]) {
    EXPECT_TRUE(by_name.emplace(x["name"].get<std::string>(), x).second) << "twice: " << x["name"];
  }
  ASSERT_EQ(by_name.size(), 3u) << r.structured.dump();
  ASSERT_TRUE(by_name.count("Fireball") && by_name.count("Fire Bolt")) << r.structured.dump();
  EXPECT_EQ(by_name["Fireball"]["key"], "srd_fireball");
  std::set<std::string> others;
  for (const auto& o : by_name["Fireball"]["_other_editions"]) {
    others.insert(o["key"].get<std::string>() + "@" + o["document"].get<std::string>());
  }
  EXPECT_EQ(others, (std::set<std::string>{"srd-2024_fireball@srd-2024", "a5e-ag_fireball@a5e-ag"}));
  EXPECT_EQ(by_name["Fire Bolt"]["key"], "srd_fire-bolt");
  ASSERT_EQ(by_name["Fire Bolt"]["_other_editions"].size(), 1u);
  EXPECT_FALSE(by_name["Delayed Blast Fireball"].contains("_other_editions"));
  EXPECT_NE(r.text.find("`srd-2024_fireball` (srd-2024)"), std::string::npos) << r.text;
  // The 2024 rules preferred: the 2024 edition takes the place.
  Engine modern(testing::fixture_store());
  modern.set_preferred_edition("5e-2024");
  auto m = modern.call("search_spell", {{"search", "fire"}, {"limit", 3}});
  ASSERT_FALSE(m.is_error) << m.text;
  for (const auto& x : m.structured["result"]) {
    if (x["name"] == "Fireball") {
      EXPECT_EQ(x["key"], "srd-2024_fireball");
    }
  }
  // Narrowed by documents or game system: every edition asked for is its own result.
  for (const json& narrow : {json{{"documents", {"srd-2014", "srd-2024"}}}, json{{"game_system", "5e-2014"}}}) {
    json args = {{"search", "fire"}, {"limit", 10}};
    args.update(narrow);
    auto n = call("search_spell", args);
    ASSERT_FALSE(n.is_error) << n.text;
    int fireballs = 0;
    for (const auto& x : n.structured["result"]) {
      fireballs += x["name"] == "Fireball";
      EXPECT_FALSE(x.contains("_other_editions")) << x.dump();
    }
    EXPECT_EQ(fireballs, narrow.contains("documents") ? 2 : 1) << narrow.dump();
  }
}

TEST_F(ToolsTest, SearchAllGroupsEditionsAsTheOtherSearchToolsDo) {
  auto r = call("search_all", {{"query", "fire"}});
  ASSERT_FALSE(r.is_error) << r.text;
  std::map<std::string, json> by_name;
  for (const auto& x : r.structured["result"]["spell"]) {
    EXPECT_TRUE(by_name.emplace(x["name"].get<std::string>(), x).second) << "twice: " << x["name"];
  }
  ASSERT_TRUE(by_name.count("Fireball")) << r.structured.dump();
  EXPECT_EQ(by_name["Fireball"]["key"], "srd_fireball");
  EXPECT_EQ(by_name["Fireball"]["_other_editions"].size(), 2u) << by_name["Fireball"].dump();
  EXPECT_NE(r.text.find("`srd-2024_fireball` (srd-2024)"), std::string::npos) << r.text;
  // Narrowed by documents: every edition asked for is its own result.
  auto n = call("search_all", {{"query", "fire"}, {"documents", {"srd-2014", "srd-2024"}}});
  ASSERT_FALSE(n.is_error) << n.text;
  int fireballs = 0;
  for (const auto& x : n.structured["result"]["spell"]) {
    fireballs += x["name"] == "Fireball";
    EXPECT_FALSE(x.contains("_other_editions")) << x.dump();
  }
  EXPECT_EQ(fireballs, 2);
}

TEST_F(ToolsTest, FunctionWordsDoNotCountTowardTheWordsATextHitMustHold) {
  // Of "whose would might bright streak" only "bright" and "streak" carry meaning; Fireball's text holds both (and
  // none of the others: counted, they would ask for three of five words).
  auto r = call("search_spell", {{"search", "whose would might bright streak"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_FALSE(r.structured["result"].empty()) << r.text;
  EXPECT_EQ(r.structured["result"][0]["name"], "Fireball") << r.text;
}

TEST_F(ToolsTest, AClassNoSpellListsIsNamedAsSuchWithTheClassesThatDo) {
  auto r = call("search_spell", {{"class_key", "wizzard"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(r.structured["result"].empty());
  EXPECT_NE(r.text.find("No spell lists the class 'wizzard'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("wizard"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("srd_wizard"), std::string::npos) << r.text;  // names, not keys
  // A class that spells list, under a filter that empties the answer, is not called unknown.
  auto known = call("search_spell", {{"class_key", "wizard"}, {"level", 9}, {"school", "abjuration"}});
  ASSERT_FALSE(known.is_error) << known.text;
  EXPECT_EQ(known.text.find("No spell lists the class"), std::string::npos) << known.text;
}

TEST_F(ToolsTest, GetEntityWithoutAKeyIsAShortError) {
  for (const char* key : {"", "   "}) {
    auto r = call("get_entity", {{"key", key}});
    EXPECT_TRUE(r.is_error);
    EXPECT_NE(r.text.find("must not be empty"), std::string::npos) << r.text;
    EXPECT_LT(r.text.size(), 300u) << r.text;
  }
}

TEST_F(ToolsTest, CountEntitiesCountsEquipmentKinds) {
  for (const char* kind : {"weapon", "armor", "item", "magic-item"}) {
    auto r = call("count_entities", {{"kind", kind}});
    EXPECT_FALSE(r.is_error) << kind << ": " << r.text;
    EXPECT_GT(r.structured.value("total", 0), 0) << kind << ": " << r.text;
  }
  // `type` in the filters still says the kind comes from `kind`.
  auto typed = call("count_entities", {{"kind", "weapon"}, {"filters", {{"type", "armor"}}}});
  EXPECT_TRUE(typed.is_error) << typed.text;
}

TEST(Render, AttunementIsSaidOnceWhateverTheRecordsDetailRepeats) {
  for (const char* detail : {"Requires Attunement by a Paladin", "requires attunement by a paladin", "by a Paladin"}) {
    const json item = {{"kind", "magic-item"},
                       {"name", "Holy Avenger (Longsword)"},
                       {"key", "x"},
                       {"category", "Weapon"},
                       {"rarity", "legendary"},
                       {"requires_attunement", true},
                       {"attunement_detail", detail}};
    const std::string text = render_entity(item);
    EXPECT_NE(text::lower(text).find("(requires attunement by a paladin)"), std::string::npos) << text;
    EXPECT_EQ(text::lower(text).find("attunement requires"), std::string::npos) << text;
  }
}

TEST(Render, SkillsAreNamedAsTheBooksNameThem) {
  const json spy = {{"kind", "creature"},
                    {"name", "Spy"},
                    {"key", "x"},
                    {"skill_bonuses", {{"sleight_of_hand", 4}, {"animal_handling", 2}, {"stealth", 6}}}};
  const std::string text = render_entity(spy);
  EXPECT_NE(text.find("**Skills:** Animal Handling +2, Sleight of Hand +4, Stealth +6"), std::string::npos) << text;
}

TEST(Render, OnlyAnExactNamesScoreReadsOne) {
  auto line = [](double score) {
    return render_summary_line({{"name", "X"}, {"kind", "spell"}, {"key", "x"}, {"_score", score}});
  };
  EXPECT_NE(line(1.0).find("score 1.00"), std::string::npos) << line(1.0);
  EXPECT_NE(line(0.999).find("score 0.99"), std::string::npos) << line(0.999);  // a corrected misspelling
  EXPECT_NE(line(0.94).find("score 0.94"), std::string::npos) << line(0.94);
  EXPECT_NE(line(0.2).find("score 0.20"), std::string::npos) << line(0.2);
}

TEST_F(ToolsTest, KindsEndingInYArePluralisedWithIes) {
  auto r = call("search_rule", {{"rule_type", "weapon-property"}, {"limit", 1}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_GT(r.structured.value("total", 0), 1) << r.text;
  EXPECT_NE(r.text.find("weapon properties"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("propertys"), std::string::npos) << r.text;
}

TEST_F(ToolsTest, EditionsAreOrderedBeforeAnyCutAndCountedTruly) {
  // The preferred rules first (2014 by default), then the other 5e rules, then other systems; never the cut of a
  // name-sorted list.
  auto all = call("search_spell", {{"search", "Fireball"}});
  ASSERT_FALSE(all.is_error) << all.text;
  const std::vector<std::string> order = {"srd_fireball", "srd-2024_fireball", "a5e-ag_fireball"};
  std::vector<std::string> got;
  for (const auto& x : exact(all)) got.push_back(x["key"]);
  EXPECT_EQ(got, order);
  auto one = call("search_spell", {{"search", "Fireball"}, {"limit", 1}});
  ASSERT_FALSE(one.is_error) << one.text;
  EXPECT_EQ(keys(one), std::vector<std::string>{"srd_fireball"});
  EXPECT_EQ(one.structured["total"], 3) << "the three editions, whatever the limit";
  EXPECT_NE(one.text.find("Found 3 spells named \"Fireball\""), std::string::npos) << one.text;
  EXPECT_NE(one.text.find("(showing 1)"), std::string::npos) << one.text;
  // Within one game system, the SRD before a third-party book.
  auto goblins = call("search_creature", {{"search", "Goblin"}, {"limit", 2}});
  ASSERT_FALSE(goblins.is_error) << goblins.text;
  ASSERT_FALSE(keys(goblins).empty());
  EXPECT_EQ(keys(goblins).front(), "srd_goblin");
  // The 2024 rules preferred.
  engine_.set_preferred_edition("5e-2024");
  one = call("search_spell", {{"search", "Fireball"}, {"limit", 1}});
  EXPECT_EQ(keys(one), std::vector<std::string>{"srd-2024_fireball"});
  auto wrong = call("get_entity", {{"key", "Fireball"}});
  ASSERT_TRUE(wrong.is_error);
  EXPECT_NE(wrong.text.find("srd-2024_fireball (srd-2024), srd_fireball (srd-2014), a5e-ag_fireball"),
            std::string::npos)
      << wrong.text;
}

TEST(Editions, OrderPrefersTheChosenRulesThenTheSrd) {
  auto doc = [](std::string key, std::string system, std::string publisher) {
    model::Document d;
    d.key = std::move(key);
    d.game_system = std::move(system);
    d.publisher = std::move(publisher);
    return d;
  };
  const auto srd14 = doc("srd-2014", "5e-2014", "Wizards of the Coast");
  const auto srd24 = doc("srd-2024", "5e-2024", "Wizards of the Coast");
  const auto bfrd = doc("bfrd", "5e-2014", "Kobold Press");
  const auto a5e = doc("a5e-ag", "a5e", "EN Publishing");
  const auto homebrew = doc("orcbrew-x", "5e-2014", "");
  std::vector<model::Document> docs = {a5e, homebrew, bfrd, srd24, srd14};
  auto sorted_keys = [&](std::string_view preferred) {
    std::stable_sort(docs.begin(), docs.end(),
                     [&](const auto& a, const auto& b) { return model::edition_before(a, b, preferred); });
    std::vector<std::string> out;
    for (const auto& d : docs) out.push_back(d.key);
    return out;
  };
  EXPECT_EQ(sorted_keys("5e-2014"), (std::vector<std::string>{"srd-2014", "bfrd", "orcbrew-x", "srd-2024", "a5e-ag"}));
  EXPECT_EQ(sorted_keys("5e-2024"), (std::vector<std::string>{"srd-2024", "srd-2014", "bfrd", "orcbrew-x", "a5e-ag"}));
  EXPECT_FALSE(model::edition_before(srd14, srd14, "5e-2014"));
  // Preferred for a game system or for being an SRD, never for a key: two third-party books of one system hold
  // different things of one name, and the one that ranked is shown.
  EXPECT_TRUE(model::edition_preferred(srd14, bfrd, "5e-2014"));
  EXPECT_TRUE(model::edition_preferred(bfrd, a5e, "5e-2014"));
  EXPECT_TRUE(model::edition_preferred(srd24, srd14, "5e-2024"));
  EXPECT_FALSE(model::edition_preferred(bfrd, homebrew, "5e-2014"));
  EXPECT_FALSE(model::edition_preferred(homebrew, bfrd, "5e-2014"));
  EXPECT_TRUE(model::edition_before(bfrd, homebrew, "5e-2014")) << "the order still breaks the tie by key";
}

TEST_F(ToolsTest, DocumentsNarrowAndAcceptNamesAndAliases) {
  auto exact_keys = [](const ToolResult& r) {
    std::vector<std::string> out;
    for (const auto& x : exact(r)) out.push_back(x["key"]);
    for (const auto& x : r.structured["result"])
      EXPECT_EQ(x["document"]["key"], r.structured["result"][0]["document"]["key"]);
    return out;
  };
  auto r = call("search_spell", {{"search", "Fireball"}, {"documents", {"srd-2024"}}});
  EXPECT_EQ(exact_keys(r), std::vector<std::string>{"srd-2024_fireball"});
  r = call("search_spell", {{"search", "Fireball"}, {"documents", {"System Reference Document 5.1"}}});
  EXPECT_EQ(exact_keys(r), std::vector<std::string>{"srd_fireball"});
  r = call("search_spell", {{"search", "Fireball"}, {"documents", {"srd-5e"}}});
  EXPECT_EQ(exact_keys(r), std::vector<std::string>{"srd_fireball"});
}

TEST_F(ToolsTest, EmptyDocumentsListIsAnEmptyAnswerWithAMessage) {
  auto r = call("search_spell", {{"documents", json::array()}});
  ASSERT_FALSE(r.is_error);
  EXPECT_TRUE(r.structured["result"].empty());
  EXPECT_NE(r.structured["message"].get<std::string>().find("empty list"), std::string::npos);
}

TEST_F(ToolsTest, UnknownDocumentNamesTheClosestKnown) {
  auto r = call("search_spell", {{"documents", {"srd-2015"}}});
  ASSERT_FALSE(r.is_error);
  EXPECT_TRUE(r.structured["result"].empty());
  const std::string m = r.structured["message"];
  EXPECT_NE(m.find("srd-2015"), std::string::npos);
  EXPECT_NE(m.find("srd-2014"), std::string::npos);
}

TEST_F(ToolsTest, FiltersAreHardConstraints) {
  auto r = call("search_spell", {{"level", 3}, {"class_key", "Wizard"}, {"detail", "full"}});
  ASSERT_FALSE(r.is_error);
  ASSERT_FALSE(r.structured["result"].empty());
  for (const auto& x : r.structured["result"]) {
    EXPECT_EQ(x["level"], 3);
    EXPECT_NE(std::find(x["classes"].begin(), x["classes"].end(), "Wizard"), x["classes"].end());
  }
  r = call("search_creature", {{"cr_min", 1}, {"cr_max", 20}, {"type", "Dragon"}});
  ASSERT_FALSE(r.structured["result"].empty());
  for (const auto& x : r.structured["result"]) {
    EXPECT_GE(x["challenge_rating"].get<double>(), 1);
    EXPECT_LE(x["challenge_rating"].get<double>(), 20);
    EXPECT_EQ(x["type"], "Dragon");
  }
  r = call("search_spell", {{"casting_time", "1 Bonus Action"}});
  ASSERT_FALSE(r.is_error) << r.text;
  for (const auto& x : r.structured["result"]) EXPECT_EQ(x["casting_time"], "1 bonus action");
  r = call("search_equipment", {{"rarity", "legendary"}});
  ASSERT_FALSE(r.is_error);
  EXPECT_EQ(keys(r), std::vector<std::string>{"srd_vorpal-sword-longsword"});
  r = call("search_equipment", {{"is_finesse", true}});
  EXPECT_EQ(keys(r), std::vector<std::string>{"srd_dagger"});
}

TEST_F(ToolsTest, NoFilteredResultsIsAnEmptyListNamingTheFilter) {
  auto r = call("search_spell", {{"level", 9}, {"school", "illusion"}});
  ASSERT_FALSE(r.is_error);
  EXPECT_TRUE(r.structured["result"].empty());
  const std::string m = r.structured["message"];
  EXPECT_NE(m.find("Without 'school'"), std::string::npos) << m;
}

TEST_F(ToolsTest, MisspelledNameFindsTheEntityByCloseSpelling) {
  for (const char* typo : {"firbal", "fierball", "cure wuonds"}) {
    auto r = call("search_spell", {{"search", typo}});
    ASSERT_FALSE(r.is_error);
    ASSERT_FALSE(r.structured["result"].empty()) << typo;
    const std::string first = r.structured["result"][0]["name"];
    EXPECT_TRUE(first == "Fireball" || first == "Cure Wounds") << typo << " -> " << first;
    EXPECT_EQ(r.structured["result"][0]["_matched"][0], "close name") << typo;
  }
}

TEST_F(ToolsTest, WordsOfTheSearchHintFindTheEntityAndAreShown) {
  // "bloodsucking" and "bloodsucker" (one word to the stemmer) are in the search hints of the Vampire and the
  // Vampire Spawn (data/search-hints.tsv), and in no stat block.
  auto r = call("search_creature", {{"search", "bloodsucking"}});
  ASSERT_FALSE(r.is_error) << r.text;
  std::set<std::string> names;
  for (const auto& x : r.structured["result"]) {
    const std::string name = x["name"];
    names.insert(name);
    const std::string hint(model::Hints::bundled().find(model::Kind::kCreature, name));
    EXPECT_NE(hint.find("bloodsuck"), std::string::npos) << name << ": " << hint;
    EXPECT_EQ(x["_matched"], json::array({"hint"})) << name;
    // A match by the hint alone shows the hint; a one-line result its first 80 characters, cut where a word ends.
    const std::string snippet = x["_snippet"];
    if (x.value("summarized", false) && hint.size() > 80) {
      ASSERT_GE(snippet.size(), 43u) << snippet;
      EXPECT_EQ(snippet.substr(snippet.size() - 3), "...");
      const std::string kept = snippet.substr(0, snippet.size() - 3);
      EXPECT_LE(kept.size(), 80u);
      EXPECT_EQ(hint.rfind(kept, 0), 0u) << snippet;
      EXPECT_EQ(hint[kept.size()], ' ') << snippet;
    } else {
      EXPECT_EQ(snippet, hint);
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"Vampire", "Vampire Spawn"}));
  EXPECT_NE(r.text.find("search hints"), std::string::npos) << r.text.substr(0, 200);
}

TEST_F(ToolsTest, ANameTheFiltersExcludeIsSaidSo) {
  auto r = call("search_spell", {{"search", "Fireball"}, {"level", 1}});
  ASSERT_FALSE(r.is_error);
  for (const auto& x : r.structured["result"]) EXPECT_EQ(x["level"], 1);
  EXPECT_NE(
      r.structured["message"].get<std::string>().find("\"Fireball\" is the name of an entry these filters exclude"),
      std::string::npos)
      << r.structured["message"];
}

TEST_F(ToolsTest, ClosestNamesHintsOnlyNamesTheFiltersAllow) {
  // Without filters the misspelling is corrected to Fireball; under level 9 and under a document without it, the
  // answer is empty and its hint must not send the caller to Fireball, which the same call cannot return.
  auto open = call("search_spell", {{"search", "Fireballzz"}});
  ASSERT_FALSE(open.is_error);
  ASSERT_FALSE(open.structured["result"].empty());
  EXPECT_EQ(open.structured["result"][0]["name"], "Fireball");
  for (const json& filter : {json{{"level", 9}}, json{{"school", "necromancy"}}}) {
    json args = filter;
    args["search"] = "Fireballzz";
    auto r = call("search_spell", args);
    ASSERT_FALSE(r.is_error) << r.text;
    ASSERT_TRUE(r.structured["result"].empty()) << filter.dump();
    const std::string m = r.structured["message"];
    // Every name the hint offers is one the call finds under the same filters.
    const std::string head = "Closest names: ";
    const size_t at = m.find(head);
    if (at == std::string::npos) continue;
    const std::string list = m.substr(at + head.size(), m.find('.', at) - at - head.size());
    EXPECT_EQ(list.find("Fireball"), std::string::npos) << filter.dump() << ": " << m;
    size_t start = 0;
    while (start < list.size()) {
      size_t comma = list.find(", ", start);
      if (comma == std::string::npos) comma = list.size();
      json again = filter;
      again["search"] = list.substr(start, comma - start);
      auto hit = call("search_spell", again);
      ASSERT_FALSE(hit.is_error);
      EXPECT_FALSE(hit.structured["result"].empty()) << again.dump() << " (hinted by " << filter.dump() << ")";
      start = comma + 2;
    }
  }
  // compare_editions finds a name in any document (documents only narrow the versions shown): its hint does too.
  auto compared = call("compare_editions", {{"name", "Fireballzz"}, {"kind", "spell"}, {"documents", {"tob"}}});
  ASSERT_TRUE(compared.is_error);
  EXPECT_NE(compared.text.find("Closest names: Fireball"), std::string::npos) << compared.text;
  auto all = call("search_all", {{"query", "Fireballzz"}, {"content_types", {"creature"}}});
  ASSERT_FALSE(all.is_error);
  const std::string m = all.structured["message"];
  const size_t hinted = m.find("Closest names: ");
  if (hinted != std::string::npos) {
    EXPECT_EQ(m.find("Fireball", hinted), std::string::npos) << m;
  }
}

TEST_F(ToolsTest, NothingCloseSuggestsNothingAndSaysSo) {
  auto r = call("search_spell", {{"search", "xqzvbnmw"}});
  ASSERT_FALSE(r.is_error);
  EXPECT_TRUE(r.structured["result"].empty());
  EXPECT_FALSE(r.structured["message"].get<std::string>().empty());
}

TEST_F(ToolsTest, PartialNameRanksByCoverage) {
  auto r = call("search_creature", {{"search", "red dragon"}});
  ASSERT_FALSE(r.is_error);
  ASSERT_GE(r.structured["result"].size(), 2u);
  double prev = 1.0;
  for (const auto& x : r.structured["result"]) {
    const double s = x["_score"];
    EXPECT_GT(s, 0);
    EXPECT_LT(s, 1.0);
    EXPECT_LE(s, prev);
    prev = s;
    EXPECT_NE(x["name"].get<std::string>().find("Red Dragon"), std::string::npos);
  }
}

TEST_F(ToolsTest, InvalidArgumentsAreToolErrors) {
  for (const auto& [tool, args] : std::vector<std::pair<std::string, json>>{
           {"search_spell", {{"level", 12}}},
           {"search_spell", {{"level_min", 5}, {"level_max", 2}}},
           {"search_spell", {{"casting_time", "a fortnight"}}},
           {"search_creature", {{"cr", 31}}},
           {"search_creature", {{"size", "enormous"}}},
           {"search_character_option", {{"type", "spaceship"}}},
           {"search_creature", {{"cr", "1/3x"}}},
           {"search_creature", {{"cr_min", "1/0"}}},
           {"search_creature", {{"cr", "31"}}},
           {"get_entity", {{"key", "srd_fireball"}, {"kind", "spaceship"}}},
           {"search_equipment", {{"type", "weapon"}, {"rarity", "rare"}}},
           {"search_equipment", {{"requires_attunement", "perhaps"}}},
           {"search_equipment", {{"requires_attunement", "yes"}}},
           {"search_rule", {{"rule_type", "condition"}, {"section", "combat"}}},
           {"search_all", {{"query", "x"}, {"content_types", {"spaceships"}}}},
           {"get_entity", json::object()},
       }) {
    auto r = call(tool, args);
    EXPECT_TRUE(r.is_error) << tool << " " << args.dump();
    EXPECT_FALSE(r.text.empty());
  }
}

TEST_F(ToolsTest, CharacterOptionsCarryTheirChildren) {
  auto r = call("search_character_option", {{"type", "class"}, {"detail", "full"}});
  ASSERT_FALSE(r.is_error);
  bool wizard = false;
  for (const auto& x : r.structured["result"]) {
    EXPECT_FALSE(x.contains("subclass_of")) << "subclasses are listed under their class";
    if (x["key"] == "srd_wizard") {
      wizard = true;
      ASSERT_EQ(x["subclasses"].size(), 1u);
      EXPECT_EQ(x["subclasses"][0]["name"], "School of Evocation");
      EXPECT_EQ(x["subclasses"][0]["key"], "srd_school-of-evocation");
    }
  }
  EXPECT_TRUE(wizard);
  r = call("search_character_option", {{"type", "race"}, {"search", "high elf"}});
  ASSERT_EQ(exact(r).size(), 1u);
  EXPECT_EQ(exact(r)[0]["key"], "srd_high-elf");
}

TEST_F(ToolsTest, NoticesGoInTheMessageAndHeadSearchAnswersOnly) {
  engine_.set_notice([] { return std::string("Note: meaning-based search is being prepared."); });
  auto search = call("search_spell", {{"search", "Fireball"}});
  EXPECT_EQ(search.text.rfind("Note: meaning-based search", 0), 0u) << search.text.substr(0, 100);
  EXPECT_NE(search.structured["message"].get<std::string>().find("being prepared"), std::string::npos);
  auto one = call("get_entity", {{"key", "srd_fireball"}});
  EXPECT_EQ(one.text.find("being prepared"), std::string::npos) << one.text.substr(0, 100);
  EXPECT_EQ(one.text.rfind("### Fireball", 0), 0u);
  EXPECT_NE(one.structured["message"].get<std::string>().find("being prepared"), std::string::npos);
  auto docs = call("list_documents", json::object());
  EXPECT_EQ(docs.text.find("being prepared"), std::string::npos);
  engine_.set_notice(nullptr);
}

TEST_F(ToolsTest, RulesBySection) {
  auto r = call("search_rule", {{"rule_type", "rule"}, {"section", "attacking"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_EQ(r.structured["result"].size(), 2u);
  // Each edition's condition is its own entity in its own document, the preferred rules first.
  r = call("search_rule", {{"rule_type", "condition"}, {"search", "Grappled"}});
  EXPECT_EQ(keys(r), (std::vector<std::string>{"srd_grappled", "srd-2024_grappled", "a5e-ag_grappled"}));
  r = call("search_rule", {{"rule_type", "condition"}, {"search", "Grappled"}, {"documents", {"srd-2024"}}});
  ASSERT_EQ(keys(r), std::vector<std::string>{"srd-2024_grappled"}) << r.text;
  EXPECT_NE(r.text.find("Disadvantage on attack rolls"), std::string::npos) << r.text;
  r = call("search_rule", {{"rule_type", "condition"}, {"search", "Grappled"}, {"game_system", "5e-2014"}});
  ASSERT_EQ(keys(r), std::vector<std::string>{"srd_grappled"});
  EXPECT_EQ(r.text.find("Disadvantage on attack rolls"), std::string::npos) << "2024 rules in a 2014 answer";
  EXPECT_EQ(r.text.find("Doubleteam"), std::string::npos) << "Level Up rules in a 2014 answer";
}

TEST_F(ToolsTest, SearchAllGroupsByKind) {
  auto r = call("search_all", {{"query", "fireball"}});
  ASSERT_FALSE(r.is_error);
  ASSERT_TRUE(r.structured["result"].is_object());
  ASSERT_GE(r.structured["result"]["spell"].size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.structured["result"]["spell"][i]["name"], "Fireball");
  // The exact name comes first and is not listed again among the other matches (its text holds the word too).
  for (const auto& [kind, items] : r.structured["result"].items()) {
    std::set<std::string> seen;
    for (const auto& x : items)
      EXPECT_TRUE(seen.insert(x["key"].get<std::string>()).second) << kind << ": " << x["key"];
  }
  r = call("search_all", {{"query", "goblin"}, {"content_types", {"Creature"}}});
  ASSERT_EQ(r.structured["result"].size(), 1u);
  EXPECT_TRUE(r.structured["result"].contains("creature"));
}

TEST_F(ToolsTest, SchemasAcceptWhatTheyDescribe) {
  // Challenge ratings as fractions, as the plan_encounter prompt writes them.
  auto r = call("search_creature", {{"cr", "1/4"}, {"limit", 100}, {"detail", "summary"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_FALSE(r.structured["result"].empty());
  for (const auto& x : r.structured["result"]) EXPECT_DOUBLE_EQ(x["challenge_rating"].get<double>(), 0.25);
  r = call("search_creature", {{"cr_min", "1/8"}, {"cr_max", " 1/2 "}, {"limit", 100}, {"detail", "summary"}});
  ASSERT_FALSE(r.is_error) << r.text;
  for (const auto& x : r.structured["result"]) EXPECT_LE(x["challenge_rating"].get<double>(), 0.5);
  // Attunement is a boolean.
  r = call("search_equipment", {{"requires_attunement", true}, {"detail", "summary"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_FALSE(r.structured["result"].empty());
  for (const auto& x : r.structured["result"]) EXPECT_EQ(x["kind"], "magic-item");
  // Without a type, a search covers every kind of character option / rule entry.
  r = call("search_character_option", {{"search", "Wizard"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_FALSE(r.structured["result"].empty());
  EXPECT_EQ(r.structured["result"][0]["kind"], "class");
  r = call("search_rule", {{"search", "Grappled"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_FALSE(r.structured["result"].empty());
  EXPECT_EQ(r.structured["result"][0]["kind"], "condition");
  // Kinds by older names.
  r = call("get_entity", {{"key", "srd_goblin"}, {"kind", "monster"}});
  ASSERT_FALSE(r.is_error) << r.text;
  // The schemas say so.
  const ojson spec = input_schema(find_tool("search_creature")->params);
  EXPECT_TRUE(spec["properties"]["cr"].contains("anyOf"));
  EXPECT_FALSE(spec["properties"]["cr"].contains("type"));
  EXPECT_EQ(input_schema(find_tool("search_equipment")->params)["properties"]["requires_attunement"]["type"],
            "boolean");
  const ojson all = input_schema(find_tool("search_all")->params);
  const auto& kinds = all["properties"]["content_types"]["items"]["enum"];
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "equipment"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "magic-item"), kinds.end());
  EXPECT_FALSE(input_schema(find_tool("get_entity")->params)["properties"]["kind"]["enum"].empty());
  EXPECT_FALSE(input_schema(find_tool("search_rule")->params).contains("required"));
}

TEST_F(ToolsTest, AnUnknownDocumentSuggestsTheDocumentsItStartsOrNames) {
  // "srd" is the start of two keys; a word of a document's name finds it.
  auto r = call("search_spell", {{"search", "fireball"}, {"documents", {"srd"}}});
  const std::string said = r.structured.value("message", "");
  const size_t at = said.find("Closest known: ");
  ASSERT_NE(at, std::string::npos) << r.text;
  EXPECT_EQ(said.substr(at + 15, 18), "srd-2014, srd-2024") << said;
}

TEST_F(ToolsTest, GetEntityTakesANameOnlyOneEntryHasAsItsKey) {
  auto r = call("get_entity", {{"key", "Hill Dwarf"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["result"]["key"], "srd_hill-dwarf");
  EXPECT_NE(r.structured.value("message", "").find("srd_hill-dwarf"), std::string::npos) << r.structured.dump();
  // A name of several entries (two editions of Fireball) lists their keys instead of choosing.
  r = call("get_entity", {{"key", "Fireball"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("srd_fireball"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("srd-2024_fireball"), std::string::npos) << r.text;
}

TEST_F(ToolsTest, RaceAndSpeciesAreOneType) {
  // Results name the kind "species"; the filter takes that word as well as the older "race".
  auto race = call("search_character_option", {{"type", "race"}, {"search", "elf"}});
  auto species = call("search_character_option", {{"type", "species"}, {"search", "elf"}});
  ASSERT_FALSE(race.is_error) << race.text;
  ASSERT_FALSE(species.is_error) << species.text;
  EXPECT_EQ(keys(race), keys(species));
  ASSERT_FALSE(keys(species).empty());
  for (const auto& r : species.structured["result"]) EXPECT_EQ(r["kind"], "species");
}

TEST_F(ToolsTest, ALongQueryIsQuotedShortInTheAnswer) {
  std::string query;
  for (int i = 0; query.size() < kMaxStringLength - 25; ++i) query += i % 7 == 0 ? "fire " : "ancient burning wyrm ";
  // Found or not, the answer quotes its start (the search_all one too), not the 1,000 characters.
  for (const std::string tool : {"search_spell", "search_creature", "search_all"}) {
    auto r = call(tool, {{tool == "search_all" ? "query" : "search", query}});
    ASSERT_FALSE(r.is_error) << tool << ": " << r.text.substr(0, 300);
    EXPECT_EQ(r.text.find(query.substr(0, 500)), std::string::npos) << tool;
    const size_t quoted = r.text.find("\"fire ancient burning wyrm");
    if (tool != "search_spell") {
      ASSERT_NE(quoted, std::string::npos) << tool << ": " << r.text.substr(0, 600);
    }
    if (quoted != std::string::npos) {
      EXPECT_LT(r.text.find(" …\"", quoted), quoted + 130) << tool << ": " << r.text.substr(0, 600);
    }
  }
  // A short one is quoted whole.
  auto r = call("search_spell", {{"search", "a ball of fire that explodes"}});
  EXPECT_NE(r.text.find("\"a ball of fire that explodes\""), std::string::npos) << r.text.substr(0, 300);
}

TEST_F(ToolsTest, SearchAllLimitIsPerKind) {
  // "item" in search_all is gear and magic items alike; the limit applies to each kind.
  auto r = call("search_all", {{"query", "healing"}, {"content_types", {"item", "spell"}}, {"limit", 2}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& groups = r.structured["result"];
  ASSERT_TRUE(groups.contains("magic-item")) << r.text;
  ASSERT_TRUE(groups.contains("spell")) << r.text;
  for (const auto& [kind, results] : groups.items()) {
    EXPECT_TRUE(kind == "item" || kind == "magic-item" || kind == "spell") << kind;
    EXPECT_LE(results.size(), 2u) << kind;
  }
  r = call("search_all", {{"query", "fire"}, {"limit", 100}, {"detail", "summary"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_LE(r.structured["total"].get<int>(), 50);
  EXPECT_GT(r.structured["result"].size(), 2u);
}

TEST_F(ToolsTest, GetEntityAndFindSimilar) {
  auto r = call("get_entity", {{"key", "srd_fireball"}, {"include_source", true}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["result"]["name"], "Fireball");
  EXPECT_EQ(r.structured["result"]["source_record"]["key"], "srd_fireball");
  r = call("get_entity", {{"key", "Fireball"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("srd_fireball"), std::string::npos) << r.text;
  r = call("find_similar", {{"key", "srd_fireball"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_FALSE(r.structured["result"].empty());
  for (const auto& x : r.structured["result"]) {
    EXPECT_NE(x["name"], "Fireball");
    EXPECT_EQ(x["kind"], "spell");
  }
  // Without meaning it ranks by facets: the best match shares the reference's school, and every evocation that
  // deals damage (Lightning Bolt, Fire Bolt, Magic Missile) ranks above the one that heals (Cure Wounds).
  const json& top = r.structured["result"][0];
  EXPECT_EQ(top["school"], "Evocation");
  EXPECT_NE(r.structured["message"].get<std::string>().find("facets"), std::string::npos);
  std::vector<std::string> order;
  for (const auto& x : r.structured["result"]) order.push_back(x["name"]);
  const auto at = [&](const std::string& n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  for (const char* damaging : {"Lightning Bolt", "Fire Bolt", "Magic Missile"}) {
    EXPECT_LT(at(damaging), at("Cure Wounds")) << damaging;
  }
}

TEST_F(ToolsTest, ListDocuments) {
  auto r = call("list_documents", json::object());
  ASSERT_FALSE(r.is_error);
  ASSERT_FALSE(r.structured["result"].empty());
  int prev = 1 << 30;
  for (const auto& d : r.structured["result"]) {
    EXPECT_LE(d["entity_count"].get<int>(), prev);
    prev = d["entity_count"];
    EXPECT_TRUE(d["source_api"] == "open5e_v2" || d["source_api"] == "open5e_v1") << d.dump();
  }
  r = call("list_documents", {{"source", "orcbrew"}});
  EXPECT_TRUE(r.structured["result"].empty());
  // Level Up magic items exist only in v1; their document is listed under that source.
  r = call("list_documents", {{"source", "open5e_v1"}});
  ASSERT_EQ(r.structured["result"].size(), 1u);
  EXPECT_EQ(r.structured["result"][0]["document"], "a5e");
}

TEST(Engine, EmptyStoreSaysHowToFillIt) {
  Engine engine(testing::temp_dir() + "/missing.db");
  auto r = engine.call("search_spell", {{"search", "fireball"}});
  ASSERT_FALSE(r.is_error);
  EXPECT_TRUE(r.structured["result"].empty());
  EXPECT_NE(r.structured["message"].get<std::string>().find("lorekeeper sync"), std::string::npos);
  // An invalid argument is still reported as such.
  EXPECT_TRUE(engine.call("search_spell", {{"level", 42}}).is_error);
}

// Every tool answers an empty store in the shape its row states: a list tool an empty list, search_all an empty
// object of lists, a tool whose answer is one object an error; the arithmetic needs no store at all.
TEST(Engine, EveryToolAnswersAnEmptyStoreInItsShape) {
  Engine engine(testing::temp_dir() + "/missing-shapes.db");
  engine.set_legacy_tools(true);
  auto all = engine.call("search_all", {{"query", "fireball"}});
  ASSERT_FALSE(all.is_error) << all.text;
  EXPECT_TRUE(all.structured["result"].is_object() && all.structured["result"].empty()) << all.structured.dump();
  auto legacy = engine.call("lookup_spell", {{"name", "fireball"}});
  ASSERT_FALSE(legacy.is_error) << legacy.text;
  EXPECT_TRUE(legacy.structured["result"].is_array() && legacy.structured["result"].empty());
  for (const auto& [tool, args] : std::vector<std::pair<std::string, json>>{
           {"get_entity", {{"key", "srd_fireball"}}},
           {"evaluate_encounter", {{"creatures", {{{"name", "Goblin"}}}}, {"party_levels", {3}}}},
           {"build_encounter", {{"party_levels", {3}}}},
           {"attack_odds", {{"creature", "ogre"}, {"target_ac", 15}}}}) {
    auto r = engine.call(tool, args);
    EXPECT_TRUE(r.is_error) << tool << ": " << r.structured.dump();
    EXPECT_NE(r.text.find("lorekeeper sync"), std::string::npos) << tool << ": " << r.text;
  }
  EXPECT_FALSE(engine.call("roll_dice", {{"notation", "2d6"}, {"seed", 1}}).is_error);
  EXPECT_FALSE(engine.call("attack_odds", {{"attack_bonus", 5}, {"target_ac", 15}}).is_error);
}

// The traits the engine runs each tool by, as the table states them.
TEST(ToolTable, RowsKeepTheirTraits) {
  using Names = std::set<std::string>;
  Names ranks, notice, error_when_empty, by_kind, all;
  for (const auto& d : tool_table()) {
    all.insert(d.spec.name);
    if (d.ranks) ranks.insert(d.spec.name);
    if (d.notice_heads_text) notice.insert(d.spec.name);
    if (d.empty_store == EmptyStoreAnswer::kError) error_when_empty.insert(d.spec.name);
    if (d.empty_store == EmptyStoreAnswer::kEmptyByKind) by_kind.insert(d.spec.name);
    EXPECT_TRUE(d.run) << d.spec.name;
    EXPECT_FALSE(d.forward) << d.spec.name;
  }
  EXPECT_EQ(all.size(), tool_table().size()) << "a name given twice";
  const Names searching = {"search_spell",     "search_creature", "search_character_option",
                           "search_equipment", "search_rule",     "search_all",
                           "find_similar",     "build_encounter"};
  EXPECT_EQ(ranks, searching);
  EXPECT_EQ(notice, searching);
  EXPECT_EQ(error_when_empty, (Names{"get_entity", "find_similar", "compare_editions", "count_entities", "class_spells",
                                     "attack_odds", "check_attunement", "evaluate_encounter", "build_encounter"}));
  EXPECT_EQ(by_kind, (Names{"search_all"}));
  EXPECT_FALSE(find_tool_def("roll_dice")->needs_store(json::object()));
  EXPECT_FALSE(find_tool_def("attack_odds")->needs_store({{"attack_bonus", 5}}));
  EXPECT_TRUE(find_tool_def("attack_odds")->needs_store({{"creature", "ogre"}}));
  Names legacy_notice;
  for (const auto& d : legacy_tool_table()) {
    EXPECT_TRUE(d.forward) << d.spec.name;
    EXPECT_EQ(find_tool_def(d.spec.name), nullptr) << d.spec.name << " is served only with the older names";
    EXPECT_EQ(find_tool_def(d.spec.name, true), &d);
    if (d.notice_heads_text) legacy_notice.insert(d.spec.name);
  }
  EXPECT_EQ(legacy_notice, (Names{"search_dnd_content"}));
}

// A store at `path` holding one entry per name, of `kind`, keyed "kit_<n>" in a test document, each with `text`.
void write_kit(const std::string& path, model::Kind kind, const std::vector<std::string>& names,
               const std::string& text) {
  auto st = store::Store::open(path, store::Store::Mode::kReadWrite);
  ASSERT_TRUE(st.is_ok());
  model::Document doc{"kit", "Kit Book", "", "", "", "5e-2014", "test", "", ""};
  std::vector<model::Entity> items;
  for (const auto& name : names) {
    model::Entity e;
    e.kind = kind;
    e.key = "kit_" + std::to_string(items.size());
    e.name = name;
    e.document = doc;
    e.source_api = "test";
    e.url = "https://example.invalid/" + e.key;
    e.text = text;
    items.push_back(e);
  }
  ASSERT_TRUE((*st)->upsert({doc}, items).is_ok());
}

// An exact name's answer names the entries that are variants of it ("Vorpal Sword (Longsword)", the 2014 SRD's
// form), which are other entries, so it does not seem to be all there is.
TEST(Engine, AnExactNameNamesItsVariants) {
  const std::string path = testing::temp_dir() + "/variants.db";
  write_kit(
      path, model::Kind::kMagicItem,
      {"Storm Blade", "Storm Blade (Longsword)", "Storm Blade (Scimitar)", "Storm Blader", "Storm Blade, Greater"},
      "A blade of storms.");
  Engine engine(path);
  auto r = engine.call("search_equipment", {{"search", "storm blade"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_EQ(r.structured["result"].size(), 1u) << r.text;
  EXPECT_EQ(r.structured["result"][0]["name"], "Storm Blade");
  const std::string message = r.structured.value("message", "");
  EXPECT_NE(message.find("Storm Blade (Longsword), Storm Blade (Scimitar)"), std::string::npos) << message;
  EXPECT_EQ(message.find("Storm Blader"), std::string::npos) << message;
  EXPECT_EQ(message.find("Greater"), std::string::npos) << message;
  // A variant's own name is its own answer, naming no variants.
  auto v = engine.call("search_equipment", {{"search", "Storm Blade (Scimitar)"}});
  ASSERT_FALSE(v.is_error) << v.text;
  EXPECT_EQ(v.structured.value("message", "").find("variants"), std::string::npos) << v.text;
}

// find_similar's reference: a key two kinds share is an error asking for the kind (as get_entity's), and a "key"
// that is no entry's key but an entry's name is taken as that name.
TEST(Engine, FindSimilarResolvesItsReferenceAsGetEntityDoes) {
  const std::string path = testing::temp_dir() + "/similar-ref.db";
  write_kit(path, model::Kind::kSpell, {"Storm Call", "Storm Ward"}, "Calls a storm.");
  write_kit(path, model::Kind::kCreature, {"Storm Caller"}, "A caller of storms.");  // also keyed kit_0
  Engine engine(path);
  auto shared = engine.call("find_similar", {{"key", "kit_0"}});
  EXPECT_TRUE(shared.is_error) << shared.text;
  EXPECT_NE(shared.text.find("several kinds"), std::string::npos) << shared.text;
  auto chosen = engine.call("find_similar", {{"key", "kit_0"}, {"kind", "spell"}});
  EXPECT_FALSE(chosen.is_error) << chosen.text;
  auto named = engine.call("find_similar", {{"key", "Storm Call"}});
  EXPECT_FALSE(named.is_error) << named.text;
  EXPECT_NE(named.text.find("Storm Call (kit_0)"), std::string::npos) << named.text;
}

// The close names considered are the nearest of all, not the first ten within reach in name order, and one name
// nearer than every other is the misspelt one: it comes first.
TEST(Engine, TheNearestCloseNameComesFirst) {
  const std::string path = testing::temp_dir() + "/typos.db";
  std::vector<std::string> names;
  // Twelve names two edits from "theives tools", all before the wanted one in name order.
  for (char c = 'A'; c < 'M'; ++c) names.push_back(std::string(1, c) + "xeives Tools");
  names.push_back("Thieves' Tools");  // one edit (an adjacent swap)
  // One edit from "ocultist" each; the one that begins as the query does is the misspelt one.
  names.push_back("Cultist Robes");
  names.push_back("Occultist Robes");
  write_kit(path, model::Kind::kItem, names, "A set of tools.");
  for (bool in_memory : {false, true}) {
    Engine engine(path);
    engine.set_text_index_in_memory(in_memory);
    auto r = engine.call("search_equipment", {{"search", "theives tools"}});
    ASSERT_FALSE(r.is_error) << r.text;
    ASSERT_FALSE(r.structured["result"].empty());
    EXPECT_EQ(r.structured["result"][0]["name"], "Thieves' Tools");
    EXPECT_EQ(r.structured["result"][0]["_matched"][0], "close name");
    auto o = engine.call("search_equipment", {{"search", "ocultist robes"}});
    ASSERT_FALSE(o.is_error) << o.text;
    ASSERT_GE(o.structured["result"].size(), 2u) << o.text;
    EXPECT_EQ(o.structured["result"][0]["name"], "Occultist Robes") << o.text;
    EXPECT_EQ(o.structured["result"][1]["name"], "Cultist Robes") << o.text;
  }
}

// A CR 1 creature of `doc` whose one trait says `trait`; its URL is `url_base` + key.
model::Entity test_creature(const model::Document& doc, const std::string& key, const std::string& name,
                            const std::string& url_base, const std::string& text, const std::string& trait) {
  model::Entity e;
  e.kind = model::Kind::kCreature;
  e.key = key;
  e.name = name;
  e.document = doc;
  e.source_api = "test";
  e.url = url_base + key;
  e.text = text;
  e.data = {{"traits", json::array({{{"name", "Verbose"}, {"desc", trait}}})}};
  e.facets.cr = 1;
  return e;
}

TEST(Engine, LargeAnswersAreSummarisedWithinBudget) {
  const std::string path = testing::temp_dir() + "/big.db";
  {
    auto st = store::Store::open(path, store::Store::Mode::kReadWrite);
    ASSERT_TRUE(st.is_ok());
    std::vector<model::Entity> many;
    model::Document doc{"big", "Big Book", "", "", "", "5e-2014", "test", "", ""};
    for (int i = 0; i < 100; ++i) {
      many.push_back(test_creature(doc, "big_" + std::to_string(i), "Creature " + std::to_string(1000 + i),
                                   "https://example.invalid/", "", std::string(3000, 'w')));
    }
    ASSERT_TRUE((*st)->upsert({doc}, many).is_ok());
  }
  Engine engine(path);
  auto size = [](const ToolResult& r) { return r.text.size() + r.structured.dump().size(); };
  // Default detail: the first three in full within about 4,000 tokens, the rest one line each.
  auto r = engine.call("search_creature", {{"limit", 100}});
  ASSERT_FALSE(r.is_error);
  // The first in full (each is about 6.5 KB, so two fit), then only one-line summaries.
  EXPECT_FALSE(r.structured["result"][0].value("summarized", false));
  for (size_t i = 3; i < r.structured["result"].size(); ++i) {
    EXPECT_TRUE(r.structured["result"][i].value("summarized", false)) << i;
  }
  EXPECT_EQ(r.structured["total"], 100);
  const std::string message = r.structured["message"];
  EXPECT_NE(message.find("get_entity"), std::string::npos) << message;
  // Nothing is dropped: every result asked for is there, past the budget as one line of a few hundred characters.
  EXPECT_EQ(r.structured["result"].size(), 100u);
  EXPECT_LE(size(r), tools::kStandardBudget + 100 * 500u);
  auto twenty = engine.call("search_creature", {{"limit", 20}});
  EXPECT_LE(size(twenty), tools::kStandardBudget + 20 * 500u);
  auto summary = engine.call("search_creature", {{"limit", 100}, {"detail", "summary"}});
  for (const auto& x : summary.structured["result"]) EXPECT_TRUE(x.value("summarized", false));
  EXPECT_EQ(summary.structured["result"].size(), 100u);
  EXPECT_LE(size(summary), 100 * 500u);
  // Full: more in full, within about 20,000 tokens before the summaries.
  auto full = engine.call("search_creature", {{"limit", 100}, {"detail", "full"}});
  EXPECT_LE(size(full), 80000u + 100 * 500u);
  size_t in_full = 0;
  for (const auto& x : full.structured["result"]) in_full += x.value("summarized", false) ? 0 : 1;
  EXPECT_GT(in_full, 3u);
}

// A default list of 20 whose one-line results with their reasons (score, what matched, a snippet) would not fit
// stays within the budget: the lines past the room lose their reasons, never their attribution.
TEST(Engine, OneLineResultsLoseTheirReasonsBeforeTheBudget) {
  const std::string path = testing::temp_dir() + "/lines.db";
  {
    auto st = store::Store::open(path, store::Store::Mode::kReadWrite);
    ASSERT_TRUE(st.is_ok());
    std::vector<model::Entity> many;
    // A long licence makes every line long: 20 lines with their reasons are past the budget, without them not
    // (measured: 820 characters puts the budget between the two).
    model::Document doc{
        "long", "A Book With A Rather Long Title", "", "A Publisher", std::string(820, 'L'), "5e-2014", "test", "", ""};
    for (int i = 0; i < 40; ++i) {
      const std::string text = "It lurks in the marsh reeds and waits for travellers. " + std::string(2000, 'x');
      many.push_back(test_creature(doc, "long_creature-with-a-long-key-" + std::to_string(i),
                                   "Creature With A Long Name Number " + std::to_string(1000 + i),
                                   "https://example.invalid/v2/creatures/", text, text));
    }
    ASSERT_TRUE((*st)->upsert({doc}, many).is_ok());
  }
  Engine engine(path);
  auto r = engine.call("search_creature", {{"search", "lurks in the marsh reeds"}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& results = r.structured["result"];
  ASSERT_EQ(results.size(), 20u);
  const size_t size = r.text.size() + r.structured.dump().size();
  EXPECT_LE(size, tools::kStandardBudget + 1000u);
  size_t with_reasons = 0, compact = 0;
  for (const auto& x : results) {
    for (const char* f : {"key", "name", "kind", "source_api", "url"}) EXPECT_TRUE(x.contains(f)) << f;
    for (const char* f : {"key", "name", "publisher", "license", "game_system"}) {
      EXPECT_TRUE(x["document"].contains(f)) << f;
    }
    if (!x.value("summarized", false)) continue;
    EXPECT_TRUE(x.contains("_score")) << "every result keeps its score";
    if (x.contains("_snippet")) {
      EXPECT_EQ(compact, 0u) << "the lines with reasons come first";
      EXPECT_TRUE(x.contains("_matched"));
      ++with_reasons;
    } else {
      EXPECT_FALSE(x.contains("_matched"));
      ++compact;
    }
  }
  EXPECT_GT(compact, 0u) << "20 lines with reasons do not fit; size " << size;
  EXPECT_GT(with_reasons, 0u) << "the room there is goes to reasons";
  // A shorter list has room for every line's reasons.
  auto five = engine.call("search_creature", {{"search", "lurks in the marsh reeds"}, {"limit", 5}});
  for (const auto& x : five.structured["result"]) {
    if (x.value("summarized", false)) {
      EXPECT_TRUE(x.contains("_snippet")) << x.dump();
    }
  }
}

// A store at `path` holding one homebrew entry of `kind`, keyed home_<slug>, made by `fill` (data, text, facets).
void store_one(const std::string& path, model::Kind kind, const std::string& name,
               const std::function<void(model::Entity&)>& fill) {
  auto st = store::Store::open(path, store::Store::Mode::kReadWrite);
  ASSERT_TRUE(st.is_ok());
  model::Document doc{"home", "Homebrew", "", "", "", "5e-2014", "test", "", ""};
  model::Entity e;
  e.kind = kind;
  e.key = "home_" + model::slug(name);
  e.name = name;
  e.document = doc;
  e.source_api = "test";
  e.url = "https://example.invalid/" + model::slug(name);
  fill(e);
  ASSERT_TRUE((*st)->upsert({doc}, {e}).is_ok());
}

// A creature's lore is shortened, then left out, before a word of its rules is cut, and the answer says which.
TEST(Engine, ACreaturesLoreGivesWayBeforeItsRules) {
  const std::string path = testing::temp_dir() + "/lore.db";
  const std::string breath =
      "The dragon exhales acid in a 60-foot line that is 5 feet wide. Each creature in that line must make a DC 18 "
      "Dexterity saving throw, taking 54 (12d8) acid damage on a failed save, or half as much damage on a "
      "successful one.";
  store_one(path, model::Kind::kCreature, "Lore Drake", [&](model::Entity& e) {
    std::string lore;
    while (lore.size() < 40000) lore += "Drakes of this kind hoard old songs and older grudges. ";
    json actions = json::array();
    for (int i = 0; i < 8; ++i) actions.push_back({{"name", "Breath " + std::to_string(i)}, {"desc", breath}});
    e.data = {{"size", "Huge"}, {"type", "Dragon"}, {"actions", actions}, {"desc", lore}};
    e.text = breath;
    e.facets.type = "dragon";
  });
  Engine engine(path);
  auto r = engine.call("search_creature", {{"search", "Lore Drake"}});
  ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
  EXPECT_LE(r.text.size() + r.structured.dump().size(), tools::kStandardBudget);
  const json& drake = r.structured["result"][0];
  for (const auto& a : drake["actions"]) EXPECT_EQ(a.value("desc", ""), breath);  // every DC and damage whole
  EXPECT_NE(drake.value("truncated", "").find("the description (desc)"), std::string::npos) << r.text.substr(0, 3000);
  EXPECT_NE(r.text.find("*To fit the answer the description (desc)"), std::string::npos);
  EXPECT_NE(r.text.find("get_entity(key) gives the entry whole"), std::string::npos);
  EXPECT_EQ(r.text.find("detail full shows more"), std::string::npos);  // get_entity has no detail parameter
}

// A stat block that does not fit whole loses the sentences that state no rules before a word of a rule is cut, and
// names each place: every DC, damage and use stays, also when the list after it is long.
TEST(Engine, AShortenedStatBlockKeepsEveryRuleSentence) {
  const std::string path = testing::temp_dir() + "/rules-kept.db";
  const std::string breath =
      "Each creature in that line must make a DC 18 Dexterity saving throw, taking 54 (12d8) acid damage on a failed "
      "save, or half as much damage on a successful one.";
  const std::string lore = "Old songs of the marsh folk remember this terror by many names and few kind words. ";
  {
    auto st = store::Store::open(path, store::Store::Mode::kReadWrite);
    ASSERT_TRUE(st.is_ok());
    model::Document doc{"marsh", "Marsh Book", "", "", "", "5e-2014", "test", "", ""};
    std::vector<model::Entity> all;
    model::Entity drake;
    drake.kind = model::Kind::kCreature;
    drake.key = "marsh_fen-drake";
    drake.name = "Fen Drake";
    drake.document = doc;
    drake.source_api = "test";
    drake.url = "https://example.invalid/fen-drake";
    json actions = json::array();
    for (int i = 0; i < 8; ++i) {
      std::string desc = "The drake exhales acid in a 60-foot line. ";
      for (int j = 0; j < 20; ++j) desc += lore;
      actions.push_back({{"name", "Breath " + std::to_string(i) + " (Recharge 5-6)"}, {"desc", desc + breath}});
    }
    drake.data = {{"size", "Large"}, {"type", "Dragon"}, {"actions", actions}};
    drake.text = breath;
    drake.facets.type = "dragon";
    all.push_back(drake);
    // A hundred more: their one-line results alone are past the budget.
    for (int i = 0; i < 100; ++i) {
      all.push_back(test_creature(doc, "marsh_drake-" + std::to_string(i), "Fen Drake Cousin " + std::to_string(i),
                                  "https://example.invalid/", "", "A drake of the fens."));
    }
    ASSERT_TRUE((*st)->upsert({doc}, all).is_ok());
  }
  Engine engine(path);
  auto r = engine.call("search_creature", {{"limit", 100}});  // by name: the drake first
  ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
  const json& first = r.structured["result"][0];
  ASSERT_EQ(first.value("key", ""), "marsh_fen-drake");
  ASSERT_EQ(first["actions"].size(), 8u);
  for (const auto& a : first["actions"]) {
    const std::string desc = a.value("desc", "");
    EXPECT_EQ(desc.rfind("The drake exhales acid in a 60-foot line.", 0), 0u) << desc;
    EXPECT_NE(desc.find(breath), std::string::npos) << desc;
    EXPECT_EQ(desc.find("Old songs"), std::string::npos) << "the lore goes first";
    EXPECT_NE(desc.find("[…]"), std::string::npos) << "where it went is marked";
  }
  const std::string note = first.value("truncated", "");
  EXPECT_NE(note.find("sentences that state no rules are left out ([…]) of actions (Breath 0 (Recharge 5-6), "),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("and 3 more)"), std::string::npos) << note;
  EXPECT_EQ(note.find("cut short"), std::string::npos) << note;
  EXPECT_NE(r.text.find("*To fit the answer sentences that state no rules"), std::string::npos);
  // get_entity has the room: the entry whole.
  auto whole = engine.call("get_entity", {{"key", "marsh_fen-drake"}});
  EXPECT_FALSE(whole.structured["result"].contains("truncated"));
  EXPECT_NE(whole.structured["result"]["actions"][7].value("desc", "").find("Old songs"), std::string::npos);
}

// The sentences an answer shortens by: what they are, and which state rules.
TEST(RulesText, SentencesAndWhichStateRules) {
  const std::string t =
      "The dragon exhales acid in a 30-ft. line. Black dragons dwell in swamps!\nThey are cruel.  | 5 | +3 |\n\n"
      "| 1 | **Freedom.** Everyone should be free. Chains are evil. |\n- Simple Melee weapons. Martial ones too.\n"
      " \n**Poison (Cost: 1d6).** You add a toxin.";
  const auto spans = model::sentence_spans(t);
  std::string joined;
  for (auto s : spans) joined += s;
  EXPECT_EQ(joined, t);
  ASSERT_EQ(spans.size(), 8u);
  EXPECT_EQ(spans[0], "The dragon exhales acid in a 30-ft. line. ");
  EXPECT_EQ(spans[1], "Black dragons dwell in swamps!\n");
  EXPECT_EQ(spans[3], "| 5 | +3 |\n\n");
  EXPECT_EQ(spans[4], "| 1 | **Freedom.** Everyone should be free. Chains are evil. |\n");  // a row is one span
  EXPECT_EQ(spans[5], "- Simple Melee weapons. Martial ones too.\n");                       // a list item too
  EXPECT_EQ(spans[6], " \n");
  for (size_t i : {0, 2, 3, 4, 5, 6}) EXPECT_TRUE(model::states_rules(spans[i])) << spans[i];  // short or structure
  const std::string lore = "Black dragons are the most evil-tempered of the chromatic dragons, dwelling in swamps.";
  EXPECT_FALSE(model::states_rules(lore));
  EXPECT_FALSE(model::states_rules("Ancient legends speak of a queen who loved the sea and sang to it every dawn."));
  EXPECT_FALSE(model::states_rules("Scholars debate its origin, though most agree it came from the far north."));
  for (const std::string rule : {
           "Each creature in that line must make a Dexterity saving throw, taking acid damage on a failed save.",
           "The target has the Poisoned condition until the end of its next turn, as the spell describes.",
           "They don't count against your number of cantrips known, whatever else they are called.",  // a plural
           "It reverts to its true form if it dies, and any equipment it is wearing or carrying too.",
           "The hydra dies if all its heads are dead, and it grows new ones whenever one of them falls.",
           "Monk weapons are the ones this feature names, and every one of them is described below:",
           "You are transformed, along with any nonmagical object you are wearing or carrying, into stone.",
       }) {
    EXPECT_TRUE(model::states_rules(rule)) << rule;
  }
  EXPECT_TRUE(model::sentence_spans("").empty());
}

// Thinning a creature's text keeps Markdown whole: a heading, a table row and a list item stay on lines of their
// own, and a gap is marked where it was, its line breaks kept.
TEST(Engine, ShorteningKeepsMarkdownStructure) {
  const std::string path = testing::temp_dir() + "/markdown-kept.db";
  const std::string lore = "Old songs of the marsh folk remember this terror by many names and few kind words. ";
  std::string desc = "Pick one of the following.\n\n## Calm\n\n";
  for (int i = 0; i < 40; ++i) desc += lore;
  desc += "\n\n| Roll | Effect |\n|---|---|\n| 1 | Everyone sings. Then all are silent. |\n\n- A listed thing.\n";
  for (int i = 0; i < 300; ++i) desc += lore;
  store_one(path, model::Kind::kCreature, "Singing Stone", [&](model::Entity& e) {
    e.data = {{"traits", json::array({{{"name", "Song"}, {"desc", desc}}})}, {"type", "Construct"}};
    e.text = "Singing Stone";
  });
  Engine engine(path);
  auto r = engine.call("search_creature", {{"search", "Singing Stone"}});
  ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
  const std::string shown = r.structured["result"][0]["traits"][0].value("desc", "");
  EXPECT_NE(shown.find("Pick one of the following.\n\n## Calm\n\n[…]\n\n| Roll | Effect |\n|---|---|\n"
                       "| 1 | Everyone sings. Then all are silent. |\n\n- A listed thing.\n[…]"),
            std::string::npos)
      << shown.substr(0, 600);
  EXPECT_EQ(shown.find("Old songs"), std::string::npos);
}

TEST(Engine, OneHugeEntryStaysWithinTheBudget) {
  const std::string path = testing::temp_dir() + "/huge.db";
  store_one(path, model::Kind::kSpell, "Endless Words", [](model::Entity& e) {
    std::string desc;
    while (desc.size() < 10 * 1024 * 1024) desc += "The words go on and on. ";
    e.data = {{"level", 1}, {"school", "Evocation"}, {"desc", desc}};
    e.text = desc.substr(0, 1000);
    e.facets.level = 1;
  });
  Engine engine(path);
  for (const std::string detail : {"summary", "standard", "full"}) {
    auto r = engine.call("search_spell", {{"search", "Endless Words"}, {"detail", detail}});
    ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
    EXPECT_LE(r.text.size() + r.structured.dump().size(),
              detail == "full" ? tools::kFullBudget : tools::kStandardBudget)
        << detail;
    ASSERT_EQ(r.structured["result"].size(), 1u) << detail;
  }
  auto one = engine.call("get_entity", {{"key", "home_endless-words"}});
  ASSERT_FALSE(one.is_error);
  EXPECT_LE(one.text.size() + one.structured.dump().size(), tools::kFullBudget);
  EXPECT_TRUE(one.structured["result"].contains("truncated"));
  EXPECT_NE(one.text.find("[…]"), std::string::npos);
}

// An entry whose lists are long (a homebrew monster with a thousand traits and a thousand actions, each of a few
// hundred characters: 1 MB answered whole before) keeps the first items of each list within the budget, and says
// how many of how many are shown; its source record too.
TEST(Engine, AnEntryWithLongListsStaysWithinTheBudget) {
  const std::string path = testing::temp_dir() + "/lists.db";
  store_one(path, model::Kind::kCreature, "Many Parts", [](model::Entity& e) {
    json traits = json::array(), actions = json::array();
    std::string desc;
    while (desc.size() < 450) desc += "It shimmers with heat. ";
    for (int i = 0; i < 1000; ++i) {
      traits.push_back({{"name", "Trait " + std::to_string(i)}, {"desc", desc}});
      actions.push_back({{"name", "Act " + std::to_string(i)}, {"desc", desc}});
    }
    e.data = {{"type", "beast"}, {"challenge_rating", 5}, {"traits", traits}, {"actions", actions}};
    e.raw = e.data;
    e.text = desc;
  });
  Engine engine(path);
  for (const bool source : {false, true}) {
    auto one = engine.call("get_entity", {{"key", "home_many-parts"}, {"include_source", source}});
    ASSERT_FALSE(one.is_error) << one.text.substr(0, 300);
    EXPECT_LE(one.text.size() + one.structured.dump().size(), 80000u) << source;
    const json& r = one.structured["result"];
    ASSERT_TRUE(r.contains("traits"));
    EXPECT_GE(r["traits"].size(), 4u);
    EXPECT_LT(r["traits"].size(), 1000u);
    EXPECT_EQ(r["traits"][0]["name"], "Trait 0");
    const std::string note = r.value("truncated", "");
    EXPECT_NE(note.find("traits (" + std::to_string(r["traits"].size()) + " of 1,000)"), std::string::npos) << note;
    EXPECT_NE(note.find("actions ("), std::string::npos) << note;
    const std::string shown = "traits (" + std::to_string(r["traits"].size()) + " of 1,000)";
    EXPECT_EQ(note.find(shown, note.find(shown) + 1), std::string::npos) << "named twice: " << note;
    EXPECT_EQ(note.find("and 995 more"), std::string::npos) << "names only what is shown: " << note;
    EXPECT_NE(one.text.find(note), std::string::npos);
  }
}

}  // namespace
}  // namespace lorekeeper::tools

namespace lorekeeper::tools {
namespace {

class LegacyTest : public ::testing::Test {
 protected:
  LegacyTest() : engine_(testing::fixture_store()) { engine_.set_legacy_tools(true); }
  Engine engine_;
};

TEST(Legacy, OffByDefault) {
  Engine engine(testing::fixture_store());
  EXPECT_EQ(find_tool("lookup_spell"), nullptr);
  EXPECT_NE(find_tool("lookup_spell", true), nullptr);
  EXPECT_TRUE(engine.call("lookup_spell", {{"name", "Fireball"}}).is_error);
  EXPECT_EQ(tool_specs(false).size(), 17u);
  EXPECT_EQ(tool_specs(true).size(), 23u);
}

TEST_F(LegacyTest, AliasesRunTheCurrentTools) {
  auto r = engine_.call("lookup_spell", {{"name", "Fireball"}});
  ASSERT_FALSE(r.is_error) << r.text;
  int exact = 0;
  for (const auto& x : r.structured["result"]) exact += x["_score"] == 1.0 ? 1 : 0;
  EXPECT_EQ(exact, 3);
  // The same entries in the same order as the current tool (the echoed filters differ: name vs search; and
  // the explanations: the older `name` matches names only, so no result says it matched by text).
  auto current = engine_.call("search_spell", {{"search", "Fireball"}});
  auto without_explanations = [](json results) {
    for (auto& x : results) {
      x.erase("_matched");
      x.erase("_snippet");
    }
    return results;
  };
  EXPECT_EQ(without_explanations(r.structured["result"]), without_explanations(current.structured["result"]));
  for (const auto& x : r.structured["result"]) {
    for (const auto& how : x["_matched"]) {
      EXPECT_NE(how, "text") << x["name"];
      EXPECT_NE(how, "hint") << x["name"];
    }
  }
  r = engine_.call("lookup_creature", {{"challenge_rating", 0.25}, {"documents", {"srd-2014"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  for (const auto& x : r.structured["result"]) EXPECT_EQ(x["challenge_rating"], 0.25);
  r = engine_.call("lookup_character_option", {{"option_type", "race"}, {"name", "Elf"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_EQ(r.structured["result"][0]["subspecies"].size(), 1u);
  EXPECT_EQ(r.structured["result"][0]["subspecies"][0]["name"], "High Elf");
  EXPECT_EQ(r.structured["result"][0]["subspecies"][0]["key"], "srd_high-elf");
  EXPECT_FALSE(r.structured["result"][0]["subspecies"][0].contains("source"));  // the same document as Elf
  r = engine_.call("lookup_equipment", {{"item_type", "weapon"}, {"name", "longsword"}, {"documents", {"srd-2014"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["result"][0]["key"], "srd_longsword");
  // The older tool's attunement text becomes search_equipment's boolean.
  for (const auto& [given, wanted] : std::vector<std::pair<std::string, bool>>{
           {"requires attunement", true}, {"yes", true}, {"", false}, {"no", false}}) {
    r = engine_.call("lookup_equipment", {{"requires_attunement", given}, {"limit", 100}});
    ASSERT_FALSE(r.is_error) << given << ": " << r.text;
    ASSERT_FALSE(r.structured["result"].empty()) << given;
    for (const auto& x : r.structured["result"]) {
      EXPECT_EQ(x.value("requires_attunement", false), wanted) << given << " " << x["key"];
    }
  }
  r = engine_.call("lookup_equipment", {{"requires_attunement", "perhaps"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("requires attunement"), std::string::npos) << r.text;
  r = engine_.call("lookup_rule", {{"rule_type", "condition"}, {"name", "Grappled"}});
  EXPECT_EQ(r.structured["result"][0]["key"], "srd_grappled");
  r = engine_.call("search_dnd_content", {{"query", "fireball"}, {"documents", {"srd-2024"}}});
  EXPECT_EQ(r.structured["result"]["spell"][0]["key"], "srd-2024_fireball");
}

TEST_F(LegacyTest, ValidationSpeaksTheOlderNames) {
  auto r = engine_.call("lookup_character_option", {{"name", "Wizard"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("'type' (or 'option_type')"), std::string::npos) << r.text;
  r = engine_.call("lookup_rule", {{"type", "invalid-rule-type"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("condition"), std::string::npos) << r.text;
  r = engine_.call("lookup_creature", {{"cr", 1}, {"challenge_rating", 2}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("disagree"), std::string::npos);
  r = engine_.call("lookup_spell", {{"search", "Fireball"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("Unknown parameter 'search'"), std::string::npos);
  r = engine_.call("lookup_spell", {{"name", "NonexistentSpell123"}});
  ASSERT_FALSE(r.is_error);
  EXPECT_TRUE(r.structured["result"].empty());
}

}  // namespace
}  // namespace lorekeeper::tools
