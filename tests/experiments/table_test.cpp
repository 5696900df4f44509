#include "gpumux/experiments/table.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpumux::experiments {
namespace {

// Two runs of two applications each: per-run STP repeated on both rows.
Table sample() {
  Table t;
  t.per_run = {"stp"};
  t.add({{"key", "r1"}, {"policy", "fcfs"}, {"apps", "2"}, {"category", "COM/MEM"}, {"ntt", "2"}, {"stp", "1.0"}});
  t.add({{"key", "r1"}, {"policy", "fcfs"}, {"apps", "2"}, {"category", "COM/MEM"}, {"ntt", "8"}, {"stp", "1.0"}});
  t.add({{"key", "r2"}, {"policy", "smk"}, {"apps", "4"}, {"category", "COM/COM"}, {"ntt", "1"}, {"stp", "4.0"}});
  t.add({{"key", "r2"}, {"policy", "smk"}, {"apps", "4"}, {"category", "COM/COM"}, {"ntt", "3"}, {"stp", "4.0"}});
  return t;
}

TEST(ExperimentTable, AddsColumnsAndWritesCsvWithQuoting) {
  Table t;
  t.add({{"a", "1"}});
  t.add({{"b", "x,y"}, {"a", "say \"hi\""}});
  EXPECT_EQ(t.csv(), "a,b\n1,\n\"say \"\"hi\"\"\",\"x,y\"\n");
}

TEST(ExperimentTable, FiltersCompareNumbersAsNumbersAndTextAsText) {
  Table t = sample();
  EXPECT_EQ(select_values(t, "ntt", parse_filters("apps>=4")), (std::vector<double>{1, 3}));
  EXPECT_EQ(select_values(t, "ntt", parse_filters("apps=4.0")), (std::vector<double>{1, 3}));
  EXPECT_EQ(select_values(t, "ntt", parse_filters("category=COM/MEM|COM/COM, policy!=smk")),
            (std::vector<double>{2, 8}));
  EXPECT_EQ(select_values(t, "ntt", parse_filters("policy=\"fcfs\"")), (std::vector<double>{2, 8}));
  EXPECT_TRUE(select_values(t, "ntt", parse_filters("apps<2")).empty());
}

TEST(ExperimentTable, PerRunColumnsCountOncePerRun) {
  Table t = sample();
  EXPECT_EQ(select_values(t, "stp", {}), (std::vector<double>{1, 4}));
  EXPECT_DOUBLE_EQ(aggregate("geomean", select_values(t, "stp", {})), 2.0);
  EXPECT_DOUBLE_EQ(aggregate("mean", select_values(t, "ntt", {})), 3.5);
}

TEST(ExperimentTable, Aggregates) {
  std::vector<double> v{4, 1, 2, 8};
  EXPECT_DOUBLE_EQ(aggregate("geomean", v), std::pow(64.0, 0.25));
  EXPECT_DOUBLE_EQ(aggregate("median", v), 3);
  EXPECT_DOUBLE_EQ(aggregate("min", v), 1);
  EXPECT_DOUBLE_EQ(aggregate("max", v), 8);
  EXPECT_DOUBLE_EQ(aggregate("sum", v), 15);
  EXPECT_DOUBLE_EQ(aggregate("count", {}), 0);
  EXPECT_THROW(aggregate("mean", {}), std::invalid_argument);
  EXPECT_THROW(aggregate("geomean", {1, 0}), std::invalid_argument);
  EXPECT_THROW(aggregate("mode", v), std::invalid_argument);
}

TEST(ExperimentTable, TrendsEvaluateBothSidesAndCanFail) {
  Table t = sample();
  Trend::Outcome o = Trend::parse("geomean(stp where policy=smk) > 2 * geomean(stp where policy=fcfs)").evaluate(t);
  EXPECT_DOUBLE_EQ(o.lhs, 4);
  EXPECT_DOUBLE_EQ(o.rhs, 2);
  EXPECT_TRUE(o.holds);
  EXPECT_EQ(o.units, 2u);  // one run on each side: the interval is the point
  EXPECT_DOUBLE_EQ(o.ci_low, 2);
  EXPECT_DOUBLE_EQ(o.ci_high, 2);
  o = Trend::parse("mean(ntt where apps>=4) - 1 >= (max(ntt) + 2) / 10").evaluate(t);
  EXPECT_DOUBLE_EQ(o.lhs, 1);
  EXPECT_DOUBLE_EQ(o.rhs, 1);
  EXPECT_TRUE(o.point_holds);
  EXPECT_TRUE(o.holds == (o.ci_low >= 0));
  EXPECT_FALSE(Trend::parse("count(ntt where policy=smk) < 2").evaluate(t).holds);
  EXPECT_TRUE(Trend::parse("-1e0 < 0.5").evaluate(t).holds);
}

// Six mixes, each run under three policies: smk's STP above fcfs's in every
// mix, noisy's above it on average but below it in half the mixes.
Table paired() {
  Table t;
  t.per_run = {"stp"};
  const double fcfs[] = {1.0, 1.2, 0.9, 1.1, 1.3, 1.0};
  const double noisy[] = {0.5, -0.3, 0.4, -0.2, 0.3, -0.4};  // mean +0.05
  for (int i = 0; i < 6; ++i) {
    std::string mix = "m" + std::to_string(i);
    for (auto [policy, stp] : {std::pair<std::string, double>{"fcfs", fcfs[i]},
                               {"smk", fcfs[i] + 0.2 + 0.01 * i},
                               {"noisy", fcfs[i] + noisy[i]}})
      t.add({{"key", policy + mix}, {"mix", mix}, {"seed", "1"}, {"policy", policy}, {"stp", std::to_string(stp)}});
  }
  return t;
}

TEST(ExperimentTable, TrendIntervalsResampleMixesAndSeeds) {
  Table t = paired();
  Trend sure = Trend::parse("mean(stp where policy=smk) > mean(stp where policy=fcfs)");
  Trend::Outcome o = sure.evaluate(t);
  EXPECT_EQ(o.units, 6u);
  EXPECT_NEAR(o.lhs - o.rhs, 0.225, 1e-9);
  // Paired: every resample's effect is a mean of the per-mix gains 0.20-0.25.
  EXPECT_GE(o.ci_low, 0.2 - 1e-9);
  EXPECT_LE(o.ci_high, 0.25 + 1e-9);
  EXPECT_LT(o.ci_low, o.ci_high);
  EXPECT_TRUE(o.holds);
  Trend::Outcome again = sure.evaluate(t);  // a fixed seed: the same interval
  EXPECT_EQ(again.ci_low, o.ci_low);
  EXPECT_EQ(again.ci_high, o.ci_high);

  // Above at the point, but not in every mix: the interval includes no effect.
  o = Trend::parse("mean(stp where policy=noisy) > mean(stp where policy=fcfs)").evaluate(t);
  EXPECT_TRUE(o.point_holds);
  EXPECT_LT(o.ci_low, 0);
  EXPECT_GT(o.ci_high, 0);
  EXPECT_FALSE(o.holds);
  o = Trend::parse("mean(stp where policy=noisy) < mean(stp where policy=fcfs)").evaluate(t);
  EXPECT_FALSE(o.point_holds);
  EXPECT_FALSE(o.holds);

  // One mix: the interval is the point.
  o = Trend::parse("mean(stp where policy=noisy, mix=m1) < mean(stp where policy=fcfs, mix=m1)").evaluate(t);
  EXPECT_EQ(o.units, 1u);
  EXPECT_DOUBLE_EQ(o.ci_low, o.lhs - o.rhs);
  EXPECT_DOUBLE_EQ(o.ci_high, o.lhs - o.rhs);
  EXPECT_TRUE(o.holds);

  // Sides drawing on different mixes: each keeps its number of mixes in every
  // resample (strata), so neither side is ever empty.
  o = Trend::parse("min(stp where policy=smk, mix=m0) < max(stp where policy=fcfs, mix!=m0)").evaluate(t);
  EXPECT_EQ(o.units, 6u);
  EXPECT_TRUE(o.point_holds);
  EXPECT_FALSE(o.holds);  // some resamples draw only fcfs runs below smk's m0 (1.2)
  EXPECT_LT(o.ci_low, 0);
  EXPECT_DOUBLE_EQ(o.ci_high, 1.2 - 1.1);  // the 97.5th percentile: neither 1.3 nor 1.2 drawn
}

TEST(ExperimentTable, TrendErrorsSayWhatAndWhere) {
  auto message = [](const std::string& expr) {
    try {
      Trend::parse(expr);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  {
    EXPECT_NE(message("geomean(stp) 1").find("expected a comparison"), std::string::npos);
    EXPECT_NE(message("avg(stp) > 1").find("unknown aggregate 'avg'"), std::string::npos);
    EXPECT_NE(message("mean(stp where apps>four) > 1").find("needs one number"), std::string::npos);
    EXPECT_NE(message("mean(stp > 1").find("expected ')'"), std::string::npos);
    EXPECT_NE(message("mean(stp) > 1 extra").find("unexpected text at column 15"), std::string::npos);
  }
  Table t = sample();
  EXPECT_THROW(Trend::parse("mean(speed) > 1").evaluate(t), std::invalid_argument);
  EXPECT_THROW(Trend::parse("mean(stp where policy=none) > 1").evaluate(t), std::invalid_argument);
  EXPECT_THROW(Trend::parse("mean(stp where colour=red) > 1").evaluate(t), std::invalid_argument);
  EXPECT_THROW(Trend::parse("mean(stp) / (mean(stp) - mean(stp)) > 1").evaluate(t), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux::experiments
