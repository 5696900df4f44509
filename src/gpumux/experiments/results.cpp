#include "gpumux/experiments/results.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/experiments/files.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/multitask/baseline_cache.h"

namespace gpumux::experiments {

namespace {

using nlohmann::json;

std::string num(double v) { return fmt::format("{:.6g}", v); }
// Times: whole cycles as integers (3388523, not 3.38852e+06), else as num().
std::string time_cell(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? fmt::format("{:.0f}", v) : num(v);
}

// Does a dotted statistic path match a pattern whose segments may be globs ("sm*.l1d.hits")?
bool glob(std::string_view pat, std::string_view s) {
  if (pat.empty()) return s.empty();
  if (pat[0] == '*') return glob(pat.substr(1), s) || (!s.empty() && s[0] != '.' && glob(pat, s.substr(1)));
  return !s.empty() && pat[0] == s[0] && glob(pat.substr(1), s.substr(1));
}

// Sum over every statistic matching `pattern` of its values for keys of
// application `app`; a GPU-wide counter (no keys, e.g. a policy's decisions)
// counts its total: the run's value, in each of its applications' rows.
double stat_sum(const json& statistics, const std::string& pattern, size_t app) {
  std::set<std::string> labels;
  for (const json& k : statistics.value("keys", json::array()))
    if (k.value("app", uint64_t(-1)) == app) labels.insert(k.value("label", ""));
  double sum = 0;
  std::function<void(const json&, const std::string&)> walk = [&](const json& node, const std::string& path) {
    if (node.contains("by_key") && node["by_key"].is_object()) {
      if (!glob(pattern, path)) return;
      for (const auto& [label, v] : node["by_key"].items())
        if (labels.count(label)) sum += v.is_number() ? v.get<double>() : v.value("sum", 0.0);
      return;
    }
    if (node.contains("total") && node["total"].is_number()) {
      if (glob(pattern, path)) sum += node["total"].get<double>();
      return;
    }
    for (const auto& [name, child] : node.items())
      if (child.is_object()) walk(child, path.empty() ? name : path + "." + name);
  };
  walk(statistics.value("stats", json::object()), "");
  return sum;
}

// QoS of one run (Wang et al., ISCA'17; docs/qos.md): per application with a
// goal its IPC over all its measured launches (each launch's IPC weighted by
// its cycles) against the goal; per run whether every goal was reached (a
// "case" of QoS_reach) and the throughput of the applications without one.
struct RunQos {
  std::vector<std::optional<double>> ratio;  // by app; empty: no goal
  std::vector<double> thread_ipc;            // by app: thread instructions per run cycle
  size_t qos_apps = 0;
  bool all_reached = true;
  double non_qos_ipc = 0;
};

RunQos run_qos(const json& run) {
  const json& apps = run.at("apps");
  RunQos q;
  q.ratio.resize(apps.size());
  std::vector<double> weighted(apps.size(), 0), cycles(apps.size(), 0), goal(apps.size(), 0);
  for (const json& k : run.value("qos", json::array())) {
    auto a = k.at("app").get<size_t>();
    if (a >= apps.size()) continue;
    auto c = k.at("cycles").get<double>();
    weighted[a] += k.at("ipc").get<double>() * c;
    cycles[a] += c;
    goal[a] = k.at("goal_ipc").get<double>();
  }
  auto run_cycles = double(std::max<uint64_t>(run.at("cycles").get<uint64_t>(), 1));
  for (size_t i = 0; i < apps.size(); ++i) {
    q.thread_ipc.push_back(double(apps[i].value("thread_insts", uint64_t(0))) / run_cycles);
    if (goal[i] > 0 && cycles[i] > 0) {
      q.ratio[i] = weighted[i] / cycles[i] / goal[i];
      ++q.qos_apps;
      q.all_reached &= *q.ratio[i] >= 1;
    } else {
      q.non_qos_ipc += q.thread_ipc.back();
    }
  }
  return q;
}

// The slowdowns of single kernels against the app's isolated run (EDGE's
// ANTT, Hetherington et al. section VI-D: over every kernel): an event
// kernel's launch-to-end cycles over its app's isolated mean, and an app
// without events the kernel-busy cycles of its first run over its isolated
// run's. Empty when the isolated run is missing.
std::optional<double> event_slowdown(const json& app, const json& e) {
  const double alone = app.value("alone_event_cycles", 0.0);
  if (alone <= 0) return std::nullopt;
  return (e.at("finished").get<double>() - e.at("launched").get<double>()) / alone;
}
std::optional<double> kernel_slowdown(const json& app) {
  const double alone = app.value("alone_kernel_cycles", 0.0);
  if (alone <= 0) return std::nullopt;
  return app.at("first_run_kernel_cycles").get<double>() / alone;
}
// The mean of every kernel's slowdown: each event, and each app without events.
std::string kernel_antt(const json& run) {
  const json& apps = run.at("apps");
  std::vector<bool> has_events(apps.size(), false);
  double sum = 0;
  size_t n = 0;
  for (const json& e : run.value("events", json::array())) {
    const size_t a = e.at("app").get<size_t>();
    has_events.at(a) = true;
    if (!e.at("done").get<bool>()) continue;
    std::optional<double> x = event_slowdown(apps[a], e);
    if (!x) return "";
    sum += *x;
    ++n;
  }
  for (size_t a = 0; a < apps.size(); ++a) {
    if (has_events[a]) continue;
    std::optional<double> x = kernel_slowdown(apps[a]);
    if (!x) return "";
    sum += *x;
    ++n;
  }
  return n && !run.value("events", json::array()).empty() ? num(sum / double(n)) : "";
}

// The 99th percentile (nearest rank) of `v`, non-empty.
double p99_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(std::ceil(0.99 * double(v.size()))) - 1)];
}

