// Meaning-based search end to end on the fixture store with the real model: embedding the entities (only the
// changed ones on a second pass, resumable after an interruption), the hybrid ranking of the tools, filters
// as hard constraints, and the answers' explanations. Needs the model (scripts/setup.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <thread>

#include "../unit/test_support.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/passages.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::search {
namespace {

using nlohmann::json;

const embed::Encoder& encoder() {
  static std::unique_ptr<embed::Encoder> e = [] {
    auto r = embed::Encoder::load(embed::default_model_dir());
    if (!r) std::abort();
    return std::move(*r);
  }();
  return *e;
}

// A private copy of the fixture store (the shared one must not change).
std::string store_copy() {
  const std::string path = testing::temp_dir() + "/store.db";
  std::filesystem::copy_file(testing::fixture_store(), path);
  return path;
}

std::unique_ptr<store::Store> open(const std::string& path) {
  auto s = store::Store::open(path, store::Store::Mode::kExistingOnly);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  return std::move(*s);
}

// The fixture store with every entity embedded, built once.
const std::string& embedded_store() {
  static const std::string path = [] {
    const std::string p = store_copy();
    auto st = open(p);
    IndexOptions options;
    options.threads = 2;
    auto r = update_vectors(*st, encoder(), options);
    EXPECT_TRUE(r.is_ok());
    return p;
  }();
  return path;
}

TEST(Indexer, EmbedsEverythingOnceThenOnlyWhatChanged) {
  const std::string path = store_copy();
  auto st = open(path);
  IndexOptions options;
  options.threads = 2;
  options.precomputed = nullptr;  // the encoder's own path
  auto first = update_vectors(*st, encoder(), options);
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  EXPECT_GT(first->progress.entities_total, 100u);
  EXPECT_EQ(first->progress.entities_todo, first->progress.entities_total);
  EXPECT_EQ(first->progress.entities_done, first->progress.entities_todo);
  EXPECT_GT(first->progress.tokens_done, first->progress.entities_total * 5);
  auto cov = vector_coverage(*st, 1);
  ASSERT_TRUE(cov.is_ok());
  EXPECT_EQ(cov->embedded, cov->entities);

  auto second = update_vectors(*st, encoder(), options);
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(second->progress.entities_todo, 0u);

  // One entity's text changes: only it is embedded again.
  auto owlbear = st->get("srd_owlbear", model::Kind::kCreature, true);
  ASSERT_TRUE(owlbear.is_ok());
  ASSERT_EQ(owlbear->size(), 1u);
  model::Entity changed = owlbear->front();
  changed.text += " It hoots.";
  ASSERT_TRUE(st->upsert({changed.document}, {changed}).is_ok());
  auto third = update_vectors(*st, encoder(), options);
  ASSERT_TRUE(third.is_ok());
  EXPECT_EQ(third->progress.entities_todo, 1u);
}

TEST(Indexer, AnInterruptedRunKeepsItsChunksAndTheNextOneResumes) {
  const std::string path = store_copy();
  auto st = open(path);
  IndexOptions options;
  options.chunk_entities = 20;
  options.precomputed = nullptr;
  std::atomic<bool> stop{false};
  auto first = update_vectors(
      *st, encoder(), options, [&](const IndexProgress& p) { stop = p.entities_done >= 40; }, &stop);
  ASSERT_TRUE(first.is_ok());
  EXPECT_TRUE(first->interrupted);
  EXPECT_EQ(first->progress.entities_done, 40u);
  auto rest = update_vectors(*st, encoder(), options);
  ASSERT_TRUE(rest.is_ok());
  EXPECT_FALSE(rest->interrupted);
  EXPECT_EQ(rest->progress.entities_todo, first->progress.entities_todo - 40);
}

// The bundled vectors are this encoder's own: the fixture's records are the snapshot's, so nearly all of them
// take a precomputed vector, and a sample of those, embedded again here, agrees within int8 precision.
TEST(Indexer, TakesTheBundledVectorsAndTheyAreTheEncodersOwn) {
  const std::string path = store_copy();
  auto st = open(path);
  IndexOptions options;
  auto report = update_vectors(*st, encoder(), options);
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  const auto& p = report->progress;
  EXPECT_GT(p.entities_precomputed, p.entities_total * 9 / 10);
  EXPECT_EQ(p.entities_precomputed + p.entities_todo, p.entities_total);
  auto cov = vector_coverage(*st, 1);
  ASSERT_TRUE(cov.is_ok());
  EXPECT_EQ(cov->embedded, cov->entities);

  auto rows = st->vectors(kModelId, true);
  ASSERT_TRUE(rows.is_ok());
  size_t compared = 0;
  for (size_t i = 0; i < rows->size(); i += 7) {
    const auto& row = (*rows)[i];
    if (PrecomputedVectors::bundled().find(row.text_hash).empty()) continue;
    auto got = st->get(row.key, row.kind, false);
    ASSERT_TRUE(got.is_ok() && got->size() == 1) << row.key;
    const auto text = passages(got->front(), 1).at(0);
    ASSERT_EQ(text_hash(kModelId, text), row.text_hash) << row.key;
    const auto fresh = encoder().encode_ids(encoder().tokenizer().encode(text));
    double dot = 0;
    for (size_t d = 0; d < fresh.size(); ++d) dot += static_cast<double>(fresh[d]) * row.vector[d];
    EXPECT_GT(dot, 0.999) << row.key;
    ++compared;
  }
  EXPECT_GT(compared, 20u);
}

TEST(Encoder, APackedBatchEqualsOneByOne) {
  const std::vector<std::string> texts = {"fire", "a creature that turns people to stone with its gaze",
                                          "The owlbear makes two attacks: one with its beak and one with its claws."};
  std::vector<std::vector<int32_t>> ids;
  for (const auto& t : texts) ids.push_back(encoder().tokenizer().encode(t));
  const auto batch = encoder().encode_batch(ids);
  ASSERT_EQ(batch.size(), texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto one = encoder().encode_ids(ids[i]);
    for (size_t d = 0; d < one.size(); ++d) EXPECT_NEAR(batch[i][d], one[d], 1e-5) << texts[i];
  }
}

class Hybrid : public ::testing::Test {
 protected:
  void SetUp() override {
    semantic_ = std::make_shared<Semantic>(embed::default_model_dir());
    ASSERT_TRUE(semantic_->has_model());
    auto st = open(embedded_store());
    ASSERT_TRUE(semantic_->reload(*st).is_ok());
    ASSERT_TRUE(semantic_->index());
    EXPECT_EQ(semantic_->notice(), "");
    engine_ = std::make_unique<tools::Engine>(embedded_store());
    engine_->set_semantic(semantic_);
  }
  json call(const std::string& tool, const json& args) {
    auto r = engine_->call(tool, args);
    EXPECT_FALSE(r.is_error) << r.text;
    return r.structured;
  }
  std::shared_ptr<Semantic> semantic_;
  std::unique_ptr<tools::Engine> engine_;
};

TEST_F(Hybrid, FindsACreatureByWhatItDoes) {
  const json r = call("search_creature", {{"search", "undead that drinks blood and fears sunlight"}});
  ASSERT_FALSE(r["result"].empty());
  const std::string first = r["result"][0]["name"];
  EXPECT_TRUE(first == "Vampire" || first == "Vampire Spawn") << r.dump();
  const json& matched = r["result"][0]["_matched"];
  EXPECT_NE(std::find(matched.begin(), matched.end(), "meaning"), matched.end()) << matched.dump();
  EXPECT_TRUE(r["result"][0].contains("_snippet"));
  EXPECT_GT(r["result"][0]["_score"].get<double>(), 0.0);
  EXPECT_LE(r["result"][0]["_score"].get<double>(), 1.0);
}

TEST_F(Hybrid, ExactNameStillComesFirstWithEveryEdition) {
  const json r = call("search_spell", {{"search", "fireball"}});
  ASSERT_GE(r["result"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r["result"][i]["name"], "Fireball");
    EXPECT_EQ(r["result"][i]["_score"], 1.0);
  }
}

TEST_F(Hybrid, FiltersAreHardConstraints) {
  const json r = call("search_spell", {{"search", "heal a wounded ally"}, {"level", 1}});
  for (const auto& x : r["result"]) EXPECT_EQ(x["level"], 1) << x["name"];
  const json c = call("search_creature", {{"search", "fire breathing dragon"}, {"cr_max", 5}});
  for (const auto& x : c["result"]) EXPECT_LE(x["challenge_rating"].get<double>(), 5.0) << x["name"];
  const json d = call("search_spell", {{"search", "explosion of flame"}, {"documents", {"srd-2024"}}});
  ASSERT_FALSE(d["result"].empty());
  for (const auto& x : d["result"]) EXPECT_EQ(x["document"]["key"], "srd-2024") << x["name"];
  // A facet the words name for a field the call filters by another value ranks, it never widens: lightning
  // under `damage_type` fire (the fixture's Lightning Bolt deals lightning only, and is what the words mean).
  const json fire = call("search_spell", {{"search", "a bolt of lightning"}, {"damage_type", "fire"}});
  ASSERT_FALSE(fire["result"].empty());
  for (const auto& x : fire["result"]) {
    const json types = x.value("damage_types", json::array());
    EXPECT_NE(std::find(types.begin(), types.end(), "fire"), types.end()) << x["name"] << " " << types;
  }
}

// The entries with a facet are kept between searches (they recur), and found again once the store's contents
// change: the Red Dragon Wyrmling ranks for "flies" until its fly speed is gone.
TEST_F(Hybrid, FacetEntriesFollowTheStoresContents) {
  const std::string path = testing::temp_dir() + "/facets.db";
  std::filesystem::copy_file(embedded_store(), path);
  tools::Engine engine(path);
  engine.set_semantic(semantic_);
  auto by_facet = [&engine] {
    std::set<std::string> keys;
    auto r = engine.call("search_creature", {{"search", "undead that flies"}});
    EXPECT_FALSE(r.is_error) << r.text;
    for (const auto& x : r.structured["result"]) {
      const json how = x.value("_matched", json::array());
      if (std::find(how.begin(), how.end(), "facet") != how.end()) keys.insert(x["key"].get<std::string>());
    }
    return keys;
  };
  ASSERT_TRUE(by_facet().count("srd_red-dragon-wyrmling"));
  ASSERT_TRUE(by_facet().count("srd_red-dragon-wyrmling")) << "and again from what was kept";
  {
    auto st = open(path);
    auto got = st->get("srd_red-dragon-wyrmling", model::Kind::kCreature, false);
    ASSERT_TRUE(got.is_ok() && got->size() == 1);
    std::vector<model::Entity> one = std::move(*got);
    ASSERT_TRUE(st->read_tags(one).is_ok());
    ASSERT_FALSE(one[0].facets.movement.empty());
    one[0].facets.movement.clear();
    ASSERT_TRUE(st->upsert({one[0].document}, one).is_ok());
  }
  EXPECT_FALSE(by_facet().count("srd_red-dragon-wyrmling")) << "the changed store was read again";
}

TEST_F(Hybrid, AnExcludedNameFindsOnlyWhatContainsItsWords) {
  // Fireball is 3rd level everywhere: at level 1 nothing shares its meaning in a way that was asked for (Burning
  // Hands, Magic Missile are its kin), and no level-1 spell contains the word, so the answer is empty and says why.
  const json r = call("search_spell", {{"search", "Fireball"}, {"level", 1}});
  EXPECT_EQ(r["total"], 0) << r.dump();
  EXPECT_NE(r["message"].get<std::string>().find("\"Fireball\" is the name of an entry these filters exclude"),
            std::string::npos)
      << r["message"];
  // "Cure Wounds" at level 5 is a name too, but Mass Cure Wounds contains its words: that is what was meant.
  const json m = call("search_spell", {{"search", "Cure Wounds"}, {"level", 5}});
  ASSERT_FALSE(m["result"].empty()) << m.dump();
  for (const auto& x : m["result"]) EXPECT_EQ(x["name"], "Mass Cure Wounds");
  // Nor is a correctly spelt excluded name taken for a typo of another name.
  const json g = call("search_creature", {{"search", "Owlbear"}, {"type", "undead"}});
  EXPECT_EQ(g["total"], 0) << g.dump();
}

TEST_F(Hybrid, GibberishFindsNothing) {
  const json r = call("search_spell", {{"search", "xqzvbnm plorft"}});
  EXPECT_TRUE(r["result"].empty()) << r.dump();
  EXPECT_EQ(call("search_creature", {{"search", "zxcvbnm asdfgh"}})["total"], 0);
  const json all = call("search_all", {{"query", "how to bake sourdough bread"}});
  EXPECT_EQ(all["total"], 0) << all.dump();
}

// An empty answer names the entries that came nearest in meaning (below the floor, never as results), each by a
// key get_entity takes; gibberish gets no such list, and its message does not blame meaning-based search.
TEST_F(Hybrid, AnEmptyAnswerNamesItsNearMisses) {
  const json r = call("search_equipment", {{"search", "a hat that makes bread"}, {"type", "magic-item"}});
  ASSERT_TRUE(r["result"].empty()) << r.dump();
  const std::string message = r.value("message", "");
  const auto at = message.find("Nearest in meaning, too far to count as answers: ");
  ASSERT_NE(at, std::string::npos) << message;
  const auto open = message.find('`', at), close = message.find('`', open + 1);
  ASSERT_NE(close, std::string::npos) << message;
  const std::string key = message.substr(open + 1, close - open - 1);
  auto got = engine_->call("get_entity", {{"key", key}});
  EXPECT_FALSE(got.is_error) << key << ": " << got.text;
  const double similarity = std::stod(message.substr(close + 3));
  EXPECT_GE(similarity, 0.2) << message;
  EXPECT_LT(similarity, 0.34) << message;

  const json g = call("search_spell", {{"search", "xqzvbnm plorft"}});
  EXPECT_EQ(g.value("message", "").find("Nearest"), std::string::npos) << g.dump();
  EXPECT_EQ(g.value("message", "").find("not ready"), std::string::npos) << g.dump();
  EXPECT_NE(g.value("message", "").find("or meaning"), std::string::npos) << g.dump();
}

TEST_F(Hybrid, TextMatchesFarFromTheQuerysMeaningAreLeftOut) {
  // Lexically, "ancient history of the kingdom" also matches Intelligence and Sage, whose texts mention
  // history; their passages are about something else, so hybrid ranking keeps only the History skill.
  auto names = [](const json& r) {  // search_all groups its results by kind
    std::vector<std::string> out;
    for (const auto& [kind, group] : r["result"].items()) {
      for (const auto& x : group) out.push_back(x["name"]);
    }
    return out;
  };
  tools::Engine lexical(embedded_store());
  auto lr = lexical.call("search_all", {{"query", "ancient history of the kingdom"}});
  ASSERT_FALSE(lr.is_error) << lr.text;
  const auto lex = names(lr.structured);
  ASSERT_NE(std::find(lex.begin(), lex.end(), "Intelligence"), lex.end()) << lr.structured.dump();
  const auto hyb = names(call("search_all", {{"query", "ancient history of the kingdom"}}));
  EXPECT_NE(std::find(hyb.begin(), hyb.end(), "History"), hyb.end());
  EXPECT_EQ(std::find(hyb.begin(), hyb.end(), "Intelligence"), hyb.end());
}

TEST_F(Hybrid, AWordOnlyAFewEntriesHoldFindsThemWhateverTheModelMakesOfIt) {
  // "yugoloth" and "myconid" each occur in one entry's text (the Fiend and Plant creature types name them as
  // examples); the model puts the bare word far from those texts, but the words point at exactly them.
  for (const auto& [word, key] : {std::pair<std::string, std::string>{"yugoloth", "srd_fiend"},
                                  std::pair<std::string, std::string>{"myconid", "srd_plant"}}) {
    const json r = call("search_all", {{"query", word}});
    bool found = false;
    for (const auto& [kind, group] : r["result"].items()) {
      for (const auto& x : group) found = found || x["key"] == key;
    }
    EXPECT_TRUE(found) << word << ": " << r.dump();
  }
}

TEST_F(Hybrid, ASizeTheQueryNamesCountsAgainstEntriesFarFromIt) {
  // Both red dragons share the query's words and meaning; the size it names picks one.
  auto first = [&](const std::string& q) {
    const json r = call("search_creature", {{"search", q}});
    return r["result"].empty() ? std::string() : r["result"][0]["name"].get<std::string>();
  };
  EXPECT_EQ(first("a small red dragon that breathes fire"), "Red Dragon Wyrmling");
  EXPECT_EQ(first("a huge red dragon that breathes fire"), "Adult Red Dragon");
}

TEST_F(Hybrid, WordsAloneNeverAnswerWithAPartialMatch) {
  // Two of the six meaningful words are in the Owlbear's text, under the half a text hit needs: with meaning such a
  // partial match is a candidate the meaning checks; by words alone nothing tells it from noise.
  const json args = {{"search", "beak claws spreadsheet mortgage invoice payroll"}};
  tools::Engine lexical(embedded_store());
  auto r = lexical.call("search_creature", args);
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(r.structured["result"].empty()) << r.structured.dump();
}

TEST_F(Hybrid, WordsAndMeaningThatDisagreeAreSaidWithWhichTheFirstResultFollows) {
  // On this small store the query's words lead to one entry and its meaning to another, neither within the other's
  // first ten: the answer says so and names the other's first by key, which is not the first result.
  const json r = call("search_all", {{"query", "monster that drinks blood from sleeping travellers at night"}});
  const std::string message = r.value("message", "");
  const std::string said = "The query's words and its meaning disagree: the first result is the ";
  const size_t at = message.find(said);
  ASSERT_NE(at, std::string::npos) << r.dump();
  const size_t open = message.find('`', at), close = message.find('`', open + 1);
  ASSERT_NE(close, std::string::npos) << message;
  const std::string other = message.substr(open + 1, close - open - 1);
  std::string first_key;
  double best = -1;
  for (const auto& [kind, group] : r["result"].items()) {
    for (const auto& x : group) {
      if (x.value("_score", 0.0) > best) {
        best = x.value("_score", 0.0);
        first_key = x.value("key", "");
      }
    }
  }
  EXPECT_FALSE(first_key.empty());
  EXPECT_NE(other, first_key) << message;
}

TEST_F(Hybrid, FindSimilarUsesMeaningAndLeavesOutTheReferenceAndItsTwins) {
  const json r = call("find_similar", {{"name", "Fireball"}, {"kind", "spell"}});
  ASSERT_FALSE(r["result"].empty());
  for (const auto& x : r["result"]) {
    EXPECT_NE(x["name"], "Fireball");
    EXPECT_EQ(x["kind"], "spell");
  }
  EXPECT_NE(r["message"].get<std::string>().find("meaning"), std::string::npos);
}

TEST_F(Hybrid, LexicalOnlyWhileTheIndexIsNotReady) {
  auto empty = std::make_shared<Semantic>(embed::default_model_dir());
  EXPECT_NE(empty->notice(), "");
  tools::Engine engine(embedded_store());
  engine.set_semantic(empty);
  auto r = engine.call("search_creature", {{"search", "undead that drinks blood and fears sunlight"}});
  EXPECT_FALSE(r.is_error);
  for (const auto& x : r.structured["result"]) {
    const json& matched = x["_matched"];
    EXPECT_EQ(std::find(matched.begin(), matched.end(), "meaning"), matched.end());
  }
}

TEST(Semantic, SearchesWaitForALoadUnderWayAndNotForEmbedding) {
  Semantic s(embed::default_model_dir());
  ASSERT_TRUE(s.has_model());
  // Nothing under way: no wait.
  EXPECT_FALSE(s.wait_loaded(std::chrono::seconds(30)));
  // A load that never ends costs a waiter its bound, no more.
  s.set_loading(true);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(s.wait_loaded(std::chrono::milliseconds(50)));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));
  // A waiter is released as soon as the index is published.
  std::thread loader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto st = open(embedded_store());
    ASSERT_TRUE(s.reload(*st).is_ok());
  });
  EXPECT_TRUE(s.wait_loaded(std::chrono::seconds(60)));
  loader.join();
  // Embedding to do (minutes) ends the wait at once, answering by words meanwhile.
  Semantic fresh(embed::default_model_dir());
  fresh.set_loading(true);
  std::thread embedder([&] { fresh.set_progress({100, 100, 0, 0, 0}); });
  EXPECT_FALSE(fresh.wait_loaded(std::chrono::seconds(60)));
  embedder.join();
  // So does a failure.
  Semantic failing(embed::default_model_dir());
  failing.set_loading(true);
  failing.set_failed("disk on fire");
  EXPECT_FALSE(failing.wait_loaded(std::chrono::seconds(60)));
}

