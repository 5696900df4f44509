// The progress line of long simulations (gpu/progress.h): its text, the
// duration format it shares with study ETAs, and the line drawn and erased on
// a stream while the engine runs.
#include "gpumux/gpu/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace gpumux::gpu {
namespace {

TEST(FormatDuration, RoundsToWholeSecondsAndCarries) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(-3), "0s");
  EXPECT_EQ(format_duration(59.4), "59s");
  EXPECT_EQ(format_duration(59.6), "60s");
  EXPECT_EQ(format_duration(89.4), "89s");
  EXPECT_EQ(format_duration(89.6), "1m30s");  // rounds to 90 s: minutes from there
  EXPECT_EQ(format_duration(119.5), "2m00s");
  EXPECT_EQ(format_duration(479.7), "8m00s");  // was "7m60s"
  EXPECT_EQ(format_duration(479.4), "7m59s");
  EXPECT_EQ(format_duration(5399.4), "89m59s");
  EXPECT_EQ(format_duration(5399.6), "1h30m");  // rounds to 90 min: hours from there
  EXPECT_EQ(format_duration(7169), "1h59m");
  EXPECT_EQ(format_duration(7170), "2h00m");  // 119.5 min rounds up: was "1h60m"
  EXPECT_EQ(format_duration(36000), "10h00m");
}

TEST(FormatProgress, ShowsSimulatedTimeCyclesWorkDoneHostTimeAndRate) {
  ProgressSnapshot s{1.5, 1689000, 12, 4096, 41.2};
  EXPECT_EQ(format_progress(s),
            "gpumux: 1.500 ms simulated (1689000 core cycles), 12 kernels done, 4096 TBs done, 41s host, 41.0k "
            "cycles/s");
  s.host_seconds = 0.5;
  EXPECT_NE(format_progress(s).find("3.4M cycles/s"), std::string::npos) << format_progress(s);
  s.host_seconds = 0;  // no rate before host time passed
  EXPECT_NE(format_progress(s).find("0.0k cycles/s"), std::string::npos) << format_progress(s);
}

// Busy for `cycles` core cycles, like a long kernel.
class Busy : public Component {
 public:
  Busy(Engine& e, DomainId d, Cycle cycles) : Component(e, d, "busy"), cycles_(cycles) {}
  Cycle tick(Cycle now) override {
    engine().note_progress();
    return now < cycles_ ? now + 1 : kNever;
  }
  std::string describe_wait() const override { return ""; }

 private:
  Cycle cycles_;
};

std::string contents(std::FILE* f) {
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += char(c);
  return s;
}

TEST(ProgressLine, RedrawsOneLineInPlaceAndErasesItAtTheEnd) {
  Gpu g(load_config("gtx980").values());
  Busy busy(g.engine(), g.clocks().core, 50000);
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressLine line(g, f, 0.0);  // every look at the clock draws
    busy.wake();
    g.engine().run();
    EXPECT_EQ(line.snapshot().core_cycles, 50000u);
  }
  std::string out = contents(f);
  std::fclose(f);
  EXPECT_EQ(out.find('\n'), std::string::npos) << out;  // one line, redrawn
  EXPECT_EQ(out.rfind("\r\033[Kgpumux: ", 0), 0u) << out;
  EXPECT_NE(out.find("core cycles), "), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("cycles/s\r\033[K")) << out;  // erased when it ends
}

TEST(ProgressLine, DrawsNothingBeforeItsInterval) {
  Gpu g(load_config("gtx980").values());
  Busy busy(g.engine(), g.clocks().core, 50000);
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressLine line(g, f, 3600.0);
    busy.wake();
    g.engine().run();
  }
  EXPECT_EQ(contents(f), "");  // nothing drawn, nothing to erase
  std::fclose(f);
}

}  // namespace
}  // namespace gpumux::gpu
