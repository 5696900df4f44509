// Several CUDA programs as separate processes sharing one simulated GPU
// through `gpumux serve` (tests/cuda/served_worker.cu, built with nvcc when it
// is present): each program checks its own results; the server's per-program
// cycles and metrics are the same on every run, whatever the order and
// timing in which the processes start; a killed program detaches without
// disturbing the others.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "cuda_build_util.h"

namespace {

namespace fs = std::filesystem;
using gpumux::test::kCudaOut;
using gpumux::test::run_command;

std::string read_file(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// One run of the server with its programs.
struct ServeRun {
  int server_exit = -1;
  std::string summary, server_log;  // the server's stdout and stderr
  nlohmann::json json;              // its --json
  std::vector<std::string> outputs; // each program's own stdout
};

class ServedPrograms : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    compile_log_ = gpumux::test::build_cuda_programs({{"served_worker", "served_worker", "-arch=compute_80"},
                                                      {"texture_objects", "texture_objects", "-arch=compute_80"},
                                                      {"cooperative_launch", "cooperative_launch", "-arch=compute_80"},
                                                      {"graphs", "graphs", "-arch=compute_80"},
                                                      {"stream_capture", "stream_capture", "-arch=compute_80"},
                                                      {"graph_conditionals", "graph_conditionals",
                                                       "-arch=compute_80"},
                                                      {"device_attributes", "device_attributes", "-arch=compute_80"},
                                                      {"memory_pools", "memory_pools", "-arch=compute_80"},
                                                      {"managed_prefetch", "managed_prefetch", "-arch=compute_80"},
                                                      {"green_contexts", "green_contexts", "-arch=compute_80 -lcuda"}});
  }
  void SetUp() override { gpumux::test::require_cuda_programs(compile_log_); }

  // Serves programs w1..wN (`program`, served_worker by default, with `args[i]`) under
  // `policy` (the lines of [policy]), w<i+1>'s [[app]] table holding
  // `app_settings[i]` if given, started in the order `start_order` (indices),
  // the server's socket created first; kill_app > 0: kills program
  // w<kill_app> once it waits to be killed.
  static ServeRun serve(const std::string& tag, const std::vector<std::string>& args,
                        const std::vector<size_t>& start_order, const std::string& options = "",
                        size_t kill_app = 0, const std::string& program = "served_worker",
                        const std::string& policy = "name = \"smk-even\"",
                        const std::vector<std::string>& app_settings = {}, const std::string& gpu = "gtx980",
                        const std::vector<std::string>& program_env = {}) {
    fs::path dir = kCudaOut / "serve" / tag;
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream w(dir / "apps.toml");
    w << "gpu = \"" << gpu << "\"\n[policy]\n" << policy << "\n";
    for (size_t i = 0; i < args.size(); ++i)
      w << fmt::format("[[app]]\nname = \"w{}\"\n{}\n", i + 1, i < app_settings.size() ? app_settings[i] : "");
    w.close();
    std::string script = fmt::format(
        "(cd {0} && {1} serve apps.toml -s {0}/s.sock --json run.json {2} > server.out 2> server.err; "
        "echo $? > server.exit) & "
        "for t in $(seq 200); do [ -S {0}/s.sock ] && break; sleep 0.05; done; ",
        dir.string(), GPUMUX_BINARY, options);
    for (size_t i : start_order)
      script += fmt::format("{5} GPUMUX_SERVER={0}/s.sock GPUMUX_APP=w{1} LD_LIBRARY_PATH={2}/cudart {3} {4} > {0}/w{1}.out & P{1}=$!; ",
                            dir.string(), i + 1, GPUMUX_BUILD_DIR, (kCudaOut / program).string(), args[i],
                            i < program_env.size() ? program_env[i] : "");
    if (kill_app)  // once w<kill_app> waits (its first kernel done), kill it
      script += fmt::format("for t in $(seq 600); do grep -q waiting {0}/w{1}.out && break; sleep 0.05; done; "
                            "kill -9 $P{1}; ",
                            dir.string(), kill_app);
    std::string out;
    run_command(script + "wait", out);
    ServeRun r;
    std::string exit_status = read_file(dir / "server.exit");
    r.server_exit = exit_status.empty() ? -1 : std::stoi(exit_status);
    r.summary = read_file(dir / "server.out");
    r.server_log = read_file(dir / "server.err") + out;
    std::string json = read_file(dir / "run.json");
    if (!json.empty()) r.json = nlohmann::json::parse(json);
    for (size_t i = 0; i < args.size(); ++i) r.outputs.push_back(read_file(dir / fmt::format("w{}.out", i + 1)));
    return r;
  }

