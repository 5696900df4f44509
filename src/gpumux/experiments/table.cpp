#include "gpumux/experiments/table.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace gpumux::experiments {

namespace {

bool to_number(std::string_view s, double& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q(1, '"');
  for (char c : s) {
    if (c == '"') q.push_back('"');
    q.push_back(c);
  }
  q.push_back('"');
  return q;
}

const char* op_text(Filter::Op op) {
  switch (op) {
    case Filter::Op::Eq: return "=";
    case Filter::Op::Ne: return "!=";
    case Filter::Op::Lt: return "<";
    case Filter::Op::Le: return "<=";
    case Filter::Op::Gt: return ">";
    case Filter::Op::Ge: return ">=";
  }
  return "?";
}

bool compare(double a, Filter::Op op, double b) {
  switch (op) {
    case Filter::Op::Eq: return a == b;
    case Filter::Op::Ne: return a != b;
    case Filter::Op::Lt: return a < b;
    case Filter::Op::Le: return a <= b;
    case Filter::Op::Gt: return a > b;
    case Filter::Op::Ge: return a >= b;
  }
  return false;
}

// A character-level recursive-descent reader of filters and trends.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool at_end() {
    skip();
    return i_ >= s_.size();
  }
  bool accept(std::string_view tok) {
    skip();
    if (s_.substr(i_, tok.size()) != tok) return false;
    i_ += tok.size();
    return true;
  }
  void expect(std::string_view tok) {
    if (!accept(tok)) fail(fmt::format("expected '{}'", tok));
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(fmt::format("{} at column {} of \"{}\"", what, i_ + 1, s_));
  }
  std::string identifier() {
    skip();
    size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.'))
      ++i_;
    if (b == i_) fail("expected a name");
    return std::string(s_.substr(b, i_ - b));
  }
  std::string value() {
    skip();
    if (i_ < s_.size() && s_[i_] == '"') {
      size_t e = s_.find('"', i_ + 1);
      if (e == std::string_view::npos) fail("unterminated string");
      std::string v(s_.substr(i_ + 1, e - i_ - 1));
      i_ = e + 1;
      return v;
    }
    size_t b = i_;
    while (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_])) && s_[i_] != ',' && s_[i_] != '|' &&
           s_[i_] != ')')
      ++i_;
    if (b == i_) fail("expected a value");
    return std::string(s_.substr(b, i_ - b));
  }
  std::optional<Filter::Op> comparison() {
    // Two-character operators first.
    for (auto [tok, op] : {std::pair{"<=", Filter::Op::Le}, {">=", Filter::Op::Ge}, {"!=", Filter::Op::Ne},
                           {"==", Filter::Op::Eq}, {"=", Filter::Op::Eq}, {"<", Filter::Op::Lt},
                           {">", Filter::Op::Gt}})
      if (accept(tok)) return op;
    return std::nullopt;
  }
  Filter filter() {
    Filter f;
    f.column = identifier();
    auto op = comparison();
    if (!op) fail(fmt::format("expected a comparison after '{}'", f.column));
    f.op = *op;
    f.values.push_back(value());
    while (accept("|")) f.values.push_back(value());
    double d;
    if (f.op != Filter::Op::Eq && f.op != Filter::Op::Ne && (f.values.size() != 1 || !to_number(f.values[0], d)))
      fail(fmt::format("'{}' needs one number", op_text(f.op)));
    return f;
  }
  std::vector<Filter> filters() {
    std::vector<Filter> v{filter()};
    while (accept(",")) v.push_back(filter());
    return v;
  }
  bool peek_number() {
    skip();
    return i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.');
  }
  double number() {
    skip();
    size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                              ((s_[i_] == '+' || s_[i_] == '-') && i_ > b && (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E'))))
      ++i_;
    double d;
    if (!to_number(s_.substr(b, i_ - b), d)) fail("bad number");
    return d;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

int Table::column(std::string_view name) const {
  auto it = std::find(columns.begin(), columns.end(), name);
  return it == columns.end() ? -1 : int(it - columns.begin());
}

void Table::add(const std::vector<std::pair<std::string, std::string>>& cells) {
  std::vector<std::string> row(columns.size());
  for (const auto& [name, value] : cells) {
    int c = column(name);
    if (c < 0) {
      columns.push_back(name);
      for (auto& r : rows) r.emplace_back();
      row.emplace_back();
      c = int(columns.size()) - 1;
    }
    row[size_t(c)] = value;
  }
  rows.push_back(std::move(row));
}

std::string Table::csv() const {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) out.push_back(',');
      out += csv_field(cells[i]);
    }
    out.push_back('\n');
  };
  line(columns);
  for (const auto& r : rows) line(r);
  return out;
}

