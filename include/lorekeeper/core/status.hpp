// Error values used across LoreKeeper: Status for operations without a value, Result<T> for those with one.
// Library code reports failures through these and never throws across its public interface.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace lorekeeper {

enum class StatusCode {
  kOk = 0,
  kNotFound,
  kInvalidArgument,
  kCorruption,
  kIoError,
  kUnavailable,
  kCancelled,
  kInternal,
};

// Human-readable name of a code ("not found", "invalid argument", ...).
const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  static Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status io_error(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "<code name>: <message>", or "ok".
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status explaining why there is none; shaped like std::expected.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!status_.is_ok() && "a Result without a value needs an error status");
  }

  bool is_ok() const { return value_.has_value(); }
  explicit operator bool() const { return is_ok(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace lorekeeper

// Returns early from the enclosing function when `expr` (a Status) is not ok.
#define LOREKEEPER_RETURN_IF_ERROR(expr)        \
  do {                                          \
    ::lorekeeper::Status lk_status_ = (expr);   \
    if (!lk_status_.is_ok()) return lk_status_; \
  } while (false)
