// Workload files: strict TOML, errors name file:line and the key.
#include "gpumux/multitask/workload_file.h"

#include <gtest/gtest.h>

#include <bit>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpumux/core/error.h"

namespace gpumux::multitask {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_workload(text, "w.toml");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "no error";
}

TEST(WorkloadFile, ParsesEverything) {
  WorkloadFile w = parse_workload(R"(
gpu = "isca17-16sm"
set = ["sm.warp_scheduler=lrr"]
seed = 10
[policy]
name = "smk-quota"
tb_quota = { a = 2, stencil = 3 }
[run]
until = "completions"
completions = 3
max_cycles = 5000000
measure = "all"
[[app]]
name = "a"
benchmark = "sgemm"
size = "small"
arrival_cycle = 100
priority = 5
qos_goal = 0.5
cpu_gap_us = 2.5
[[app]]
benchmark = "stencil"
)",
                                  "w.toml");
  EXPECT_EQ(w.gpu, "isca17-16sm");
  EXPECT_EQ(w.overrides, std::vector<std::string>{"sm.warp_scheduler=lrr"});
  EXPECT_EQ(w.policy, "smk-quota");
  EXPECT_EQ(w.run.completions, 3u);
  EXPECT_EQ(w.run.max_cycles, 5000000u);
  EXPECT_EQ(w.run.measure, RunRule::Measure::All);
  ASSERT_EQ(w.apps.size(), 2u);
  EXPECT_EQ(w.apps[0].name, "a");
  EXPECT_EQ(w.apps[0].size, workloads::Size::Small);
  EXPECT_EQ(w.apps[0].arrival, 100u);
  EXPECT_EQ(w.apps[0].priority, 5);
  EXPECT_EQ(w.apps[0].seed, 10u);
  EXPECT_EQ(*w.apps[0].qos_goal, 0.5);
  EXPECT_EQ(w.apps[0].cpu_gap_us, 2.5);
  EXPECT_EQ(w.apps[1].cpu_gap_us, 0.0);
  EXPECT_NE(w.apps[0].identity().find("cpu_gap_us 2.5"), std::string::npos);
  EXPECT_EQ(w.apps[1].identity().find("cpu_gap_us"), std::string::npos);  // keys without CPU time as before
  EXPECT_EQ(w.apps[1].name, "stencil");
  EXPECT_EQ(w.apps[1].seed, 11u);
  EXPECT_EQ(w.policy_options.tb_quota_by_app.at(0), 2u);
  EXPECT_EQ(w.policy_options.tb_quota_by_app.at(1), 3u);
}

TEST(WorkloadFile, RepeatedBenchmarksGetDistinctNames) {
  WorkloadFile w = parse_workload("[[app]]\nbenchmark = \"pc\"\n[[app]]\nbenchmark = \"pc\"\n", "w.toml");
  EXPECT_EQ(w.apps[0].name, "pc");
  EXPECT_EQ(w.apps[1].name, "pc-2");
}

TEST(WorkloadFile, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(error_of("[[app]]\nbenchmark = \"pc\"\nsize = \"tiny\"\ncolour = 3\n"),
            "w.toml:4: app[0].colour: unknown key");
  EXPECT_EQ(error_of("[[app]]\nbenchmark = \"nosuch\"\n"),
            "w.toml:2: app[0].benchmark: unknown benchmark 'nosuch' (see gpumux list)");
  EXPECT_EQ(error_of("[[app]]\nbenchmark = \"pc\"\npriority = \"high\"\n"),
            "w.toml:3: app[0].priority: expected an integer");
  EXPECT_EQ(error_of("[[app]]\nbenchmark = \"pc\"\nsize = \"huge\"\n"),
            "w.toml:3: app[0].size: unknown size 'huge' (tiny, medium, small, large or paper)");
  EXPECT_NE(error_of("[policy]\nname = \"nosuch\"\n[[app]]\nbenchmark = \"pc\"\n").find("unknown sharing policy 'nosuch'"),
            std::string::npos);
  EXPECT_NE(error_of("[policy]\nname = \"smk-quota\"\n[[app]]\nbenchmark = \"pc\"\n").find("needs a TB count for app 'pc'"),
            std::string::npos);
  EXPECT_NE(error_of("[run]\nuntil = \"cycles\"\n[[app]]\nbenchmark = \"pc\"\n").find("max_cycles > 0"),
            std::string::npos);
  EXPECT_NE(error_of("[[app]]\nbenchmark = \"pc\"\nname = \"x\"\n[[app]]\nbenchmark = \"vecadd\"\nname = \"x\"\n")
                .find("app name 'x' is used twice"),
            std::string::npos);
  EXPECT_EQ(error_of("[[app]]\nbenchmark = \"pc\"\ncpu_gap_us = -1\n"),
            "w.toml:3: app[0].cpu_gap_us: -1 is outside [0, 1e6] microseconds");
  EXPECT_EQ(error_of("[[app]]\nbenchmark = \"pc\"\ncpu_gap_us = \"5us\"\n"),
            "w.toml:3: app[0].cpu_gap_us: expected microseconds");
  EXPECT_NE(error_of("seed = 1\n").find("no [[app]] entries"), std::string::npos);
  EXPECT_NE(error_of("[[app]]\nbenchmark = 'pc'\n[[app]\n").find("w.toml:3:"), std::string::npos);
}

