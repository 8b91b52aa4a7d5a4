#include "connection_guard.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "request_framing.hpp"

namespace {

// The socket this thread's last accept() returned, until accepted_socket() takes it.
thread_local int t_accepted = -1;

}  // namespace

// accept() for the whole process (an executable's definition comes before libc's for the shared libraries it
// loads, cpp-httplib's among them): libc's accept, whose result this thread remembers. Nothing else in the
// process accepts connections.
extern "C" int accept(int fd, sockaddr* addr, socklen_t* len) {
  const int s = ::accept4(fd, addr, len, 0);
  t_accepted = s;
  return s;
}

namespace lorekeeper::mcp {

namespace {

// The connection the current worker thread serves (0: none known).
thread_local uint64_t t_connection = 0;

// After a stop, how long a connection may still take to send the request it is sending.
constexpr std::chrono::milliseconds kStopGrace(2000);

// The client address of a connected socket ("" when it cannot be told).
std::string peer_address(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&addr)->sin_addr, text, sizeof text);
  } else if (addr.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_addr, text, sizeof text);
  }
  return text;
}

// What a connection past a bound reads before it is closed: written without waiting (a client that reads
// nothing gets nothing), then the socket is shut down both ways.
void refuse(int fd, const char* why) {
  const std::string body = std::string(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Service )"
                                       R"(Unavailable: )") +
                           why + R"(; try again shortly."}})";
  const std::string answer =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: "
      "1\r\nConnection: close\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  if (::send(fd, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
    // Nothing to do: the client is told by the closed connection instead.
  }
  ::shutdown(fd, SHUT_RDWR);
}

}  // namespace

int accepted_socket() { return std::exchange(t_accepted, -1); }

uint64_t current_connection() { return t_connection; }

ConnectionGuard::ConnectionGuard(std::chrono::milliseconds deadline, Limits limits)
    : deadline_(deadline), limits_(limits), watcher_([this] { watch(); }) {}

ConnectionGuard::~ConnectionGuard() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
  }
  wake_.notify_all();
  watcher_.join();
  for (auto& [id, c] : connections_) ::close(c.dup);
}

ConnectionGuard::Queue::Queue(ConnectionGuard& guard, size_t threads)
    : guard_(guard), pool_(threads), epoll_(::epoll_create1(EPOLL_CLOEXEC)) {
  if (epoll_ < 0) {
    log::warning(std::string("http: no epoll set (") + std::strerror(errno) + "); idle connections wait on workers");
  }
  poller_ = std::thread([this] { poll_loop(); });
}

ConnectionGuard::Queue::~Queue() {
  shutdown();
  if (epoll_ >= 0) ::close(epoll_);
}

void ConnectionGuard::Queue::enqueue(std::function<void()> fn) {
  // Runs on the accepting thread right after the library's accept().
  const int fd = accepted_socket();
  const auto [id, watched] = guard_.adopt(fd);
  if (id == 0 && fd >= 0) {
    refusals_.enqueue(std::move(fn));  // refused: shut down, so the library finds it closed at once
    return;
  }
  // Parked until its first byte; given a worker at once when it cannot be (no epoll set, or it is unguarded).
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
  ev.data.u64 = id;
  std::unique_lock<std::mutex> lock(mu_);
  if (id == 0 || epoll_ < 0 || ::epoll_ctl(epoll_, EPOLL_CTL_ADD, watched, &ev) != 0) {
    lock.unlock();
    run(id, std::move(fn));
    return;
  }
  waiting_.emplace(id, std::make_pair(watched, std::move(fn)));
}

void ConnectionGuard::Queue::run(uint64_t id, std::function<void()> fn) {
  guard_.queue(id);
  pool_.enqueue([this, id, fn = std::move(fn)] {
    t_connection = id;
    guard_.begin(id);
    fn();
    guard_.release(id);
    t_connection = 0;
  });
}

void ConnectionGuard::Queue::poll_loop() {
  if (epoll_ < 0) return;
  std::vector<epoll_event> events(64);
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (quit_ && waiting_.empty()) return;
    }
    const int n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), 100);
    for (int i = 0; i < n; ++i) {
      std::function<void()> fn;
      const uint64_t id = events[static_cast<size_t>(i)].data.u64;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = waiting_.find(id);
        if (it == waiting_.end()) continue;
        ::epoll_ctl(epoll_, EPOLL_CTL_DEL, it->second.first, nullptr);
        fn = std::move(it->second.second);
        waiting_.erase(it);
      }
      run(id, std::move(fn));
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (waiting_.empty()) drained_.notify_all();
  }
}

void ConnectionGuard::Queue::shutdown() {
  {
    // The listener is closed: the connections still waiting for a first byte end by their deadlines (or the
    // stop's grace), and each is handed to a worker as it does.
    std::unique_lock<std::mutex> lock(mu_);
    if (quit_) return;
    drained_.wait(lock, [this] { return waiting_.empty(); });
    quit_ = true;
  }
  if (poller_.joinable()) poller_.join();
  pool_.shutdown();
  refusals_.shutdown();
}

