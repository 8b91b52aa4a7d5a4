#include "request_framing.hpp"

#include <sys/socket.h>
#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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
  bool in_body = false;
  std::string head;  // the current request's head as read so far
};

std::mutex g_mu;
std::unordered_map<int, Frame> g_frames;  // by socket; an element is used only by the worker serving its socket

ssize_t libc_recv(int fd, void* buf, size_t len, int flags) {
  return ::recvfrom(fd, buf, len, flags, nullptr, nullptr);
}

// The body length a complete head declares: its one Content-Length, 0 without one; -1 when the length is not that
// simple (chunked, two lengths, not a number), and the connection is then read unframed.
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

// Reads for a framed connection: at most to the end of the current request's head or body.
ssize_t framed_recv(Frame& f, int fd, void* buf, size_t len, int flags) {
  if (f.in_body) {
    const ssize_t n = libc_recv(fd, buf, std::min(len, f.body_left), flags);
    if (n > 0) {
      f.body_left -= static_cast<size_t>(n);
      if (f.body_left == 0) f.in_body = false;
    }
    return n;
  }
  // The head: look at what has come, and take it up to the blank line that ends the head, if it is there.
  const ssize_t seen = libc_recv(fd, buf, len, flags | MSG_PEEK);
  if (seen <= 0) return seen;
  const std::string_view peeked(static_cast<const char*>(buf), static_cast<size_t>(seen));
  const size_t carried = std::min<size_t>(f.head.size(), 3);  // a "\r\n\r\n" may begin in the part read before
  const std::string joined = f.head.substr(f.head.size() - carried) + std::string(peeked);
  const size_t blank = joined.find("\r\n\r\n");
  const size_t take = blank == std::string::npos ? peeked.size() : blank + 4 - carried;
  ssize_t n;
  do {
    n = libc_recv(fd, buf, take, flags);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return n;
  f.head.append(static_cast<const char*>(buf), static_cast<size_t>(n));
  if (blank != std::string::npos && static_cast<size_t>(n) == take) {
    const long long length = body_length(f.head);
    f.head.clear();
    if (length < 0) {
      f.framed = false;
    } else if (length > 0) {
      f.in_body = true;
      f.body_left = static_cast<size_t>(length);
    }
  } else if (f.head.size() > kMaxFramedHead) {
    f.framed = false;
    f.head.clear();
  }
  return n;
}

}  // namespace

void frame_requests(int fd, uint64_t id) {
  std::lock_guard<std::mutex> lock(g_mu);
  Frame fresh;
  fresh.id = id;
  g_frames[fd] = std::move(fresh);
}

void stop_framing(int fd, uint64_t id) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (auto it = g_frames.find(fd); it != g_frames.end() && it->second.id == id) g_frames.erase(it);
}

}  // namespace lorekeeper::mcp

// recv() for the whole process (see the header): libc's for every socket but the HTTP server's tracked connections.
extern "C" ssize_t recv(int fd, void* buf, size_t len, int flags) {
  using lorekeeper::mcp::Frame;
  Frame* frame = nullptr;
  if ((flags & MSG_PEEK) == 0 && len > 0) {
    std::lock_guard<std::mutex> lock(lorekeeper::mcp::g_mu);
    auto it = lorekeeper::mcp::g_frames.find(fd);
    if (it != lorekeeper::mcp::g_frames.end() && it->second.framed) frame = &it->second;
  }
  if (frame == nullptr) return lorekeeper::mcp::libc_recv(fd, buf, len, flags);
  return lorekeeper::mcp::framed_recv(*frame, fd, buf, len, flags);
}
