#include "gpumux/stats/timeline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <limits>
#include <string>

#include "gpumux/core/error.h"

namespace gpumux::stats {
namespace {

// The metadata event `name` of (pid, tid); tid 0 = a process event.
const nlohmann::json* find_meta(const nlohmann::json& events, const std::string& name, int pid, int tid = 0) {
  for (const auto& e : events)
    if (e["ph"] == "M" && e["name"] == name && e["pid"] == pid && (tid == 0 ? !e.contains("tid") : e["tid"] == tid))
      return &e;
  return nullptr;
}

TEST(Timeline, TracksAreStableAndNumberedInCreationOrder) {
  Timeline t;
  EXPECT_EQ(t.track("GPU", "SM 0"), 0u);
  EXPECT_EQ(t.track("GPU", "SM 1"), 1u);
  EXPECT_EQ(t.track("app 0", "kernels"), 2u);
  EXPECT_EQ(t.track("GPU", "SM 0"), 0u);
  EXPECT_EQ(t.track("app 1", "SM 0"), 3u);  // same thread name, other process: another track
  EXPECT_EQ(t.track("GPU", "copy"), 4u);
  EXPECT_EQ(t.num_tracks(), 5u);
  EXPECT_EQ(t.size(), 0u);

  nlohmann::json ev = t.to_json()["traceEvents"];
  // Processes: pids 1, 2, 3 in order of first use; threads: tids 1.. by creation.
  ASSERT_TRUE(find_meta(ev, "process_name", 1));
  EXPECT_EQ((*find_meta(ev, "process_name", 1))["args"]["name"], "GPU");
  EXPECT_EQ((*find_meta(ev, "process_name", 2))["args"]["name"], "app 0");
  EXPECT_EQ((*find_meta(ev, "process_name", 3))["args"]["name"], "app 1");
  EXPECT_EQ((*find_meta(ev, "process_sort_index", 3))["args"]["sort_index"], 3);
  EXPECT_EQ((*find_meta(ev, "thread_name", 1, 1))["args"]["name"], "SM 0");
  EXPECT_EQ((*find_meta(ev, "thread_name", 1, 2))["args"]["name"], "SM 1");
  EXPECT_EQ((*find_meta(ev, "thread_name", 2, 3))["args"]["name"], "kernels");
  EXPECT_EQ((*find_meta(ev, "thread_name", 3, 4))["args"]["name"], "SM 0");
  EXPECT_EQ((*find_meta(ev, "thread_name", 1, 5))["args"]["name"], "copy");
  for (int tid = 1; tid <= 5; ++tid) {
    int pid = tid == 3 ? 2 : tid == 4 ? 3 : 1;
    const nlohmann::json* s = find_meta(ev, "thread_sort_index", pid, tid);
    ASSERT_TRUE(s) << tid;
    EXPECT_EQ((*s)["args"]["sort_index"], tid);
  }
  EXPECT_EQ(ev.size(), 3u * 2 + 5u * 2);
}

TEST(Timeline, SpansAndInstants) {
  Timeline t;
  uint32_t sm = t.track("GPU", "SM 0");
  uint32_t app = t.track("app 0", "kernels");
  t.span(sm, "late", 10.5, 2.25, {{"tb", 7}});
  t.instant(app, "launch", 0.000001);  // 1 ps
  t.span(app, "k", 3, 0);
  t.span(sm, "early", 1, 4);
  t.span(sm, "same time, added later", 1, 1, 42);
  EXPECT_EQ(t.size(), 5u);

  nlohmann::json j = t.to_json();
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  const nlohmann::json& ev = j["traceEvents"];
  // Metadata first, then the events sorted by time (stable).
  size_t first = 0;
  while (first < ev.size() && ev[first]["ph"] == "M") ++first;
  EXPECT_EQ(first, 2u * 2 + 2u * 2);
  ASSERT_EQ(ev.size() - first, 5u);
  for (size_t i = first; i < ev.size(); ++i) EXPECT_NE(ev[i]["ph"], "M");
  std::vector<std::string> names;
  for (size_t i = first; i < ev.size(); ++i) names.push_back(ev[i]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"launch", "early", "same time, added later", "k", "late"}));