// Rows of one run (one per application); empty cells where the run has no metrics.
// The app's event kernels (docs/edge.md), in core cycles: how many, means of
// their latencies, the 99th percentile of scheduling latency (tail), every
// scheduling latency (a list, for CDFs), the mean warp preemption latency of
// those that preempted a victim warp, and their mean slowdown (event_ntt).
void add_event_cells(const json& run, size_t app, std::vector<std::pair<std::string, std::string>>& cells) {
  std::vector<double> latency, launch, sched, preempt, slowdown;
  const json& a = run.at("apps").at(app);
  for (const json& e : run.value("events", json::array())) {
    if (e.at("app").get<size_t>() != app || !e.at("done").get<bool>()) continue;
    latency.push_back(e.at("latency").get<double>());
    launch.push_back(e.at("launch_latency").get<double>());
    sched.push_back(e.at("scheduling_latency").get<double>());
    if (e.at("preempted").get<bool>()) preempt.push_back(e.at("preemption_latency").get<double>());
    if (std::optional<double> x = event_slowdown(a, e)) slowdown.push_back(*x);
  }
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? std::string() : num(sum / double(v.size()));
  };
  std::string p99, all;
  if (!sched.empty()) {
    p99 = num(p99_of(sched));
    for (double x : sched) all += (all.empty() ? "" : " ") + num(x);
  }
  std::optional<double> kernel = kernel_slowdown(a);
  cells.insert(cells.end(), {{"events", std::to_string(latency.size())},
                             {"event_latency", mean(latency)},
                             {"event_launch_latency", mean(launch)},
                             {"event_sched_latency", mean(sched)},
                             {"event_sched_p99", p99},
                             {"event_sched_latencies", all},
                             {"events_preempting", std::to_string(preempt.size())},
                             {"warp_preempt_latency", mean(preempt)},
                             {"event_ntt", slowdown.size() == latency.size() ? mean(slowdown) : ""},
                             {"kernel_ntt", kernel && latency.empty() ? num(*kernel) : ""},
                             {"kernel_antt", kernel_antt(run)}});
}

