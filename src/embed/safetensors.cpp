#include "lorekeeper/embed/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "lorekeeper/core/json_util.hpp"

namespace lorekeeper::embed {

namespace {

size_t dtype_size(const std::string& dtype) {
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL") return 1;
  return 0;
}

}  // namespace

int64_t Tensor::elements() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Result<std::unique_ptr<SafeTensors>> SafeTensors::parse(const unsigned char* data, size_t size) {
  if (size < 8) return Status::corruption("safetensors: file of " + std::to_string(size) + " bytes has no header");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | data[i];
  if (header_len == 0 || header_len > size - 8 || header_len > (100u << 20)) {
    return Status::corruption("safetensors: header length " + std::to_string(header_len) + " does not fit a file of " +
                              std::to_string(size) + " bytes");
  }
  const std::string header(reinterpret_cast<const char*>(data + 8), static_cast<size_t>(header_len));
  std::string why;
  auto parsed = json_util::parse(header, &why);
  if (!parsed || !parsed->is_object()) {
    return Status::corruption("safetensors: header is not a JSON object" + (parsed ? "" : " (" + why + ")"));
  }
  const nlohmann::json& j = *parsed;
  const unsigned char* base = data + 8 + header_len;
  const size_t data_size = size - 8 - static_cast<size_t>(header_len);
  std::unique_ptr<SafeTensors> st(new SafeTensors());
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const auto& v = it.value();
    const std::string where = "safetensors: tensor '" + it.key() + "'";
    if (!v.is_object() || !v.contains("dtype") || !v["dtype"].is_string() || !v.contains("shape") ||
        !v["shape"].is_array() || !v.contains("data_offsets") || !v["data_offsets"].is_array() ||
        v["data_offsets"].size() != 2) {
      return Status::corruption(where + " lacks dtype, shape or data_offsets");
    }
    Tensor t;
    t.dtype = v["dtype"].get<std::string>();
    const size_t esize = dtype_size(t.dtype);
    if (esize == 0) return Status::corruption(where + " has unknown dtype " + t.dtype);
    uint64_t count = 1;
    for (const auto& d : v["shape"]) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > (1ull << 32)) {
        return Status::corruption(where + " has an invalid shape");
      }
      t.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
      count *= d.get<uint64_t>();
      if (count > (1ull << 34)) return Status::corruption(where + " is impossibly large");
    }
    const auto& off = v["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
      return Status::corruption(where + " has invalid data_offsets");
    }
    const uint64_t begin = off[0].get<uint64_t>();
    const uint64_t end = off[1].get<uint64_t>();
    if (begin > end || end > data_size) {
      return Status::corruption(where + " lies outside the file (bytes " + std::to_string(begin) + ".." +
                                std::to_string(end) + " of " + std::to_string(data_size) + ")");
    }
    if (end - begin != count * esize) {
      return Status::corruption(where + ": shape needs " + std::to_string(count * esize) + " bytes, range has " +
                                std::to_string(end - begin));
    }
    t.data = base + begin;
    t.bytes = static_cast<size_t>(end - begin);
    st->tensors_.emplace(it.key(), std::move(t));
  }
  // Two tensors may not share bytes: a header whose ranges overlap would load and give one tensor another's
  // weights.
  std::vector<std::pair<const unsigned char*, const std::string*>> starts;
  for (const auto& [name, t] : st->tensors_) starts.emplace_back(t.data, &name);
  std::sort(starts.begin(), starts.end());
  for (size_t i = 1; i < starts.size(); ++i) {
    const Tensor& before = st->tensors_.at(*starts[i - 1].second);
    if (before.bytes > 0 && before.data + before.bytes > starts[i].first) {
      return Status::corruption("safetensors: tensors '" + *starts[i - 1].second + "' and '" + *starts[i].second +
                                "' overlap");
    }
  }
  return st;
}

namespace {
FileIdentity identity_of(const struct stat& sb) {
  FileIdentity id;
  id.device = static_cast<uint64_t>(sb.st_dev);
  id.inode = static_cast<uint64_t>(sb.st_ino);
  id.size = static_cast<uint64_t>(sb.st_size);
  id.mtime_ns = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
  id.ctime_ns = static_cast<int64_t>(sb.st_ctim.tv_sec) * 1000000000 + sb.st_ctim.tv_nsec;
  return id;
}
}  // namespace

FileIdentity FileIdentity::of_fd(int fd) {
  struct stat sb {};
  return fstat(fd, &sb) == 0 ? identity_of(sb) : FileIdentity{};
}

FileIdentity FileIdentity::of_path(const std::string& path) {
  struct stat sb {};
  return ::stat(path.c_str(), &sb) == 0 ? identity_of(sb) : FileIdentity{};
}

Result<std::unique_ptr<SafeTensors>> SafeTensors::open(const std::string& path) {
  // Opened without blocking (a FIFO with no writer would hang the caller, and serve with it) and mapped only if
  // it is a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::not_found("cannot open " + path + ": " + std::strerror(errno));
  struct stat sb {};
  if (fstat(fd, &sb) != 0) {
    ::close(fd);
    return Status::io_error("cannot stat " + path);
  }
  if (!S_ISREG(sb.st_mode)) {
    ::close(fd);
    return Status::invalid_argument(path + " is not a regular file");
  }
  const size_t size = static_cast<size_t>(sb.st_size);
  void* map = size > 0 ? mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  ::close(fd);
  if (map == MAP_FAILED) return Status::io_error("cannot map " + path + " (" + std::to_string(size) + " bytes)");
  auto parsed = parse(static_cast<const unsigned char*>(map), size);
  if (!parsed) {
    munmap(map, size);
    return Status(parsed.status().code(), path + ": " + parsed.status().message());
  }
  (*parsed)->map_ = map;
  (*parsed)->map_size_ = size;
  (*parsed)->identity_ = identity_of(sb);
  return std::move(*parsed);
}

SafeTensors::~SafeTensors() {
  if (map_ != nullptr) munmap(map_, map_size_);
}

void SafeTensors::release_pages() const {
  // A private, read-only file mapping that was never written: dropped pages are read again from the file.
  if (map_ != nullptr) madvise(map_, map_size_, MADV_DONTNEED);
}

const Tensor* SafeTensors::find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

Result<const float*> SafeTensors::f32(const std::string& name, const std::vector<int64_t>& shape) const {
  const Tensor* t = find(name);
  if (t == nullptr) return Status::invalid_argument("model has no tensor '" + name + "'");
  if (t->dtype != "F32") return Status::invalid_argument("tensor '" + name + "' is " + t->dtype + ", not F32");
  if (t->shape != shape) {
    std::string got;
    for (auto d : t->shape) got += (got.empty() ? "" : "x") + std::to_string(d);
    return Status::invalid_argument("tensor '" + name + "' has shape " + got);
  }
  return t->f32();
}

}  // namespace lorekeeper::embed