bool Filter::matches(const Table& t, const std::vector<std::string>& row) const {
  int c = t.column(column);
  if (c < 0) throw std::invalid_argument(fmt::format("no column '{}' in the results", column));
  const std::string& cell = row[size_t(c)];
  double a = 0, b = 0;
  bool numeric = to_number(cell, a);
  if (op == Op::Eq || op == Op::Ne) {
    bool any = false;
    for (const std::string& v : values) any |= (numeric && to_number(v, b)) ? a == b : cell == v;
    return any == (op == Op::Eq);
  }
  return numeric && to_number(values[0], b) && compare(a, op, b);
}

std::string Filter::text() const {
  std::string v;
  for (const std::string& x : values) {
    if (!v.empty()) v.push_back('|');
    v += x;
  }
  return fmt::format("{}{}{}", column, op_text(op), v);
}

std::vector<Filter> parse_filters(std::string_view text) {
  Reader r(text);
  if (r.at_end()) return {};
  std::vector<Filter> f = r.filters();
  if (!r.at_end()) r.fail("unexpected text");
  return f;
}

namespace {

// The values of `metric` in the rows matching every filter, each with its row.
std::vector<std::pair<size_t, double>> selected(const Table& t, std::string_view metric,
                                                const std::vector<Filter>& where) {
  int c = t.column(metric);
  if (c < 0) throw std::invalid_argument(fmt::format("no column '{}' in the results", metric));
  int run = t.column(t.run_column);
  bool once = t.per_run.count(std::string(metric)) && run >= 0;
  std::set<std::string> seen;
  std::vector<std::pair<size_t, double>> out;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    bool ok = true;
    for (const Filter& f : where) ok = ok && f.matches(t, row);
    if (!ok || (once && !seen.insert(row[size_t(run)]).second)) continue;
    const std::string& cell = row[size_t(c)];
    if (cell.empty()) continue;  // no value in this row (e.g. no metrics for a failed run)
    // A list cell (numbers separated by blanks, e.g. event_sched_latencies) gives each of its values.
    for (size_t from = 0; from < cell.size();) {
      size_t to = std::min(cell.find(' ', from), cell.size());
      double d;
      if (!to_number(cell.substr(from, to - from), d))
        throw std::invalid_argument(fmt::format("'{}' value '{}' is not a number", metric, cell));
      out.emplace_back(r, d);
      from = to + 1;
    }
  }
  return out;
}

}  // namespace

std::vector<double> select_values(const Table& t, std::string_view metric, const std::vector<Filter>& where) {
  std::vector<double> out;
  for (const auto& [row, value] : selected(t, metric, where)) out.push_back(value);
  return out;
}

bool is_aggregate(std::string_view f) {
  for (const char* n : {"geomean", "mean", "median", "min", "max", "sum", "count"})
    if (f == n) return true;
  return false;
}

double aggregate(std::string_view f, const std::vector<double>& v) {
  if (!is_aggregate(f)) throw std::invalid_argument(fmt::format("unknown aggregate '{}'", f));
  if (f == "count") return double(v.size());
  if (v.empty()) throw std::invalid_argument("no rows match");
  if (f == "sum" || f == "mean") {
    double s = 0;
    for (double x : v) s += x;
    return f == "sum" ? s : s / double(v.size());
  }
  if (f == "min") return *std::min_element(v.begin(), v.end());
  if (f == "max") return *std::max_element(v.begin(), v.end());
  if (f == "median") {
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    size_t n = s.size();
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }
  double logs = 0;  // geomean
  for (double x : v) {
    if (!(x > 0)) throw std::invalid_argument(fmt::format("geomean of a value <= 0 ({})", x));
    logs += std::log(x);
  }
  return std::exp(logs / double(v.size()));
}

