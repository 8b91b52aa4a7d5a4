#include "test_support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "lorekeeper/open5e/page_source.hpp"
#include "lorekeeper/open5e/sync.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::testing {

namespace {
// Defined before the cleanup object, so it is destroyed after it.
std::vector<std::string> g_dirs;
struct Cleanup {
  ~Cleanup() {
    std::error_code ec;
    for (const auto& d : g_dirs) std::filesystem::remove_all(d, ec);
  }
} g_cleanup;
}  // namespace

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "lorekeeper-test-XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const char* made = mkdtemp(buf.data());
  if (made == nullptr) std::abort();
  g_dirs.push_back(made);
  return made;
}

std::string fixture_mirror() { return std::string(LOREKEEPER_FIXTURES) + "/mirror-mini"; }

std::string fixture_store() {
  static const std::string path = [] {
    const std::string p = temp_dir() + "/fixture.db";
    auto st = store::Store::open(p, store::Store::Mode::kReadWrite);
    if (!st) std::abort();
    auto source = open5e::make_directory_source(fixture_mirror());
    auto report = open5e::sync(*source, **st, open5e::SyncOptions{});
    if (!report) {
      std::fprintf(stderr, "fixture load failed: %s\n", report.status().to_string().c_str());
      std::abort();
    }
    return p;
  }();
  return path;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace lorekeeper::testing
