// Logging to stderr only: stdout belongs to the MCP protocol. Thread-safe.
#pragma once

#include <string_view>

namespace lorekeeper::log {

enum class Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };

// Parses "debug", "info", "warning"/"warn", "error", "off" (any case); returns false if unknown.
bool parse_level(std::string_view name, Level* out);
void set_level(Level level);
Level level();

void write(Level level, std::string_view message);
inline void debug(std::string_view m) { write(Level::kDebug, m); }
inline void info(std::string_view m) { write(Level::kInfo, m); }
inline void warning(std::string_view m) { write(Level::kWarning, m); }
inline void error(std::string_view m) { write(Level::kError, m); }

}  // namespace lorekeeper::log
