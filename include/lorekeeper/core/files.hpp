// Reading a whole file that crosses a boundary (a settings file, a model's vocabulary and configuration, an
// imported pack): only a regular file, and only up to a stated size, so a FIFO, a device (/dev/zero) or a huge
// file is an error instead of a hang or an exhausted memory.
#pragma once

#include <cstddef>
#include <string>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::files {

// The contents of `path`. NotFound when it does not exist or cannot be opened; InvalidArgument when it is not a
// regular file (opening never blocks: a FIFO with no writer is refused at once) or holds more than `max_bytes`;
// IoError when reading fails. Messages name the path.
Result<std::string> read_regular_file(const std::string& path, size_t max_bytes);

}  // namespace lorekeeper::files
