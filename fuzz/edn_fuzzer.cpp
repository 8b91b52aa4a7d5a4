// Fuzz target: arbitrary bytes through the EDN reader. Malformed input must give an InvalidArgument whose message
// starts with "line L, column C: "; parse() and parse_all() must agree; a value that parses must print as EDN that
// reads back to an equal value and prints the same again; strict mode (duplicates rejected) may only fail where the
// lenient mode counted duplicates.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lorekeeper/edn/edn.hpp"

namespace {

void check_error(const lorekeeper::Status& status) {
  if (status.code() != lorekeeper::StatusCode::kInvalidArgument) std::abort();
  if (status.message().rfind("line ", 0) != 0 || status.message().find(", column ") == std::string::npos) {
    std::abort();
  }
}

void check_round_trip(const lorekeeper::edn::Value& value) {
  namespace edn = lorekeeper::edn;
  const std::string printed = edn::to_string(value);
  auto again = edn::parse(printed);
  if (!again || !(*again == value) || edn::to_string(*again) != printed) std::abort();
  if (again->hash() != value.hash()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace edn = lorekeeper::edn;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  edn::ParseReport report;
  auto all = edn::parse_all(text, {}, &report);
  auto one = edn::parse(text);
  if (!all) {
    check_error(all.status());
    if (one) std::abort();
    check_error(one.status());
    return 0;
  }
  if (one.is_ok() != (all->size() == 1)) std::abort();
  if (one) {
    if (!(*one == all->front())) std::abort();
  } else {
    check_error(one.status());
  }
  for (const auto& value : *all) check_round_trip(value);

  edn::ParseOptions strict;
  strict.reject_duplicates = true;
  auto strict_all = edn::parse_all(text, strict);
  const bool had_duplicates = report.duplicate_map_keys + report.duplicate_set_elements > 0;
  if (strict_all.is_ok() == had_duplicates) std::abort();
  if (strict_all) {
    if (strict_all->size() != all->size()) std::abort();
    for (size_t i = 0; i < all->size(); ++i) {
      if (!((*strict_all)[i] == (*all)[i])) std::abort();
    }
  } else {
    check_error(strict_all.status());
  }
  return 0;
}
