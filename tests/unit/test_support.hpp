// Shared helpers for the unit tests: temporary directories and stores filled from the fixture mirror
// (tests/fixtures/mirror-mini, records cut from the real Open5e API by scripts/cut_fixtures.py).
#pragma once

#include <string>

namespace lorekeeper::testing {

// A fresh empty directory, removed at process exit.
std::string temp_dir();
// The fixture mirror directory.
std::string fixture_mirror();
// A store filled from the fixture mirror, built once per process; tests must not modify it.
std::string fixture_store();
// Writes `text` to `path`.
void write_file(const std::string& path, const std::string& text);
std::string read_file(const std::string& path);

}  // namespace lorekeeper::testing