// [run] ipc_window and until = "converged" (docs/multitasking.md): the app's
// IPC per window (a list cell), and how the run's convergence went.
void add_window_cells(const json& run, size_t i, std::vector<std::pair<std::string, std::string>>& cells) {
  std::string series;
  const json& w = run.value("ipc_windows", json());
  // GPU-wide samples under demand paging (the thesis's figure 6.2): every app row of the run has them.
  auto samples = [&](const char* key) {
    std::string out;
    if (w.is_object() && w.contains(key))
      for (const json& v : w.at(key)) out += (out.empty() ? "" : " ") + num(v.get<double>());
    return out;
  };
  if (w.is_object()) {
    const json& ends = w.at("ends");
    const json& insts = w.at("apps").at(i).at("warp_insts");
    for (size_t k = 0; k < ends.size(); ++k) {
      double len = ends[k].get<double>() - (k ? ends[k - 1].get<double>() : 0.0);
      series += (series.empty() ? "" : " ") + num(insts[k].get<double>() / len);
    }
  }
  const json& c = run.value("convergence", json());
  const bool conv = c.is_object();
  auto bound = [&](const char* key) { return conv && c[key].is_number() ? num(c[key].get<double>()) : ""; };
  cells.insert(cells.end(), {{"ipc_series", series},
                             {"faults_series", samples("faults_in_flight")},
                             {"active_warps_series", samples("active_warps")},
                             {"converged", conv ? (c["converged"].get<bool>() ? "1" : "0") : ""},
                             {"ntt_bound", conv ? num(c["apps"][i]["bound"].get<double>()) : ""},
                             {"stp_bound", bound("stp_bound")},
                             {"antt_bound", bound("antt_bound")}});
}

