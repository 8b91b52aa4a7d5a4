// The queries' half-precision layer weights kept in a file beside the model, so a process that only encodes
// queries (a serve) maps 21 MB in place instead of reading the 42 MB of float layer weights and packing them
// (20-40 ms at every start, and the float pages resident meanwhile).
//
// File layout (little-endian, the host's): a 64-byte header, then the halves as kernels::pack_half packs them.
//   magic "LKQHALF1", u32 layout (pack_half's panel order and kernels::kPanel), u32 0,
//   u64 halves, u64 model file size, i64 model modification time (ns), u64 model inode,
//   u64 checksum of the halves (see checksum()), u64 0.
// A file is used only when every header field matches the model file as it is now and the checksum matches the
// halves: replacing the model (`lorekeeper model fetch`) makes the old file stale; a short, damaged or foreign
// file is ignored and overwritten by the next write. Writes go through a temporary file and a rename, so a
// reader sees a whole file or none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::embed::half_cache {

// Where the cache of a model directory lives.
std::string path_in(const std::string& model_dir);

// The cached halves of `model_file`, exactly `count` of them, mapped read-only; nullptr when the file is missing,
// stale or damaged (`why`, when given, says which, for a debug log).
std::shared_ptr<const uint16_t> read(const std::string& cache_path, const std::string& model_file, size_t count,
                                     std::string* why = nullptr);

// Writes `count` halves as the cache of `model_file`. IoError when the directory is not writable or the disk is
// full (the temporary file is removed; an existing cache is left as it was).
Status write(const std::string& cache_path, const std::string& model_file, const uint16_t* halves, size_t count);

// 64-bit checksum of `count` halves: a multiply-xor over 8-byte words (any flipped bit changes it).
uint64_t checksum(const uint16_t* halves, size_t count);

}  // namespace lorekeeper::embed::half_cache
