// HTTP/1.1 requests framed at the socket, so that a request sent before the previous one is answered (pipelining)
// is kept for the next read instead of lost.
//
// cpp-httplib 0.11 reads each request of a connection through a buffer of its own, made for that request: what a
// read brought in past the request's end (the next request, sent with it) was dropped with the buffer. This file
// defines recv() for the process (as connection_guard.cpp defines accept()): when the worker serving a connection
// the guard tracks reads it, a read never takes bytes past the end of the request being read (its head up to the
// blank line, then Content-Length bytes of body), so the rest stays in the socket for the next request's read.
// What the library leaves of a request it answered (the body of a GET, or of a POST refused before its body was
// read) is dropped before the next request is read, as the library's buffer dropped it, and so are the empty lines
// a client may send between requests. Every other read (another thread's, another socket's: the HTTP client of a
// sync, the tests' clients) is libc's recv. After a chunked request, or a head longer than kMaxFramedHead, the
// connection is read unframed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lorekeeper::mcp {

inline constexpr size_t kMaxFramedHead = 64 * 1024;

// Starts framing the accepted socket `fd` as connection `id`, read by the worker whose current_connection() is
// `id`; any earlier connection's state for the number `fd` is forgotten. `id` 0: only forgets it (a refused
// connection is read unframed).
void frame_requests(int fd, uint64_t id);
// Stops framing `fd` if it is still connection `id`'s.
void stop_framing(int fd, uint64_t id);
// Called by the serving worker when the library has written an answer on `fd`: what it left unread of the request
// is dropped before the next request is read.
void request_answered(int fd, uint64_t id);

// The bytes taken from `fd` so far while it is connection `id`'s (read, or dropped between requests; 0 when it is
// not tracked): what the client sent that the server has read.
uint64_t bytes_taken(int fd, uint64_t id);

// The connection the calling worker thread serves (0: none): connection_guard.cpp.
uint64_t current_connection();

}  // namespace lorekeeper::mcp