void add_rows(Table& t, const Study& s, const PlannedRun& r, const json& run,
              const std::map<std::string, std::string>& classes) {
  const json& apps = run.at("apps");
  const json& metrics = run.at("metrics");
  // Classes are those of the applications as their isolated runs have them.
  auto class_of = [&](const MixApp& a) {
    auto it = classes.find(a.alone().label());
    return it == classes.end() ? std::string("?") : it->second;
  };
  std::string category;
  if (s.classify) {
    std::vector<std::string> c;
    for (const MixApp& a : r.apps) c.push_back(class_of(a));
    std::sort(c.begin(), c.end());
    category = fmt::format("{}", fmt::join(c, "/"));
  }
  RunQos qos = run_qos(run);
  uint64_t preempt_bytes = 0, preempt_cycles = 0;  // all the run's preemptions (their overhead)
  for (const json& p : run.at("preemptions"))
    if (p.at("done").get<bool>()) {
      preempt_bytes += p.at("bytes_saved").get<uint64_t>();
      preempt_cycles += p.at("latency_cycles").get<uint64_t>();
    }
  for (size_t i = 0; i < apps.size(); ++i) {
    const json& a = apps[i];
    std::vector<std::pair<std::string, std::string>> cells{{"key", r.task.key}};
    for (auto& axis : r.axes()) cells.push_back(axis);
    if (r.kind != PlannedRun::Kind::Mix) cells.push_back({"kind", r.kind == PlannedRun::Kind::Alone ? "alone" : "classify"});
    cells.push_back({"size", r.sizes.at(i)});
    std::set<std::string> benchmarks;
    for (const MixApp& m : r.apps) benchmarks.insert(m.benchmark);
    cells.push_back({"mix_benchmarks", std::to_string(benchmarks.size())});  // 1: a homogeneous mix
    if (s.classify) cells.push_back({"category", category});
    const MixApp& app = r.apps.at(i);
    bool passed = a.at("error").get<std::string>().empty() && !a.at("runs").empty();
    cells.insert(cells.end(), {{"app_index", std::to_string(i)},
                               {"app", a.at("name").get<std::string>()},
                               {"benchmark", app.benchmark}});
    if (s.classify) cells.push_back({"class", class_of(app)});
    // The mix's priority, also under a policy run without priorities, so that
    // the same application can be selected under every policy.
    cells.insert(cells.end(), {{"priority", std::to_string(app.priority())},
                               {"passed", passed ? "1" : "0"},
                               {"error", a.at("error").get<std::string>()},
                               {"shared_cycles", time_cell(a.at("shared").get<double>())},
                               {"alone_cycles", a.at("alone").is_number() ? time_cell(a.at("alone").get<double>()) : ""},
                               {"kernel_cycles", std::to_string(a.at("first_run_kernel_cycles").get<uint64_t>())},
                               {"warp_insts", std::to_string(a.at("warp_insts").get<uint64_t>())}});
    // Every completed run's turnaround (an app replayed beside a longer one:
    // the tail a latency-sensitive service sees), against its isolated run.
    std::vector<double> turnarounds;
    for (const json& run_i : a.at("runs")) turnarounds.push_back(run_i.at("cycles").get<double>());
    const double tail = turnarounds.empty() ? 0 : p99_of(turnarounds);
    const bool alone_time = a.at("alone").is_number() && a.at("alone").get<double>() > 0;
    cells.insert(cells.end(), {{"runs", std::to_string(turnarounds.size())},
                               {"turnaround_p99", turnarounds.empty() ? "" : num(tail)},
                               {"p99_ntt", turnarounds.empty() || !alone_time || a.value("unit", "cycles") != "cycles"
                                               ? "" : num(tail / a.at("alone").get<double>())}});
    bool m = metrics.is_object();
    cells.insert(cells.end(), {{"ntt", m ? num(metrics["apps"][i]["ntt"].get<double>()) : ""},
                               {"progress", m ? num(metrics["apps"][i]["progress"].get<double>()) : ""},
                               {"stp", m ? num(metrics["stp"].get<double>()) : ""},
                               {"antt", m ? num(metrics["antt"].get<double>()) : ""},
                               {"fairness", m ? num(metrics["fairness"].get<double>()) : ""},
                               {"cycles", std::to_string(run.at("cycles").get<uint64_t>())}});
    // The same metrics on kernel CPI (GPU Maestro eq. 1-2; multitask/metrics.h).
    const json& km = run.contains("kernel_metrics") ? run["kernel_metrics"] : json();
    bool k = km.is_object();
    cells.insert(cells.end(), {{"shared_cpi", num(a.value("shared_cpi", 0.0))},
                               {"alone_cpi", num(a.value("alone_cpi", 0.0))},
                               {"cpi_ntt", k ? num(km["apps"][i]["ntt"].get<double>()) : ""},
                               {"cpi_progress", k ? num(km["apps"][i]["progress"].get<double>()) : ""},
                               {"cpi_stp", k ? num(km["stp"].get<double>()) : ""},
                               {"cpi_antt", k ? num(km["antt"].get<double>()) : ""},
                               {"cpi_fairness", k ? num(km["fairness"].get<double>()) : ""}});
    // Preemptions of this app's kernels (it was the one preempted).
    uint64_t requests = 0, latency = 0;
    for (const json& p : run.at("preemptions"))
      if (p.at("app").get<size_t>() == i && p.at("done").get<bool>()) {
        ++requests;
        latency += p.at("latency_cycles").get<uint64_t>();
      }
    // Its kernels' mean TB time against the time to save an SM full of their
    // TBs (thesis table 5.2): "short-tb" kernels drain faster than they switch.
    double tb = 0, save = 0;
    size_t launches = 0;
    uint32_t shared = 0;  // the most shared memory per TB of its kernels
    for (const json& k : run.at("kernels"))
      if (k.at("app").get<size_t>() == i && k.at("done").get<bool>() && k.at("tb_cycles").get<double>() > 0) {
        tb += k.at("tb_cycles").get<double>();
        save += k.at("sm_save_cycles").get<double>();
        ++launches;
        shared = std::max(shared, k.at("shared_bytes").get<uint32_t>());
      }
    cells.insert(cells.end(), {{"preemptions", std::to_string(requests)},
                               {"preempt_latency", requests ? num(double(latency) / double(requests)) : ""},
                               {"tb_cycles", launches ? num(tb / double(launches)) : ""},
                               {"sm_save_cycles", launches ? num(save / double(launches)) : ""},
                               {"tb_vs_save", !launches ? "" : tb < save ? "short-tb" : "long-tb"},
                               {"shared_per_tb", launches ? std::to_string(shared) : ""}});
    add_event_cells(run, i, cells);
    const toml::node* goal = app.options.get("qos_goal");
    cells.insert(cells.end(),
                 {{"qos_goal", goal ? num(goal->value<double>().value_or(0)) : ""},
                  {"qos_ratio", qos.ratio[i] ? num(*qos.ratio[i]) : ""},
                  {"qos_reached", qos.ratio[i] ? (*qos.ratio[i] >= 1 ? "1" : "0") : ""},
                  {"thread_ipc", num(qos.thread_ipc[i])},
                  {"qos_apps", std::to_string(qos.qos_apps)},
                  {"qos_case", qos.qos_apps ? (qos.all_reached ? "1" : "0") : ""},
                  {"non_qos_ipc", qos.qos_apps && qos.qos_apps < apps.size() ? num(qos.non_qos_ipc) : ""},
                  {"run_preempt_bytes", std::to_string(preempt_bytes)},
                  {"run_preempt_cycles", std::to_string(preempt_cycles)}});
    add_window_cells(run, i, cells);
    for (const std::string& st : s.stats) cells.push_back({"stat." + st, num(stat_sum(run.at("statistics"), st, i))});
    t.add(cells);
  }
}

