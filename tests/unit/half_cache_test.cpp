// The query weights' cache file (src/embed/half_cache.hpp): used only when it is whole, undamaged and made from
// the model file as it is now; anything else reads as absent, never as weights.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "half_cache.hpp"
#include "lorekeeper/embed/safetensors.hpp"
#include "test_support.hpp"

namespace lorekeeper::embed::half_cache {
namespace {

struct Dir {
  std::string dir = testing::temp_dir();
  std::string model = dir + "/model.safetensors";
  std::string cache = path_in(dir);
  // The model file as it is now.
  FileIdentity id() const { return FileIdentity::of_path(model); }
};

std::vector<uint16_t> halves(size_t n) {
  std::vector<uint16_t> h(n);
  // Varied finite halves: the exponent's top bit cleared, so it is never all ones (infinity, NaN).
  for (size_t i = 0; i < n; ++i) h[i] = static_cast<uint16_t>((i * 2654435761u >> 7) & ~0x4000u);
  return h;
}

TEST(HalfCache, WhatIsWrittenIsReadBackInPlace) {
  Dir d;
  testing::write_file(d.model, "the model's bytes");
  const auto h = halves(1003);  // not a multiple of the checksum's word or lane count
  ASSERT_TRUE(write(d.cache, d.id(), h.data(), h.size()).is_ok());
  std::string why;
  auto got = read(d.cache, d.id(), h.size(), &why);
  ASSERT_NE(got, nullptr) << why;
  EXPECT_EQ(std::memcmp(got.get(), h.data(), h.size() * sizeof(uint16_t)), 0);
  // No temporary file is left beside it.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.dir)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 2u);
}

TEST(HalfCache, AnotherShapeIsNotUsed) {
  Dir d;
  testing::write_file(d.model, "m");
  const auto h = halves(64);
  ASSERT_TRUE(write(d.cache, d.id(), h.data(), h.size()).is_ok());
  EXPECT_EQ(read(d.cache, d.id(), 65), nullptr);
  EXPECT_EQ(read(d.cache, d.id(), 63), nullptr);
}

TEST(HalfCache, AReplacedModelMakesTheCacheStale) {
  Dir d;
  testing::write_file(d.model, "first model");
  const auto h = halves(256);
  ASSERT_TRUE(write(d.cache, d.id(), h.data(), h.size()).is_ok());
  ASSERT_NE(read(d.cache, d.id(), h.size()), nullptr);
  // Same size, new file (as `model fetch` renames a download over it).
  const std::string next = d.dir + "/next";
  testing::write_file(next, "other model");
  std::filesystem::rename(next, d.model);
  std::string why;
  EXPECT_EQ(read(d.cache, d.id(), h.size(), &why), nullptr);
  EXPECT_NE(why.find("another model file"), std::string::npos) << why;
  // Rewritten in place (same inode and size) with its modification time set back, as an archive unpacked over it
  // or `rsync --inplace -t` leave it: the change time still differs.
  ASSERT_TRUE(write(d.cache, d.id(), h.data(), h.size()).is_ok());
  const FileIdentity before = d.id();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  testing::write_file(d.model, "other MODEL");
  struct timespec times[2] = {{0, UTIME_OMIT}, {before.mtime_ns / 1000000000, before.mtime_ns % 1000000000}};
  ASSERT_EQ(::utimensat(AT_FDCWD, d.model.c_str(), times, 0), 0);
  const FileIdentity after = d.id();
  ASSERT_EQ(after.inode, before.inode);
  ASSERT_EQ(after.size, before.size);
  ASSERT_EQ(after.mtime_ns, before.mtime_ns);
  EXPECT_EQ(read(d.cache, after, h.size()), nullptr);
  // The identity recorded is the one given (the file the encoder mapped), not what the path names when written.
  ASSERT_TRUE(write(d.cache, before, h.data(), h.size()).is_ok());
  EXPECT_EQ(read(d.cache, after, h.size()), nullptr);
  EXPECT_NE(read(d.cache, before, h.size()), nullptr);
  // Without a model file there is nothing to match or record.
  EXPECT_EQ(read(d.cache, FileIdentity{}, h.size()), nullptr);
  EXPECT_EQ(write(d.cache, FileIdentity{}, h.data(), h.size()).code(), StatusCode::kInvalidArgument);
}

TEST(HalfCache, WeightsThatAreNotFiniteAreNotKept) {
  Dir d;
  testing::write_file(d.model, "m");
  for (uint16_t bad : {uint16_t{0x7c00}, uint16_t{0xfc00}, uint16_t{0x7e01}}) {  // +inf, -inf, NaN
    auto h = halves(64);
    h[17] = bad;
    EXPECT_EQ(write(d.cache, d.id(), h.data(), h.size()).code(), StatusCode::kInvalidArgument);
    EXPECT_FALSE(std::filesystem::exists(d.cache));
  }
}

TEST(HalfCache, AFifoOrDirectoryInItsPlaceIsNotRead) {
  Dir d;
  testing::write_file(d.model, "m");
  ASSERT_EQ(::mkfifo(d.cache.c_str(), 0644), 0);
  std::string why;
  EXPECT_EQ(read(d.cache, d.id(), 16, &why), nullptr) << "and does not block";
  EXPECT_NE(why.find("regular"), std::string::npos) << why;
  std::filesystem::remove(d.cache);
  std::filesystem::create_directory(d.cache);
  EXPECT_EQ(read(d.cache, d.id(), 16), nullptr);
}

TEST(HalfCache, EveryDamageReadsAsAbsent) {
  Dir d;
  testing::write_file(d.model, "m");
  const auto h = halves(512);
  ASSERT_TRUE(write(d.cache, d.id(), h.data(), h.size()).is_ok());
  const std::string good = testing::read_file(d.cache);
  auto damaged = [&](const std::string& bytes, const char* what) {
    testing::write_file(d.cache, bytes);
    // The damaged copy is a new file: the model is unchanged, so only the damage can refuse it.
    EXPECT_EQ(read(d.cache, d.id(), h.size()), nullptr) << what;
  };
  damaged(good.substr(0, good.size() - 2), "cut short");
  damaged(good.substr(0, 40), "cut inside the header");
  damaged("", "empty");
  damaged(good + "x", "trailing bytes");
  for (size_t at :
       {size_t{0}, size_t{9}, size_t{13}, size_t{17}, size_t{56}, size_t{64}, good.size() / 2, good.size() - 1}) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    damaged(flipped, ("one bit flipped at byte " + std::to_string(at)).c_str());
  }
  testing::write_file(d.cache, good);
  EXPECT_NE(read(d.cache, d.id(), h.size()), nullptr) << "the intact file reads again";
}

TEST(HalfCache, AnUnwritableDirectoryIsAnErrorAndLeavesNothing) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  Dir d;
  testing::write_file(d.model, "m");
  ASSERT_EQ(::chmod(d.dir.c_str(), 0555), 0);
  const auto h = halves(16);
  const Status s = write(d.cache, d.id(), h.data(), h.size());
  ::chmod(d.dir.c_str(), 0755);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_FALSE(std::filesystem::exists(d.cache));
}

TEST(HalfCache, AMissingDirectoryIsAnError) {
  Dir d;
  testing::write_file(d.model, "m");
  const auto h = halves(16);
  const Status s = write(d.dir + "/no/such/dir/cache", d.id(), h.data(), h.size());
  EXPECT_EQ(s.code(), StatusCode::kIoError);
}

TEST(HalfCache, TheChecksumSeesEveryWordAndTheTail) {
  auto h = halves(1027);
  const uint64_t base = checksum(h.data(), h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    h[i] ^= 1;
    EXPECT_NE(checksum(h.data(), h.size()), base) << "half " << i;
    h[i] ^= 1;
  }
  EXPECT_NE(checksum(h.data(), h.size() - 1), base);
}

}  // namespace
}  // namespace lorekeeper::embed::half_cache
