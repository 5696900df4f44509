#include "gpumux/core/config.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "gpumux/core/error.h"

namespace gpumux {
namespace {

const std::filesystem::path kSourceDir = GPUMUX_SOURCE_DIR;

// The LoadError message of `fn`, or "" when it does not throw.
template <class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, DefaultsAreValid) {
  Config c;
  EXPECT_NO_THROW(c.validate());
  EXPECT_EQ(c.values().sm.warp_scheduler, "gto");
  EXPECT_EQ(c.values().l1d.write_policy, mem::WritePolicy::WriteThrough);
  EXPECT_EQ(c.values().l2.write_policy, mem::WritePolicy::WriteBack);
}

TEST(Config, PresetsLoadAndMatchTheirGpus) {
  for (const char* name : {"gtx980", "k20c", "isca17-16sm", "isca17-56sm", "titanv", "edge-16sm", "a100", "h100", "thesis-ch6"}) {
    SCOPED_TRACE(name);
    Config c = Config::build(kSourceDir / "configs" / (std::string(name) + ".toml"), {});
    EXPECT_EQ(c.values().gpu.name, name);
  }
  auto peak_gbs = [](const GpuConfig& g) {
    return g.gpu.num_partitions * g.dram.bus_bytes * g.dram.data_rate * g.clock.dram_mhz / 1000.0;
  };
  Config gtx = Config::build(kSourceDir / "configs/gtx980.toml", {});
  EXPECT_EQ(gtx.values().gpu.num_sms, 16u);
  EXPECT_DOUBLE_EQ(peak_gbs(gtx.values()), 224.0);
  Config k20 = Config::build(kSourceDir / "configs/k20c.toml", {});
  EXPECT_EQ(k20.values().gpu.num_sms, 13u);
  EXPECT_DOUBLE_EQ(k20.values().clock.core_mhz, 706.0);
  EXPECT_DOUBLE_EQ(peak_gbs(k20.values()), 208.0);
  Config q56 = Config::build(kSourceDir / "configs/isca17-56sm.toml", {});
  EXPECT_EQ(q56.values().gpu.num_sms, 56u);
  EXPECT_EQ(q56.values().sm.sub_cores, 2u);
  EXPECT_DOUBLE_EQ(q56.values().clock.core_mhz, 1216.0);  // inherited through two includes
  EXPECT_EQ(q56.values().gpu.num_partitions, 4u);
  Config tv = Config::build(kSourceDir / "configs/titanv.toml", {});
  EXPECT_EQ(tv.values().l2.size_kb, 4608u);
  EXPECT_EQ(tv.values().sm.shared_mem_bytes / 1024 + tv.values().l1d.size_kb, 128u);
  Config edge = Config::build(kSourceDir / "configs/edge-16sm.toml", {});
  EXPECT_EQ(edge.values().sm.tb_slots, 16u);
  EXPECT_EQ(edge.values().l1d.size_kb, 64u);
  // The whitepapers' figures: SMs, peak DRAM bandwidth, L2 and the L1 + shared array.
  Config a100 = Config::build(kSourceDir / "configs/a100.toml", {});
  EXPECT_EQ(a100.values().gpu.num_sms, 108u);
  EXPECT_NEAR(peak_gbs(a100.values()), 1555.0, 1.0);
  EXPECT_EQ(a100.values().l2.size_kb, 40u * 1024);
  EXPECT_EQ(a100.values().sm.shared_mem_bytes / 1024 + a100.values().l1d.size_kb, 192u);
  Config h100 = Config::build(kSourceDir / "configs/h100.toml", {});
  EXPECT_EQ(h100.values().gpu.num_sms, 132u);
  EXPECT_NEAR(peak_gbs(h100.values()), 3350.0, 5.0);
  EXPECT_EQ(h100.values().l2.size_kb, 50u * 1024);
  EXPECT_EQ(h100.values().sm.shared_mem_bytes / 1024 + h100.values().l1d.size_kb, 256u);
}

TEST(Config, UnknownKeyNamesKeyFileAndLine) {
  Config c;
  std::string err = error_of([&] { c.apply_text("[sm]\nwarp_slots = 32\nwrap_slots = 3\n", "mine.toml"); });
  EXPECT_NE(err.find("mine.toml:3"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown key 'sm.wrap_slots'"), std::string::npos) << err;
  err = error_of([&] { c.apply_text("[smm]\nwarp_slots = 32\n", "mine.toml"); });
  EXPECT_NE(err.find("unknown key 'smm'"), std::string::npos) << err;
}

TEST(Config, MistypedAndOutOfRangeValuesAreErrors) {
  Config c;
  std::string err = error_of([&] { c.apply_text("[sm]\nwarp_slots = \"many\"\n", "a.toml"); });
  EXPECT_NE(err.find("a.toml:2: sm.warp_slots: expected an integer"), std::string::npos) << err;
  err = error_of([&] { c.apply_text("[sm]\nwarp_slots = 0\n", "a.toml"); });
  EXPECT_NE(err.find("sm.warp_slots: value 0 out of range [1, 1024]"), std::string::npos) << err;
  err = error_of([&] { c.apply_text("[sm]\nwarp_scheduler = \"fifo\"\n", "a.toml"); });
  EXPECT_NE(err.find("\"fifo\" is not one of: lrr, gto, two-level"), std::string::npos) << err;
  err = error_of([&] { c.apply_text("[l2]\nwrite_policy = \"sometimes\"\n", "a.toml"); });
  EXPECT_NE(err.find("l2.write_policy"), std::string::npos) << err;
  err = error_of([&] { c.apply_text("sm = 3\n", "a.toml"); });
  EXPECT_NE(err.find("sm: expected a table"), std::string::npos) << err;
  err = error_of([&] { c.apply_text("[sm\n", "a.toml"); });
  EXPECT_NE(err.find("a.toml:1"), std::string::npos) << err;
  // A float parameter accepts an integer.
  c.apply_text("[clock]\ncore_mhz = 1000\n", "a.toml");
  EXPECT_DOUBLE_EQ(c.values().clock.core_mhz, 1000.0);
}

TEST(Config, CrossChecksNameTheSources) {
  Config c;
  c.apply_text("[l1d]\nsize_kb = 10\nways = 3\n", "odd.toml");
  std::string err = error_of([&] { c.validate(); });
  EXPECT_NE(err.find("odd.toml"), std::string::npos) << err;
  EXPECT_NE(err.find("l1d.size_kb must be a multiple"), std::string::npos) << err;
}

class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / fmt::format("gpumux-config-{}", ::getpid())) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return path_ / name;
  }