json figure_data(const FigureSpec& f, const Table& t) {
  json fig = {{"name", f.name}, {"title", f.title}, {"kind", f.kind}, {"caption", f.caption},
              {"x_label", f.x}, {"y_label", f.kind == "cdf" || f.kind == "scatter" ? f.y : f.aggregate + " " + f.y},
              {"series", json::array()}, {"paper", json::array()}};
  if (f.kind == "cdf") fig["x_label"] = f.y, fig["y_label"] = "fraction of cases";
  for (const auto& p : f.paper) fig["paper"].push_back({{"series", p.series}, {"x", p.x}, {"y", p.y}});
  // Distinct values of a column among the selected rows: series in order of
  // appearance, x values sorted (numerically when all are numbers).
  auto distinct = [&](const std::string& col, bool sort) {
    std::vector<std::string> v;
    int c = t.column(col);
    if (c < 0) throw std::invalid_argument(fmt::format("no column '{}' in the results", col));
    for (const auto& row : t.rows) {
      bool ok = true;
      for (const Filter& w : f.where) ok = ok && w.matches(t, row);
      if (ok && std::find(v.begin(), v.end(), row[size_t(c)]) == v.end()) v.push_back(row[size_t(c)]);
    }
    if (sort) {
      bool numeric = std::all_of(v.begin(), v.end(), [](const std::string& s) {
        char* end = nullptr;
        std::strtod(s.c_str(), &end);
        return !s.empty() && *end == 0;
      });
      std::sort(v.begin(), v.end(), [&](const std::string& a, const std::string& b) {
        return numeric ? std::stod(a) < std::stod(b) : a < b;
      });
    }
    return v;
  };
  std::vector<std::string> series = f.series.empty() ? std::vector<std::string>{""} : distinct(f.series, false);
  for (const std::string& sname : series) {
    std::vector<Filter> where = f.where;
    if (!f.series.empty()) where.push_back({f.series, Filter::Op::Eq, {sname}});
    json js = {{"name", f.series.empty() ? f.y : sname}};
    if (f.kind == "cdf") {
      js["values"] = select_values(t, f.y, where);
    } else if (f.kind == "lines" && f.x == "window") {
      // y is a list cell (ipc_series): its k-th values across the selected rows, aggregated, at x = k.
      std::vector<std::vector<double>> at;
      int c = t.column(f.y);
      if (c < 0) throw std::invalid_argument(fmt::format("no column '{}' in the results", f.y));
      for (const auto& row : t.rows) {
        bool ok = true;
        for (const Filter& w : where) ok = ok && w.matches(t, row);
        std::istringstream cell(ok ? row[size_t(c)] : "");
        double v;
        for (size_t k = 0; cell >> v; ++k) {
          if (at.size() <= k) at.resize(k + 1);
          at[k].push_back(v);
        }
      }
      js["points"] = json::array();
      for (size_t k = 0; k < at.size(); ++k) js["points"].push_back({{"x", k}, {"y", aggregate(f.aggregate, at[k])}});
    } else if (f.kind == "scatter") {
      std::vector<double> xs = select_values(t, f.x, where), ys = select_values(t, f.y, where);
      js["points"] = json::array();
      for (size_t i = 0; i < std::min(xs.size(), ys.size()); ++i) js["points"].push_back({{"x", xs[i]}, {"y", ys[i]}});
    } else {
      js["points"] = json::array();
      std::vector<std::string> xs = distinct(f.x, true);
      if (!f.overall.empty()) xs.push_back(f.overall);
      for (const std::string& x : xs) {
        std::vector<Filter> w = where;
        if (x != f.overall || f.overall.empty()) w.push_back({f.x, Filter::Op::Eq, {x}});
        std::vector<double> v = select_values(t, f.y, w);
        json y = v.empty() && f.aggregate != "count" ? json(nullptr) : json(aggregate(f.aggregate, v));
        char* end = nullptr;
        double xd = std::strtod(x.c_str(), &end);
        js["points"].push_back({{"x", !x.empty() && *end == 0 ? json(xd) : json(x)}, {"y", y}});
      }
    }
    fig["series"].push_back(js);
  }
  return fig;
}

}  // namespace

