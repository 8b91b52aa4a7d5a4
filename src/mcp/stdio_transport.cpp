#include "lorekeeper/mcp/stdio_transport.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"

namespace lorekeeper::mcp {

namespace {

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

}  // namespace

int serve_stdio(Server& server, int in_fd, int out_fd) {
  std::signal(SIGPIPE, SIG_IGN);
  const size_t max = server.options().max_message_bytes;
  std::string line;
  bool oversized = false;
  char buf[65536];
  auto finish_line = [&]() -> bool {
    std::optional<json> reply;
    if (oversized) {
      reply = server.oversized_reply();
    } else {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const bool blank = line.find_first_not_of(" \t") == std::string::npos;
      if (!blank) reply = server.handle_text(line);
    }
    line.clear();
    oversized = false;
    if (reply) return write_all(out_fd, json_util::dump(*reply) + "\n");
    return true;
  };
  while (true) {
    ssize_t n = ::read(in_fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      log::error("reading stdin failed");
      return 1;
    }
    if (n == 0) break;
    size_t start = 0;
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      if (buf[i] != '\n') continue;
      if (!oversized) line.append(buf + start, i - start);
      if (!oversized && line.size() > max) oversized = true;
      if (!finish_line()) return 1;
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
  return 0;
}

}  // namespace lorekeeper::mcp
