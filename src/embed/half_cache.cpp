#include "half_cache.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kernels.hpp"

namespace lorekeeper::embed::half_cache {
namespace {

constexpr char kMagic[8] = {'L', 'K', 'Q', 'H', 'A', 'L', 'F', '1'};
// pack_half's order, with its panel width: a change of either makes older files stale.
constexpr uint32_t kLayout = 0x10000u + static_cast<uint32_t>(kernels::kPanel);

struct Header {
  char magic[8];
  uint32_t layout;
  uint32_t zero;
  uint64_t halves;
  uint64_t model_size;
  int64_t model_mtime_ns;
  uint64_t model_inode;
  uint64_t checksum;
  uint64_t reserved;
};
static_assert(sizeof(Header) == 64, "the header is 64 bytes: the halves start 64-byte aligned in the mapping");

// The identity of the model file as it is now: size, modification time and inode.
bool identify(const std::string& model_file, Header* h) {
  struct stat st {};
  if (::stat(model_file.c_str(), &st) != 0) return false;
  h->model_size = static_cast<uint64_t>(st.st_size);
  h->model_mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  h->model_inode = static_cast<uint64_t>(st.st_ino);
  return true;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Status write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Status::io_error(std::strerror(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::ok();
}

}  // namespace

std::string path_in(const std::string& model_dir) { return model_dir + "/query-weights.f16"; }

uint64_t checksum(const uint16_t* halves, size_t count) {
  // Four independent lanes (a multiply's latency, not its throughput, bounds one chain), then combined.
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t lane[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull};
  const size_t words = count / 4;  // 4 halves per 8-byte word
  size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      std::memcpy(&w, halves + 4 * (i + static_cast<size_t>(l)), sizeof w);
      lane[l] = (lane[l] ^ w) * kPrime;
    }
  }
  uint64_t h = lane[0];
  for (int l = 1; l < 4; ++l) h = (h ^ lane[l]) * kPrime;
  for (size_t k = 4 * i; k < count; ++k) h = (h ^ halves[k]) * kPrime;
  return h ^ static_cast<uint64_t>(count);
}

std::shared_ptr<const uint16_t> read(const std::string& cache_path, const std::string& model_file, size_t count,
                                     std::string* why) {
  auto fail = [why](const char* reason) -> std::shared_ptr<const uint16_t> {
    if (why) *why = reason;
    return nullptr;
  };
  Header expected{};
  if (!identify(model_file, &expected)) return fail("the model file cannot be read");
  Fd f;
  f.fd = ::open(cache_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) return fail("no cache file");
  struct stat st {};
  const size_t size = sizeof(Header) + count * sizeof(uint16_t);
  if (::fstat(f.fd, &st) != 0 || static_cast<uint64_t>(st.st_size) != size) return fail("the cache file's size");
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.fd, 0);
  if (map == MAP_FAILED) return fail("the cache file cannot be mapped");
  std::shared_ptr<const unsigned char> mapping(static_cast<const unsigned char*>(map), [size](const unsigned char* p) {
    ::munmap(const_cast<unsigned char*>(p), size);
  });
  Header h;
  std::memcpy(&h, mapping.get(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.layout != kLayout || h.zero != 0 || h.reserved != 0) {
    return fail("not a cache file of this version");
  }
  if (h.halves != count) return fail("the cache file holds another shape");
  if (h.model_size != expected.model_size || h.model_mtime_ns != expected.model_mtime_ns ||
      h.model_inode != expected.model_inode) {
    return fail("the model file changed since the cache was written");
  }
  const auto* halves = reinterpret_cast<const uint16_t*>(mapping.get() + sizeof(Header));
  if (checksum(halves, count) != h.checksum) return fail("the cache file's checksum does not match");
  return std::shared_ptr<const uint16_t>(mapping, halves);
}

Status write(const std::string& cache_path, const std::string& model_file, const uint16_t* halves, size_t count) {
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.layout = kLayout;
  h.halves = count;
  if (!identify(model_file, &h)) return Status::not_found("cannot read " + model_file);
  h.checksum = checksum(halves, count);
  const std::string tmp = cache_path + ".tmp." + std::to_string(::getpid());
  Fd f;
  f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f.fd < 0) return Status::io_error("cannot create " + tmp + ": " + std::strerror(errno));
  Status s = write_all(f.fd, &h, sizeof h);
  if (s.is_ok()) s = write_all(f.fd, halves, count * sizeof(uint16_t));
  if (s.is_ok() && ::fsync(f.fd) != 0) s = Status::io_error(std::strerror(errno));
  if (s.is_ok() && ::rename(tmp.c_str(), cache_path.c_str()) != 0) s = Status::io_error(std::strerror(errno));
  if (!s.is_ok()) {
    ::unlink(tmp.c_str());
    return Status::io_error("writing " + cache_path + ": " + s.message());
  }
  return Status::ok();
}

}  // namespace lorekeeper::embed::half_cache
