// SHA-256 (FIPS 180-4), for checking downloaded files against known digests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::sha256 {

// Incremental hashing: update() any number of times, then hex() once.
class Hasher {
 public:
  Hasher();
  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // The digest as 64 lower-case hex digits. The hasher is finished afterwards.
  std::string hex();

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes hashed so far
};

std::string hex(std::string_view data);
// The digest of a file's contents, read in chunks. IoError when it cannot be read.
Result<std::string> file_hex(const std::string& path);

}  // namespace lorekeeper::sha256
