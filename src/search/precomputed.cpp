#include "lorekeeper/search/precomputed.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/passages.hpp"

extern "C" const unsigned char lorekeeper_vectors_begin[];
extern "C" const unsigned char lorekeeper_vectors_end[];

namespace lorekeeper::search {

namespace {

constexpr std::string_view kMagic = "LKVECS01";
constexpr size_t kModelField = 64, kShaField = 64, kRecipeField = 16;
constexpr size_t kHeaderSize = 8 + 4 + 4 + kModelField + kShaField + kRecipeField;

size_t row_size(int dims) { return 8 + 4 + static_cast<size_t>(dims); }

template <typename T>
T read_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // the formats' hosts (x86-64, arm64) are little-endian
  return v;
}

template <typename T>
void append_le(std::string& out, T v) {
  char b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  out.append(b, sizeof v);
}

std::string padded_field(std::string_view bytes) {
  const size_t end = bytes.find('\0');
  return std::string(bytes.substr(0, end));
}

std::optional<uint64_t> hash_value(std::string_view hex) {
  if (hex.size() != 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : hex) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return std::nullopt;
    }
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace

Result<PrecomputedVectors> PrecomputedVectors::parse(std::string_view bytes) {
  if (bytes.size() < kHeaderSize || bytes.substr(0, kMagic.size()) != kMagic) {
    return Status::corruption("not a precomputed vector file (no LKVECS01 header)");
  }
  const char* p = bytes.data() + kMagic.size();
  const uint32_t dims = read_le<uint32_t>(p);
  const uint32_t count = read_le<uint32_t>(p + 4);
  if (dims == 0 || dims > 4096) return Status::corruption("precomputed vectors: bad dimension " + std::to_string(dims));
  PrecomputedVectors v;
  v.dims_ = static_cast<int>(dims);
  v.count_ = count;
  v.model_ = padded_field(std::string_view(p + 8, kModelField));
  v.model_sha256_ = padded_field(std::string_view(p + 8 + kModelField, kShaField));
  v.recipe_ = padded_field(std::string_view(p + 8 + kModelField + kShaField, kRecipeField));
  const size_t stride = row_size(v.dims_);
  if (bytes.size() != kHeaderSize + static_cast<size_t>(count) * stride) {
    return Status::corruption("precomputed vectors: " + std::to_string(bytes.size()) + " bytes where " +
                              std::to_string(count) + " rows of " + std::to_string(dims) + " dimensions need " +
                              std::to_string(kHeaderSize + static_cast<size_t>(count) * stride));
  }
  v.rows_ = bytes.substr(kHeaderSize);
  for (size_t i = 0; i < count; ++i) {
    const char* row = v.rows_.data() + i * stride;
    if (i > 0 && read_le<uint64_t>(row) <= read_le<uint64_t>(row - stride)) {
      return Status::corruption("precomputed vectors: hashes not in ascending order at row " + std::to_string(i));
    }
    const float scale = read_le<float>(row + 8);
    if (!std::isfinite(scale) || scale <= 0) {
      return Status::corruption("precomputed vectors: bad scale at row " + std::to_string(i));
    }
  }
  return v;
}

const PrecomputedVectors& PrecomputedVectors::bundled() {
  static const PrecomputedVectors set = [] {
    const std::string_view bytes(reinterpret_cast<const char*>(lorekeeper_vectors_begin),
                                 static_cast<size_t>(lorekeeper_vectors_end - lorekeeper_vectors_begin));
    auto parsed = parse(bytes);
    if (!parsed) {
      log::warning("the bundled vectors are unusable (entities are embedded instead): " + parsed.status().message());
      return PrecomputedVectors{};
    }
    if (parsed->model() != kModelId || parsed->recipe() != kPassageRecipe ||
        parsed->dimensions() != embed::kDimensions) {
      log::warning("the bundled vectors were made for " + parsed->model() + " recipe " + parsed->recipe() +
                   "; entities are embedded instead");
      return PrecomputedVectors{};
    }
    return std::move(*parsed);
  }();
  return set;
}

std::vector<float> PrecomputedVectors::find(std::string_view text_hash) const {
  const auto wanted = hash_value(text_hash);
  if (!wanted || count_ == 0) return {};
  const size_t stride = row_size(dims_);
  size_t lo = 0, hi = count_;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (read_le<uint64_t>(rows_.data() + mid * stride) < *wanted) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == count_) return {};
  const char* row = rows_.data() + lo * stride;
  if (read_le<uint64_t>(row) != *wanted) return {};
  const float scale = read_le<float>(row + 8);
  std::vector<float> out(static_cast<size_t>(dims_));
  double norm = 0;
  for (int i = 0; i < dims_; ++i) {
    out[static_cast<size_t>(i)] = static_cast<float>(static_cast<int8_t>(row[12 + i])) * scale;
    norm += static_cast<double>(out[static_cast<size_t>(i)]) * out[static_cast<size_t>(i)];
  }
  if (norm <= 0) return {};
  const float inv = static_cast<float>(1.0 / std::sqrt(norm));
  for (float& x : out) x *= inv;
  return out;
}

Result<std::string> serialize_precomputed(const std::vector<store::Store::VectorRow>& rows, std::string_view model,
                                          std::string_view model_sha256, int dimensions) {
  if (dimensions <= 0) return Status::invalid_argument("dimensions must be positive");
  if (model.size() > kModelField || model_sha256.size() > kShaField) {
    return Status::invalid_argument("model id or sha256 too long for the header");
  }
  std::map<uint64_t, const std::vector<float>*> by_hash;
  for (const auto& r : rows) {
    const auto h = hash_value(r.text_hash);
    if (!h) return Status::invalid_argument("malformed text hash '" + r.text_hash + "' of " + r.key);
    if (r.vector.size() != static_cast<size_t>(dimensions)) {
      return Status::invalid_argument("vector of " + r.key + " has " + std::to_string(r.vector.size()) +
                                      " dimensions, not " + std::to_string(dimensions));
    }
    by_hash.emplace(*h, &r.vector);
  }
  std::string out(kMagic);
  append_le<uint32_t>(out, static_cast<uint32_t>(dimensions));
  append_le<uint32_t>(out, static_cast<uint32_t>(by_hash.size()));
  auto field = [&](std::string_view s, size_t width) {
    out += s;
    out.append(width - s.size(), '\0');
  };
  field(model, kModelField);
  field(model_sha256, kShaField);
  field(kPassageRecipe, kRecipeField);
  for (const auto& [hash, vec] : by_hash) {
    float peak = 0;
    for (float x : *vec) {
      if (!std::isfinite(x)) return Status::invalid_argument("a vector holds a non-finite value");
      peak = std::max(peak, std::fabs(x));
    }
    if (peak == 0) return Status::invalid_argument("a vector is all zeros");
    const float scale = peak / 127.0f;
    append_le<uint64_t>(out, hash);
    append_le<float>(out, scale);
    for (float x : *vec) {
      const long q = std::lround(x / scale);
      out.push_back(static_cast<char>(static_cast<int8_t>(std::clamp<long>(q, -127, 127))));
    }
  }
  return out;
}

}  // namespace lorekeeper::search
