#include "connection_guard.hpp"

#include <poll.h>

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <vector>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"

namespace lorekeeper::mcp {

namespace {

// The connection the current worker thread serves (0: none known).
thread_local uint64_t t_connection = 0;

// After a stop, how long a connection may still take to send the request it is sending.
constexpr std::chrono::milliseconds kStopGrace(2000);

// The local port of a connected (not listening) TCP socket, or -1.
int connected_local_port(int fd) {
  int listening = 0;
  socklen_t len = sizeof listening;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening != 0) return -1;
  sockaddr_storage addr{};
  socklen_t alen = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &alen) != 0) return -1;
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  return -1;
}

}  // namespace

ConnectionGuard::ConnectionGuard(int port, std::chrono::milliseconds deadline)
    : port_(port), deadline_(deadline), watcher_([this] { watch(); }) {}

ConnectionGuard::~ConnectionGuard() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
  }
  wake_.notify_all();
  watcher_.join();
  for (auto& [id, c] : connections_) ::close(c.dup);
}

void ConnectionGuard::Queue::enqueue(std::function<void()> fn) {
  // Runs on the accepting thread right after accept(), so the one unregistered socket on our port is this one.
  const uint64_t id = guard_.adopt_new_socket();
  pool_.enqueue([this, id, fn = std::move(fn)] {
    t_connection = id;
    guard_.begin(id);
    fn();
    guard_.release(id);
    t_connection = 0;
  });
}

uint64_t ConnectionGuard::adopt_new_socket() {
  // The process's connected sockets on our port (scanned without the lock: the scan costs a few syscalls per
  // descriptor).
  std::vector<std::pair<uint64_t, int>> candidates;  // (inode, descriptor)
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    while (dirent* e = ::readdir(dir)) {
      char* end = nullptr;
      const long fd = std::strtol(e->d_name, &end, 10);
      if (end == e->d_name || *end != '\0' || fd == ::dirfd(dir)) continue;
      struct stat st {};
      if (::fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
      if (connected_local_port(static_cast<int>(fd)) != port_) continue;
      candidates.emplace_back(static_cast<uint64_t>(st.st_ino), static_cast<int>(fd));
    }
    ::closedir(dir);
  }
  std::lock_guard<std::mutex> lock(mu_);
  // Refused sockets are forgotten once their descriptors are gone.
  for (auto it = refused_inodes_.begin(); it != refused_inodes_.end();) {
    const bool open = std::any_of(candidates.begin(), candidates.end(), [&](const auto& c) { return c.first == *it; });
    it = open ? std::next(it) : refused_inodes_.erase(it);
  }
  // Normally exactly one socket is unregistered: the one just accepted. But a connection that ended after the scan
  // listed it is unregistered too (its worker closes the socket, then releases it), and its descriptor number may
  // already belong to another socket; so each candidate, newest (highest inode: the kernel numbers sockets in
  // per-CPU batches of creation order) first, is taken only through a duplicate that is still that socket.
  std::sort(candidates.begin(), candidates.end(), std::greater<>());
  int dup = -1;
  std::pair<uint64_t, int> adopted{0, -1};
  bool out_of_descriptors = false;
  for (const auto& c : candidates) {
    if (known_inodes_.count(c.first) != 0 || refused_inodes_.count(c.first) != 0) continue;
    const int d = ::fcntl(c.second, F_DUPFD_CLOEXEC, 0);
    if (d < 0) {
      if (errno != EMFILE && errno != ENFILE) continue;  // closed since the scan
      out_of_descriptors = true;
      adopted = c;
      break;
    }
    struct stat st {};
    if (::fstat(d, &st) == 0 && static_cast<uint64_t>(st.st_ino) == c.first) {
      dup = d;
      adopted = c;
      break;
    }
    ::close(d);  // the number was reused by another socket since the scan
  }
  if (out_of_descriptors) {
    // Out of descriptors: the connection is refused rather than served without a deadline (its descriptor checked
    // once more, as no duplicate can vouch for it).
    struct stat st {};
    if (::fstat(adopted.second, &st) == 0 && static_cast<uint64_t>(st.st_ino) == adopted.first) {
      ::shutdown(adopted.second, SHUT_RDWR);
      refused_inodes_.insert(adopted.first);
    }
    log::warning("http: refused a connection: no descriptor left to guard it");
    return 0;
  }
  if (dup < 0) {
    log::warning("http: a new connection's socket was not found; it runs without a request deadline");
    return 0;
  }
  const uint64_t id = next_id_++;
  Connection c;
  c.dup = dup;
  c.inode = adopted.first;
  connections_[id] = c;
  known_inodes_.insert(adopted.first);
  return id;
}

void ConnectionGuard::begin(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  it->second.started = true;
  it->second.deadline = std::chrono::steady_clock::now() + (stopping_ ? std::min(deadline_, kStopGrace) : deadline_);
}

void ConnectionGuard::release(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  ::close(it->second.dup);
  known_inodes_.erase(it->second.inode);
  connections_.erase(it);
}

void ConnectionGuard::work_started() {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(t_connection);
  if (it != connections_.end()) it->second.in_handler = true;
}

void ConnectionGuard::work_finished() {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(t_connection);
  if (it == connections_.end()) return;
  it->second.in_handler = false;
  // The answer is written after the handler returns, within the deadline, during a stop too: the library writes
  // only to a socket it can still read from (shutting reading down here lost every answer in flight at a stop),
  // and once the listener is closed it reads no further request on the connection.
  it->second.deadline = std::chrono::steady_clock::now() + deadline_;
}

void ConnectionGuard::close_after_answer(size_t drain) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(t_connection);
  if (it == connections_.end()) return;
  it->second.close_after_answer = drain;
}

void ConnectionGuard::answered() {
  int fd = -1;
  size_t drain = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = connections_.find(t_connection);
    if (it == connections_.end() || !it->second.close_after_answer || it->second.shut_down) return;
    fd = it->second.dup;
    drain = *it->second.close_after_answer;
  }
  // The answer is written: stop sending, read and drop what the client is still sending (at most `drain` bytes,
  // for at most half a second), then close both ways so the library reads no further request from the body.
  ::shutdown(fd, SHUT_WR);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  char buf[16384];
  size_t dropped = 0;
  while (dropped < drain && std::chrono::steady_clock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) break;
    dropped += static_cast<size_t>(n);
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(t_connection);
  if (it == connections_.end() || it->second.shut_down) return;
  ::shutdown(it->second.dup, SHUT_RDWR);
  it->second.shut_down = true;
}

void ConnectionGuard::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    const auto grace = std::chrono::steady_clock::now() + std::min(deadline_, kStopGrace);
    for (auto& [id, c] : connections_) {
      if (c.in_handler || c.shut_down) continue;  // being answered (it ends by itself), or closed
      c.deadline = std::min(c.deadline, grace);
    }
  }
  wake_.notify_all();
}

uint64_t ConnectionGuard::expired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return expired_;
}

void ConnectionGuard::watch() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!quit_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    const auto now = std::chrono::steady_clock::now();
    for (auto& [id, c] : connections_) {
      if (!c.started || c.in_handler || c.deadline > now) continue;
      ::shutdown(c.dup, SHUT_RDWR);
      c.shut_down = true;
      c.deadline = std::chrono::steady_clock::time_point::max();
      ++expired_;
      log::info("http: closed a connection that took longer than " +
                text::format_number(static_cast<double>(deadline_.count()) / 1000.0) +
                " s to send its request or read its answer");
    }
  }
}

}  // namespace lorekeeper::mcp
