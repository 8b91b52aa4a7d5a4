// Where Open5e API pages come from: the live API (or any base URL), a directory of recorded pages, or a
// compressed archive of recorded pages (the snapshot embedded in the binary). A sync reads every list through
// this interface, so the crawler does not know which one it talks to.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::open5e {

// The largest page body a sync reads (the largest recorded Open5e page is 0.8 MB).
inline constexpr size_t kMaxPageBytes = 16u << 20;

class PageSource {
 public:
  virtual ~PageSource() = default;
  // The body of GET /<path>?<query> (e.g. "v2/spells/?limit=100&page=2"; the query may be in any order).
  // NotFound when the page does not exist (404, no recorded file); Unavailable or IoError when it could not be
  // read; Corruption when what came back is not a JSON body.
  virtual Result<std::string> get(const std::string& path_and_query) = 0;
  // Human-readable origin, for the store's metadata and messages ("https://api.open5e.com", a path, ...).
  virtual std::string describe() const = 0;
};

// The path and query of a request or URL, without scheme, host or leading slashes:
// "https://api.open5e.com/v2/spells/?page=2" -> "v2/spells/?page=2". Pages are always requested from the
// sync's own source, whatever host a `next` link names.
std::string request_path(const std::string& path_or_url);

// Maps a request to the recorded file name of the mirror layout (docs/formats/mirror-layout.md):
// "v2/spells/?page=2&limit=100" -> "v2/spells/limit=100&page=2.json". Accepts absolute URLs too.
std::string recorded_name(const std::string& path_or_url);

// Pages read from a directory in the mirror layout; never a file outside it (a request naming "..", an absolute
// path or a symbolic link that leads out is NotFound), never anything but a regular file, and never more than
// kMaxPageBytes of one (Corruption).
std::unique_ptr<PageSource> make_directory_source(const std::string& dir);

// Pages read from a zstd-compressed tar archive in the mirror layout, held in memory.
// Corruption if the bytes are not a zstd-compressed tar.
Result<std::unique_ptr<PageSource>> make_archive_source(const unsigned char* data, size_t size,
                                                        const std::string& description);

// The snapshot of the Open5e API compiled into the binary (data/open5e-snapshot.tar.zst).
Result<std::unique_ptr<PageSource>> make_bundled_source();
// Where and when the bundled snapshot was recorded, for status output.
const char* bundled_snapshot_description();

}  // namespace lorekeeper::open5e
