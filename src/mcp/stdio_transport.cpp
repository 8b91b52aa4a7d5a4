#include "lorekeeper/mcp/stdio_transport.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"

namespace lorekeeper::mcp {

namespace {

// Cancellations remembered at once (for requests queued or being answered).
constexpr size_t kMaxCancellations = 1024;

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// A request's id as a set key ("s:abc", "i:7"); "" for none.
std::string id_key(const json& id) {
  if (id.is_string()) return "s:" + id.get<std::string>();
  if (id.is_number_integer()) return "i:" + std::to_string(id.get<long long>());
  return "";
}

// The lines read, answered one at a time by a worker thread in the order they came, while the reading thread
// answers what must not wait behind them: ping, and a cancellation (notifications/cancelled), which removes the
// request it names from the queue or, when it is being answered, drops its answer (the MCP rule: no response to a
// cancelled request).
class Lines {
 public:
  Lines(Server& server, int out_fd, BeforeAnswer before_answer)
      : server_(server), out_fd_(out_fd), before_answer_(std::move(before_answer)), worker_([this] { work(); }) {}
  ~Lines() { finish(); }

  // Called by the reading thread for each complete line (`oversized`: it exceeded the message limit, unread).
  void line(std::string text, bool oversized) {
    if (oversized) {
      write(server_.oversized_reply());
      return;
    }
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) return;
    if (at_once(text)) return;
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(text));
    wake_.notify_one();
  }

  // Answers what is queued, then ends the worker. False if an answer could not be written.
  bool finish() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    wake_.notify_one();
    if (worker_.joinable()) worker_.join();
    return !write_failed_;
  }
  bool write_failed() const { return write_failed_; }

 private:
  // Handles `text` on the reading thread when it is a ping or a cancellation; false for anything else.
  bool at_once(const std::string& text) {
    const bool maybe_ping = text.find("\"ping\"") != std::string::npos;
    const bool maybe_cancel = text.find("notifications/cancelled") != std::string::npos;
    if (!maybe_ping && !maybe_cancel) return false;
    auto message = json_util::parse(text, nullptr, nullptr, server_.options().max_depth);
    if (!message || !message->is_object()) return false;
    const std::string method = json_util::str(*message, "method");
    if (method == "ping" && !id_key(json_util::child(*message, "id")).empty()) {
      // A ping reads no state of the server (its answer is the same whatever was negotiated), so it is answered
      // beside a call in progress.
      if (auto reply = server_.handle(*message)) write(*reply);
      return true;
    }
    if (method == "notifications/cancelled" && !message->contains("id")) {
      const std::string key = id_key(json_util::child(json_util::child(*message, "params"), "requestId"));
      if (key.empty()) return true;
      std::lock_guard<std::mutex> lock(mu_);
      // Cancellations of requests answered long ago are forgotten in bulk, so the set stays small.
      if (cancelled_.size() >= kMaxCancellations) cancelled_.clear();
      cancelled_.insert(key);
      return true;
    }
    return false;
  }

  void work() {
    while (true) {
      std::string text;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [this] { return done_ || !queue_.empty(); });
        if (queue_.empty()) return;
        text = std::move(queue_.front());
        queue_.pop_front();
      }
      // Parsed here, so that a request cancelled while it waited is not run at all; a line that does not parse
      // gets the server's own answer for it.
      auto message = json_util::parse(text, nullptr, nullptr, server_.options().max_depth);
      const std::string key = message && message->is_object() ? id_key(message->value("id", json())) : "";
      if (!key.empty() && was_cancelled(key)) continue;
      if (message && before_answer_) before_answer_(*message);
      std::optional<json> reply = message ? server_.handle(*message) : server_.handle_text(text);
      if (!reply || (!key.empty() && was_cancelled(key))) continue;  // cancelled while it was answered
      write(*reply);
    }
  }

  // Whether the request `key` was cancelled (forgetting the cancellation: an id may be used again).
  bool was_cancelled(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_.erase(key) > 0;
  }

  void write(const json& reply) {
    std::lock_guard<std::mutex> lock(write_mu_);
    if (!write_all(out_fd_, json_util::dump(reply) + "\n")) write_failed_ = true;
  }

  Server& server_;
  const int out_fd_;
  const BeforeAnswer before_answer_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::string> queue_;
  std::set<std::string> cancelled_;
  bool done_ = false;
  std::mutex write_mu_;
  std::atomic<bool> write_failed_{false};
  std::thread worker_;
};

}  // namespace

int serve_stdio(Server& server, int in_fd, int out_fd, BeforeAnswer before_answer) {
  std::signal(SIGPIPE, SIG_IGN);
  const size_t max = server.options().max_message_bytes;
  Lines lines(server, out_fd, std::move(before_answer));
  std::string line;
  bool oversized = false;
  char buf[65536];
  while (!lines.write_failed()) {
    ssize_t n = ::read(in_fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      log::error("reading stdin failed");
      lines.finish();
      return 1;
    }
    if (n == 0) break;
    size_t start = 0;
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      if (buf[i] != '\n') continue;
      if (!oversized) line.append(buf + start, i - start);
      if (!oversized && line.size() > max) oversized = true;
      lines.line(std::move(line), oversized);
      line.clear();
      oversized = false;
      start = i + 1;
    }
    if (!oversized) {
      line.append(buf + start, static_cast<size_t>(n) - start);
      if (line.size() > max) {
        // Stop buffering: the rest of this line is discarded and answered with one error.
        oversized = true;
        line.clear();
        line.shrink_to_fit();
      }
    }
  }
  if (!line.empty() || oversized) log::info("input ended inside a message; it was dropped");
  return lines.finish() ? 0 : 1;
}

}  // namespace lorekeeper::mcp
