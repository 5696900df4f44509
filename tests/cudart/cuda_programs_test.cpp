// Unmodified CUDA programs (tests/cuda/*.cu, built with nvcc -cudart shared
// -arch=compute_80 when nvcc is present) run through `gpumux exec` on the
// project's libcudart.so.13; each program checks its own results and exit
// code. Every program is compiled once per test run, all in parallel
// (cuda_build_util.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_test_util.h"
#include "gpumux/gpu/gpu.h"
#include "cuda_build_util.h"

namespace {

namespace fs = std::filesystem;
using gpumux::test::run_command;
using gpumux::test::run_gpumux;

const fs::path kOut = gpumux::test::kCudaOut;

class CudaPrograms : public ::testing::Test {
 protected:
  // ctest runs every test in its own process (and in parallel): the builds
  // are shared through kOut under a lock, and a program is rebuilt only when
  // its source is newer.
  static void SetUpTestSuite() {
    std::vector<gpumux::test::CudaBuild> builds = {
        {"vector_add_streams", "vector_add_streams", "-arch=compute_80"},
        {"reduction", "reduction", "-arch=compute_80"},
        {"memory_variants", "memory_variants", "-arch=compute_80"},
        {"device_props", "device_props", "-arch=compute_80"},
        {"device_attributes", "device_attributes", "-arch=compute_80"},
        {"memory_pools", "memory_pools", "-arch=compute_80"},
        {"memory_pools_per_thread", "memory_pools", "-arch=compute_80 --default-stream per-thread"},
        {"error_paths", "error_paths", "-arch=compute_80"},
        {"thrust_sort", "thrust_sort", "-arch=compute_80"},
        {"cub_algorithms", "cub_algorithms", "-arch=compute_80"},
        {"matrix_vector", "matrix_vector", "-arch=compute_80"},
        {"launch_ex", "launch_ex", "-arch=compute_80"},
        {"single_device", "single_device", "-arch=compute_80"},
        {"texture_objects", "texture_objects", "-arch=compute_80"},
        {"cooperative_launch", "cooperative_launch", "-arch=compute_80"},
        {"cooperative_launch_per_thread", "cooperative_launch", "-arch=compute_80 --default-stream per-thread"},
        {"vector_add_uncompressed", "vector_add_streams", "-arch=compute_80 -compress-mode=none"},
        {"vector_add_per_thread", "vector_add_streams", "-arch=compute_80 --default-stream per-thread"},
        {"dynamic_parallelism", "dynamic_parallelism", "-arch=compute_80 -rdc=true"},
        {"graphs", "graphs", "-arch=compute_80"},
        {"stream_capture", "stream_capture", "-arch=compute_80"},
        {"graph_conditionals", "graph_conditionals", "-arch=compute_80"},
        {"graph_launch_overhead", "graph_launch_overhead", "-arch=compute_80"},
        {"green_contexts", "green_contexts", "-arch=compute_80 -lcuda"},  // gpumux's libcuda.so.1
        // A fat binary with SASS only: no PTX for gpumux.
        {"sass_only", "vector_add_streams", "-gencode arch=compute_80,code=sm_80"},
    };
    compile_log_ = gpumux::test::build_cuda_programs(builds);
  }

  void SetUp() override { gpumux::test::require_cuda_programs(compile_log_); }

  // Runs a built program through gpumux exec; returns its exit code.
  static int exec(const std::string& program, const std::string& args, std::string& out,
                  const std::string& options = "-c gtx980") {
    return run_gpumux(fmt::format("exec {} -- {} {}", options, (kOut / program).string(), args), out);
  }

  static void expect_pass(const std::string& program, const std::string& args = "") {
    std::string out;
    EXPECT_EQ(exec(program, args, out), 0) << out;
    EXPECT_NE(out.find("PASS " + program), std::string::npos) << out;
    EXPECT_NE(out.find("gpumux: " + program + " on gtx980"), std::string::npos) << out;  // the summary
  }

