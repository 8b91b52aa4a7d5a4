// HTTP/1.1 requests framed at the socket, so that a request sent before the previous one is answered (pipelining)
// is kept for the next read instead of lost.
//
// cpp-httplib 0.11 reads each request of a connection through a buffer of its own, made for that request: what a
// read brought in past the request's end (the next request, sent with it) was dropped with the buffer. This file
// defines recv() for the process (as connection_guard.cpp defines accept()): on a connection the guard tracks, a
// read never takes bytes past the end of the request being read (its headers up to the blank line, then
// Content-Length bytes of body), so the rest stays in the socket for the next request's read. Every other socket
// (the HTTP client of a sync, the tests' clients) reads as with libc's recv. A request whose body length is not a
// single Content-Length (chunked, or ambiguous: answered 400 and closed) ends the framing of its connection, and
// so does a head longer than kMaxFramedHead (the library refuses it).
#pragma once

#include <cstddef>
#include <cstdint>

namespace lorekeeper::mcp {

inline constexpr size_t kMaxFramedHead = 64 * 1024;

// Starts framing the accepted socket `fd`, connection `id` (a socket number reused by a later connection starts
// afresh).
void frame_requests(int fd, uint64_t id);
// Stops framing `fd` if it is still connection `id`'s.
void stop_framing(int fd, uint64_t id);

}  // namespace lorekeeper::mcp