 private:
  std::filesystem::path path_;
};

TEST(Config, IncludeAppliesBaseFirstAndDetectsCycles) {
  TempDir dir;
  dir.write("base.toml", "[sm]\nwarp_slots = 48\ntb_slots = 8\n");
  auto derived = dir.write("derived.toml", "include = \"base.toml\"\n[sm]\ntb_slots = 12\n");
  Config c = Config::build(derived, {});
  EXPECT_EQ(c.values().sm.warp_slots, 48u);
  EXPECT_EQ(c.values().sm.tb_slots, 12u);

  dir.write("a.toml", "include = \"b.toml\"\n");
  auto b = dir.write("b.toml", "include = [\"a.toml\"]\n");
  std::string err = error_of([&] { Config::build(b, {}); });
  EXPECT_NE(err.find("include cycle"), std::string::npos) << err;

  auto bad = dir.write("bad.toml", "include = \"base.toml\"\n[dram]\ntRCD = -1\n");
  err = error_of([&] { Config::build(bad, {}); });
  EXPECT_NE(err.find("bad.toml:3: dram.tRCD"), std::string::npos) << err;
  err = error_of([&] { Config::build(dir.write("missing.toml", "include = \"nope.toml\"\n"), {}); });
  EXPECT_NE(err.find("nope.toml: cannot open"), std::string::npos) << err;
}

TEST(Config, SetParsesByDeclaredType) {
  std::vector<std::string> overrides = {"sm.warp_slots=48", "clock.core_mhz = 1500.5", "sm.warp_scheduler=lrr",
                                        "l1d.write_policy=write-back", "l1d.write_allocate=true",
                                        "gpu.name=\"x\"", "sm.latency.fp64=64"};
  Config c = Config::build(std::nullopt, overrides);
  EXPECT_EQ(c.values().sm.warp_slots, 48u);
  EXPECT_DOUBLE_EQ(c.values().clock.core_mhz, 1500.5);
  EXPECT_EQ(c.values().sm.warp_scheduler, "lrr");
  EXPECT_EQ(c.values().l1d.write_policy, mem::WritePolicy::WriteBack);
  EXPECT_TRUE(c.values().l1d.write_allocate);
  EXPECT_EQ(c.values().gpu.name, "x");
  EXPECT_EQ(c.values().sm.latency.fp64, 64u);

  Config d;
  EXPECT_NE(error_of([&] { d.set("sm.warp_slot=4"); }).find("unknown key 'sm.warp_slot'"), std::string::npos);
  EXPECT_NE(error_of([&] { d.set("sn.warp_slots=4"); }).find("unknown key 'sn.warp_slots'"), std::string::npos);
  EXPECT_NE(error_of([&] { d.set("sm.warp_slots=4x"); }).find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of([&] { d.set("l1d.write_allocate=yes"); }).find("expected a bool"), std::string::npos);
  EXPECT_NE(error_of([&] { d.set("sm.warp_slots"); }).find("expected path.key=value"), std::string::npos);
}

TEST(Config, DumpLoadsBackToTheSameValues) {
  Config c = Config::build(kSourceDir / "configs/titanv.toml", std::vector<std::string>{"sm.warp_scheduler=lrr"});
  Config again;
  again.apply_text(c.dump(), "dump.toml");
  again.validate();
  auto body = [](const std::string& dump) { return dump.substr(dump.find("\n[")); };
  EXPECT_EQ(body(again.dump()), body(c.dump()));
  EXPECT_NE(c.dump().find("warp_scheduler = \"lrr\""), std::string::npos);
  EXPECT_NE(c.dump().find("[sm.latency]"), std::string::npos);
}

TEST(Config, ReferenceDocIsUpToDate) {
  std::ifstream in(kSourceDir / "docs/config.md");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), config_reference_markdown())
      << "docs/config.md is stale: regenerate it with `gpumux config docs > docs/config.md`";
}

}  // namespace
}  // namespace gpumux
