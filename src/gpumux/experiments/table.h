// The results of a study as a table (one row per application per run, every
// axis value and metric a column, as in results.csv), and the small language
// that figures and trends use to select and aggregate it:
//
//   filters    column=value   column!=a|b   apps>=4   category=COM/COM|MEM/MEM
//   aggregate  geomean(stp where policy=smk-even, category=COM/COM)
//              (mean, median, min, max, sum, count, geomean)
//   trend      geomean(antt where policy=ppq) < 0.9 * geomean(antt where policy=fcfs)
//
// `=` and `!=` compare as numbers when both sides are numbers, else as text;
// `<`, `<=`, `>`, `>=` need numbers. A value is a run of characters other than
// blanks, ',', '|' and ')', or a "quoted string". Per-run columns (STP, ANTT,
// ...: the same in every row of a run) are aggregated once per run, not once
// per application.
//
// A trend's effect is lhs - rhs, with a 95% bootstrap interval over the
// table's units (a unit: the rows of one mix and seed, under every policy and
// config, so comparisons stay paired): resamples draw units with replacement,
// stratified by which of the trend's aggregates a unit feeds, so every
// aggregate keeps its number of units; the interval is the 2.5th to 97.5th
// percentile of the resampled effects (kResamples, fixed RNG seed). A trend
// holds when its comparison holds and the whole interval is on its side.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux::experiments {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::set<std::string> per_run;  // columns holding one value per run
  std::string run_column = "key"; // identifies a run
  // The bootstrap's units: rows equal in these columns (those present) are
  // one unit; a table with none of them has one unit per row.
  std::vector<std::string> unit_columns{"mix", "seed"};

  // Index of `name`, or -1.
  int column(std::string_view name) const;
  // Appends a row given as (column, value) pairs; new columns are added (empty in earlier rows).
  void add(const std::vector<std::pair<std::string, std::string>>& cells);
  // RFC 4180 CSV: a header line, then the rows.
  std::string csv() const;
};

struct Filter {
  enum class Op { Eq, Ne, Lt, Le, Gt, Ge };
  std::string column;
  Op op = Op::Eq;
  std::vector<std::string> values;  // alternatives for = and !=
  bool matches(const Table& t, const std::vector<std::string>& row) const;
  std::string text() const;
};

// "a=b, c>=2"; std::invalid_argument naming what is wrong.
std::vector<Filter> parse_filters(std::string_view text);

// The values of `metric` in the rows matching every filter (one per run for
// per-run columns), in row order. std::invalid_argument for an unknown
// column or a non-numeric value.
std::vector<double> select_values(const Table& t, std::string_view metric, const std::vector<Filter>& where);
// Aggregates values: geomean, mean, median, min, max, sum, count.
// std::invalid_argument for an unknown function, no values (except count),
// or geomean of a value <= 0.
double aggregate(std::string_view function, const std::vector<double>& values);
bool is_aggregate(std::string_view function);

// A parsed trend: `lhs op rhs`, each side arithmetic over numbers and aggregates.
class Trend {
 public:
  static constexpr size_t kResamples = 2000;
  static constexpr uint64_t kBootstrapSeed = 0x9e3779b97f4a7c15ULL;
  // std::invalid_argument with the position of a syntax error.
  static Trend parse(std::string_view text);
  struct Outcome {
    double lhs = 0, rhs = 0;
    bool point_holds = false;        // lhs op rhs at the measured values
    double ci_low = 0, ci_high = 0;  // 95% interval of lhs - rhs (the point with one unit)
    size_t units = 0;                // units the aggregates draw on
    bool holds = false;              // point_holds and the interval on the comparison's side
  };
  // std::invalid_argument when the data cannot give a value (no matching rows, ...).
  Outcome evaluate(const Table& t, size_t resamples = kResamples) const;
  ~Trend();
  Trend(Trend&&) noexcept;
  Trend& operator=(Trend&&) noexcept;

  struct Node;

 private:
  Trend();
  std::unique_ptr<Node> lhs_, rhs_;
  size_t aggregates_ = 0;  // aggregate nodes, numbered in parse order
  Filter::Op op_ = Filter::Op::Lt;
};

}  // namespace gpumux::experiments