StudyResults collect_results(const Study& s, const std::vector<PlannedRun>& runs) {
  StudyResults out;
  if (s.sample) {
    const size_t of = scale_mixes(s).size();
    out.sample = {{"mixes", s.sample->mixes}, {"of", of}, {"seed", s.sample->seed},
                  {"text", sample_text(*s.sample, of)}};
  }
  out.mixes.per_run = out.isolated.per_run = {"stp",      "antt",        "fairness",          "cycles",
                                              "qos_apps", "qos_case",    "non_qos_ipc",       "run_preempt_bytes",
                                              "run_preempt_cycles", "kernel_antt", "cpi_stp", "cpi_antt",
                                              "cpi_fairness", "converged", "stp_bound", "antt_bound",
                                              "faults_series", "active_warps_series"};
  std::map<std::string, json> loaded;
  std::set<std::string> counted;
  for (const PlannedRun& r : runs) {
    if (!counted.insert(r.task.key).second) continue;  // a run shared by several axis values
    ++out.total;
    if (!has_result(r)) {
      std::string err = read_text(r.task.dir / "error.txt");
      if (err.empty()) err = "no result (not run, or the run was killed: see log.txt)";
      out.failed.push_back({{"key", r.task.key}, {"label", r.task.label}, {"error", err}});
      continue;
    }
    ++out.ok;
    loaded[r.task.key] = json::parse(read_text(r.task.dir / "run.json"));
  }
  // Classes from the speed-up between the classification config and the base.
  std::map<std::string, std::string> classes;
  if (s.classify) {
    std::map<std::string, double> base, slow;
    for (const PlannedRun& r : runs) {
      if (!loaded.count(r.task.key) || r.kind == PlannedRun::Kind::Mix || r.seed != s.sweep.seeds.front() ||
          r.config != s.sweep.configs.front().label)
        continue;
      const json& app = loaded[r.task.key]["apps"][0];
      if (app["runs"].empty()) continue;
      double cycles = s.classify->metric == "kernel_cycles" ? app["first_run_kernel_cycles"].get<double>()
                                                            : app["runs"][0]["cycles"].get<double>();
      (r.kind == PlannedRun::Kind::Classify ? slow : base)[r.mix()] = cycles;
    }
    for (const auto& [app, fast] : base) {
      if (!slow.count(app)) continue;
      double speedup = slow[app] / fast;
      classes[app] = speedup > s.classify->threshold ? s.classify->above : s.classify->below;
      out.classes.push_back({{"benchmark", app}, {"class", classes[app]}, {"speedup", speedup}});
    }
  }
  for (const PlannedRun& r : runs)
    if (loaded.count(r.task.key))
      add_rows(r.kind == PlannedRun::Kind::Mix ? out.mixes : out.isolated, s, r, loaded[r.task.key], classes);
  for (const FigureSpec& f : s.figures) {
    try {
      out.figures.push_back(figure_data(f, f.isolated ? out.isolated : out.mixes));
    } catch (const std::invalid_argument& e) {
      throw LoadError(fmt::format("{}: figure '{}': {}", s.file.string(), f.name, e.what()));
    }
  }
  for (const TrendSpec& tr : s.trends) {
    const KnownFailure* known = tr.known_failure(s.scale);
    json j = {{"name", tr.name}, {"expr", tr.expr}, {"paper", tr.paper}, {"lhs", nullptr}, {"rhs", nullptr},
              {"point_holds", false}, {"ci_low", nullptr}, {"ci_high", nullptr}, {"units", 0},
              {"resamples", Trend::kResamples}, {"holds", false}, {"error", nullptr},
              {"known_failure", known ? json(known->reason) : json(nullptr)}, {"sample", out.sample}};
    try {
      Trend::Outcome o = Trend::parse(tr.expr).evaluate(out.mixes);
      j["lhs"] = o.lhs;
      j["rhs"] = o.rhs;
      j["point_holds"] = o.point_holds;
      j["ci_low"] = o.ci_low;
      j["ci_high"] = o.ci_high;
      j["units"] = o.units;
      j["holds"] = o.holds;
    } catch (const std::invalid_argument& e) {
      j["error"] = e.what();
    }
    out.trends.push_back(j);
  }
  return out;
}

