// Deadlines for the HTTP server's connections, which cpp-httplib bounds only per read and per write: a client
// that sends one header line every few seconds is never idle, so without this it holds a worker for ever and a
// few such clients starve the server, and a graceful stop waits for them.
//
// A connection is registered when its worker starts on it (ConnectionGuard::Queue wraps the library's thread
// pool) and has a deadline from then: reading a whole request (headers and body) must end within `deadline`.
// While the request is being answered (from work_started() until the handler returns) there is no deadline: that
// work is ours and bounded by the message limits. When the handler returns the next deadline starts: writing the
// answer, waiting on keep-alive and reading the next request share it. A connection past its deadline is shut
// down (the socket, through a duplicate descriptor the guard owns, so a reused descriptor number is never hit);
// its worker sees the read or write fail and ends the connection.
//
// stop() (called after the listener is closed, so the library reads no further request on a connection once its
// current one is answered): a connection inside a handler keeps no deadline until its handler returns, then has
// the usual deadline to write its answer; every other connection has 2 s more to finish sending the request it is
// sending (one that arrives is answered), then is closed. So a graceful stop answers every request it accepted
// and ends within the longest answer, or 2 s, whatever idle or trickling clients do.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace lorekeeper::mcp {

class ConnectionGuard {
 public:
  // `port` is the bound port: the guard finds each new connection's socket among the process's descriptors as
  // the socket whose local port it is.
  ConnectionGuard(int port, std::chrono::milliseconds deadline);
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // The library's thread pool with every connection registered with the guard. Install it with
  // httplib::Server::new_task_queue; it must not outlive the guard.
  class Queue : public httplib::TaskQueue {
   public:
    Queue(ConnectionGuard& guard, size_t threads) : guard_(guard), pool_(threads) {}
    void enqueue(std::function<void()> fn) override;
    void shutdown() override { pool_.shutdown(); }

   private:
    ConnectionGuard& guard_;
    httplib::ThreadPool pool_;
  };

  // Called on a worker thread from a request handler: the request is read, its answer is being made.
  void work_started();
  // Called on a worker thread when a handler returns (also when work_started was not called).
  void work_finished();

  // Called on a worker thread while a request is being answered: the connection ends once its answer is written
  // (answered()), after reading and dropping at most `drain` bytes more, so that the client, which may still be
  // sending, reads the answer rather than a reset. For a body declared too large, answered before it is read.
  void close_after_answer(size_t drain);
  // Called on a worker thread when the library has written an answer (its logger).
  void answered();

  // Ends every connection's reading within the grace (see above). Thread-safe; the guard keeps running.
  void stop();

  // Connections shut down so far for passing their deadline.
  uint64_t expired() const;

 private:
  struct Connection {
    int dup = -1;          // ours: shutdown goes through it; closed on release
    uint64_t inode = 0;    // the socket's identity (descriptor numbers are reused, inodes of live sockets not)
    bool started = false;  // a worker runs it: the deadline counts
    bool in_handler = false;
    bool shut_down = false;
    std::optional<size_t> close_after_answer;  // ends once answered, after draining this many bytes at most
    std::chrono::steady_clock::time_point deadline;
  };

  // On the accepting thread: the newly accepted socket (the newest on our port whose inode is not registered),
  // duplicated. 0 when it cannot be found (the connection then runs without a deadline; a warning is logged) or
  // cannot be duplicated (the connection is then shut down: refused, not left unguarded).
  uint64_t adopt_new_socket();
  void begin(uint64_t id);
  void release(uint64_t id);
  void watch();

  const int port_;
  const std::chrono::milliseconds deadline_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::map<uint64_t, Connection> connections_;
  std::set<uint64_t> known_inodes_;    // sockets registered (held open by their duplicate until released)
  std::set<uint64_t> refused_inodes_;  // sockets shut down unregistered, until their descriptors close
  uint64_t next_id_ = 1;
  uint64_t expired_ = 0;
  bool stopping_ = false;
  bool quit_ = false;
  std::thread watcher_;
};

}  // namespace lorekeeper::mcp
