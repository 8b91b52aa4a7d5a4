#include "lorekeeper/core/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::log {

namespace {
std::atomic<Level> g_level{Level::kInfo};
std::mutex g_mutex;
const char* level_name(Level l) {
  switch (l) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarning: return "warning";
    case Level::kError: return "error";
    case Level::kOff: return "off";
  }
  return "?";
}
}  // namespace

bool parse_level(std::string_view name, Level* out) {
  const std::string n = text::lower(name);
  if (n == "debug")
    *out = Level::kDebug;
  else if (n == "info")
    *out = Level::kInfo;
  else if (n == "warning" || n == "warn")
    *out = Level::kWarning;
  else if (n == "error")
    *out = Level::kError;
  else if (n == "off" || n == "none")
    *out = Level::kOff;
  else
    return false;
  return true;
}

void set_level(Level l) { g_level.store(l); }
Level level() { return g_level.load(); }

void write(Level l, std::string_view message) {
  if (l < g_level.load() || l == Level::kOff) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  std::fprintf(stderr, "lorekeeper %s: %.*s\n", level_name(l), static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
}

}  // namespace lorekeeper::log
