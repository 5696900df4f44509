// A user-PTX application with a buffer bound as a texture object
// (configs/workloads/user-ptx-texture.toml), and the workload file's checks of
// the texture = { ... } table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "gpumux/core/error.h"
#include "gpumux/multitask/runner.h"
#include "gpumux/multitask/workload_file.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

const std::string kDir = std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads";

std::string app_with_texture(const std::string& texture, const std::string& bytes = "16384") {
  return "[[app]]\nname = \"smooth\"\nptx = \"kernels/smooth_tex.ptx\"\n"
         "[[app.buffer]]\nname = \"img\"\nbytes = " + bytes + "\ninit = \"iota_f32\"\ntexture = " + texture + "\n"
         "[[app.buffer]]\nname = \"out\"\nbytes = 16384\n"
         "[[app.launch]]\nkernel = \"smooth\"\ngrid = [16]\nblock = [256]\n"
         "args = [\"tex:img\", \"buf:out\", \"u32:64\", \"u32:64\"]\n";
}

std::string error_of(const std::string& text) {
  try {
    parse_workload(text, "w.toml", kDir);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TextureWorkload, ABufferBoundAsATextureIsFilteredByTheKernel) {
  std::filesystem::path out = std::filesystem::temp_directory_path() / "gpumux-texture-workload-test";
  std::filesystem::remove_all(out);
  WorkloadFile w = load_workload_file(kDir + "/user-ptx-texture.toml");
  ASSERT_TRUE(w.apps[0].user && w.apps[0].user->buffers[0].texture);
  EXPECT_EQ(w.apps[0].user->buffers[0].texture->width, 64u);
  auto user = std::make_shared<UserProgram>(*w.apps[0].user);
  user->output_dir = out;
  w.apps[0].user = user;
  w.apps.resize(1);  // the texture app alone
  RunOptions o = test::no_baselines();
  o.use_cache = false;
  RunResult r = run_workload(w, o);
  test::expect_all_passed(r);
  std::ifstream in(out / "out.bin", std::ios::binary);
  std::vector<float> v(64 * 64);
  in.read(reinterpret_cast<char*>(v.data()), 16384);
  ASSERT_EQ(in.gcount(), 16384);
  // Texel (x, y) holds 64 y + x: halfway to the next texel, the last one clamped.
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      ASSERT_EQ(v[size_t(y * 64 + x)], float(64 * y + x) + (x < 63 ? 0.5f : 0.0f)) << x << "," << y;
  std::filesystem::remove_all(out);
}

TEST(TextureWorkload, BadTextureTablesNameTheProblem) {
  EXPECT_NE(error_of(app_with_texture("{ format = \"f32\", width = 60 }")).find("not a whole number of 240-byte rows"),
            std::string::npos);
  EXPECT_NE(error_of(app_with_texture("{ format = \"u8\", filter = \"linear\" }")).find("linear filtering needs"),
            std::string::npos);
  EXPECT_NE(error_of(app_with_texture("{ format = \"f64\" }")).find("expected one of"), std::string::npos);
  EXPECT_NE(error_of(app_with_texture("{ format = \"f32\", colour = 1 }")).find("unknown key"), std::string::npos);
  EXPECT_NE(error_of(app_with_texture("{ format = \"f32\", channels = 3 }")).find("3 x 32-bit"), std::string::npos);
  const std::string no_texture =
      "[[app]]\nname = \"a\"\nptx = \"kernels/smooth_tex.ptx\"\n[[app.buffer]]\nname = \"img\"\nbytes = 64\n"
      "[[app.launch]]\nkernel = \"smooth\"\ngrid = [1]\nblock = [1]\nargs = [\"tex:img\"]\n";
  EXPECT_NE(error_of(no_texture).find("buffer 'img' has no texture"), std::string::npos) << error_of(no_texture);
  // The texture is part of the application's identity (baseline cache keys).
  WorkloadFile a = parse_workload(app_with_texture("{ format = \"f32\", width = 64 }"), "w.toml", kDir);
  WorkloadFile b = parse_workload(app_with_texture("{ format = \"f32\", width = 64, filter = \"linear\" }"), "w.toml", kDir);
  EXPECT_NE(a.apps[0].identity(), b.apps[0].identity());
}

}  // namespace
}  // namespace gpumux::multitask