void write_results(const Study& s, const StudyResults& r, const std::filesystem::path& out) {
  write_text(out / "results.csv", r.mixes.csv());
  write_text(out / "isolated.csv", r.isolated.csv());
  write_text(out / "figures.json", r.figures.dump(1) + "\n");
  write_text(out / "trends.json", r.trends.dump(1) + "\n");
  std::vector<std::string> base = s.overrides;
  base.insert(base.end(), s.sweep.set.begin(), s.sweep.set.end());
  base.insert(base.end(), s.sweep.configs.front().set.begin(), s.sweep.configs.front().set.end());
  json paper_values = json::array();
  for (const json& t : r.trends)
    if (!t["paper"].get<std::string>().empty())
      paper_values.push_back(
          {{"what", t["name"]},
           {"paper", t["paper"]},
           {"measured", t["lhs"].is_null() ? std::string("-")
                                           : fmt::format("{:.4g} vs {:.4g}", t["lhs"].get<double>(),
                                                         t["rhs"].get<double>())}});
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char created[32];
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  json study = {{"name", s.name}, {"title", s.title}, {"description", s.description}, {"paper", s.paper},
                {"scale", s.scale}, {"sample", r.sample}, {"gpu", s.gpu}, {"config_dump", gpu::load_config(s.gpu, base).dump()},
                {"gpumux_version", GPUMUX_VERSION}, {"build_id", multitask::build_id()}, {"commit", r.commit},
                {"created", created},
                {"runs", {{"total", r.total}, {"ok", r.ok}, {"failed", r.total - r.ok}}},
                {"failed_runs", r.failed}, {"classes", r.classes}, {"paper_values", paper_values}};
  write_text(out / "study.json", study.dump(1) + "\n");
}