  static inline std::string compile_log_;
};

TEST_F(CudaPrograms, VectorAddWithStreamsAndEvents) { expect_pass("vector_add_streams"); }
TEST_F(CudaPrograms, ReductionWithSharedMemoryAndSymbols) { expect_pass("reduction"); }
TEST_F(CudaPrograms, MemoryCopiesMemsetsAndManagedMemory) { expect_pass("memory_variants"); }
TEST_F(CudaPrograms, DevicePropertiesOfTheSimulatedGpu) { expect_pass("device_props", "16 gtx980"); }
TEST_F(CudaPrograms, ErrorPathsReportTheCudaErrorsOfARealGpu) { expect_pass("error_paths"); }
// Thrust and CUB: sort (onesweep), scan, reduce, select, histogram, run-length
// encode on several types, with temporary storage freed before the kernels run.
TEST_F(CudaPrograms, ThrustAndCubAlgorithmsMatchTheCpu) { expect_pass("cub_algorithms"); }
TEST_F(CudaPrograms, PolybenchStyleMatrixVectorKernelsWithinItsThreshold) { expect_pass("matrix_vector"); }
TEST_F(CudaPrograms, LaunchKernelExWithAttributesAndKernelLookups) { expect_pass("launch_ex"); }
TEST_F(CudaPrograms, MultiDeviceCallsOnTheSingleDevice) { expect_pass("single_device"); }
// Every attribute answers, an unknown one is not sticky, persisting-L2 controls are accepted.
TEST_F(CudaPrograms, EveryDeviceAttributeThenALaunch) { expect_pass("device_attributes"); }
TEST_F(CudaPrograms, StreamOrderedAllocationAndMemoryPools) { expect_pass("memory_pools"); }
TEST_F(CudaPrograms, MemoryPoolsPerThreadDefaultStream) {
  std::string out;
  EXPECT_EQ(exec("memory_pools_per_thread", "", out), 0) << out;
  EXPECT_NE(out.find("PASS memory_pools"), std::string::npos) << out;
}

// Relocatable device code: the PTX comes from the linked object's fat binary.
TEST_F(CudaPrograms, DynamicParallelismWithRelocatableDeviceCode) {
  std::string out;
  EXPECT_EQ(exec("dynamic_parallelism", "", out), 0) << out;
  EXPECT_NE(out.find("PASS dynamic_parallelism"), std::string::npos) << out;
  EXPECT_NE(out.find("child grids, depth 1"), std::string::npos) << out;  // the summary's children
}
TEST_F(CudaPrograms, ThrustSortTransformReduce) { expect_pass("thrust_sort"); }
TEST_F(CudaPrograms, ArraysTextureAndSurfaceObjects) { expect_pass("texture_objects"); }
TEST_F(CudaPrograms, CooperativeLaunchWithGridSync) { expect_pass("cooperative_launch"); }
TEST_F(CudaPrograms, GraphsBuiltWithTheExplicitApi) { expect_pass("graphs"); }
TEST_F(CudaPrograms, StreamCaptureBuildsGraphsAndEnforcesItsRules) { expect_pass("stream_capture"); }
TEST_F(CudaPrograms, ConditionalGraphNodesSetFromDeviceCode) { expect_pass("graph_conditionals"); }

// Two green contexts on disjoint SM groups of the gtx980's 16 (SMs 0-5 and
// 6-11), each kernel's TBs only there (the program checks %smid per TB), an
// ordinary stream's kernel on every SM; the split's errors.
TEST_F(CudaPrograms, GreenContextsConfineKernelsToTheirSms) { expect_pass("green_contexts", "16"); }
// A driver call gpumux's libcuda.so.1 does not implement ends the program, naming it.
TEST_F(CudaPrograms, UnsupportedDriverCallEndsTheProgramWithItsName) {
  std::string out;
  EXPECT_EQ(exec("green_contexts", "unsupported", out), 2) << out;
  EXPECT_NE(out.find("gpumux: cuCtxResetPersistingL2Cache is not supported by gpumux's libcuda.so.1"), std::string::npos) << out;
  EXPECT_EQ(out.find("FAIL"), std::string::npos) << out;
}

// A graph's kernels after its first pay frontend.graph_launch_latency instead
// of launch_latency: N kernels in a graph take (N-1) x the difference less
// simulated time than N kernels launched one by one.
TEST_F(CudaPrograms, GraphLaunchSavesLaunchOverheadPerKernel) {
  std::string out;
  ASSERT_EQ(exec("graph_launch_overhead", "", out), 0) << out;
  ASSERT_NE(out.find("PASS graph_launch_overhead"), std::string::npos) << out;
  size_t at = out.find("launch_overhead kernels=");
  ASSERT_NE(at, std::string::npos) << out;
  int kernels = 0;
  double stream_ms = 0, graph_ms = 0;
  ASSERT_EQ(std::sscanf(out.c_str() + at, "launch_overhead kernels=%d stream_ms=%lf graph_ms=%lf", &kernels,
                        &stream_ms, &graph_ms),
            3)
      << out;
  const gpumux::GpuConfig c = gpumux::gpu::load_config("gtx980").values();
  ASSERT_GT(c.frontend.launch_latency, c.frontend.graph_launch_latency);
  double saved_ms = (kernels - 1) * double(c.frontend.launch_latency - c.frontend.graph_launch_latency) /
                    (c.clock.core_mhz * 1e3);
  EXPECT_NEAR(stream_ms - graph_ms, saved_ms, 0.05 * saved_ms) << out;
}

// cudaLaunchCooperativeKernel_ptsz: the same entry point under its per-thread name.
TEST_F(CudaPrograms, CooperativeLaunchPerThreadDefaultStream) {
  std::string out;
  EXPECT_EQ(exec("cooperative_launch_per_thread", "", out), 0) << out;
  EXPECT_NE(out.find("PASS cooperative_launch"), std::string::npos) << out;
}

TEST_F(CudaPrograms, TimelineShowsKernelsPerStreamAndCopies) {
  std::string out, trace;
  fs::path file = kOut / "vector_add.trace.json";
  ASSERT_EQ(exec("vector_add_streams", "", out, "--timeline " + file.string()), 0) << out;
  run_command("cat " + file.string(), trace);
  for (const char* s : {"\"stream 1\"", "\"stream 2\"", "\"copies\"", "memcpy H2D", "memcpy D2H", "vadd("})
    EXPECT_NE(trace.find(s), std::string::npos) << s;
}

// A progress line (redrawn with "\r", erased with ESC [K) only when stderr is
// a terminal: a GPUMUX_PROGRESS inherited by a pipe is dropped; under a
// pseudo-terminal (script) the line is drawn, here at every look at the clock
// (thrust_sort: the test program that simulates longest).
TEST_F(CudaPrograms, ProgressLineOnlyWhenStderrIsATerminal) {
  const std::string run = fmt::format("GPUMUX_PROGRESS=0 {} exec -c gtx980 -- {}", GPUMUX_BINARY,
                                      (kOut / "thrust_sort").string());
  std::string out;
  ASSERT_EQ(run_command(run, out), 0) << out;
  EXPECT_EQ(out.find("core cycles), "), std::string::npos) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
  EXPECT_NE(out.find("gpumux: thrust_sort on gtx980"), std::string::npos) << out;  // the summary
  if (run_command("command -v script", out) != 0) GTEST_SKIP() << "no script(1) for a pseudo-terminal";
  ASSERT_EQ(run_command(fmt::format("script -qec '{}' /dev/null", run), out), 0) << out;
  EXPECT_NE(out.find("\r\033[Kgpumux: "), std::string::npos) << out;
  EXPECT_NE(out.find(" core cycles), "), std::string::npos) << out;
  EXPECT_NE(out.find("\r\033[Kgpumux: thrust_sort on gtx980"), std::string::npos) << out;  // erased first
}

TEST_F(CudaPrograms, UncompressedFatBinary) {
  std::string out;
  EXPECT_EQ(exec("vector_add_uncompressed", "", out), 0) << out;
  EXPECT_NE(out.find("PASS vector_add_streams"), std::string::npos) << out;
}

TEST_F(CudaPrograms, PerThreadDefaultStream) {
  std::string out;
  EXPECT_EQ(exec("vector_add_per_thread", "", out), 0) << out;
  EXPECT_NE(out.find("PASS vector_add_streams"), std::string::npos) << out;
}

TEST_F(CudaPrograms, SassOnlyFatBinaryIsAClearError) {
  std::string out;
  EXPECT_EQ(exec("sass_only", "", out), 1) << out;  // the program's own check fails
  EXPECT_NE(out.find("holds no PTX (SASS sm_80)"), std::string::npos) << out;
  EXPECT_NE(out.find("cudaErrorNoKernelImageForDevice"), std::string::npos) << out;
}

TEST_F(CudaPrograms, ConfigSelectsTheGpuAndCyclesAreDeterministic) {
  std::string out1, out2;
  fs::path j1 = kOut / "props1.json", j2 = kOut / "props2.json";
  ASSERT_EQ(exec("reduction", "", out1, "-c titanv --json " + j1.string()), 0) << out1;
  ASSERT_EQ(exec("reduction", "", out2, "-c titanv --json " + j2.string()), 0) << out2;
  std::string a, b;
  run_command("cat " + j1.string(), a);
  run_command("cat " + j2.string(), b);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("\"gpu\": \"titanv\""), std::string::npos) << a;
  EXPECT_NE(a.find("\"cycles\""), std::string::npos) << a;
  std::string props;
  EXPECT_EQ(exec("device_props", "80 titanv", props, "-c titanv"), 0) << props;
}

