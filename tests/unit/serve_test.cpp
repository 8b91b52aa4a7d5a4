// The serve runtime's parts on their own: the freshness policy, the background refresh against an API that does not
// answer (nothing may listen on 127.0.0.1 port 1), the bootstrap's refusals and the embedder without a model. serve
// itself is driven over stdio and HTTP by the transcript, http and e2e tests.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <string>
#include <thread>

#include "lorekeeper/open5e/sync.hpp"
#include "lorekeeper/serve/embedder.hpp"
#include "lorekeeper/serve/engines.hpp"
#include "lorekeeper/serve/refresh.hpp"
#include "lorekeeper/store/store.hpp"
#include "test_support.hpp"

namespace lorekeeper::serve {
namespace {

std::string iso_days_ago(int days) {
  const std::time_t then = std::time(nullptr) - static_cast<std::time_t>(days) * 86400 - 60;
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&then));
  return buf;
}

// A store whose last sync from `source` was `days` ago.
std::string store_synced_days_ago(const std::string& name, int days, const std::string& source) {
  const std::string path = testing::temp_dir() + "/" + name;
  auto st = store::Store::open(path, store::Store::Mode::kReadWrite);
  EXPECT_TRUE(st.is_ok()) << st.status().to_string();
  const long long when = static_cast<long long>(std::time(nullptr)) - static_cast<long long>(days) * 86400 - 60;
  EXPECT_TRUE((*st)->set_meta("synced_unix:open5e", std::to_string(when)).is_ok());
  EXPECT_TRUE((*st)->set_meta("synced_at:open5e", iso_days_ago(days)).is_ok());
  EXPECT_TRUE((*st)->set_meta("source:open5e", source).is_ok());
  return path;
}

// The notice of `refresh` once it says something, or empty after a minute (the refresh never ended).
std::string notice_when_said(const BackgroundRefresh& refresh) {
  for (int i = 0; i < 6000; ++i) {
    std::string said = refresh.notice();
    if (!said.empty() && said.find("being refreshed") == std::string::npos) return said;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "";
}

Config offline_config(const std::string& db_path) {
  Config cfg;
  cfg.db_path = db_path;
  cfg.open5e_base_url = "http://127.0.0.1:1";  // nothing listens on port 1: every request is refused at once
  cfg.http_retries = 0;
  cfg.http_timeout_seconds = 5;
  cfg.embed = "off";
  return cfg;
}

TEST(Freshness, AgesAndTheRefreshInterval) {
  EXPECT_EQ(age_of(iso_days_ago(3)), "3 days");
  EXPECT_EQ(age_of("yesterday"), "unknown");
  Config cfg;
  cfg.cache_ttl_days = 7;
  const long long now = static_cast<long long>(std::time(nullptr));
  EXPECT_FALSE(is_stale(cfg, now - 6 * 86400));
  EXPECT_TRUE(is_stale(cfg, now - 7 * 86400 - 1));
  EXPECT_TRUE(is_stale(cfg, 0)) << "never synced";
}

TEST(Freshness, AStoreSaysWhenAndFromWhereItWasLastSynced) {
  const std::string path = store_synced_days_ago("last.db", 2, "https://api.example");
  auto st = store::Store::open(path, store::Store::Mode::kExistingOnly);
  ASSERT_TRUE(st.is_ok());
  const open5e::LastSync last = open5e::last_sync(**st);
  EXPECT_EQ(last.source, "https://api.example");
  EXPECT_EQ(age_of(last.at), "2 days");
  EXPECT_GT(last.unix_time, 0);
  auto fresh = store::Store::open(testing::temp_dir() + "/never.db", store::Store::Mode::kReadWrite);
  ASSERT_TRUE(fresh.is_ok());
  const open5e::LastSync never = open5e::last_sync(**fresh);
  EXPECT_TRUE(never.source.empty() && never.at.empty());
  EXPECT_EQ(never.unix_time, 0);
}

// A list that failed is not asked again before the error TTL; one that worked is forgotten; one the sync skipped
// keeps its failure.
TEST(Freshness, FailedListsWaitForTheErrorTtl) {
  const std::string path = testing::temp_dir() + "/failures.db";
  auto st = store::Store::open(path, store::Store::Mode::kReadWrite);
  ASSERT_TRUE(st.is_ok());
  Config cfg;
  cfg.error_cache_ttl_seconds = 300;
  const auto endpoints = open5e::sync_endpoints();
  ASSERT_GE(endpoints.size(), 3u);
  open5e::SyncReport report;
  report.failed = {{endpoints[1], "HTTP 503"}, {endpoints[2], "timed out"}};
  record_endpoint_failures(**st, report, open5e::SyncOptions{});
  EXPECT_EQ(recently_failed_endpoints(cfg, **st), (std::vector<std::string>{endpoints[1], endpoints[2]}));
  // The next sync skipped endpoints[1] and endpoints[2] worked.
  open5e::SyncOptions skipping;
  skipping.skip_endpoints = {endpoints[1]};
  record_endpoint_failures(**st, open5e::SyncReport{}, skipping);
  EXPECT_EQ(recently_failed_endpoints(cfg, **st), (std::vector<std::string>{endpoints[1]}));
  cfg.error_cache_ttl_seconds = 0;
  EXPECT_TRUE(recently_failed_endpoints(cfg, **st).empty()) << "past the error TTL a failed list is asked again";
}

TEST(Freshness, SourcesAreNamedOrRefused) {
  Config cfg;
  EXPECT_TRUE(open_source(cfg, "bundled").is_ok());
  EXPECT_TRUE(open_source(cfg, "https://api.example").is_ok());
  auto refused = open_source(cfg, testing::temp_dir() + "/no-such-archive.tar.zst");
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("is neither a URL"), std::string::npos) << refused.status().message();
}