TEST(WorkloadFile, ExampleWorkloadsLoad) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads")) {
    if (e.path().extension() != ".toml") continue;
    SCOPED_TRACE(e.path().string());
    WorkloadFile w = load_workload_file(e.path());
    EXPECT_FALSE(w.apps.empty());
    ++n;
  }
  EXPECT_GE(n, 3u);
}

}  // namespace
}  // namespace gpumux::multitask

namespace gpumux::multitask {
namespace {

std::string user_app(const std::string& extra) {
  return "[[app]]\nname = \"mine\"\nptx = \"kernels/saxpy.ptx\"\n[[app.buffer]]\nname = \"x\"\nbytes = 64\n" + extra;
}

std::string user_error(const std::string& text) {
  try {
    parse_workload(text, "w.toml", std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "no error";
}

TEST(WorkloadFile, UserPtxApplications) {
  WorkloadFile w = parse_workload(
      user_app("init = \"iota_u32\"\n[[app.launch]]\nkernel = \"saxpy\"\ngrid = [2, 3]\nblock = [32]\n"
               "args = [\"buf:x\", \"buf:x\", \"u32:16\", \"f32:-1.5\"]\nrepeat = 2\ncpu_us = 12.5\n"),
      "w.toml", std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads");
  ASSERT_EQ(w.apps.size(), 1u);
  const AppSpec& a = w.apps[0];
  ASSERT_TRUE(a.user);
  EXPECT_EQ(a.program(), "ptx:saxpy.ptx");
  EXPECT_NE(a.user->ptx_text.find(".entry saxpy"), std::string::npos);
  ASSERT_EQ(a.user->launches.size(), 1u);
  const UserProgram::Launch& l = a.user->launches[0];
  EXPECT_EQ(l.grid.y, 3u);
  EXPECT_EQ(l.repeat, 2u);
  EXPECT_EQ(l.cpu_us, 12.5);
  ASSERT_EQ(l.args.size(), 4u);
  EXPECT_EQ(l.args[3].kind, UserProgram::Arg::Kind::F32);
  EXPECT_EQ(l.args[3].bits, std::bit_cast<uint32_t>(-1.5f));
}

TEST(WorkloadFile, UserPtxErrors) {
  EXPECT_NE(user_error(user_app("")).find("needs at least one [[app.launch]]"), std::string::npos);
  EXPECT_NE(user_error(user_app("[[app.launch]]\nkernel = \"saxpy\"\ngrid = [1]\nblock = [32]\nargs = [\"buf:nope\"]\n"))
                .find("w.toml:11: app[0].launch.args: 'buf:nope': no buffer named 'nope'"),
            std::string::npos);
  EXPECT_NE(user_error(user_app("[[app.launch]]\nkernel = \"saxpy\"\ngrid = [1]\nblock = [32]\nargs = [\"u32:x\"]\n"))
                .find("'x' is not a valid u32 value"),
            std::string::npos);
  EXPECT_NE(user_error(user_app("[[app.launch]]\nkernel = \"saxpy\"\ngrid = [0]\nblock = [32]\n"))
                .find("dimensions must be positive"),
            std::string::npos);
  EXPECT_NE(user_error(user_app("[[app.launch]]\nkernel = \"saxpy\"\ngrid = [1]\nblock = [32]\ncpu_us = 2e6\n"))
                .find("w.toml:11: app[0].launch.cpu_us: 2000000 is outside [0, 1e6] microseconds"),
            std::string::npos);
  EXPECT_NE(user_error("[[app]]\nptx = \"missing.ptx\"\n").find("cannot open PTX file"), std::string::npos);
  EXPECT_NE(user_error("[[app]]\nptx = \"kernels/saxpy.ptx\"\nbenchmark = \"pc\"\n").find("give one of"),
            std::string::npos);
}

}  // namespace
}  // namespace gpumux::multitask

// The preemption keys of [policy] and the thesis schedulers' options.
namespace gpumux::multitask {
namespace {

const std::string kTwoApps = "[[app]]\nname = \"a\"\nbenchmark = \"pc\"\n[[app]]\nname = \"b\"\nbenchmark = \"vecadd\"\n";

// A workload of two apps whose [policy] table holds `lines`, parsed; its error.
WorkloadFile with_policy(const std::string& lines) {
  return parse_workload(fmt::format("[policy]\n{}{}", lines, kTwoApps), "w.toml");
}
std::string policy_error(const std::string& lines) { return error_of(fmt::format("[policy]\n{}{}", lines, kTwoApps)); }

TEST(WorkloadFile, PreemptionKeysParse) {
  WorkloadFile w = with_policy("name = \"ppq\"\npreemption = \"chimera\"\nlatency_budget_us = 7.5\nswitch_after_us = 20\n"
                         "live_registers = true\nlazy_shared = true\nexclusive = false\n");
  EXPECT_EQ(w.policy, "ppq");
  const frontend::PreemptionOptions& p = w.policy_options.preemption;
  EXPECT_EQ(p.mechanism, "chimera");
  EXPECT_EQ(p.latency_budget_us, 7.5);
  EXPECT_EQ(p.switch_after_us, 20.0);
  EXPECT_TRUE(p.save.live_registers_only);
  EXPECT_TRUE(p.save.lazy_shared);
  EXPECT_FALSE(w.policy_options.exclusive);

  // Hybrid: drain (the default), then switch with live registers only.
  w = with_policy("name = \"npq\"\nswitch_after_us = 5\nlive_registers = true\n");
  EXPECT_EQ(w.policy_options.preemption.mechanism, "drain");
  EXPECT_EQ(w.policy_options.preemption.switch_after_us, 5.0);
  EXPECT_TRUE(w.policy_options.preemption.save.live_registers_only);
  EXPECT_FALSE(w.policy_options.preemption.save.lazy_shared);  // the default
  EXPECT_TRUE(w.policy_options.exclusive);  // the default

  w = with_policy("name = \"dss\"\npreemption = \"switch\"\ntokens = { b = 3, a = 0 }\n");
  EXPECT_EQ(w.policy_options.preemption.mechanism, "switch");
  EXPECT_EQ(w.policy_options.tokens_by_app, (std::map<uint32_t, uint32_t>{{0, 0}, {1, 3}}));
  EXPECT_EQ(w.policy_options.num_apps, 2u);
}

TEST(WorkloadFile, PreemptionKeyMisuseNamesFileLineAndKey) {
  EXPECT_EQ(policy_error("preemption = \"pause\"\n"),
            "w.toml:2: policy.preemption: unknown preemption mechanism 'pause' (known: drain, switch, flush, chimera)");
  EXPECT_EQ(policy_error("preemption = \"switch\"\nlatency_budget_us = 5\n"),
            "w.toml:3: policy.latency_budget_us: only used with preemption = \"chimera\"");
  EXPECT_EQ(policy_error("latency_budget_us = 5\n"),
            "w.toml:2: policy.latency_budget_us: only used with preemption = \"chimera\"");
  EXPECT_NE(policy_error("preemption = \"switch\"\nswitch_after_us = 10\n")
                .find("w.toml:3: policy.switch_after_us: only used with preemption = \"drain\" or \"chimera\""),
            std::string::npos);
  for (const char* m : {"drain", "flush"}) {
    SCOPED_TRACE(m);
    EXPECT_NE(policy_error(fmt::format("preemption = \"{}\"\nlive_registers = true\n", m))
                  .find("w.toml:3: policy.live_registers: only used with a mechanism that switches contexts"),
              std::string::npos);
    EXPECT_NE(policy_error(fmt::format("preemption = \"{}\"\nlazy_shared = true\n", m))
                  .find("w.toml:3: policy.lazy_shared: only used with a mechanism that switches contexts"),
              std::string::npos);
  }
  EXPECT_EQ(policy_error("name = \"npq\"\nexclusive = false\n"), "w.toml:3: policy.exclusive: only used with policy ppq");
  EXPECT_EQ(policy_error("exclusive = true\n"), "w.toml:2: policy.exclusive: only used with policy ppq");
  EXPECT_EQ(policy_error("name = \"dss\"\ntokens = { a = 2, c = 1 }\n"), "w.toml:3: policy.tokens.c: no app named 'c'");
  EXPECT_EQ(policy_error("name = \"ppq\"\ntokens = { a = 2 }\n"),
            "w.toml:3: policy.tokens: only used with policy dss, not 'ppq'");
  EXPECT_EQ(policy_error("tokens = { a = 2 }\n"), "w.toml:2: policy.tokens: only used with policy dss, not 'fcfs'");
  EXPECT_EQ(policy_error("switch_after_us = -1\n"), "w.toml:2: policy.switch_after_us: expected microseconds in [0, 1e6]");
  EXPECT_EQ(policy_error("live_registers = 1\n"), "w.toml:2: policy.live_registers: expected true or false");
  EXPECT_EQ(policy_error("lazy_shared = \"yes\"\n"), "w.toml:2: policy.lazy_shared: expected true or false");
}

TEST(WorkloadFile, MaestroKeys) {
  WorkloadFile w = with_policy("name = \"maestro\"\n");
  EXPECT_EQ(w.policy_options.preemption.mechanism, "chimera");  // maestro's default
  EXPECT_EQ(w.policy_options.maestro.epoch_cycles, 50000u);
  EXPECT_TRUE(w.policy_options.maestro.resume_pairs);
  EXPECT_TRUE(w.policy_options.maestro.role_swaps);
  w = with_policy(
      "name = \"maestro\"\nepoch_cycles = 2000\nobjective = \"stp\"\nrededicate_every = 10\n"
      "stable_tolerance = 0.1\npreemption = \"switch\"\nresume_pairs = false\nrole_swaps = false\n");
  EXPECT_FALSE(w.policy_options.maestro.resume_pairs);
  EXPECT_FALSE(w.policy_options.maestro.role_swaps);
  EXPECT_EQ(w.policy_options.maestro.epoch_cycles, 2000u);
  EXPECT_EQ(w.policy_options.maestro.objective, frontend::maestro::Objective::Stp);
  EXPECT_EQ(w.policy_options.maestro.rededicate_every, 10u);
  EXPECT_DOUBLE_EQ(w.policy_options.maestro.stable_tolerance, 0.1);
  EXPECT_EQ(w.policy_options.preemption.mechanism, "switch");
  EXPECT_EQ(policy_error("name = \"smk-even\"\nepoch_cycles = 2000\n"),
            "w.toml:3: policy.epoch_cycles: only used with policy maestro, not 'smk-even'");
  EXPECT_EQ(policy_error("name = \"maestro\"\nobjective = \"ipc\"\n"),
            "w.toml:3: policy.objective: 'ipc': expected one of \"antt\", \"stp\"");
  EXPECT_EQ(policy_error("name = \"dss\"\nresume_pairs = true\n"),
            "w.toml:3: policy.resume_pairs: only used with policy maestro, not 'dss'");
  EXPECT_EQ(policy_error("name = \"smk-even\"\nrole_swaps = true\n"),
            "w.toml:3: policy.role_swaps: only used with policy maestro, not 'smk-even'");
  EXPECT_EQ(policy_error("name = \"maestro\"\nstable_tolerance = 2.0\n"),
            "w.toml:3: policy.stable_tolerance: expected a fraction in [0, 1]");
  EXPECT_FALSE(w.policy_options.preemption.save.zero_cost);
  EXPECT_EQ(with_policy("name = \"warped-slicer\"\nprofile_cycles = 3000\n").policy_options.warped_slicer.profile_cycles,
            3000u);
  EXPECT_EQ(policy_error("name = \"maestro\"\nprofile_cycles = 3000\n"),
            "w.toml:3: policy.profile_cycles: only used with policy warped-slicer, not 'maestro'");
  w = with_policy("name = \"maestro\"\nzero_cost_preemption = true\n");
  EXPECT_TRUE(w.policy_options.preemption.save.zero_cost);
  EXPECT_EQ(policy_error("name = \"maestro\"\nlazy_shared = true\nzero_cost_preemption = true\n"),
            "w.toml:4: policy.zero_cost_preemption: a zero-cost switch moves no bytes: lazy_shared would have nothing "
            "to leave parked");
}

// SMK-(P+W) is smk-drf with the fair warp scheduler, set for the shared run only.
TEST(WorkloadFile, PolicyWarpScheduler) {
  EXPECT_TRUE(with_policy("name = \"smk-drf\"\n").warp_scheduler.empty());
  WorkloadFile w = with_policy("name = \"smk-drf\"\nwarp_scheduler = \"ka-fair\"\n");
  EXPECT_EQ(w.warp_scheduler, "ka-fair");
  EXPECT_TRUE(w.overrides.empty());
  EXPECT_TRUE(policy_error("name = \"smk-drf\"\nwarp_scheduler = \"fair\"\n")
                  .starts_with("w.toml:3: policy.warp_scheduler: unknown warp scheduler 'fair' (known: "));
}

// time-slice: a timeslice in microseconds, switched out by context switch
// unless another mechanism is named; the key is refused with other policies.
TEST(WorkloadFile, TimeSliceKeys) {
  WorkloadFile w = with_policy("name = \"time-slice\"\n");
  EXPECT_EQ(w.policy_options.preemption.mechanism, "switch");
  EXPECT_DOUBLE_EQ(w.policy_options.timeslice_us, 2000.0);
  w = with_policy("name = \"time-slice\"\ntimeslice_us = 50\npreemption = \"drain\"\n");
  EXPECT_DOUBLE_EQ(w.policy_options.timeslice_us, 50.0);
  EXPECT_EQ(w.policy_options.preemption.mechanism, "drain");
  EXPECT_EQ(policy_error("name = \"fcfs\"\ntimeslice_us = 50\n"),
            "w.toml:3: policy.timeslice_us: only used with policy time-slice, not 'fcfs'");
  EXPECT_EQ(policy_error("name = \"time-slice\"\ntimeslice_us = 0\n"),
            "w.toml:3: policy.timeslice_us: expected microseconds in (0, 1e6]");
}

// smk-split: the first app's share of every SM, a fraction in (0, 1), refused with other policies.
TEST(WorkloadFile, SmkSplitFirstShare) {
  EXPECT_DOUBLE_EQ(with_policy("name = \"smk-split\"\n").policy_options.first_share, 0.5);
  EXPECT_DOUBLE_EQ(with_policy("name = \"smk-split\"\nfirst_share = 0.25\n").policy_options.first_share, 0.25);
  EXPECT_EQ(policy_error("name = \"smk-even\"\nfirst_share = 0.25\n"),
            "w.toml:3: policy.first_share: only used with policy smk-split, not 'smk-even'");
  EXPECT_EQ(policy_error("name = \"smk-split\"\nfirst_share = 1.0\n"),
            "w.toml:3: policy.first_share: expected a fraction in (0, 1)");
}

// mps: an active-thread percentage per app (100: no limit), refused with other policies.
TEST(WorkloadFile, MpsActiveThreadPercentage) {
  const std::string apps = "[[app]]\nbenchmark = \"pc\"\nactive_thread_percentage = 25\n"
                           "[[app]]\nbenchmark = \"vecadd\"\nactive_thread_percentage = 100\n";
  WorkloadFile w = parse_workload("[policy]\nname = \"mps\"\n" + apps, "w.toml");
  EXPECT_EQ(w.policy_options.mps_percent_by_app, (std::map<uint32_t, uint32_t>{{0, 25}}));
  EXPECT_EQ(error_of("[policy]\nname = \"fcfs\"\n" + apps),
            "w.toml:5: app[0].active_thread_percentage: only used with policy mps, not 'fcfs'");
  EXPECT_EQ(error_of("[policy]\nname = \"mps\"\n[[app]]\nbenchmark = \"pc\"\nactive_thread_percentage = 0\n"),
            "w.toml:5: app[0].active_thread_percentage: 0 is outside [1, 100]");
  // [policy]'s value is the control daemon's default: every client without its own.
  const std::string three = "[[app]]\nbenchmark = \"pc\"\n[[app]]\nbenchmark = \"vecadd\"\nactive_thread_percentage = "
                            "100\n[[app]]\nbenchmark = \"lbm\"\nactive_thread_percentage = 30\n";
  w = parse_workload("[policy]\nname = \"mps\"\nactive_thread_percentage = 50\n" + three, "w.toml");
  EXPECT_EQ(w.policy_options.mps_percent_by_app, (std::map<uint32_t, uint32_t>{{0, 50}, {2, 30}}));
  EXPECT_EQ(error_of("[policy]\nname = \"fcfs\"\nactive_thread_percentage = 50\n[[app]]\nbenchmark = \"pc\"\n"),
            "w.toml:3: policy.active_thread_percentage: only used with policy mps, not 'fcfs'");
}

// mps: fault isolation off by default (NVIDIA's MPS), refused with other policies.
TEST(WorkloadFile, MpsFaultIsolation) {
  EXPECT_FALSE(with_policy("name = \"mps\"\n").policy_options.mps_fault_isolation);
  EXPECT_TRUE(with_policy("name = \"mps\"\nfault_isolation = true\n").policy_options.mps_fault_isolation);
  EXPECT_EQ(policy_error("name = \"fcfs\"\nfault_isolation = true\n"),
            "w.toml:3: policy.fault_isolation: only used with policy mps, not 'fcfs'");
  EXPECT_EQ(policy_error("name = \"mps\"\nfault_isolation = 1\n"),
            "w.toml:3: policy.fault_isolation: expected true or false");
}

// mig: a profile per app, checked against the workload's GPU with file:line.
TEST(WorkloadFile, MigProfiles) {
  const std::string head = "gpu = \"a100\"\n[policy]\nname = \"mig\"\n";
  const std::string apps = "[[app]]\nbenchmark = \"pc\"\nmig_profile = \"3g.20gb\"\n"
                           "[[app]]\nbenchmark = \"vecadd\"\nmig_profile = \"4g.20gb\"\n";
  WorkloadFile w = parse_workload(head + apps, "w.toml");
  EXPECT_EQ(w.policy_options.mig_profile_by_app, (std::map<uint32_t, std::string>{{0, "3g.20gb"}, {1, "4g.20gb"}}));
  EXPECT_EQ(error_of("gpu = \"a100\"\n[policy]\nname = \"mps\"\n" + apps),
            "w.toml:6: app[0].mig_profile: only used with policy mig, not 'mps'");
  EXPECT_EQ(error_of(head + "[[app]]\nbenchmark = \"pc\"\nmig_profile = \"2g.20gb\"\n"),
            "w.toml:6: app[0].mig_profile: no MIG profile has 2 compute slices and 4 of 8 memory slices ('2g.20gb')");
  EXPECT_EQ(error_of(head + "[[app]]\nbenchmark = \"pc\"\nmig_profile = \"3g\"\n"),
            "w.toml:6: app[0].mig_profile: '3g' is not a MIG profile of the 40 GB 'a100' (<N>g.<M>gb with M a "
            "multiple of 5 GB: 1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb)");
  EXPECT_EQ(error_of("[policy]\nname = \"mig\"\n[[app]]\nbenchmark = \"pc\"\nmig_profile = \"1g.5gb\"\n"),
            "w.toml:5: app[0].mig_profile: the GPU 'gtx980' has no MIG (gpu.mig_slice_sms = 0; presets a100 and h100 "
            "have it)");
  EXPECT_EQ(error_of(head + "[[app]]\nbenchmark = \"pc\"\n"),
            "w.toml:4: app[0]: policy mig needs a mig_profile (the app's GPU instance, e.g. \"3g.20gb\")");
  EXPECT_EQ(error_of(head + "[[app]]\nbenchmark = \"pc\"\nmig_profile = \"4g.20gb\"\n"
                            "[[app]]\nbenchmark = \"vecadd\"\nmig_profile = \"7g.40gb\"\n"),
            "w.toml: MIG profiles: MIG instances 4g.20gb + 7g.40gb need 11 compute and 12 memory slices; the GPU "
            "has 7 and 8");
  // By app position in [policy] (what a study's policy entry can say), not both ways for one app.
  const std::string two = "[[app]]\nbenchmark = \"pc\"\n[[app]]\nbenchmark = \"vecadd\"\n";
  w = parse_workload(head + "mig_profiles = [\"4g.20gb\", \"3g.20gb\"]\n" + two, "w.toml");
  EXPECT_EQ(w.policy_options.mig_profile_by_app, (std::map<uint32_t, std::string>{{0, "4g.20gb"}, {1, "3g.20gb"}}));
  EXPECT_EQ(error_of(head + "mig_profiles = [\"4g.20gb\"]\n" + apps),
            "w.toml:7: app[0].mig_profile: this app's profile is given by [policy] mig_profiles already");
  EXPECT_EQ(error_of(head + "mig_profiles = [\"4g.20gb\"]\n" + two),
            "w.toml:7: app[1]: policy mig needs a mig_profile (the app's GPU instance, e.g. \"3g.20gb\")");
  // More instances than apps: the rest are idle (their slices held, no process in them).
  w = parse_workload(head + "mig_profiles = [\"3g.20gb\", \"2g.10gb\", \"1g.5gb\"]\n" + two, "w.toml");
  EXPECT_EQ(w.policy_options.mig_profile_by_app,
            (std::map<uint32_t, std::string>{{0, "3g.20gb"}, {1, "2g.10gb"}, {2, "1g.5gb"}}));
  EXPECT_EQ(error_of(head + "mig_profiles = [\"4g.20gb\", \"4g.20gb\"]\n" + two),
            "w.toml: MIG profiles: MIG instances 4g.20gb + 4g.20gb need 8 compute and 8 memory slices; the GPU has 7 "
            "and 8");
}

}  // namespace
}  // namespace gpumux::multitask

namespace gpumux::multitask {
namespace {

// A PTX app's output_dir: relative to the workload file, only with outputs,
// only for PTX apps, one folder per app; misuse names file:line.
std::string with_output_dir(const std::string& app_keys) {
  return "[[app]]\nname = \"mine\"\nptx = \"kernels/saxpy.ptx\"\n" + app_keys +
         "[[app.buffer]]\nname = \"x\"\nbytes = 64\n"
         "[[app.launch]]\nkernel = \"saxpy\"\ngrid = [1]\nblock = [16]\nargs = [\"buf:x\", \"buf:x\", \"u32:16\", "
         "\"f32:1\"]\n";
}

TEST(WorkloadFile, OutputDirOfAPtxApplication) {
  const std::string dir = std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads";
  WorkloadFile w = parse_workload(with_output_dir("outputs = [\"x\"]\noutput_dir = \"out/mine\"\n"), "w.toml", dir);
  EXPECT_EQ(w.apps[0].user->output_dir, std::filesystem::path(dir) / "out/mine");
  EXPECT_TRUE(parse_workload(with_output_dir("outputs = [\"x\"]\n"), "w.toml", dir).apps[0].user->output_dir.empty());

  EXPECT_NE(user_error(with_output_dir("output_dir = \"out\"\n"))
                .find("w.toml:4: app[0].output_dir: needs outputs = [\"buffer\", ...] to write"),
            std::string::npos);
  EXPECT_NE(user_error("[[app]]\nbenchmark = \"pc\"\noutput_dir = \"out\"\n")
                .find("w.toml:3: app[0].output_dir: only PTX applications write their outputs"),
            std::string::npos);
  std::string one = with_output_dir("outputs = [\"x\"]\noutput_dir = \"out\"\n"), other = one;
  other.replace(other.find("mine"), 4, "other");
  std::string twice = one + other;
  EXPECT_NE(user_error(twice).find("app[1].output_dir: app 'mine' writes to the same folder"), std::string::npos)
      << user_error(twice);
  EXPECT_NE(user_error(with_output_dir("outputs = [\"x\"]\noutput_dir = \"kernels/saxpy.ptx\"\n"))
                .find("w.toml:5: app[0].output_dir: "),
            std::string::npos);
}

// gpu = "<name>" is a preset (built in, so from any folder); a wrong name
// is an error at its line.
TEST(WorkloadFile, GpuPresetNames) {
  EXPECT_EQ(parse_workload("gpu = \"titanv\"\n[[app]]\nbenchmark = \"pc\"\n", "w.toml", "/nonexistent").gpu, "titanv");
  EXPECT_EQ(parse_workload("gpu = \"titanv\"\n[[app]]\nbenchmark = \"pc\"\n", "w.toml", "").gpu, "titanv");
  try {  // the folder of a workload file given without one is ""
    parse_workload("gpu = \"gtx9800\"\n[[app]]\nbenchmark = \"pc\"\n", "w.toml", "");
    ADD_FAILURE() << "no error";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("w.toml:1: gpu: no preset named 'gtx9800'"), std::string::npos) << e.what();
  }
  EXPECT_NE(error_of("gpu = \"gtx9800\"\n[[app]]\nbenchmark = \"pc\"\n")
                .find("w.toml:1: gpu: no preset named 'gtx9800' (built-in: a100, edge-16sm, gtx980, "),
            std::string::npos)
      << error_of("gpu = \"gtx9800\"\n[[app]]\nbenchmark = \"pc\"\n");
}

TEST(WorkloadFile, QuotaSchemeNeedsARegisteredNameAndAQosGoal) {
  WorkloadFile w = parse_workload(
      "[policy]\nname = \"smk-even\"\nquota_scheme = \"naive\"\n"
      "[[app]]\nbenchmark = \"vecadd\"\nqos_goal = 0.8\n[[app]]\nbenchmark = \"sgemm\"\n",
      "w.toml");
  EXPECT_EQ(w.quota_scheme, "naive");
  EXPECT_EQ(w.apps[0].qos_goal, 0.8);
  EXPECT_FALSE(w.apps[1].qos_goal.has_value());
  EXPECT_EQ(policy_error("quota_scheme = \"fair\"\n"),
            "w.toml:2: policy.quota_scheme: unknown quota scheme 'fair' (known: naive, history, elastic, rollover, "
            "rollover-time, spart)");
  // Spart is a sharing policy steered by a QoS manager: both or neither.
  EXPECT_NE(policy_error("quota_scheme = \"spart\"\n").find("w.toml:2: policy.quota_scheme: the sharing policy "
                                                             "\"spart\" and the quota scheme \"spart\" are used together"),
            std::string::npos);
  EXPECT_EQ(policy_error("quota_scheme = 3\n"), "w.toml:2: policy.quota_scheme: expected a quota scheme name");
  EXPECT_EQ(policy_error("quota_scheme = \"naive\"\n"),
            "w.toml:2: policy.quota_scheme: no app has a qos_goal (the scheme would have no QoS kernel)");
}

// The TB adjustment (ISCA'17 3.6) goes with a quota scheme on smk-symmetric,
// which learns the QoS applications from the goals.
TEST(WorkloadFile, TbAdjustmentNeedsAQuotaSchemeOnSmkSymmetric) {
  WorkloadFile w = parse_workload(
      "[policy]\nname = \"smk-symmetric\"\nquota_scheme = \"rollover\"\ntb_adjustment = true\n"
      "[[app]]\nbenchmark = \"vecadd\"\n[[app]]\nbenchmark = \"sgemm\"\nqos_goal = 0.8\n",
      "w.toml");
  EXPECT_TRUE(w.tb_adjustment);
  EXPECT_EQ(w.policy_options.qos_apps, (std::set<uint32_t>{1}));
  EXPECT_EQ(policy_error("name = \"smk-even\"\nquota_scheme = \"naive\"\ntb_adjustment = true\n"),
            "w.toml:4: policy.tb_adjustment: only used with policy smk-symmetric (the symmetric TB allocation it "
            "adjusts), not 'smk-even'");
  EXPECT_EQ(policy_error("name = \"smk-symmetric\"\ntb_adjustment = true\n"),
            "w.toml:3: policy.tb_adjustment: only used with a quota scheme (naive, history, elastic, rollover, "
            "rollover-time)");
  EXPECT_EQ(policy_error("name = \"smk-symmetric\"\nquota_scheme = \"naive\"\ntb_adjustment = 1\n"),
            "w.toml:4: policy.tb_adjustment: expected true or false");
}

}  // namespace
}  // namespace gpumux::multitask
