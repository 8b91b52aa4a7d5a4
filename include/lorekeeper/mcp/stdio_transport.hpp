// Newline-delimited JSON-RPC over a pair of file descriptors (stdin/stdout for `lorekeeper serve`).
// stdout carries protocol messages only. Returns when the input ends (EOF), after answering every complete
// line; a final line without its newline is an incomplete message and is dropped.
//
// Requests are answered one at a time, in the order they came, by a worker thread; the reading thread answers a
// ping at once (never behind a long call), and a cancellation (notifications/cancelled) stops the request it
// names from being run if it still waits, or its answer from being sent if it is being answered.
#pragma once

#include <functional>

#include "lorekeeper/mcp/server.hpp"

namespace lorekeeper::mcp {

// Called on the worker thread with each queued request just before it is answered: the seam through which a
// test holds a request in progress while the reading thread carries on.
using BeforeAnswer = std::function<void(const json& request)>;

// Serves until EOF on `in_fd`. Returns 0 on a clean end, 1 if the output could not be written.
int serve_stdio(Server& server, int in_fd, int out_fd, BeforeAnswer before_answer = {});

}  // namespace lorekeeper::mcp