// An arithmetic expression over numbers and aggregates.
struct Trend::Node {
  char op = 0;  // 'n' number, 'a' aggregate, '~' negation, or + - * /
  double number = 0;
  std::string function, metric;
  std::vector<Filter> where;
  size_t index = 0;  // an aggregate's number: its values are values[index]
  std::unique_ptr<Node> l, r;

  double eval(const std::vector<std::vector<double>>& values) const {
    switch (op) {
      case 'n': return number;
      case 'a': return aggregate(function, values[index]);
      case '~': return -l->eval(values);
      case '+': return l->eval(values) + r->eval(values);
      case '-': return l->eval(values) - r->eval(values);
      case '*': return l->eval(values) * r->eval(values);
      default: {
        double d = r->eval(values);
        if (d == 0) throw std::invalid_argument("division by zero");
        return l->eval(values) / d;
      }
    }
  }
  // Each aggregate's selected values as (unit, value), by aggregate number.
  void select(const Table& t, const std::vector<size_t>& unit_of_row,
              std::vector<std::vector<std::pair<size_t, double>>>& picks) const {
    if (op == 'a')
      for (const auto& [row, value] : selected(t, metric, where)) picks[index].emplace_back(unit_of_row[row], value);
    if (l) l->select(t, unit_of_row, picks);
    if (r) r->select(t, unit_of_row, picks);
  }
};

namespace {

using Node = Trend::Node;

std::unique_ptr<Node> binary(char op, std::unique_ptr<Node> l, std::unique_ptr<Node> r) {
  auto n = std::make_unique<Node>();
  n->op = op;
  n->l = std::move(l);
  n->r = std::move(r);
  return n;
}

std::unique_ptr<Node> sum(Reader& r, size_t& aggregates);

// `aggregates` counts the aggregates read so far (their numbers).
std::unique_ptr<Node> factor(Reader& r, size_t& aggregates) {
  auto n = std::make_unique<Node>();
  if (r.accept("-")) {
    n->op = '~';
    n->l = factor(r, aggregates);
  } else if (r.accept("(")) {
    n = sum(r, aggregates);
    r.expect(")");
  } else if (r.peek_number()) {
    n->op = 'n';
    n->number = r.number();
  } else {
    n->op = 'a';
    n->function = r.identifier();
    if (!is_aggregate(n->function))
      r.fail(fmt::format("unknown aggregate '{}' (geomean, mean, median, min, max, sum, count)", n->function));
    r.expect("(");
    n->metric = r.identifier();
    if (r.accept("where")) n->where = r.filters();
    r.expect(")");
    n->index = aggregates++;
  }
  return n;
}

std::unique_ptr<Node> product(Reader& r, size_t& aggregates) {
  auto n = factor(r, aggregates);
  for (;;) {
    if (r.accept("*")) n = binary('*', std::move(n), factor(r, aggregates));
    else if (r.accept("/")) n = binary('/', std::move(n), factor(r, aggregates));
    else return n;
  }
}

std::unique_ptr<Node> sum(Reader& r, size_t& aggregates) {
  auto n = product(r, aggregates);
  for (;;) {
    if (r.accept("+")) n = binary('+', std::move(n), product(r, aggregates));
    else if (r.accept("-")) n = binary('-', std::move(n), product(r, aggregates));
    else return n;
  }
}

}  // namespace

Trend::Trend() = default;
Trend::~Trend() = default;
Trend::Trend(Trend&&) noexcept = default;
Trend& Trend::operator=(Trend&&) noexcept = default;

