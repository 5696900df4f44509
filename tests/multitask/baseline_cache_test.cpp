#include "gpumux/multitask/baseline_cache.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "env_var.h"
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "gpumux/core/error.h"

namespace gpumux::multitask {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static int n = 0;
    path_ = fs::temp_directory_path() / ("gpumux-cache-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

using test::EnvVar;

TEST(BaselineCache, Fnv1a64KnownValues) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(BaselineCache, RoundTripCreatesTheDirectory) {
  TempDir tmp;
  BaselineCache cache(tmp.path() / "sub" / "dir");
  EXPECT_FALSE(cache.get("key one").has_value());
  EXPECT_FALSE(fs::exists(tmp.path() / "sub"));  // nothing created by a lookup
  nlohmann::json v = {{"cycles", 123456}, {"kernels", {{"k", 1.5}}}};
  cache.put("key one", v);
  EXPECT_TRUE(fs::is_directory(tmp.path() / "sub" / "dir"));
  std::optional<nlohmann::json> got = cache.get("key one");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, v);
  EXPECT_FALSE(cache.get("key two").has_value());
  // Replacing an entry; no temporary files left behind.
  cache.put("key one", 7);
  EXPECT_EQ(cache.get("key one"), nlohmann::json(7));
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(cache.dir())) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".json") << e.path();
  }
  EXPECT_EQ(files, 1u);
  EXPECT_EQ(cache.file_for("key one").filename().string(), fmt::format("{:016x}.json", fnv1a64("key one")));
  // Another cache object on the same directory sees it.
  EXPECT_EQ(BaselineCache(cache.dir()).get("key one"), nlohmann::json(7));
}

TEST(BaselineCache, SameFileNameDifferentKeyIsAMiss) {
  TempDir tmp;
  BaselineCache cache(tmp.path());
  cache.put("the real key", {{"cycles", 1}});
  // Simulate a hash collision: the entry of "the real key" stored in the file
  // that "another key" maps to.
  fs::copy_file(cache.file_for("the real key"), cache.file_for("another key"));
  EXPECT_FALSE(cache.get("another key").has_value());
  EXPECT_TRUE(cache.get("the real key").has_value());
}

TEST(BaselineCache, CorruptOrUnreadableFilesAreMisses) {
  TempDir tmp;
  BaselineCache cache(tmp.path());
  cache.put("k", {{"cycles", 1}});
  fs::path f = cache.file_for("k");
  for (const char* text : {"", "{\"format\": 1, \"key\": \"k\", \"val", "not json", "[1, 2]", "{\"key\": \"k\"}",
                           "{\"format\": 1, \"key\": 5, \"value\": 1}", "{\"format\": 2, \"key\": \"k\", \"value\": 1}",
                           "\xff\xfe garbage"}) {
    std::ofstream(f, std::ios::trunc) << text;
    EXPECT_FALSE(cache.get("k").has_value()) << text;
  }
  // A directory where the file should be.
  fs::remove(f);
  fs::create_directory(f);
  EXPECT_FALSE(cache.get("k").has_value());
  // The entry can be rewritten after corruption (here: once the directory is gone).
  fs::remove(f);
  cache.put("k", 3);
  EXPECT_EQ(cache.get("k"), nlohmann::json(3));
}

TEST(BaselineCache, PutFailureIsAnApiErrorNamingThePath) {
  TempDir tmp;
  fs::create_directories(tmp.path());
  std::ofstream(tmp.path() / "file") << "x";
  BaselineCache cache(tmp.path() / "file" / "cache");  // parent is a file: cannot create
  try {
    cache.put("k", 1);
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_NE(std::string(e.what()).find("file"), std::string::npos) << e.what();
  }
}

TEST(BaselineCache, DefaultDirFollowsTheEnvironment) {
  EnvVar home("HOME", "/home/someone");
  {
    EnvVar a("GPUMUX_CACHE_DIR", "/tmp/gm");
    EnvVar b("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(BaselineCache::default_dir(), fs::path("/tmp/gm"));
  }
  EnvVar a("GPUMUX_CACHE_DIR", "");
  {
    EnvVar b("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(BaselineCache::default_dir(), fs::path("/xdg/gpumux"));
  }
  {
    EnvVar b("XDG_CACHE_HOME", "relative/not/allowed");
    EXPECT_EQ(BaselineCache::default_dir(), fs::path("/home/someone/.cache/gpumux"));
  }
  EnvVar b("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(BaselineCache::default_dir(), fs::path("/home/someone/.cache/gpumux"));
  EnvVar h("HOME", nullptr);
  EXPECT_EQ(BaselineCache::default_dir(), fs::path(".gpumux-cache"));
}

TEST(BaselineCache, BuildIdIsGeneratedFromTheSources) {
  std::string id = build_id();
  EXPECT_EQ(id, build_id());
  EXPECT_EQ(id.rfind("src-", 0), 0u) << id;  // the CMake-generated hash, not the fallback
  EXPECT_GE(id.size(), 20u) << id;
}

}  // namespace
}  // namespace gpumux::multitask
