#include "request_framing.hpp"

#include <sys/socket.h>
#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace lorekeeper::mcp {
namespace {

// Where a tracked connection is in its current request.
struct Frame {
  uint64_t id = 0;
  bool framed = true;    // false: the rest of the connection is read as it comes
  size_t body_left = 0;  // body bytes of the current request still to read (after its head)
  size_t discard = 0;    // bytes the library left of an answered request, dropped before the next is read
  std::string head;      // the current request's head as read so far
  // Bytes taken from the socket so far (read, dropped or skipped; not peeked), counted by the serving worker and
  // read by the connection guard's stop.
  std::shared_ptr<std::atomic<uint64_t>> taken = std::make_shared<std::atomic<uint64_t>>(0);
  void count(ssize_t n) const {
    if (n > 0) taken->fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
  }
};

// Never destroyed: a thread may read a socket while the process exits.
std::mutex& frames_mutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
std::unordered_map<int, Frame>& frames() {  // by socket; an element is used only by the worker serving it
  static auto* f = new std::unordered_map<int, Frame>;
  return *f;
}

ssize_t libc_recv(int fd, void* buf, size_t len, int flags) {
  return ::recvfrom(fd, buf, len, flags, nullptr, nullptr);
}

// The body a complete head declares: its one Content-Length (0 without one); -1 when that is not simple
// (Transfer-Encoding, two lengths, not a number), and the connection is then read unframed.
long long body_length(std::string_view head) {
  long long length = 0;
  int lengths = 0;
  size_t at = head.find("\r\n");  // past the request line
  while (at != std::string_view::npos && at + 2 < head.size()) {
    const size_t start = at + 2;
    const size_t end = head.find("\r\n", start);
    const std::string_view line =
        head.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    at = end;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (name == "transfer-encoding") return -1;
    if (name != "content-length") continue;
    if (++lengths > 1 || value.empty() || value.size() > 18 ||
        value.find_first_not_of("0123456789") != std::string_view::npos) {
      return -1;
    }
    length = std::stoll(std::string(value));
  }
  return length;
}

// Drops `f.discard` bytes, then the empty lines before a request; false (with `result` the read's) when a read
// failed or the peer closed.
bool skip_to_request(Frame& f, int fd, int flags, ssize_t& result) {
  char scratch[16384];
  while (f.discard > 0) {
    const ssize_t n = libc_recv(fd, scratch, std::min(f.discard, sizeof scratch), flags);
    if (n <= 0) {
      result = n;
      return false;
    }
    f.count(n);
    f.discard -= static_cast<size_t>(n);
  }
  if (!f.head.empty()) return true;
  while (true) {
    const ssize_t seen = libc_recv(fd, scratch, sizeof scratch, flags | MSG_PEEK);
    if (seen <= 0) {
      result = seen;
      return false;
    }
    size_t blank = 0;
    while (blank < static_cast<size_t>(seen) && (scratch[blank] == '\r' || scratch[blank] == '\n')) ++blank;
    if (blank == 0) return true;
    const ssize_t n = libc_recv(fd, scratch, blank, flags);
    if (n <= 0) {
      result = n;
      return false;
    }
    f.count(n);
  }
}

// A read of a framed connection: at most to the end of the current request's head or body.
ssize_t framed_recv(Frame& f, int fd, void* buf, size_t len, int flags) {
  if (f.body_left > 0) {
    const ssize_t n = libc_recv(fd, buf, std::min(len, f.body_left), flags);
    if (n > 0) f.body_left -= static_cast<size_t>(n);
    f.count(n);
    return n;
  }
  ssize_t failed = 0;
  if (!skip_to_request(f, fd, flags, failed)) return failed;
  // The head: look at what has come, and take it up to the blank line that ends the head, if it is there.
  const ssize_t seen = libc_recv(fd, buf, len, flags | MSG_PEEK);
  if (seen <= 0) return seen;
  const std::string_view peeked(static_cast<const char*>(buf), static_cast<size_t>(seen));
  const size_t carried = std::min<size_t>(f.head.size(), 3);  // a "\r\n\r\n" may begin in the part read before
  const std::string joined = f.head.substr(f.head.size() - carried) + std::string(peeked);
  const size_t blank = joined.find("\r\n\r\n");
  const size_t head_end = blank == std::string::npos ? std::string::npos : blank + 4 - carried;
  // A body whose length is not one Content-Length (chunked) is read as the library reads it: with the rest of what
  // has come, the connection unframed from then on.
  const long long length =
      head_end == std::string::npos ? 0 : body_length(f.head + std::string(peeked.substr(0, head_end)));
  const size_t take = head_end == std::string::npos || length < 0 ? peeked.size() : head_end;
  ssize_t n;
  do {
    n = libc_recv(fd, buf, take, flags);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return n;
  f.count(n);
  f.head.append(static_cast<const char*>(buf), static_cast<size_t>(n));
  if (head_end != std::string::npos && length < 0) {
    f.framed = false;
    f.head.clear();
  } else if (head_end != std::string::npos && static_cast<size_t>(n) == take) {
    f.head.clear();
    f.body_left = static_cast<size_t>(length);
  } else if (f.head.size() > kMaxFramedHead) {
    f.framed = false;
    f.head.clear();
  }
  return n;
}

}  // namespace

void frame_requests(int fd, uint64_t id) {
  std::lock_guard<std::mutex> lock(frames_mutex());
  if (id == 0) {
    frames().erase(fd);
    return;
  }
  Frame fresh;
  fresh.id = id;
  frames()[fd] = std::move(fresh);
}

void stop_framing(int fd, uint64_t id) {
  std::lock_guard<std::mutex> lock(frames_mutex());
  if (auto it = frames().find(fd); it != frames().end() && it->second.id == id) frames().erase(it);
}

void request_answered(int fd, uint64_t id) {
  std::lock_guard<std::mutex> lock(frames_mutex());
  auto it = frames().find(fd);
  if (it == frames().end() || it->second.id != id) return;
  Frame& f = it->second;
  f.discard += f.body_left;
  f.body_left = 0;
  if (!f.head.empty()) f.framed = false;  // answered before its head was whole (a head too long): unframed
}

uint64_t bytes_taken(int fd, uint64_t id) {
  std::lock_guard<std::mutex> lock(frames_mutex());
  auto it = frames().find(fd);
  if (it == frames().end() || it->second.id != id) return 0;
  return it->second.taken->load(std::memory_order_relaxed);
}

}  // namespace lorekeeper::mcp

// recv() for the whole process (see the header): framed for the worker serving a tracked connection, libc's for
// every other read.
extern "C" ssize_t recv(int fd, void* buf, size_t len, int flags) {
  using namespace lorekeeper::mcp;
  Frame* frame = nullptr;
  if (const uint64_t serving = current_connection(); serving != 0 && flags == 0 && len > 0) {
    std::lock_guard<std::mutex> lock(frames_mutex());
    auto it = frames().find(fd);
    if (it != frames().end() && it->second.id == serving) frame = &it->second;
  }
  if (frame == nullptr) return libc_recv(fd, buf, len, flags);
  if (frame->framed) return framed_recv(*frame, fd, buf, len, flags);
  const ssize_t n = libc_recv(fd, buf, len, flags);
  frame->count(n);
  return n;
}
