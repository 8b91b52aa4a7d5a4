#include "lorekeeper/open5e/page_source.hpp"

extern "C" const unsigned char lorekeeper_snapshot_begin[];
extern "C" const unsigned char lorekeeper_snapshot_end[];

namespace lorekeeper::open5e {

const char* bundled_snapshot_description() {
  return "bundled snapshot of the Open5e API (v1 and v2 list pages, recorded 2026-11-22)";
}

Result<std::unique_ptr<PageSource>> make_bundled_source() {
  const size_t size = static_cast<size_t>(lorekeeper_snapshot_end - lorekeeper_snapshot_begin);
  return make_archive_source(lorekeeper_snapshot_begin, size, bundled_snapshot_description());
}

}  // namespace lorekeeper::open5e
