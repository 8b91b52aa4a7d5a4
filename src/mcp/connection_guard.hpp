// Deadlines and bounds for the HTTP server's connections, which cpp-httplib bounds only per read and per write: a
// client that sends one header line every few seconds is never idle, so without this it holds a worker for ever
// and a few such clients starve the server, and a graceful stop waits for them; and a connection that sends
// nothing held a worker too (320 idle connections made every new client wait 49 s).
//
// A connection is registered as it is accepted (ConnectionGuard::Queue wraps the library's thread pool; the
// accepted socket is known from the library's own accept() call, see accepted_socket()) and has a deadline from
// then: reading a whole request (headers and body) must end within `deadline`. Until its first byte arrives it
// waits off the workers, in an epoll set; only a connection with something to read is given to a worker. While
// the request is being answered (from work_started() until the handler returns) there is no deadline: that work
// is ours and bounded by the message limits. When the handler returns the next deadline starts: writing the
// answer, waiting on keep-alive and reading the next request share it. A connection past its deadline is shut
// down (the socket, through a duplicate descriptor the guard owns, so a reused descriptor number is never hit);
// its worker sees the read or write fail and ends the connection.
//
// Connections are bounded in all and per client address; one past either bound is answered 503 at once and
// closed, so the descriptors and the waiting set cannot be exhausted by one client.
//
// stop() (called after the listener is closed): a connection inside a handler keeps no deadline until its handler
// returns, then has the usual deadline to write its answer; a connection waiting for a worker keeps its deadline,
// and has 2 s from when a worker takes it; every other connection has 2 s more to finish sending the request it is
// sending (one that arrives is answered), then is closed. Each answer written after the stop ends its connection
// ("Connection: close"), unless requests the client sent before the stop wait behind it, or its next request came
// within the 2 s (end_after_answer_when_stopping). So a graceful stop answers every request it accepted and ends
// within the longest answers, or 2 s, whatever idle, trickling or busy keep-alive clients do.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace lorekeeper::mcp {

// The socket the calling thread's last accept() returned, once (-1 when there is none, or when the library's
// accept() is not the one this file defines). The guard defines accept() itself, so that the library's call, made
// on the thread that then hands the connection to the task queue, names the socket: the library passes the queue
// only a closure.
int accepted_socket();

class ConnectionGuard {
 public:
  struct Limits {
    size_t connections = 512;            // open at once, in all
    size_t connections_per_client = 64;  // open at once from one address
  };

  ConnectionGuard(std::chrono::milliseconds deadline, Limits limits);
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // The library's thread pool, given each connection once it has something to read, with every connection
  // registered with the guard. Install it with httplib::Server::new_task_queue; it must not outlive the guard.
  // shutdown() waits for the connections still waiting for a first byte (each ends within its deadline, or the
  // stop's 2 s), then for the workers.
  class Queue : public httplib::TaskQueue {
   public:
    Queue(ConnectionGuard& guard, size_t threads);
    ~Queue() override;
    void enqueue(std::function<void()> fn) override;
    void shutdown() override;

   private:
    void run(uint64_t id, std::function<void()> fn);
    void poll_loop();

    ConnectionGuard& guard_;
    httplib::ThreadPool pool_;
    // Refused connections are closed by a thread of their own, not queued behind busy workers holding their
    // descriptors (a client flooding connections while the workers are busy would run the process out of them).
    httplib::ThreadPool refusals_{1};
    int epoll_ = -1;
    std::mutex mu_;
    std::condition_variable drained_;
    std::map<uint64_t, std::pair<int, std::function<void()>>> waiting_;  // id -> (descriptor watched, work)
    bool quit_ = false;
    std::thread poller_;
  };

  // Called on a worker thread from a request handler: the request is read, its answer is being made.
  void work_started();
  // Called on a worker thread when a handler returns (also when work_started was not called).
  void work_finished();

  // Called on a worker thread while a request is being answered: the connection ends once its answer is written
  // (answered()), after reading and dropping at most `drain` bytes more, so that the client, which may still be
  // sending, reads the answer rather than a reset. For a body declared too large, answered before it is read.
  void close_after_answer(size_t drain);
  // Called on a worker thread as an answer is about to be written (the library's post-routing handler): during a
  // stop, whether the connection ends once the answer is written (then it is marked so, as close_after_answer
  // does, and the answer should say "Connection: close"). It does, unless the client sent more before the stop
  // than has been read since (pipelined requests accepted before the signal are answered, however late), or the
  // client has already sent its next request within the stop's grace; a connection kept open then has at most the
  // grace to send it. Without this, a client that kept sending requests on a connection kept the stop waiting: the
  // library reads a connection for as long as its listening socket's number is set, until the workers are done.
  bool end_after_answer_when_stopping(size_t drain);
  // Called on a worker thread when the library has written an answer (its logger).
  void answered();

  // Ends every connection's reading within the grace (see above). Thread-safe; the guard keeps running.
  void stop();

  // Connections shut down so far for passing their deadline.
  uint64_t expired() const;
  // Connections refused so far for passing a bound.
  uint64_t refused() const;
  // Connections open now.
  size_t open() const;

 private:
  struct Connection {
    int fd = -1;   // the library's socket (framed: request_framing.hpp)
    int dup = -1;  // ours: shutdown goes through it; closed on release
    std::string client;
    bool in_handler = false;
    bool shut_down = false;
    bool queued = false;  // given to the workers and waiting for one
    // At the stop: the bytes of it read by then and those sent but not yet read. A request among the latter was
    // sent before the stop and is answered, however late its turn comes.
    uint64_t taken_at_stop = 0;
    uint64_t unread_at_stop = 0;
    std::optional<size_t> close_after_answer;  // ends once answered, after draining this many bytes at most
    std::chrono::steady_clock::time_point deadline;
  };

  // On the accepting thread: registers the accepted socket `fd` and returns its id and the guard's duplicate of
  // it. 0 when it is refused (past a bound, or no descriptor left to guard it: it has been answered 503 or shut
  // down, and its worker will find it closed) and when `fd` is unknown (-1: it then runs without a deadline).
  std::pair<uint64_t, int> adopt(int fd);
  void queue(uint64_t id);
  void begin(uint64_t id);
  // How long a connection has during a stop to send what it is sending: 2 s, or the deadline when that is shorter.
  std::chrono::milliseconds stop_grace() const;
  void release(uint64_t id);
  void watch();

  const std::chrono::milliseconds deadline_;
  const Limits limits_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::map<uint64_t, Connection> connections_;
  std::map<std::string, size_t> per_client_;
  uint64_t next_id_ = 1;
  uint64_t expired_ = 0;
  uint64_t refused_ = 0;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point stopped_at_;
  bool quit_ = false;
  std::thread watcher_;
};

}  // namespace lorekeeper::mcp