  // What must be the same on every run: the programs' outputs, per-app
  // results and cycles, the kernels and the metrics.
  static void expect_identical(const ServeRun& a, const ServeRun& b) {
    EXPECT_EQ(a.outputs, b.outputs);
    EXPECT_EQ(a.json.at("apps"), b.json.at("apps"));
    EXPECT_EQ(a.json.at("kernels"), b.json.at("kernels"));
    EXPECT_EQ(a.json.at("metrics"), b.json.at("metrics"));
    EXPECT_EQ(a.json.at("cycles"), b.json.at("cycles"));
  }

  static void expect_all_passed(const ServeRun& r, size_t n) {
    ASSERT_EQ(r.server_exit, 0) << r.summary << r.server_log;
    ASSERT_EQ(r.json.at("apps").size(), n);
    for (size_t i = 0; i < n; ++i) {
      const nlohmann::json& app = r.json.at("apps")[i];
      EXPECT_EQ(app.at("name"), fmt::format("w{}", i + 1));
      EXPECT_EQ(app.at("error"), "") << app;
      ASSERT_EQ(app.at("runs").size(), 1u) << app;
      EXPECT_TRUE(app.at("runs")[0].at("passed").get<bool>()) << app;
      EXPECT_GT(app.at("runs")[0].at("cycles").get<uint64_t>(), 0u) << app;
      EXPECT_GT(app.at("alone").get<double>(), 0) << app;  // its isolated run, started by the server
      EXPECT_NE(r.outputs[i].find(fmt::format("served_worker {}: ", i + 1)), std::string::npos) << r.outputs[i];
      EXPECT_NE(r.outputs[i].find("elements ok"), std::string::npos) << r.outputs[i];
    }
    EXPECT_FALSE(r.json.at("metrics").is_null());
    EXPECT_NE(r.summary.find("STP"), std::string::npos) << r.summary;
  }

  // `program` alone under gpumux serve passes its own checks.
  static void expect_served_pass(const std::string& tag, const std::string& program) {
    ServeRun r = serve(tag, {""}, {0}, "--no-baselines", 0, program);
    EXPECT_EQ(r.server_exit, 0) << r.summary << r.server_log;
    EXPECT_NE(r.outputs[0].find("PASS " + program), std::string::npos) << r.outputs[0] << r.server_log;
  }

  static inline std::string compile_log_;
};

TEST_F(ServedPrograms, TwoProgramsShareTheGpuDeterministically) {
  ServeRun a = serve("two-a", {"1", "2"}, {0, 1});
  expect_all_passed(a, 2);
  ServeRun b = serve("two-b", {"1", "2"}, {1, 0});  // started the other way round
  expect_all_passed(b, 2);
  expect_identical(a, b);
  // Sharing the GPU slows at least one of them down against its isolated run.
  double slowest = 0;
  for (const auto& app : a.json.at("apps"))
    slowest = std::max(slowest, app.at("shared").get<double>() / app.at("alone").get<double>());
  EXPECT_GT(slowest, 1.0) << a.summary;
}

TEST_F(ServedPrograms, FourProgramsUnderSmkEvenDeterministically) {
  ServeRun a = serve("four-a", {"1", "2", "3", "4"}, {0, 1, 2, 3});
  expect_all_passed(a, 4);
  ServeRun b = serve("four-b", {"1", "2", "3", "4"}, {3, 1, 0, 2});
  expect_all_passed(b, 4);
  expect_identical(a, b);
}

TEST_F(ServedPrograms, KilledProgramDetachesAndTheOthersFinish) {
  ServeRun r = serve("killed", {"1", "2", "3 hang"}, {0, 1, 2}, "--no-baselines", 3);
  EXPECT_EQ(r.server_exit, 1) << r.summary << r.server_log;  // not every application passed
  ASSERT_EQ(r.json.at("apps").size(), 3u) << r.summary << r.server_log;
  for (size_t i = 0; i < 2; ++i) {
    const nlohmann::json& app = r.json.at("apps")[i];
    EXPECT_EQ(app.at("error"), "") << app;
    EXPECT_TRUE(app.at("runs")[0].at("passed").get<bool>()) << app;
    EXPECT_NE(r.outputs[i].find("elements ok"), std::string::npos) << r.outputs[i];
  }
  const nlohmann::json& killed = r.json.at("apps")[2];
  EXPECT_NE(killed.at("error").get<std::string>().find("detached"), std::string::npos) << killed;
  EXPECT_NE(r.server_log.find("w3 detached"), std::string::npos) << r.server_log;
  EXPECT_EQ(r.outputs[2].find("elements ok"), std::string::npos) << r.outputs[2];
}

