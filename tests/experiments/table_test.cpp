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
  o = Trend::parse("mean(ntt where apps>=4) - 1 >= (max(ntt) + 2) / 10").evaluate(t);
  EXPECT_DOUBLE_EQ(o.lhs, 1);
  EXPECT_DOUBLE_EQ(o.rhs, 1);
  EXPECT_TRUE(o.holds);
  EXPECT_FALSE(Trend::parse("count(ntt where policy=smk) < 2").evaluate(t).holds);
  EXPECT_TRUE(Trend::parse("-1e0 < 0.5").evaluate(t).holds);
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
