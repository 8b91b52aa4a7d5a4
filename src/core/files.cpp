#include "lorekeeper/core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::files {

Result<std::string> read_regular_file(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::not_found("cannot open " + path + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat sb {};
  if (::fstat(fd, &sb) != 0) return Status::io_error("cannot stat " + path + ": " + std::strerror(errno));
  if (!S_ISREG(sb.st_mode)) return Status::invalid_argument(path + " is not a regular file");
  if (static_cast<unsigned long long>(sb.st_size) > max_bytes) {
    return Status::invalid_argument(path + " holds " + text::group_thousands(sb.st_size) + " bytes, more than the " +
                                    text::group_thousands(static_cast<long long>(max_bytes)) + " allowed");
  }
  std::string out;
  out.reserve(static_cast<size_t>(sb.st_size));
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::io_error("cannot read " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    // A file that grows while it is read is held to the same bound.
    if (out.size() > max_bytes) {
      return Status::invalid_argument(path + " holds more than the " +
                                      text::group_thousands(static_cast<long long>(max_bytes)) + " bytes allowed");
    }
  }
  return out;
}

}  // namespace lorekeeper::files