std::pair<uint64_t, int> ConnectionGuard::adopt(int fd) {
  if (fd < 0) {
    static std::once_flag told;
    std::call_once(told, [] {
      log::warning(
          "http: the accepted socket is not known (this build's accept() is not the library's); "
          "connections run without a request deadline");
    });
    return {0, -1};
  }
  const std::string client = peer_address(fd);
  std::unique_lock<std::mutex> lock(mu_);
  const char* past = connections_.size() >= limits_.connections ? "the server has as many connections as it takes"
                     : per_client_[client] >= limits_.connections_per_client
                         ? "this client has as many connections open as one client may"
                         : nullptr;
  const int dup = past == nullptr ? ::fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
  if (past != nullptr || dup < 0) {
    frame_requests(fd, 0);  // read unframed, whatever a connection that had this number left
    // Past a bound, or out of descriptors: refused rather than served without a deadline.
    refuse(fd, past != nullptr ? past : "no descriptor is left to serve this connection");
    if (per_client_[client] == 0) per_client_.erase(client);
    const bool tell = refused_++ % 1000 == 0;  // the first, then one in a thousand
    lock.unlock();
    if (tell) {
      log::warning(std::string("http: refused a connection from ") + client + ": " +
                   (past != nullptr ? past : "no descriptor left"));
    }
    return {0, -1};
  }
  const uint64_t id = next_id_++;
  frame_requests(fd, id);
  Connection c;
  c.fd = fd;
  c.dup = dup;
  c.client = client;
  c.deadline = std::chrono::steady_clock::now() + (stopping_ ? stop_grace() : deadline_);
  connections_[id] = std::move(c);
  ++per_client_[client];
  return {id, dup};
}

void ConnectionGuard::queue(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(id);
  if (it != connections_.end()) it->second.queued = true;
}

void ConnectionGuard::begin(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  it->second.queued = false;
  // During a stop, a connection a worker takes has the grace from now to send its request whole (it waited for a
  // worker, not to send).
  if (stopping_) it->second.deadline = std::chrono::steady_clock::now() + stop_grace();
}

std::chrono::milliseconds ConnectionGuard::stop_grace() const { return std::min(deadline_, kStopGrace); }

void ConnectionGuard::release(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  stop_framing(it->second.fd, id);
  ::close(it->second.dup);
  if (auto n = per_client_.find(it->second.client); n != per_client_.end() && --n->second == 0) per_client_.erase(n);
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
  // only to a socket it can still read from (shutting reading down here lost every answer in flight at a stop);
  // during a stop the connection then ends (end_after_answer_when_stopping).
  it->second.deadline = std::chrono::steady_clock::now() + deadline_;
}

bool ConnectionGuard::end_after_answer_when_stopping(size_t drain) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!stopping_) return false;
  auto it = connections_.find(t_connection);
  if (it == connections_.end()) return false;
  Connection& c = it->second;
  // Requests sent before the stop and not yet read wait in the socket (request framing reads no further than the
  // request being answered): they are answered.
  if (bytes_taken(c.fd, t_connection) < c.taken_at_stop + c.unread_at_stop) return false;
  if (std::chrono::steady_clock::now() < stopped_at_ + stop_grace()) {
    // The next request, sent since, already waits: answered too, within the grace.
    pollfd p{c.dup, POLLIN, 0};
    if (::poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0) return false;
  }
  if (!c.close_after_answer) c.close_after_answer = drain;
  return true;
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
    if (it == connections_.end()) return;
    request_answered(it->second.fd, t_connection);
    if (stopping_ && !it->second.close_after_answer) {
      // Kept open during a stop for a request sent before it or just after: that request has the grace to come
      // whole, not the usual deadline.
      it->second.deadline = std::min(it->second.deadline, std::chrono::steady_clock::now() + stop_grace());
    }
    if (!it->second.close_after_answer || it->second.shut_down) return;
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
    stopped_at_ = std::chrono::steady_clock::now();
    const auto grace = stopped_at_ + stop_grace();
    for (auto& [id, c] : connections_) {
      if (c.shut_down) continue;
      // What the client has sent so far: the requests accepted before the stop.
      int unread = 0;
      c.taken_at_stop = bytes_taken(c.fd, id);
      c.unread_at_stop = ::ioctl(c.dup, FIONREAD, &unread) == 0 && unread > 0 ? static_cast<uint64_t>(unread) : 0;
      // Being answered (it ends by itself), or waiting for a worker (it has the grace once one takes it).
      if (c.in_handler || c.queued) continue;
      c.deadline = std::min(c.deadline, grace);
    }
  }
  wake_.notify_all();
}

uint64_t ConnectionGuard::expired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return expired_;
}

size_t ConnectionGuard::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return connections_.size();
}

uint64_t ConnectionGuard::refused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refused_;
}

void ConnectionGuard::watch() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!quit_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    const auto now = std::chrono::steady_clock::now();
    size_t closed = 0;
    for (auto& [id, c] : connections_) {
      if (c.in_handler || c.shut_down || c.deadline > now) continue;
      ::shutdown(c.dup, SHUT_RDWR);
      c.shut_down = true;
      c.deadline = std::chrono::steady_clock::time_point::max();
      ++expired_;
      ++closed;
    }
    // One line per sweep, written without the lock (a slow log must not hold every connection's registration).
    if (closed > 0) {
      const bool stopping = stopping_;
      lock.unlock();
      log::info(
          "http: closed " + (closed == 1 ? std::string("a connection") : std::to_string(closed) + " connections") +
          (stopping ? " still sending nothing whole at the stop"
                    : " that took longer than " + text::format_number(static_cast<double>(deadline_.count()) / 1000.0) +
                          " s to send a request or read an answer"));
      lock.lock();
    }
  }
}

}  // namespace lorekeeper::mcp