// A copy of the installed model in a temporary directory with NaN written over `count` floats of `tensor`,
// starting at float `first`.
std::string damaged_model(const std::string& tensor, size_t first, size_t count) {
  namespace fs = std::filesystem;
  const std::string src = embed::default_model_dir();
  const std::string dir = testing::temp_dir() + "/damaged-model";
  fs::create_directories(dir);
  for (const char* f : {"vocab.txt", "config.json", "tokenizer_config.json"}) {
    fs::copy_file(src + "/" + f, dir + "/" + f, fs::copy_options::overwrite_existing);
  }
  std::string bytes = testing::read_file(src + "/model.safetensors");
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data(), 8);
  const json header = json::parse(bytes.substr(8, header_len));
  const size_t begin = 8 + header_len + header.at(tensor).at("data_offsets")[0].get<size_t>();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t i = 0; i < count; ++i) std::memcpy(&bytes[begin + (first + i) * sizeof(float)], &nan, sizeof nan);
  testing::write_file(dir + "/model.safetensors", bytes);
  return dir;
}

TEST(Semantic, AModelThatComputesNaNIsRefusedAndAnswersStayLexical) {
  const std::string dir = damaged_model("encoder.layer.0.attention.self.query.weight", 0, 384 * 384);
  auto loaded = embed::Encoder::load(dir);
  ASSERT_TRUE(loaded.is_ok()) << "the files are well-formed: only computing shows the damage";
  const Status check = (*loaded)->self_check();
  EXPECT_EQ(check.code(), StatusCode::kCorruption);
  EXPECT_NE(check.message().find("NaN"), std::string::npos) << check.message();
  EXPECT_NE(check.message().find("model fetch"), std::string::npos) << check.message();
  // Nothing is embedded with it (the fixture store takes the bundled vectors: only a recompute has work for the
  // model), and no index is published.
  auto st = open(store_copy());
  IndexOptions recompute;
  recompute.recompute = true;
  recompute.precomputed = nullptr;
  auto indexed = update_vectors(*st, **loaded, recompute);
  ASSERT_FALSE(indexed.is_ok());
  EXPECT_EQ(indexed.status().code(), StatusCode::kCorruption);
  auto semantic = std::make_shared<Semantic>(dir);
  ASSERT_TRUE(semantic->has_model());
  auto other = open(embedded_store());
  const Status reloaded = semantic->reload(*other);
  EXPECT_FALSE(reloaded.is_ok());
  EXPECT_FALSE(semantic->index());
  semantic->set_failed(reloaded.message());
  EXPECT_NE(semantic->notice().find("unavailable"), std::string::npos) << semantic->notice();
  tools::Engine engine(embedded_store());
  engine.set_semantic(semantic);
  auto r = engine.call("search_spell", {{"search", "fire ball"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_FALSE(r.structured["result"].empty()) << "lexical hits remain";
}

TEST(Semantic, AQueryTheModelCannotEmbedIsAnsweredByWordsAlone) {
  // One NaN in the embedding of the word "owl" (row 13547): the load check passes, queries with "owl" embed to NaN.
  const std::string dir = damaged_model("embeddings.word_embeddings.weight", 13547 * 384, 1);
  auto semantic = std::make_shared<Semantic>(dir);
  ASSERT_TRUE(semantic->has_model());
  auto st = open(embedded_store());
  ASSERT_TRUE(semantic->reload(*st).is_ok());
  ASSERT_TRUE(semantic->index());
  EXPECT_TRUE(semantic->embed("owlbear").empty());
  EXPECT_FALSE(semantic->embed("bear").empty());
  // A phrase the engine composes (a facet's label) is the same embedding, kept; one that cannot be embedded is
  // not kept as empty.
  EXPECT_EQ(semantic->embed_phrase("bear"), semantic->embed("bear"));
  EXPECT_EQ(semantic->embed_phrase("bear"), semantic->embed("bear"));
  EXPECT_TRUE(semantic->embed_phrase("owlbear").empty());
  EXPECT_TRUE(semantic->embed_phrase("owlbear").empty());
  tools::Engine engine(embedded_store());
  engine.set_semantic(semantic);
  for (const char* query : {"owlbear", "owlbear beak and claws"}) {
    auto r = engine.call("search_creature", {{"search", query}});
    ASSERT_FALSE(r.is_error) << r.text;
    bool owlbear = false;
    for (const auto& x : r.structured["result"]) {
      owlbear = owlbear || x["name"] == "Owlbear";
      const json& matched = x["_matched"];
      EXPECT_EQ(std::find(matched.begin(), matched.end(), "meaning"), matched.end()) << query << ": " << x.dump();
    }
    EXPECT_TRUE(owlbear) << query << ": " << r.structured.dump();
  }
}

TEST(Semantic, AMissingModelIsReportedNotFatal) {
  Semantic s(testing::temp_dir() + "/no-model");
  EXPECT_FALSE(s.has_model());
  EXPECT_NE(s.notice().find("off"), std::string::npos);
  EXPECT_TRUE(s.embed("x").empty());
}

}  // namespace
}  // namespace lorekeeper::search