  const nlohmann::json& launch = ev[first];
  EXPECT_EQ(launch["ph"], "i");
  EXPECT_EQ(launch["s"], "t");
  EXPECT_EQ(launch["pid"], 2);
  EXPECT_EQ(launch["tid"], 2);
  EXPECT_DOUBLE_EQ(launch["ts"].get<double>(), 1e-6);
  EXPECT_FALSE(launch.contains("dur"));
  EXPECT_FALSE(launch.contains("args"));

  const nlohmann::json& late = ev[first + 4];
  EXPECT_EQ(late["ph"], "X");
  EXPECT_EQ(late["pid"], 1);
  EXPECT_EQ(late["tid"], 1);
  EXPECT_DOUBLE_EQ(late["ts"].get<double>(), 10.5);
  EXPECT_DOUBLE_EQ(late["dur"].get<double>(), 2.25);
  EXPECT_EQ(late["args"], (nlohmann::json{{"tb", 7}}));
  EXPECT_EQ(ev[first + 2]["args"], (nlohmann::json{{"value", 42}}));  // non-object args wrapped
  EXPECT_DOUBLE_EQ(ev[first + 3]["dur"].get<double>(), 0);

  // Exact JSON round trip (doubles included).
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

TEST(Timeline, Counters) {
  Timeline t;
  uint32_t sm = t.track("GPU", "SM 0");
  t.counter("GPU", "warps", Timeline::us(2'000'000), {{"app 0", 12}, {"app 1", 4}});
  t.counter("apps", "queued", 1, {{"kernels", 3}});  // creates process "apps"
  t.span(sm, "tb", 0, 1);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.track("apps", "x"), 1u);
  nlohmann::json ev = t.to_json()["traceEvents"];
  ASSERT_TRUE(find_meta(ev, "process_name", 2));
  EXPECT_EQ((*find_meta(ev, "process_name", 2))["args"]["name"], "apps");
  const nlohmann::json& last = ev.back();
  EXPECT_EQ(last["ph"], "C");
  EXPECT_EQ(last["name"], "warps");
  EXPECT_EQ(last["pid"], 1);
  EXPECT_DOUBLE_EQ(last["ts"].get<double>(), 2.0);
  EXPECT_EQ(last["args"], (nlohmann::json{{"app 0", 12}, {"app 1", 4}}));
  EXPECT_FALSE(last.contains("tid"));
  EXPECT_THROW(t.counter("GPU", "bad", 0, 5), ApiError);
  EXPECT_THROW(t.counter("GPU", "bad", 0, nlohmann::json::object()), ApiError);
  EXPECT_THROW(t.counter("GPU", "bad", 0, {{"a", "text"}}), ApiError);
  EXPECT_THROW(t.counter("GPU", "bad", -1, {{"a", 1}}), ApiError);
}

TEST(Timeline, RejectsBadTracksAndTimes) {
  Timeline t;
  uint32_t a = t.track("p", "t");
  EXPECT_THROW(t.span(a + 1, "x", 0, 1), ApiError);
  EXPECT_THROW(t.instant(7, "x", 0), ApiError);
  EXPECT_THROW(t.span(a, "x", -1, 1), ApiError);
  EXPECT_THROW(t.span(a, "x", 0, -1), ApiError);
  EXPECT_THROW(t.span(a, "x", std::numeric_limits<double>::quiet_NaN(), 1), ApiError);
  EXPECT_THROW(t.instant(a, "x", std::numeric_limits<double>::infinity()), ApiError);
  EXPECT_EQ(t.size(), 0u);
}

TEST(Timeline, WritesAFileAndNamesItOnFailure) {
  Timeline t;
  t.span(t.track("GPU", "SM 0"), "tb", 0.5, 1.5);
  std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("gpumux-timeline-test-" + std::to_string(::getpid()) + ".json");
  t.write(file);
  std::ifstream in(file);
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j, t.to_json());
  std::filesystem::remove(file);

  std::filesystem::path bad = std::filesystem::temp_directory_path() / "gpumux-no-such-dir-xyz" / "t.json";
  try {
    t.write(bad);
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_NE(std::string(e.what()).find(bad.string()), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpumux::stats