// A program arriving late while another's 16 MB copy keeps the copy engine
// busy for over a millisecond, under ppq with context switch: the long copy
// is progress and the arrival a wait, so nothing is a stall (the watchdog once
// stopped this run at the arrival, and every program failed). The late
// program starts at its arrival cycle.
TEST_F(ServedPrograms, LateArrivalDuringALongCopyUnderPpqWithContextSwitch) {
  ServeRun r = serve("late-arrival", {"1 big-copy", "2", "3"}, {0, 1, 2}, "", 0, "served_worker",
                     "name = \"ppq\"\npreemption = \"switch\"", {"", "priority = 1", "arrival_cycle = 200000"});
  expect_all_passed(r, 3);
  const nlohmann::json& late = r.json.at("apps")[2];
  EXPECT_EQ(late.at("arrival_cycle"), 200000) << late;
  EXPECT_EQ(late.at("runs")[0].at("start"), 200000) << late;
  const uint64_t kArrivalPs = 177'619'894;  // core cycle 200000 of the GTX980 (1126 MHz)
  bool long_copy = false;
  for (const nlohmann::json& c : r.json.at("copies"))
    long_copy |= c.at("app") == 0 && c.at("bytes") == 16u << 20 && c.at("started_ps") < kArrivalPs &&
                 c.at("finished_ps") > kArrivalPs;
  EXPECT_TRUE(long_copy) << r.json.at("copies");  // the arrival came while the copy was in flight
}

// Time-slicing between served programs (processes without MPS): the GPU
// changes hands between the two programs (their kernels are short and far
// apart, so a turn mostly ends with its holder idle rather than with a
// context switch: tests/multitask/time_slice_run_test.cpp covers the
// switch), and both programs pass their own checks.
TEST_F(ServedPrograms, TimeSliceBetweenServedPrograms) {
  ServeRun r = serve("time-slice", {"1", "2"}, {0, 1}, "", 0, "served_worker",
                     "name = \"time-slice\"\ntimeslice_us = 0.5");
  expect_all_passed(r, 2);
  const nlohmann::json& ts = r.json.at("statistics").at("stats").at("frontend").at("time_slice");
  EXPECT_GE(ts.at("turns").at("total").get<uint64_t>(), 2u) << ts;  // both programs held the GPU
  for (const nlohmann::json& p : r.json.at("preemptions")) EXPECT_EQ(p.at("mechanism"), "switch") << p;
}

// MPS clients attached to the server: w1's active-thread percentage (25% of
// the GTX980's 16 SMs) keeps its TBs on SMs 0-3, read from the per-SM
// statistics; both programs pass their checks.
TEST_F(ServedPrograms, MpsPercentageConfinesAServedProgram) {
  ServeRun r = serve("mps", {"1", "2"}, {0, 1}, "", 0, "served_worker", "name = \"mps\"",
                     {"active_thread_percentage = 25", ""});
  expect_all_passed(r, 2);
  const nlohmann::json& stats = r.json.at("statistics").at("stats");
  std::vector<uint32_t> w1_sms, w2_sms;
  for (uint32_t s = 0; s < 16; ++s)
    for (const auto& [label, n] : stats.at("sm" + std::to_string(s)).at("tbs_done").at("by_key").items()) {
      if (n.get<uint64_t>() == 0) continue;
      if (label.starts_with("w1.")) w1_sms.push_back(s);
      if (label.starts_with("w2.")) w2_sms.push_back(s);
    }
  ASSERT_FALSE(w1_sms.empty()) << r.summary;
  EXPECT_LE(w1_sms.back(), 3u) << r.summary;
  EXPECT_GT(w2_sms.back(), 3u) << r.summary;  // the client without a limit is not confined
}

