// A read-only view of a .safetensors file: an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the data. The file is memory-mapped; tensors point into it.
// Everything is validated on open: header size and JSON, dtypes, shapes against byte ranges, ranges inside the
// file and not overlapping the header. Non-copyable; tensors are valid while the object lives.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::embed {

struct Tensor {
  std::string dtype;  // "F32", "I64", ...
  std::vector<int64_t> shape;
  const unsigned char* data = nullptr;
  size_t bytes = 0;
  const float* f32() const { return reinterpret_cast<const float*>(data); }
  int64_t elements() const;
};

// Which file a path named when it was opened: what a cache made from the file's contents records to recognise it
// (half_cache.hpp). The change time cannot be set back by a user, so a file replaced by one of the same size,
// modification time and even inode number still differs.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
  // The identity of the file open as `fd`.
  static FileIdentity of_fd(int fd);
  // The identity of the file at `path` now; all zero when it cannot be read.
  static FileIdentity of_path(const std::string& path);
};

class SafeTensors {
 public:
  // Corruption for a malformed file, NotFound if it does not exist, IoError if it cannot be mapped.
  static Result<std::unique_ptr<SafeTensors>> open(const std::string& path);
  // Parses an in-memory image (used by the loader and by its fuzz target).
  static Result<std::unique_ptr<SafeTensors>> parse(const unsigned char* data, size_t size);
  ~SafeTensors();
  SafeTensors(const SafeTensors&) = delete;
  SafeTensors& operator=(const SafeTensors&) = delete;

  const Tensor* find(const std::string& name) const;
  // The tensor `name` as F32 with exactly `shape`; InvalidArgument naming what differs.
  Result<const float*> f32(const std::string& name, const std::vector<int64_t>& shape) const;
  size_t size() const { return tensors_.size(); }
  // Tells the kernel the mapped pages may leave this process's memory (the data stays valid: a later read maps
  // them in again from the page cache or the file). No-op for a parsed in-memory image.
  void release_pages() const;
  // The file the tensors were mapped from, as it was when opened (all zero for a parsed in-memory image).
  const FileIdentity& identity() const { return identity_; }

 private:
  SafeTensors() = default;
  std::map<std::string, Tensor> tensors_;
  void* map_ = nullptr;  // owned mapping, or null for a parsed in-memory image
  size_t map_size_ = 0;
  FileIdentity identity_;
};

}  // namespace lorekeeper::embed
