// GPU presets compiled into the binary: the same text as configs/*.toml,
// found by name from any folder, and includable from the user's own files.
#include "gpumux/core/presets.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "env_var.h"
#include "file_test_util.h"
#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

using test::read_file;

// The dump without its "# from" lines, which name the sources.
std::string values_of(const Config& c) {
  std::stringstream in(c.dump());
  std::string out, line;
  while (std::getline(in, line))
    if (!line.starts_with("# from")) out += line + "\n";
  return out;
}

class Presets : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpumux-presets-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  fs::path dir_;
};

TEST_F(Presets, AreTheTextOfConfigsToml) {
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(GPUMUX_SOURCE_DIR) / "configs")) {
    if (e.path().extension() != ".toml") continue;
    ++files;
    const Preset* p = find_builtin_preset(e.path().stem().string());
    ASSERT_NE(p, nullptr) << e.path();
    EXPECT_EQ(p->text, read_file(e.path())) << e.path();
  }
  EXPECT_EQ(builtin_presets().size(), files);
  EXPECT_EQ(find_builtin_preset("nosuch"), nullptr);
}

// k20c includes gtx980: built in, the include is the built-in gtx980 too.
TEST_F(Presets, LoadByNameLikeTheirFiles) {
  for (const char* name : {"gtx980", "k20c", "isca17-56sm"}) {
    SCOPED_TRACE(name);
    Config built_in = gpu::load_config(name, std::vector<std::string>{"sm.warp_scheduler=lrr"});
    Config file = Config::build(fs::path(GPUMUX_SOURCE_DIR) / "configs" / (std::string(name) + ".toml"),
                                std::vector<std::string>{"sm.warp_scheduler=lrr"});
    EXPECT_EQ(values_of(built_in), values_of(file));
    EXPECT_NE(built_in.dump().find(std::string("# from ") + name + ".toml (built-in preset)"), std::string::npos);
  }
}

// A config file anywhere may include a preset by its file name; a file of that
// name beside it wins.
TEST_F(Presets, UserFilesIncludeThem) {
  write("mine.toml", "include = \"titanv.toml\"\n[gpu]\nnum_sms = 4\n");
  Config c = gpu::load_config((dir_ / "mine.toml").string());
  EXPECT_EQ(c.values().gpu.num_sms, 4u);
  EXPECT_EQ(c.values().clock.core_mhz, gpu::load_config("titanv").values().clock.core_mhz);

  write("titanv.toml", "[gpu]\nnum_sms = 3\nname = \"local\"\n");
  write("other.toml", "include = \"titanv.toml\"\n");
  EXPECT_EQ(gpu::load_config((dir_ / "other.toml").string()).values().gpu.name, "local");

  write("bad.toml", "include = \"nosuch.toml\"\n");
  EXPECT_THROW(
      {
        try {
          gpu::load_config((dir_ / "bad.toml").string());
        } catch (const LoadError& e) {
          EXPECT_NE(std::string(e.what()).find("nosuch.toml: cannot open config file"), std::string::npos)
              << e.what();
          throw;
        }
      },
      LoadError);
}

// $GPUMUX_CONFIGS holds the user's own presets, which win over built-in ones.
TEST_F(Presets, UserPresetFolderComesFirst) {
  write("gtx980.toml", "include = \"k20c.toml\"\n[gpu]\nnum_sms = 2\n");
  test::EnvVar env("GPUMUX_CONFIGS", dir_.c_str());
  EXPECT_TRUE(gpu::is_preset("gtx980"));
  EXPECT_EQ(gpu::load_config("gtx980").values().gpu.num_sms, 2u);
  EXPECT_EQ(gpu::load_config("titanv").values().gpu.num_sms, 80u);
}

// A path is a file even when it does not exist.
TEST_F(Presets, PathsAreFiles) {
  for (std::string path : {(dir_ / "gtx980.toml").string(), std::string("nosuch.toml")}) {
    try {
      gpu::load_config(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const LoadError& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": cannot open config file"), std::string::npos) << e.what();
    }
  }
}

TEST_F(Presets, UnknownNamesListTheBuiltInOnes) {
  test::EnvVar env("GPUMUX_CONFIGS", nullptr);
  EXPECT_FALSE(gpu::is_preset("gtx9800"));
  try {
    gpu::load_config("gtx9800");
    FAIL() << "no error";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("no config file or preset named 'gtx9800' (built-in presets: a100, "
                                         "edge-16sm, gtx980, h100, isca17-16sm, isca17-56sm, k20c, thesis-ch6, "
                                         "titanv;"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gpumux
