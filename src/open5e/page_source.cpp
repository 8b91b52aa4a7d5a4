#include "lorekeeper/open5e/page_source.hpp"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace lorekeeper::open5e {

namespace {

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Reads only files inside its root: a request whose recorded name leaves it ("..", an absolute path, a symbolic
// link pointing elsewhere) is NotFound without touching the file.
class DirectorySource : public PageSource {
 public:
  explicit DirectorySource(std::string dir) : dir_(std::move(dir)) {}
  Result<std::string> get(const std::string& path_and_query) override {
    namespace fs = std::filesystem;
    const fs::path name = fs::path(recorded_name(path_and_query)).lexically_normal();
    if (name.empty() || name.is_absolute() || name.has_root_name() || *name.begin() == "..") {
      return Status::not_found("no recorded page " + name.string() + " (outside " + dir_ + ")");
    }
    const fs::path file = fs::path(dir_) / name;
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(dir_, ec);
    const fs::path real = ec ? fs::path() : fs::weakly_canonical(file, ec);
    const auto rel = real.lexically_relative(root);
    if (ec || rel.empty() || *rel.begin() == "..") {
      return Status::not_found("no recorded page " + file.string() + " inside " + dir_);
    }
    if (!fs::is_regular_file(real, ec)) return Status::not_found("no recorded page " + file.string());
    const auto size = fs::file_size(real, ec);
    if (ec) return Status::io_error("reading " + file.string() + " failed: " + ec.message());
    if (size > kMaxPageBytes) {
      return Status::corruption(file.string() + " holds " + std::to_string(size) + " bytes, more than a page may hold");
    }
    std::ifstream in(real, std::ios::binary);
    if (!in) return Status::not_found("no recorded page " + file.string());
    std::stringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return Status::io_error("reading " + file.string() + " failed");
    return ss.str();
  }
  std::string describe() const override { return std::filesystem::absolute(dir_).string(); }

 private:
  std::string dir_;
};

class ArchiveSource : public PageSource {
 public:
  ArchiveSource(std::map<std::string, std::string> files, std::string description)
      : files_(std::move(files)), description_(std::move(description)) {}
  Result<std::string> get(const std::string& path_and_query) override {
    auto it = files_.find(recorded_name(path_and_query));
    if (it == files_.end()) return Status::not_found("no recorded page " + recorded_name(path_and_query));
    return it->second;
  }
  std::string describe() const override { return description_; }

 private:
  std::map<std::string, std::string> files_;
  std::string description_;
};

Result<std::string> zstd_decompress(const unsigned char* data, size_t size) {
  std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(), ZSTD_freeDStream);
  if (!ds) return Status::internal("zstd: out of memory");
  ZSTD_initDStream(ds.get());
  std::string out;
  std::vector<char> buf(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{data, size, 0};
  size_t last = 1;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    last = ZSTD_decompressStream(ds.get(), &o, &in);
    if (ZSTD_isError(last)) return Status::corruption(std::string("zstd: ") + ZSTD_getErrorName(last));
    out.append(buf.data(), o.pos);
  }
  if (last != 0) return Status::corruption("zstd: the archive is truncated");
  return out;
}

// Reads a POSIX/GNU tar held in memory into name -> contents. Handles GNU long names ('L' entries).
Result<std::map<std::string, std::string>> untar(const std::string& tar) {
  std::map<std::string, std::string> files;
  size_t pos = 0;
  std::string long_name;
  auto field = [&](size_t off, size_t len) {
    const char* p = tar.data() + pos + off;
    return std::string(p, strnlen(p, len));
  };
  while (pos + 512 <= tar.size()) {
    if (tar.compare(pos, 512, std::string(512, '\0')) == 0) break;  // end-of-archive block
    std::string name = field(0, 100);
    const std::string prefix = field(345, 155);
    if (!prefix.empty() && field(257, 5) == "ustar") name = prefix + "/" + name;
    const std::string size_text = field(124, 12);
    size_t size = 0;
    for (char c : size_text) {
      if (c < '0' || c > '7') break;
      size = size * 8 + static_cast<size_t>(c - '0');
    }
    const char type = tar[pos + 156];
    pos += 512;
    if (pos + size > tar.size()) return Status::corruption("tar: entry '" + name + "' runs past the end");
    std::string contents = tar.substr(pos, size);
    pos += (size + 511) / 512 * 512;
    if (type == 'L') {
      long_name = std::string(contents.c_str());
      continue;
    }
    if (!long_name.empty()) {
      name = long_name;
      long_name.clear();
    }
    if (type == '0' || type == '\0') {
      if (name.rfind("./", 0) == 0) name = name.substr(2);
      files[name] = std::move(contents);
    }
  }
  if (files.empty()) return Status::corruption("tar: no files in the archive");
  return files;
}

}  // namespace

std::string request_path(const std::string& path_or_url) {
  std::string s = path_or_url;
  if (auto scheme = s.find("://"); scheme != std::string::npos) {
    const auto slash = s.find('/', scheme + 3);
    s = slash == std::string::npos ? "" : s.substr(slash);
  }
  while (!s.empty() && s[0] == '/') s.erase(0, 1);
  return s;
}

std::string recorded_name(const std::string& path_or_url) {
  const std::string s = request_path(path_or_url);
  std::string path = s;
  std::string query;
  if (auto q = s.find('?'); q != std::string::npos) {
    path = s.substr(0, q);
    query = s.substr(q + 1);
  }
  if (!path.empty() && path.back() != '/') path += '/';
  std::vector<std::string> params;
  std::stringstream ss(query);
  std::string p;
  while (std::getline(ss, p, '&')) {
    if (!p.empty()) params.push_back(percent_decode(p));
  }
  std::stable_sort(params.begin(), params.end(), [](const std::string& a, const std::string& b) {
    return a.substr(0, a.find('=')) < b.substr(0, b.find('='));
  });
  std::string name;
  for (size_t i = 0; i < params.size(); ++i) name += (i ? "&" : "") + params[i];
  return path + (name.empty() ? "_" : name) + ".json";
}

std::unique_ptr<PageSource> make_directory_source(const std::string& dir) {
  return std::make_unique<DirectorySource>(dir);
}

Result<std::unique_ptr<PageSource>> make_archive_source(const unsigned char* data, size_t size,
                                                        const std::string& description) {
  auto tar = zstd_decompress(data, size);
  if (!tar) return tar.status();
  auto files = untar(*tar);
  if (!files) return files.status();
  return std::unique_ptr<PageSource>(std::make_unique<ArchiveSource>(std::move(*files), description));
}

}  // namespace lorekeeper::open5e
