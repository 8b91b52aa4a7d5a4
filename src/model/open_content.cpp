#include "lorekeeper/model/open_content.hpp"

#include <string>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::model {

const std::vector<std::string_view>& product_identity_creatures() {
  static const std::vector<std::string_view> kNames = {"beholder",    "gauth",           "carrion crawler", "tanar'ri",
                                                       "baatezu",     "displacer beast", "githyanki",       "githzerai",
                                                       "mind flayer", "illithid",        "umber hulk",      "yuan-ti"};
  return kNames;
}

std::string_view product_identity_name(std::string_view query) {
  const std::string asked = text::fold(query);
  if (asked.empty()) return {};
  for (const std::string_view name : product_identity_creatures()) {
    const std::string folded = text::fold(name);
    if (asked == folded || asked == folded + "s") return name;
  }
  return {};
}

}  // namespace lorekeeper::model