Trend Trend::parse(std::string_view text) {
  Reader r(text);
  Trend t;
  t.lhs_ = sum(r, t.aggregates_);
  auto op = r.comparison();
  if (!op) r.fail("expected a comparison (<, <=, >, >=, =, !=)");
  t.op_ = *op;
  t.rhs_ = sum(r, t.aggregates_);
  if (!r.at_end()) r.fail("unexpected text");
  return t;
}

namespace {

// Each row's unit (see Table::unit_columns), numbered from 0; sets `count`.
std::vector<size_t> units_of_rows(const Table& t, size_t& count) {
  std::vector<int> cols;
  for (const std::string& c : t.unit_columns)
    if (int i = t.column(c); i >= 0) cols.push_back(i);
  std::map<std::vector<std::string>, size_t> ids;
  std::vector<size_t> unit(t.rows.size());
  for (size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<std::string> key;
    for (int c : cols) key.push_back(t.rows[r][size_t(c)]);
    if (cols.empty()) key.push_back(std::to_string(r));
    unit[r] = ids.emplace(std::move(key), ids.size()).first->second;
  }
  count = ids.size();
  return unit;
}

// Is the whole interval [low, high] of lhs - rhs on the side `op` claims?
bool interval_on_side(Filter::Op op, double low, double high) {
  switch (op) {
    case Filter::Op::Gt: return low > 0;
    case Filter::Op::Ge: return low >= 0;
    case Filter::Op::Lt: return high < 0;
    case Filter::Op::Le: return high <= 0;
    default: return true;  // = and != are judged at the point only
  }
}

}  // namespace

Trend::Outcome Trend::evaluate(const Table& t, size_t resamples) const {
  size_t units = 0;
  std::vector<size_t> unit_of_row = units_of_rows(t, units);
  std::vector<std::vector<std::pair<size_t, double>>> picks(aggregates_);
  lhs_->select(t, unit_of_row, picks);
  rhs_->select(t, unit_of_row, picks);
  std::vector<std::vector<double>> values(aggregates_);
  for (size_t a = 0; a < aggregates_; ++a)
    for (const auto& [unit, value] : picks[a]) values[a].push_back(value);
  Outcome o;
  o.lhs = lhs_->eval(values);
  o.rhs = rhs_->eval(values);
  o.point_holds = compare(o.lhs, op_, o.rhs);
  o.ci_low = o.ci_high = o.lhs - o.rhs;

  // Strata: the units feeding the same set of aggregates.
  std::vector<std::string> feeds(units, std::string(aggregates_, '0'));
  for (size_t a = 0; a < aggregates_; ++a)
    for (const auto& [unit, value] : picks[a]) feeds[unit][a] = '1';
  std::map<std::string, std::vector<size_t>> strata;
  for (size_t u = 0; u < units; ++u)
    if (feeds[u].find('1') != std::string::npos) strata[feeds[u]].push_back(u);
  for (const auto& [key, members] : strata) o.units += members.size();

  if (o.units > 1 && resamples > 0) {
    std::mt19937_64 rng(kBootstrapSeed);  // fixed: the same results give the same interval
    std::vector<double> effects;
    std::vector<uint32_t> weight(units);
    for (size_t i = 0; i < resamples; ++i) {
      std::fill(weight.begin(), weight.end(), 0);
      for (const auto& [key, members] : strata)
        for (size_t k = 0; k < members.size(); ++k) ++weight[members[rng() % members.size()]];
      for (size_t a = 0; a < aggregates_; ++a) {
        values[a].clear();
        for (const auto& [unit, value] : picks[a]) values[a].insert(values[a].end(), weight[unit], value);
      }
      try {
        effects.push_back(lhs_->eval(values) - rhs_->eval(values));
      } catch (const std::invalid_argument&) {
        // A resample without a value (a division by zero): left out.
      }
    }
    if (!effects.empty()) {
      std::sort(effects.begin(), effects.end());
      const double last = double(effects.size() - 1);
      o.ci_low = effects[size_t(std::floor(0.025 * last))];
      o.ci_high = effects[size_t(std::ceil(0.975 * last))];
    }
  }
  o.holds = o.point_holds && interval_on_side(op_, o.ci_low, o.ci_high);
  return o;
}

}  // namespace gpumux::experiments
