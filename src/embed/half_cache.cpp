#include "half_cache.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "kernels.hpp"

namespace lorekeeper::embed::half_cache {
namespace {

constexpr char kMagic[8] = {'L', 'K', 'Q', 'H', 'A', 'L', 'F', '2'};
// pack_half's order, with its panel width: a change of either makes older files stale.
constexpr uint32_t kLayout = 0x10000u + static_cast<uint32_t>(kernels::kPanel);

struct Header {
  char magic[8];
  uint32_t layout;
  uint32_t zero;
  uint64_t halves;
  uint64_t device;
  uint64_t inode;
  uint64_t size;
  int64_t mtime_ns;
  int64_t ctime_ns;
  uint64_t checksum;
  uint64_t reserved[7];
};
static_assert(sizeof(Header) == 128, "the header is 128 bytes: the halves start 64-byte aligned in the mapping");

bool same_file(const Header& h, const FileIdentity& m) {
  return h.device == m.device && h.inode == m.inode && h.size == m.size && h.mtime_ns == m.mtime_ns &&
         h.ctime_ns == m.ctime_ns;
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

// The directory of `path` ("." when it has none).
std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
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

std::shared_ptr<const uint16_t> read(const std::string& cache_path, const FileIdentity& model, size_t count,
                                     std::string* why) {
  auto fail = [why](const char* reason) -> std::shared_ptr<const uint16_t> {
    if (why) *why = reason;
    return nullptr;
  };
  if (model.size == 0) return fail("the model was not read from a file");
  Fd f;
  // Non-blocking: a FIFO of that name would otherwise hold the open.
  f.fd = ::open(cache_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (f.fd < 0) return fail("no cache file");
  struct stat st {};
  const size_t size = sizeof(Header) + count * sizeof(uint16_t);
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return fail("the cache is not a regular file");
  if (static_cast<uint64_t>(st.st_size) != size) return fail("the cache file's size");
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.fd, 0);
  if (map == MAP_FAILED) return fail("the cache file cannot be mapped");
  std::shared_ptr<const unsigned char> mapping(static_cast<const unsigned char*>(map), [size](const unsigned char* p) {
    ::munmap(const_cast<unsigned char*>(p), size);
  });
  Header h;
  std::memcpy(&h, mapping.get(), sizeof h);
  const bool reserved_zero =
      std::all_of(std::begin(h.reserved), std::end(h.reserved), [](uint64_t r) { return r == 0; });
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.layout != kLayout || h.zero != 0 || !reserved_zero) {
    return fail("not a cache file of this version");
  }
  if (h.halves != count) return fail("the cache file holds another shape");
  if (!same_file(h, model)) return fail("the cache was made from another model file");
  const auto* halves = reinterpret_cast<const uint16_t*>(mapping.get() + sizeof(Header));
  if (checksum(halves, count) != h.checksum) return fail("the cache file's checksum does not match");
  return std::shared_ptr<const uint16_t>(mapping, halves);
}

Status write(const std::string& cache_path, const FileIdentity& model, const uint16_t* halves, size_t count) {
  if (model.size == 0) return Status::invalid_argument("the model was not read from a file");
  for (size_t i = 0; i < count; ++i) {
    if ((halves[i] & 0x7c00u) == 0x7c00u) return Status::invalid_argument("the weights hold NaN or infinity");
  }
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.layout = kLayout;
  h.halves = count;
  h.device = model.device;
  h.inode = model.inode;
  h.size = model.size;
  h.mtime_ns = model.mtime_ns;
  h.ctime_ns = model.ctime_ns;
  h.checksum = checksum(halves, count);
  // Unnamed until it is whole: a process that stops while writing leaves nothing. Where the file system has no
  // unnamed files, a temporary name for this process.
  const std::string named = cache_path + ".tmp." + std::to_string(::getpid());
  Fd f;
  bool unnamed = true;
  f.fd = ::open(dir_of(cache_path).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (f.fd < 0) {
    unnamed = false;
    f.fd = ::open(named.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (f.fd < 0) return Status::io_error("cannot create a file beside " + cache_path + ": " + std::strerror(errno));
  Status s = write_all(f.fd, &h, sizeof h);
  if (s.is_ok()) s = write_all(f.fd, halves, count * sizeof(uint16_t));
  if (s.is_ok() && ::fsync(f.fd) != 0) s = Status::io_error(std::strerror(errno));
  if (s.is_ok() && unnamed) {
    ::unlink(named.c_str());  // left by a process with this number that stopped between naming and renaming
    const std::string proc = "/proc/self/fd/" + std::to_string(f.fd);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      s = Status::io_error(std::strerror(errno));
    }
  }
  if (s.is_ok() && ::rename(named.c_str(), cache_path.c_str()) != 0) s = Status::io_error(std::strerror(errno));
  if (!s.is_ok()) {
    ::unlink(named.c_str());
    return Status::io_error("writing " + cache_path + ": " + s.message());
  }
  return Status::ok();
}

}  // namespace lorekeeper::embed::half_cache
