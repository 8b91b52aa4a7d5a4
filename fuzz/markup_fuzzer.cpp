// Fuzz target: arbitrary bytes through open5e::clean_markup, which every string of an API record passes through
// at ingest. Cleaning only removes or shortens (escaped line breaks, CRLF, empty lines, cross-reference markup), so
// the result is never longer than the input; a cleaned text holds no escaped line break or CRLF; and the work is
// linear (libFuzzer's -timeout catches a quadratic search back).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lorekeeper/open5e/mapper.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string cleaned = lorekeeper::open5e::clean_markup(text);
  if (cleaned.size() > text.size()) std::abort();
  if (cleaned.find("\r\n") != std::string::npos) std::abort();
  if (cleaned.find("\n\n\n") != std::string::npos) std::abort();
  return 0;
}
