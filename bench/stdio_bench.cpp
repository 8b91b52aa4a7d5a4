// Macro benchmark of `lorekeeper serve` over stdio, as an MCP host sees it:
//   1. process start to the `initialize` reply (and to the `server/discover` reply), over repeated spawns;
//   2. round trips of a filtered tools/call on one connection.
// Usage: lorekeeper_stdio_bench LOREKEEPER_BIN STORE_DB [spawns] [calls]
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  pid_t pid = -1;
  int to = -1;
  int from = -1;
  std::string buffer;
};

Child spawn(const std::string& bin, const std::string& db) {
  int in[2];
  int out[2];
  if (pipe(in) != 0 || pipe(out) != 0) std::exit(1);
  Child c;
  c.pid = fork();
  if (c.pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    close(in[1]);
    close(out[0]);
    execl(bin.c_str(), bin.c_str(), "--db", db.c_str(), "--log-level", "error", "serve", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  c.to = in[1];
  c.from = out[0];
  return c;
}

void send(Child& c, const std::string& line) {
  std::string s = line + "\n";
  if (write(c.to, s.data(), s.size()) != static_cast<ssize_t>(s.size())) std::exit(1);
}

std::string receive(Child& c) {
  while (true) {
    const size_t nl = c.buffer.find('\n');
    if (nl != std::string::npos) {
      std::string line = c.buffer.substr(0, nl);
      c.buffer.erase(0, nl + 1);
      return line;
    }
    char buf[65536];
    ssize_t n = read(c.from, buf, sizeof buf);
    if (n <= 0) {
      std::fprintf(stderr, "server closed its output\n");
      std::exit(1);
    }
    c.buffer.append(buf, static_cast<size_t>(n));
  }
}

void finish(Child& c) {
  close(c.to);
  int status = 0;
  waitpid(c.pid, &status, 0);
  close(c.from);
}

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * static_cast<double>(v.size())));
  return v[i];
}

void report(const char* what, const std::vector<double>& ms) {
  std::printf("%-44s n=%-5zu p50 %8.3f ms   p95 %8.3f ms   p99 %8.3f ms   max %8.3f ms\n", what, ms.size(), pct(ms, 50),
              pct(ms, 95), pct(ms, 99), pct(ms, 100));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s LOREKEEPER_BIN STORE_DB [spawns] [calls]\n", argv[0]);
    return 2;
  }
  const std::string bin = argv[1];
  const std::string db = argv[2];
  const int spawns = argc > 3 ? std::atoi(argv[3]) : 50;
  const int calls = argc > 4 ? std::atoi(argv[4]) : 2000;
  const std::string init =
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})";
  const std::string discover =
      R"({"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})";
  for (const auto& [label, first] :
       {std::pair{"spawn -> initialize reply", init}, std::pair{"spawn -> server/discover reply", discover}}) {
    std::vector<double> ms;
    for (int i = 0; i < spawns; ++i) {
      const auto t0 = Clock::now();
      Child c = spawn(bin, db);
      send(c, first);
      receive(c);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      finish(c);
    }
    report(label, ms);
  }
  Child c = spawn(bin, db);
  send(c, init);
  receive(c);
  send(c, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  const std::vector<std::pair<const char*, std::string>> workloads = {
      {"tools/call search_spell level+class (limit 5)",
       R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_spell","arguments":{"level":3,"class_key":"wizard","limit":5}}})"},
      {"tools/call search_creature cr range+type",
       R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_creature","arguments":{"cr_min":3,"cr_max":5,"type":"undead","limit":5}}})"},
      {"tools/call search_spell exact name",
       R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_spell","arguments":{"search":"Fireball"}}})"},
      {"ping", R"({"jsonrpc":"2.0","id":4,"method":"ping"})"},
  };
  for (const auto& [label, line] : workloads) {
    std::vector<double> ms;
    for (int i = 0; i < calls; ++i) {
      const auto t0 = Clock::now();
      send(c, line);
      receive(c);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    report(label, ms);
  }
  finish(c);
  return 0;
}