namespace {

// "effect lhs - rhs = 0.12, 95% interval [0.05, 0.2] over 6 units".
std::string interval_text(const json& t) {
  if (t["ci_low"].is_null()) return "";
  const double effect = t["lhs"].get<double>() - t["rhs"].get<double>();
  const size_t units = t["units"].get<size_t>();
  if (units <= 1) return fmt::format("effect lhs - rhs = {:.4g}; {} unit: the interval is the point", effect, units);
  return fmt::format("effect lhs - rhs = {:.4g}, 95% interval [{:.4g}, {:.4g}] over {} units ({} resamples)", effect,
                     t["ci_low"].get<double>(), t["ci_high"].get<double>(), units, t["resamples"].get<size_t>());
}

}  // namespace

bool print_trends(const std::filesystem::path& out, bool strict) {
  std::ifstream in(out / "trends.json");
  if (!in) throw LoadError(fmt::format("{}: no trends.json (run the study first: gpumux experiment run)", out.string()));
  json trends;
  try {
    trends = json::parse(in);
  } catch (const json::exception& e) {
    throw LoadError(fmt::format("{}: {}", (out / "trends.json").string(), e.what()));
  }
  size_t holding = 0, known_count = 0, failing = 0, stale = 0;
  // A sample's trends are measured on a fraction of the scale: say so first and last.
  std::string sample;
  for (const json& t : trends)
    if (t.contains("sample") && !t["sample"].is_null()) sample = t["sample"]["text"].get<std::string>();
  if (!sample.empty()) fmt::print("a sample of the scale, not all of it: {}\n", sample);
  for (const json& t : trends) {
    const bool known = !t["known_failure"].is_null();
    const bool holds = t["holds"].get<bool>() && t["error"].is_null();
    std::string status = holds ? (known ? "STALE" : "holds") : known ? "FAILS (known)" : "FAILS";
    if (!t["error"].is_null()) status = known ? "ERROR (known)" : "ERROR";
    holding += holds;
    stale += holds && known;
    known_count += !holds && known;
    failing += !holds && !known;
    fmt::print("{:<14} {}\n", status, t["name"].get<std::string>());
    fmt::print("{:<14} {}\n", "", t["expr"].get<std::string>());
    if (!t["lhs"].is_null())
      fmt::print("{:<14} measured {:.4g} vs {:.4g}\n", "", t["lhs"].get<double>(), t["rhs"].get<double>());
    if (std::string ci = interval_text(t); !ci.empty()) fmt::print("{:<14} {}\n", "", ci);
    if (t.value("point_holds", false) && !t["holds"].get<bool>())
      fmt::print("{:<14} the comparison holds at the measured values, but its 95% interval includes no effect\n", "");
    if (!t["paper"].get<std::string>().empty()) fmt::print("{:<14} paper: {}\n", "", t["paper"].get<std::string>());
    if (!t["error"].is_null()) fmt::print("{:<14} error: {}\n", "", t["error"].get<std::string>());
    if (known) fmt::print("{:<14} known failure at this scale: {}\n", "", t["known_failure"].get<std::string>());
    if (holds && known)
      fmt::print("{:<14} stale: declared a known failure at this scale, but it holds; remove the declaration\n", "");
  }
  fmt::print("{} of {} trends hold; {} known failures, {} undeclared failures, {} stale declarations{}\n", holding,
             trends.size(), known_count, failing, stale, sample.empty() ? "" : " (" + sample + ")");
  return failing == 0 && stale == 0 && (!strict || known_count == 0);
}

}  // namespace gpumux::experiments