// Stale data and an API that refuses every connection: the answers say how old the data is and that refreshing it
// failed, whether the refresh first probes the API (auto) or tries regardless (on); the data is left as it was.
TEST(BackgroundRefresh, AFailedRefreshIsSaidInEveryAnswer) {
  for (const char* mode : {"auto", "on"}) {
    const std::string path = store_synced_days_ago(std::string("stale-") + mode + ".db", 30, "https://api.example");
    bool synced = false;
    BackgroundRefresh refresh(offline_config(path), mode, [&synced] { synced = true; });
    const std::string said = notice_when_said(refresh);
    EXPECT_NE(said.find("30 days ago"), std::string::npos) << mode << ": " << said;
    EXPECT_NE(said.find("failed"), std::string::npos) << mode << ": " << said;
    EXPECT_TRUE(refresh.stop());
    EXPECT_FALSE(synced) << mode;
    auto st = store::Store::open(path, store::Store::Mode::kExistingOnly);
    ASSERT_TRUE(st.is_ok());
    EXPECT_EQ(open5e::last_sync(**st).source, "https://api.example") << mode;
  }
}

// Fresh data is not refreshed, "off" never refreshes, and a store that does not exist yet is left to the first tool
// call: each refresh ends by itself with nothing to say (the same refresh of data 30 days old says it failed, above).
TEST(BackgroundRefresh, FreshOffOrNoStoreSaysNothing) {
  const std::string fresh = store_synced_days_ago("fresh.db", 1, "https://api.example");
  const std::string stale = store_synced_days_ago("stale-off.db", 30, "https://api.example");
  const std::string none = testing::temp_dir() + "/none.db";
  for (const auto& [path, mode] :
       std::vector<std::pair<std::string, std::string>>{{fresh, "on"}, {stale, "off"}, {none, "on"}}) {
    BackgroundRefresh refresh(offline_config(path), mode, nullptr);
    for (int i = 0; i < 6000 && !refresh.finished(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(refresh.finished()) << path << " " << mode << ": still refreshing after a minute";
    EXPECT_EQ(refresh.notice(), "") << path << " " << mode;
    EXPECT_TRUE(refresh.stop(std::chrono::seconds(0)));
  }
  EXPECT_FALSE(std::filesystem::exists(none)) << "the refresh built a store";
}

TEST(Bootstrap, AStoreThatExistsIsKeptAndADanglingLinkIsRefused) {
  const std::string dir = testing::temp_dir();
  const std::string existing = store_synced_days_ago("existing.db", 1, "https://api.example");
  ASSERT_TRUE(bootstrap_from_bundled(offline_config(existing), existing).is_ok());
  auto st = store::Store::open(existing, store::Store::Mode::kExistingOnly);
  ASSERT_TRUE(st.is_ok());
  EXPECT_EQ(open5e::last_sync(**st).source, "https://api.example") << "the store was rebuilt";
  const std::string link = dir + "/dangling.db";
  std::filesystem::create_symlink(dir + "/gone/store.db", link);
  Status refused = bootstrap_from_bundled(offline_config(link), link);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.to_string();
  EXPECT_FALSE(std::filesystem::exists(dir + "/gone"));
}

// Without a model there is nothing to embed: no thread is started, searches are not held for vectors that will
// never load, and answers say meaning-based search is off.
TEST(BackgroundEmbedder, WithoutAModelNothingWaitsForIt) {
  const std::string dir = testing::temp_dir();
  auto semantic = std::make_shared<search::Semantic>(dir + "/no-model", 1, true);
  BackgroundEmbedder embedder(offline_config(dir + "/none.db"), semantic);
  embedder.request();
  EXPECT_TRUE(embedder.stop_within(std::chrono::milliseconds(0)));
  EXPECT_FALSE(semantic->wait_loaded(std::chrono::seconds(0)));
  EXPECT_NE(semantic->notice().find("Meaning-based search is off"), std::string::npos) << semantic->notice();
  EXPECT_EQ(make_semantic(offline_config(dir)), nullptr) << "embedding off";
}

}  // namespace
}  // namespace lorekeeper::serve