// An installed gpumux finds the library in lib/gpumux beside its bin/.
TEST_F(CudaPrograms, InstalledToolFindsItsRuntimeLibrary) {
  fs::path prefix = kOut / "prefix";
  std::string out;
  ASSERT_EQ(run_command(fmt::format("{} --install {} --prefix {}", GPUMUX_CMAKE, GPUMUX_BUILD_DIR, prefix.string()), out),
            0)
      << out;
  EXPECT_TRUE(fs::is_regular_file(prefix / "lib/gpumux/libcudart.so.13"));
  EXPECT_EQ(run_command(fmt::format("{} exec -- {}", (prefix / "bin/gpumux").string(), (kOut / "reduction").string()),
                        out),
            0)
      << out;
  EXPECT_NE(out.find("PASS reduction"), std::string::npos) << out;
}

// A run script: the programs it starts inherit the library and config.
TEST_F(CudaPrograms, ScriptStartingAProgram) {
  fs::path script = kOut / "run.sh";
  std::ofstream(script) << "#!/bin/sh\nexec " << (kOut / "device_props").string() << " 80 titanv\n";
  fs::permissions(script, fs::perms::owner_all);
  std::string out;
  EXPECT_EQ(exec("run.sh", "", out, "-c titanv"), 0) << out;
  EXPECT_NE(out.find("PASS device_props"), std::string::npos) << out;
}

TEST(CudaExec, RefusesAProgramWithoutTheSharedRuntime) {
  std::string out;
  EXPECT_EQ(run_gpumux("exec -- /bin/true", out), 2) << out;
  EXPECT_NE(out.find("build it with nvcc -cudart shared"), std::string::npos) << out;
  EXPECT_EQ(run_gpumux("exec -c no-such-gpu -- /bin/true", out), 2) << out;
}

}  // namespace
