#include "gpumux/core/stats.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "gpumux/stats/writers.h"

namespace gpumux {
namespace {

TEST(Stats, KeysAreDenseAndStable) {
  StatKeys keys;
  EXPECT_EQ(keys.size(), 1u);  // unattributed
  StatKey a = keys.key(0, 0, "sgemm.k0");
  StatKey b = keys.key(1, 3);
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(keys.key(0, 0), a);
  EXPECT_EQ(keys.at(b).label, "app1.k3");
  EXPECT_EQ(keys.at(kNoKey).label, "unattributed");
}

TEST(Stats, HistogramBucketsAndSummary) {
  Histogram h(10, 4);
  for (uint64_t v : {0, 9, 10, 35, 1000}) h.sample(v);
  EXPECT_EQ(h.buckets(), (std::vector<uint64_t>{2, 1, 0, 2}));  // 35 and 1000 in the last bucket
  EXPECT_EQ(h.count(), 5u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 1000u);
  EXPECT_DOUBLE_EQ(h.mean(), 1054.0 / 5);
  Histogram other(10, 4);
  other.sample(15);
  h.merge(other);
  EXPECT_EQ(h.buckets()[1], 2u);
  EXPECT_THROW(h.merge(Histogram(5, 4)), std::logic_error);
}

struct Fixture {
  StatKeys keys;
  StatRegistry reg;
  KeyedCounter hits[2];
  Counter stalls;
  KeyedHistogram latency{Histogram(100, 4)};
  Fixture() {
    StatKey a = keys.key(0, 0, "appA.k0");
    StatKey b = keys.key(1, 0, "appB.k0");
    hits[0][a].add(3);
    hits[1][a].add(1);
    hits[1][b].add(5);
    stalls.add(7);
    latency[a].sample(50);
    latency[b].sample(250);
    reg.add("sm0.l1d.hits", hits[0], "read hits");
    reg.add("sm1.l1d.hits", hits[1], "read hits");
    reg.add("sm1.l1d.stalls", stalls, "stall cycles");
    reg.add("mem.latency", latency, "request latency");
  }
};

TEST(Stats, RegistryAggregatesOnDemand) {
  Fixture f;
  EXPECT_EQ(f.reg.sum("sm*.l1d.hits"), 9u);
  EXPECT_EQ(f.reg.sum("sm*.l1d.hits", 1), 4u);
  EXPECT_EQ(f.reg.sum("sm1.l1d.*"), 13u);
  EXPECT_EQ(f.reg.sum("sm1.*.*"), 13u);
  EXPECT_EQ(f.reg.sum("*.hits"), 0u);  // '*' stays within one segment
  EXPECT_TRUE(path_matches("sm*.l1d.hits", "sm12.l1d.hits"));
  EXPECT_FALSE(path_matches("sm*.hits", "sm12.l1d.hits"));
  EXPECT_THROW(f.reg.add("sm0.l1d.hits", f.stalls, ""), std::logic_error);
  EXPECT_THROW(f.reg.add("sm0.l1d.hits.x", f.stalls, ""), std::logic_error);
  EXPECT_THROW(f.reg.add("sm0", f.stalls, ""), std::logic_error);
  f.reg.reset();
  EXPECT_EQ(f.reg.sum("sm*.l1d.*"), 0u);
  EXPECT_EQ(f.latency.total().count(), 0u);
}

// Paths are indexed (a GPU registers thousands): lookups, duplicates and
// nesting must be found among many, and a refused path must leave no trace.
TEST(Stats, RegistryFindsEachOfManyPathsAndRefusesNesting) {
  StatRegistry reg;
  std::vector<Counter> counters(2000);
  auto path = [](size_t i) { return "sm" + std::to_string(i / 20) + ".unit" + std::to_string(i % 20) + ".count"; };
  for (size_t i = 0; i < counters.size(); ++i) reg.add(path(i), counters[i], "a count");
  ASSERT_EQ(reg.entries().size(), counters.size());
  for (size_t i = 0; i < counters.size(); i += 37) {
    const StatRegistry::Entry* e = reg.find(path(i));
    ASSERT_NE(e, nullptr) << i;
    EXPECT_EQ(std::get<Counter*>(e->stat), &counters[i]);
    EXPECT_EQ(e->doc, "a count");
  }
  EXPECT_EQ(reg.find("sm7.unit3"), nullptr);  // an inner node, not a statistic
  EXPECT_EQ(reg.find("sm100.unit0.count"), nullptr);
  Counter c;
  try {
    reg.add("sm99.unit19.count", c, "");
    ADD_FAILURE() << "registered twice";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("registered twice"), std::string::npos) << e.what();
  }
  try {
    reg.add("sm5.unit2", c, "");  // an inner node: the error names a statistic under it
    ADD_FAILURE() << "nested";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'sm5.unit2.count'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(reg.add("sm5.unit2.count.x.y", c, ""), std::logic_error);  // under a statistic
  EXPECT_EQ(reg.entries().size(), counters.size());
  reg.add("sm5.unit2b", c, "");  // a sibling whose name extends another's is no nesting
  EXPECT_EQ(reg.find("sm5.unit2b")->stat, StatRegistry::Stat(&c));
  counters[41].add(5);
  EXPECT_EQ(reg.sum("sm2.unit1.count"), 5u);
  EXPECT_EQ(reg.sum("sm*.unit1.count"), 5u);
}

TEST(Stats, JsonWriterNestsPathsAndSplitsKeys) {
  Fixture f;
  nlohmann::json j = stats::to_json(f.reg, f.keys);
  EXPECT_EQ(j["keys"].size(), 3u);
  EXPECT_EQ(j["keys"][2]["label"], "appB.k0");
  EXPECT_EQ(j["stats"]["sm1"]["l1d"]["hits"]["total"], 6);
  EXPECT_EQ(j["stats"]["sm1"]["l1d"]["hits"]["by_key"]["appB.k0"], 5);
  EXPECT_EQ(j["stats"]["sm1"]["l1d"]["stalls"]["total"], 7);
  EXPECT_EQ(j["stats"]["mem"]["latency"]["total"]["count"], 2);
  EXPECT_EQ(j["stats"]["mem"]["latency"]["by_key"]["appA.k0"]["max"], 50);
}

TEST(Stats, CsvWriterHasOneRowPerStatAndKey) {
  Fixture f;
  std::ostringstream out;
  stats::write_csv(out, f.reg, f.keys);
  std::string csv = out.str();
  EXPECT_EQ(csv.rfind("stat,key,app,kernel,value\n", 0), 0u);
  EXPECT_NE(csv.find("sm1.l1d.hits,total,,,6\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("sm1.l1d.hits,appB.k0,1,0,5\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("sm1.l1d.stalls,total,,,7\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("mem.latency.mean,total,,,150\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("mem.latency.max,appB.k0,1,0,250\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace gpumux
