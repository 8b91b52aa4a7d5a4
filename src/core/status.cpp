#include "lorekeeper/core/status.hpp"

namespace lorekeeper {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kCorruption: return "corruption";
    case StatusCode::kIoError: return "I/O error";
    case StatusCode::kUnavailable: return "unavailable";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(status_code_name(code_)) + ": " + message_;
}

}  // namespace lorekeeper
