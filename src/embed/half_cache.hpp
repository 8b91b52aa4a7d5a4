// The queries' half-precision layer weights kept in a file beside the model, so a process that only encodes
// queries (a serve) maps 21 MB in place instead of reading the 42 MB of float layer weights and packing them
// (20-40 ms at every start, and the float pages resident meanwhile).
//
// File layout (little-endian, the host's): a 128-byte header, then the halves as kernels::pack_half packs them.
//   magic "LKQHALF2", u32 layout (pack_half's panel order and kernels::kPanel), u32 0, u64 halves,
//   the model file's identity (FileIdentity: device, inode, size, modification and change times in ns),
//   u64 checksum of the halves (see checksum()), then zeros to byte 128.
// A file is used only when every header field matches the model file the encoder mapped (its identity when it
// was opened, not whatever the path names by now) and the checksum matches the halves: a replaced model
// (`lorekeeper model fetch`, an archive unpacked over it) makes the old file stale; a short, damaged, foreign or
// non-regular file is ignored and overwritten by the next write. A write goes to an unnamed temporary file that
// is named only when whole (then renamed into place), so a reader sees a whole file or none, and a process cut
// short while writing leaves nothing behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/embed/safetensors.hpp"

namespace lorekeeper::embed::half_cache {

// Where the cache of a model directory lives.
std::string path_in(const std::string& model_dir);

// The cached halves of the model file `model`, exactly `count` of them, mapped read-only; nullptr when the file
// is missing, stale or damaged (`why`, when given, says which, for a debug log).
std::shared_ptr<const uint16_t> read(const std::string& cache_path, const FileIdentity& model, size_t count,
                                     std::string* why = nullptr);

// Writes `count` halves as the cache of the model file `model`. InvalidArgument when a half is not finite (a
// damaged model's weights are not kept); IoError when the directory is not writable or the disk is full (an
// existing cache is left as it was).
Status write(const std::string& cache_path, const FileIdentity& model, const uint16_t* halves, size_t count);

// 64-bit checksum of `count` halves: a multiply-xor over 8-byte words (any flipped bit changes it).
uint64_t checksum(const uint16_t* halves, size_t count);

}  // namespace lorekeeper::embed::half_cache