// A served program's own CUDA_MPS_ACTIVE_THREAD_PERCENTAGE confines it as
// the workload file's value does (25% of 16 SMs: SMs 0-3); a value that is not
// a percentage ends that program's application with the reason.
TEST_F(ServedPrograms, MpsPercentageFromTheProgramsEnvironment) {
  ServeRun r = serve("mps-env", {"1", "2"}, {0, 1}, "", 0, "served_worker", "name = \"mps\"", {}, "gtx980",
                     {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25", ""});
  expect_all_passed(r, 2);
  std::vector<uint32_t> w1_sms, w2_sms;
  for (uint32_t s = 0; s < 16; ++s)
    for (const auto& [label, n] : r.json.at("statistics").at("stats").at("sm" + std::to_string(s)).at("tbs_done")
                                      .at("by_key").items()) {
      if (n.get<uint64_t>() == 0) continue;
      (label.starts_with("w1.") ? w1_sms : w2_sms).push_back(s);
    }
  ASSERT_FALSE(w1_sms.empty()) << r.summary;
  EXPECT_LE(w1_sms.back(), 3u) << r.summary;
  EXPECT_GT(w2_sms.back(), 3u) << r.summary;

  ServeRun bad = serve("mps-env-bad", {"1", "2"}, {0, 1}, "--no-baselines", 0, "served_worker", "name = \"mps\"", {},
                       "gtx980", {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=150", ""});
  ASSERT_EQ(bad.json.at("apps").size(), 2u) << bad.summary << bad.server_log;
  EXPECT_NE(bad.json.at("apps")[0].at("error").get<std::string>().find(
                "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE='150' is not a percentage in 1..100"),
            std::string::npos)
      << bad.json.at("apps")[0];
  EXPECT_EQ(bad.json.at("apps")[1].at("error"), "") << bad.json.at("apps")[1];
}

// MIG instances of served programs (the A100's 3g.20gb: SMs 0-41 and
// partitions 0-19; 4g.20gb: SMs 42-97 and partitions 20-39) hold each
// program's TBs and DRAM traffic.
TEST_F(ServedPrograms, MigInstancesHoldServedPrograms) {
  ServeRun r = serve("mig", {"1", "2"}, {0, 1}, "", 0, "served_worker", "name = \"mig\"",
                     {"mig_profile = \"3g.20gb\"", "mig_profile = \"4g.20gb\""}, "a100");
  expect_all_passed(r, 2);
  const nlohmann::json& stats = r.json.at("statistics").at("stats");
  auto used = [&](const std::string& prefix, uint32_t units, const char* component, const char* stat,
                  const std::string& app) {
    std::vector<uint32_t> out;
    for (uint32_t u = 0; u < units; ++u) {
      const nlohmann::json& node = stats.at(prefix + std::to_string(u));
      const nlohmann::json& counter = component[0] ? node.at(component).at(stat) : node.at(stat);
      for (const auto& [label, n] : counter.at("by_key").items())
        if (label.starts_with(app + ".") && n.get<uint64_t>() > 0) out.push_back(u);
    }
    return out;
  };
  for (auto [app, first_sm, last_sm, first_part, last_part] :
       {std::tuple{"w1", 0u, 41u, 0u, 19u}, std::tuple{"w2", 42u, 97u, 20u, 39u}}) {
    std::vector<uint32_t> sms = used("sm", 108, "", "tbs_done", app), parts = used("mem", 40, "dram", "reads", app);
    ASSERT_FALSE(sms.empty() || parts.empty()) << app << r.summary;
    EXPECT_GE(sms.front(), first_sm) << app;
    EXPECT_LE(sms.back(), last_sm) << app;
    EXPECT_GE(parts.front(), first_part) << app;
    EXPECT_LE(parts.back(), last_part) << app;
  }
}

// A program whose own check fails exits 1: its application fails, with the status.
TEST_F(ServedPrograms, ExitStatusOfAProgramDecidesItsCheck) {
  ServeRun r = serve("exit-status", {"2", ""}, {0, 1}, "--no-baselines");  // w2 has no argument: CHECK fails
  EXPECT_EQ(r.server_exit, 1) << r.summary << r.server_log;
  ASSERT_EQ(r.json.at("apps").size(), 2u) << r.summary << r.server_log;
  EXPECT_EQ(r.json.at("apps")[0].at("error"), "") << r.json.at("apps")[0];
  EXPECT_NE(r.json.at("apps")[1].at("error").get<std::string>().find("exited with status 1"), std::string::npos)
      << r.json.at("apps")[1];
}

// Arrays, textures and surfaces over the socket: the program's own checks pass.
TEST_F(ServedPrograms, TextureAndSurfaceObjectsOfAnAttachedProgram) { expect_served_pass("texture", "texture_objects"); }

// A cooperative launch over the socket (Launch's cooperative flag): grid.sync() works.
TEST_F(ServedPrograms, CooperativeLaunchOfAnAttachedProgram) { expect_served_pass("cooperative", "cooperative_launch"); }

// Every device attribute over the socket (the server's GPU), then launches: no error sticks.
TEST_F(ServedPrograms, DeviceAttributesOfAnAttachedProgram) { expect_served_pass("attributes", "device_attributes"); }

// Memory pools of an attached program: its blocks are the server's device memory.
TEST_F(ServedPrograms, MemoryPoolsOfAnAttachedProgram) { expect_served_pass("pools", "memory_pools"); }

// Graphs run through the session's operations, so explicit graphs, captured
// graphs and conditional nodes (the device's cudaGraphSetConditional in the
// server, read back over the socket) work in an attached program too.
TEST_F(ServedPrograms, GraphsOfAnAttachedProgram) {
  for (const char* program : {"graphs", "stream_capture", "graph_conditionals"}) {
    ServeRun r = serve(fmt::format("graph-{}", program), {""}, {0}, "--no-baselines", 0, program);
    EXPECT_EQ(r.server_exit, 0) << program << r.summary << r.server_log;
    EXPECT_NE(r.outputs[0].find(fmt::format("PASS {}", program)), std::string::npos) << r.outputs[0] << r.server_log;
  }
}

// Green contexts of two attached programs at once (the driver library's
// streams travel as CreateStream with the SMs): each program's kernels stay on
// its own green contexts' SMs, which it checks by %smid per TB, while the
// other program's kernels run beside them under fcfs.
TEST_F(ServedPrograms, GreenContextsOfTwoAttachedPrograms) {
  ServeRun r = serve("green", {"16", "16"}, {0, 1}, "--no-baselines", 0, "green_contexts", "name = \"fcfs\"");
  EXPECT_EQ(r.server_exit, 0) << r.summary << r.server_log;
  for (const std::string& out : r.outputs)
    EXPECT_NE(out.find("PASS green_contexts: SMs 0-5 and 6-11"), std::string::npos) << out << r.server_log;
}

// Under mig a program's device is its instance: the SM resource green
// contexts split is the instance's SMs (3g.20gb: SMs 0-41, 4g.20gb: 42-97 of
// the A100), so each program's groups lie in its instance.
TEST_F(ServedPrograms, GreenContextsSplitTheSmsOfAMigInstance) {
  ServeRun r = serve("green-mig", {"42 0", "56 42"}, {0, 1}, "--no-baselines", 0, "green_contexts", "name = \"mig\"",
                     {"mig_profile = \"3g.20gb\"", "mig_profile = \"4g.20gb\""}, "a100");
  EXPECT_EQ(r.server_exit, 0) << r.summary << r.server_log;
  EXPECT_NE(r.outputs[0].find("PASS green_contexts: SMs 0-5 and 6-11"), std::string::npos) << r.outputs[0];
  EXPECT_NE(r.outputs[1].find("PASS green_contexts: SMs 42-47 and 48-53"), std::string::npos)
      << r.outputs[1] << r.server_log;
}

// Managed memory under demand paging (docs/cuda-programs.md): a served
// program's faults, prefetches and host migrations are in the run's
// statistics, keyed by the program.
TEST_F(ServedPrograms, ManagedMemoryIsDemandPagedUnderServe) {
  ServeRun r = serve("managed", {""}, {0}, "--no-baselines --set vm.translation=true --set vm.demand_paging=true", 0,
                     "managed_prefetch");
  ASSERT_EQ(r.server_exit, 0) << r.summary << r.server_log;
  EXPECT_NE(r.outputs[0].find("PASS managed_prefetch"), std::string::npos) << r.outputs[0] << r.server_log;
  EXPECT_NE(r.summary.find("w1: paging: "), std::string::npos) << r.summary;
  const nlohmann::json& vm = r.json.at("statistics").at("stats").at("vm");
  EXPECT_GE(vm.at("faults").at("total").get<uint64_t>(), 48u) << vm.at("faults");
  EXPECT_GT(vm.at("allocation_faults").at("total").get<uint64_t>(), 0u);
  EXPECT_GE(vm.at("prefetched_bytes").at("by_key").at("w1.host").get<uint64_t>(), 16u * 65536)
      << vm.at("prefetched_bytes");
}

}  // namespace
