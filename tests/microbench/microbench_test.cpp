// The microbenchmark suite (microbench/) on the timing model: every
// measurement is produced, each agrees with the parameters of the model it
// ran on (checks derived from how the model charges time, docs/calibration.md),
// and the per-preset results are pinned (runs are deterministic).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"
#include "published.h"
#include "suite.h"

namespace gpumux::microbench {
namespace {

std::map<std::string, double> by_name(const std::vector<Measurement>& ms) {
  std::map<std::string, double> v;
  for (const Measurement& m : ms) {
    EXPECT_TRUE(std::isfinite(m.value) && m.value > 0) << m.name << " = " << m.value;
    EXPECT_TRUE(v.emplace(m.name, m.value).second) << "measured twice: " << m.name;
  }
  return v;
}

// The checks that hold on any configuration: each measurement against the
// parameters that decide it.
void expect_consistent_with_model(const GpuConfig& g, std::map<std::string, double>& v) {
  for (const std::string& n : measurement_names()) EXPECT_TRUE(v.count(n)) << "not measured: " << n;
  const SmLatencyParams& lat = g.sm.latency;
  const SmIntervalParams& ii = g.sm.interval;
  // A dependent chain issues every max(latency, unit interval) cycles; the
  // differential measurement leaves under one cycle per 32 steps of error.
  EXPECT_NEAR(v["fp32_latency"], std::max(lat.fp32, ii.fp32), 0.1);
  EXPECT_NEAR(v["fp64_latency"], std::max(lat.fp64, ii.fp64), 1.0);
  EXPECT_NEAR(v["int_latency"], std::max(lat.int_alu, ii.int_alu), 0.1);
  EXPECT_NEAR(v["sfu_latency"], std::max(lat.sfu, ii.sfu), 0.1);
  EXPECT_NEAR(v["cvt_latency"], std::max(lat.fp32, ii.fp32), 0.1);  // cvt runs on the FP32 unit
  // Tensor core: a dependent mma waits for its result (or the unit); an
  // m16n8k16 f16 mma is 2048 multiply-adds per sm.interval.tensor per sub-core.
  EXPECT_NEAR(v["mma_latency"], std::max(lat.tensor, ii.tensor), 0.1);
  double mma_limit = 2048.0 * g.sm.sub_cores / ii.tensor;
  EXPECT_LE(v["mma_throughput"], mma_limit);
  EXPECT_GE(v["mma_throughput"], 0.8 * mma_limit);
  // Load-to-use: the L1D's pipeline plus the LSU's 3 cycles (issue, queue,
  // response); shared and constant chases add their address arithmetic.
  EXPECT_DOUBLE_EQ(v["l1_hit_latency"], g.l1d.hit_latency + 3);
  EXPECT_NEAR(v["shared_latency"], lat.shared_mem + lat.int_alu, 0.3);
  EXPECT_DOUBLE_EQ(v["const_latency"], lat.constant + 2 * lat.int_alu);
  // An L2 hit adds the L2's pipeline and both crossbar trips to an L1 miss;
  // what is left is flits and clock-domain crossings: a few cycles.
  double l2_rest = v["l2_hit_latency"] - v["l1_hit_latency"] - g.l2.hit_latency - 2.0 * g.icnt.latency;
  EXPECT_GE(l2_rest, 0);
  EXPECT_LE(l2_rest, 10);
  double dram_controller = g.dram.controller_latency * g.clock.core_mhz / g.clock.dram_mhz;
  EXPECT_GT(v["dram_latency_seq"], v["l2_hit_latency"] + dram_controller);
  EXPECT_GT(v["dram_latency_far"], v["dram_latency_seq"]);  // no row stays open 64 KB apart
  // Banks: one cycle per way.
  EXPECT_NEAR(v["shared_conflict_way"], 1.0, 0.02);
  EXPECT_NEAR(v["shared_stride32"], 32.0, 0.5);
  EXPECT_NEAR(v["shared_stride2"], 2.0, 0.2);
  // Throughput: at most the issue limit of the sub-cores' units, and near it.
  for (auto [name, interval] : {std::pair{"fp32_throughput", ii.fp32}, std::pair{"fp64_throughput", ii.fp64},
                                std::pair{"int_throughput", ii.int_alu}, std::pair{"sfu_throughput", ii.sfu}}) {
    double limit = 32.0 * g.sm.sub_cores / interval;
    EXPECT_LE(v[name], limit) << name;
    EXPECT_GE(v[name], 0.8 * limit) << name;
  }
  // Bandwidth: DRAM below its peak; the L2 below the crossbar's partition ports.
  double peak = double(g.dram.bus_bytes) * g.dram.data_rate * g.clock.dram_mhz * g.gpu.num_partitions / 1000.0;
  for (const char* name : {"dram_read_bw", "dram_write_bw"}) {
    EXPECT_LE(v[name], peak) << name;
    EXPECT_GE(v[name], 0.60 * peak) << name;  // k20c's reads reach ~65% (latency-bound: published.toml)
  }
  EXPECT_LE(v["l2_read_bw"], double(g.icnt.port_bytes) * g.gpu.num_partitions * g.clock.icnt_mhz / 1000.0);
  EXPECT_LE(v["l1_read_bw"], 128.0);  // one line per cycle into the L1D
  // Front end: a launch waits launch_latency; the dispatcher places one TB per SM and cycle.
  EXPECT_GE(v["kernel_launch"], g.frontend.launch_latency);
  EXPECT_LT(v["kernel_launch"], g.frontend.launch_latency + 50);
  EXPECT_GE(v["tb_launch"], 1.0);
  EXPECT_LT(v["tb_launch"], 1.2);
  EXPECT_GE(v["atomic_shared_latency"], lat.shared_mem);
  EXPECT_GT(v["atomic_global_latency"], g.l2.hit_latency + g.l2.atomic_latency + 2.0 * g.icnt.latency);
}

void expect_pinned(const std::map<std::string, double>& v, const std::map<std::string, double>& pinned) {
  ASSERT_EQ(v.size(), pinned.size());
  for (const auto& [name, want] : pinned) EXPECT_NEAR(v.at(name), want, 1e-3) << name;
}

// Every measurement with a published value is within 10% of it, or the preset
// declares why not (published.toml `deviation`); a declared deviation that no
// longer holds fails too, so that the file stays true.
void expect_published_or_declared(const std::string& preset, const std::map<std::string, double>& v) {
  std::map<std::string, Published> pub = published_values(preset);
  ASSERT_FALSE(pub.empty()) << preset;
  for (const auto& [name, p] : pub) {
    bool within = within_published(v.at(name), p);
    EXPECT_TRUE(within || !p.deviation.empty())
        << preset << "." << name << ": " << v.at(name) << " is beyond 10% of " << p.value << ", no deviation declared";
    EXPECT_FALSE(within && !p.deviation.empty())
        << preset << "." << name << ": " << v.at(name) << " is within 10% of " << p.value << ": stale deviation";
  }
}

TEST(Microbench, Gtx980SuiteAgreesWithItsParametersAndIsPinned) {
  GpuConfig g = gpu::load_config("gtx980").values();
  std::map<std::string, double> v = by_name(run_suite(g));
  expect_consistent_with_model(g, v);
  expect_pinned(v, {{"l1_hit_latency", 31.0000},
                    {"l2_hit_latency", 151.0000},
                    {"dram_latency_seq", 302.7708},
                    {"dram_latency_far", 312.5833},
                    {"shared_latency", 30.1562},
                    {"const_latency", 20.0000},
                    {"shared_stride1", 1.1318},
                    {"shared_stride2", 2.0898},
                    {"shared_stride32", 32.2632},
                    {"shared_conflict_way", 1.0042},
                    {"fp32_latency", 5.9688},
                    {"fp64_latency", 48.0000},
                    {"int_latency", 5.9688},
                    {"sfu_latency", 20.0000},
                    {"cvt_latency", 5.9844},
                    {"fp32_throughput", 117.9766},
                    {"fp64_throughput", 3.9934},
                    {"int_throughput", 116.9307},
                    {"sfu_throughput", 27.7923},
                    {"mma_latency", 32.0000},
                    {"mma_throughput", 975.5330},
                    {"atomic_global_latency", 172.4688},
                    {"atomic_shared_latency", 42.3750},
                    {"dram_read_bw", 186.3106},
                    {"dram_write_bw", 163.1585},
                    {"dram_copy_bw", 129.1702},
                    {"l2_read_bw", 241.2539},
                    {"l1_read_bw", 73.3886},
                    {"kernel_launch", 3006.0000},
                    {"tb_launch", 1.0391},
                    {"barrier", 8.0000}});
  expect_published_or_declared("gtx980", v);
}

TEST(Microbench, K20cSuiteAgreesWithItsParametersAndIsPinned) {
  GpuConfig g = gpu::load_config("k20c").values();
  std::map<std::string, double> v = by_name(run_suite(g));
  expect_consistent_with_model(g, v);
  expect_pinned(v, {{"l1_hit_latency", 27.0000},
                    {"l2_hit_latency", 137.0000},
                    {"dram_latency_seq", 232.6562},
                    {"dram_latency_far", 238.5938},
                    {"shared_latency", 35.2500},
                    {"const_latency", 26.0000},
                    {"shared_stride1", 1.1450},
                    {"shared_stride2", 2.1123},
                    {"shared_stride32", 32.1216},
                    {"shared_conflict_way", 0.9992},
                    {"fp32_latency", 8.9688},
                    {"fp64_latency", 12.0000},
                    {"int_latency", 8.9688},
                    {"sfu_latency", 18.0000},
                    {"cvt_latency", 8.9844},
                    {"fp32_throughput", 113.3963},
                    {"fp64_throughput", 60.7994},
                    {"int_throughput", 112.7016},
                    {"sfu_throughput", 28.4510},
                    {"mma_latency", 32.0000},
                    {"mma_throughput", 971.8035},
                    {"atomic_global_latency", 169.5625},
                    {"atomic_shared_latency", 53.5625},
                    {"dram_read_bw", 134.4937},
                    {"dram_write_bw", 177.5614},
                    {"dram_copy_bw", 148.3739},
                    {"l2_read_bw", 165.8595},
                    {"l1_read_bw", 22.8189},
                    {"kernel_launch", 3006.0000},
                    {"tb_launch", 1.0781},
                    {"barrier", 8.0000}});
  expect_published_or_declared("k20c", v);
}

// titanv's bandwidth runs move 20 MB each: about 13 s, so release stage only.
TEST(Microbench, TitanvSuiteAgreesWithItsParametersAndIsPinnedMedium) {
  GpuConfig g = gpu::load_config("titanv").values();
  std::map<std::string, double> v = by_name(run_suite(g));
  expect_consistent_with_model(g, v);
  expect_pinned(v, {{"l1_hit_latency", 23.0000},
                    {"l2_hit_latency", 193.0000},
                    {"dram_latency_seq", 419.8542},
                    {"dram_latency_far", 425.0104},
                    {"shared_latency", 24.0938},
                    {"const_latency", 16.0000},
                    {"shared_stride1", 1.2021},
                    {"shared_stride2", 2.1147},
                    {"shared_stride32", 32.0767},
                    {"shared_conflict_way", 0.9960},
                    {"fp32_latency", 3.9688},
                    {"fp64_latency", 8.0000},
                    {"int_latency", 3.9375},
                    {"sfu_latency", 20.0000},
                    {"cvt_latency", 3.9844},
                    {"fp32_throughput", 63.4136},
                    {"fp64_throughput", 31.8025},
                    {"int_throughput", 61.0685},
                    {"sfu_throughput", 15.5332},
                    {"mma_latency", 32.0000},
                    {"mma_throughput", 993.4401},
                    {"atomic_global_latency", 206.9688},
                    {"atomic_shared_latency", 32.2500},
                    {"dram_read_bw", 539.3909},
                    {"dram_write_bw", 577.0390},
                    {"dram_copy_bw", 437.6246},
                    {"l2_read_bw", 753.1972},
                    {"l1_read_bw", 49.3030},
                    {"kernel_launch", 3006.0000},
                    {"tb_launch", 1.0391},
                    {"barrier", 8.0625}});
  expect_published_or_declared("titanv", v);
}

// The A100 and H100 presets: only the measurements with a published value
// (the whole suite moves tens of MB through a 40-50 MB L2: too slow for CI),
// pinned, and within 10% of the published value or declared.
TEST(Microbench, AmpereAndHopperPublishedRowsArePinned) {
  const std::map<std::string, std::map<std::string, double>> pinned = {
      {"a100",
       {{"fp32_throughput", 63.4136},
        {"int_throughput", 61.0685},
        {"fp64_throughput", 31.8025},
        {"mma_throughput", 993.4401},
        {"dram_read_bw", 1199.0295}}},
      {"h100",
       {{"fp32_throughput", 121.5881},
        {"int_throughput", 61.0685},
        {"fp64_throughput", 63.0362},
        {"dram_read_bw", 2345.0834}}}};
  for (const auto& [preset, values] : pinned) {
    SCOPED_TRACE(preset);
    std::vector<std::string> only;
    for (const auto& [name, p] : published_values(preset)) only.push_back(name);
    std::map<std::string, double> v = by_name(run_suite(gpu::load_config(preset).values(), 1, only));
    expect_pinned(v, values);
    expect_published_or_declared(preset, v);
  }
}

// The latencies follow the parameters, not the presets: changed parameters
// move the measurements by exactly the change.
TEST(Microbench, LatenciesFollowChangedParameters) {
  std::vector<std::string> sets = {"l1d.hit_latency=40", "sm.latency.fp32=11", "sm.latency.shared_mem=50",
                                   "l2.hit_latency=300"};
  GpuConfig g = gpu::load_config("gtx980", sets).values();
  std::vector<std::string> only = {"l1_hit_latency", "l2_hit_latency", "fp32_latency", "shared_latency"};
  std::map<std::string, double> v = by_name(run_suite(g, 1, only));
  ASSERT_EQ(v.size(), only.size());
  EXPECT_DOUBLE_EQ(v["l1_hit_latency"], 43.0);
  EXPECT_NEAR(v["fp32_latency"], 11.0, 0.1);
  EXPECT_NEAR(v["shared_latency"], 50.0 + g.sm.latency.int_alu, 0.3);
  // 151 on the preset: +12 from the L1D and +200 from the L2.
  EXPECT_DOUBLE_EQ(v["l2_hit_latency"], 151.0 + 12 + 200);
}

// [sm.opcode_latency] times its opcode classes only: the fma and mad chains
// take the configured latencies, the conversions (same FP32 unit) keep the unit's.
TEST(Microbench, OpcodeLatencyTableTimesItsOpcodesOnly) {
  std::vector<std::string> sets = {"sm.opcode_latency.fp32_mad=13", "sm.opcode_latency.int_mad=10"};
  GpuConfig g = gpu::load_config("gtx980", sets).values();
  std::vector<std::string> only = {"fp32_latency", "int_latency", "cvt_latency"};
  std::map<std::string, double> v = by_name(run_suite(g, 1, only));
  EXPECT_NEAR(v["fp32_latency"], 13.0, 0.1);
  EXPECT_NEAR(v["int_latency"], 10.0, 0.1);
  EXPECT_NEAR(v["cvt_latency"], g.sm.latency.fp32, 0.1);
}

// The tensor unit's parameters move the mma measurements by exactly the change:
// the latency when it exceeds the interval, the throughput by the interval.
TEST(Microbench, MmaFollowsTheTensorUnitParameters) {
  std::vector<std::string> only = {"mma_latency", "mma_throughput"};
  std::map<std::string, double> base = by_name(run_suite(gpu::load_config("gtx980").values(), 1, only));
  std::vector<std::string> sets = {"sm.latency.tensor=50", "sm.interval.tensor=16"};
  GpuConfig g = gpu::load_config("gtx980", sets).values();
  std::map<std::string, double> v = by_name(run_suite(g, 1, only));
  EXPECT_NEAR(v["mma_latency"], 50.0, 0.1);
  EXPECT_NEAR(v["mma_throughput"], base["mma_throughput"] / 2, 0.05 * base["mma_throughput"]);
}

// sm.tb_launch_latency delays each new TB's first fetch: one empty TB per
// kernel, so each of the back-to-back launches takes exactly that much longer.
TEST(Microbench, TbLaunchLatencyDelaysEachKernelsTb) {
  std::vector<std::string> only = {"kernel_launch"};
  double base = by_name(run_suite(gpu::load_config("gtx980").values(), 1, only))["kernel_launch"];
  std::vector<std::string> sets = {"sm.tb_launch_latency=100"};
  double delayed = by_name(run_suite(gpu::load_config("gtx980", sets).values(), 1, only))["kernel_launch"];
  EXPECT_DOUBLE_EQ(delayed - base, 100.0);
}

TEST(Microbench, PublishedValuesNameMeasurementsAndCiteASource) {
  for (const char* preset : {"titanv", "gtx980", "k20c", "a100", "h100"}) {
    std::map<std::string, Published> pub = published_values(preset);
    EXPECT_FALSE(pub.empty()) << preset;
    for (const auto& [name, p] : pub) {
      EXPECT_NE(std::find(measurement_names().begin(), measurement_names().end(), name), measurement_names().end())
          << preset << "." << name;
      EXPECT_GT(p.value, 0);
      EXPECT_GE(p.source.size(), 20u) << preset << "." << name;
    }
  }
  EXPECT_TRUE(published_values("edge-16sm").empty());
}

TEST(Microbench, PublishedFileErrorsNameFileAndLine) {
  try {
    parse_published("[gtx980.dram_read_bw]\nvalue = 224.0\n", "pub.toml", "gtx980");
    FAIL() << "an entry without a source was accepted";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("pub.toml:1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("source"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_published("[gtx980.x]\nvalue = 1.0\nsource = \"s\"\nunit = 3\n", "pub.toml", "gtx980"), LoadError);
  EXPECT_THROW(parse_published("[gtx980.x]\nvalue = -1.0\nsource = \"s\"\n", "pub.toml", "gtx980"), LoadError);
  EXPECT_THROW(parse_published("[gtx980.x]\nvalue = 1.0\nsource = \"s\"\ndeviation = 2\n", "pub.toml", "gtx980"),
               LoadError);
  auto p = parse_published("[gtx980.x]\nvalue = 2.0\nsource = \"s\"\ndeviation = \"why\"\n", "pub.toml", "gtx980");
  EXPECT_EQ(p.at("x").deviation, "why");
  EXPECT_TRUE(within_published(1.85, p.at("x")));
  EXPECT_FALSE(within_published(1.75, p.at("x")));
}

TEST(Microbench, CalibrateCommandPrintsTheTableAndJson) {
  std::string out;
  ASSERT_EQ(test::run_gpumux("calibrate -c k20c --json -", out), 0) << out;
  EXPECT_NE(out.find("dram_read_bw"), std::string::npos) << out;
  EXPECT_NE(out.find("0.647"), std::string::npos) << out;  // 134.67 of the published 208 GB/s
  EXPECT_NE(out.find("beyond 10% of the published value"), std::string::npos) << out;
  EXPECT_NE(out.find("latency-bound"), std::string::npos) << out;  // the declared deviation
  EXPECT_NE(out.find("\"deviation\""), std::string::npos) << out;
  EXPECT_NE(out.find("no source"), std::string::npos) << out;
  EXPECT_NE(out.find("\"ratio\""), std::string::npos) << out;
  EXPECT_NE(test::run_gpumux("calibrate -c no-such-gpu", out), 0);
  EXPECT_NE(test::run_gpumux("calibrate -c k20c --scale 0", out), 0);
  EXPECT_NE(test::run_gpumux("calibrate -c k20c --only no_such_measurement", out), 0);
  EXPECT_NE(out.find("no_such_measurement"), std::string::npos) << out;
}

}  // namespace
}  // namespace gpumux::microbench
