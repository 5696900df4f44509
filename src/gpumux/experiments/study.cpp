#include "gpumux/experiments/study.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/core/presets.h"
#include "gpumux/core/strict_toml.h"
#include "gpumux/frontend/sharing_policy.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/multitask/trace_program.h"
#include "gpumux/multitask/workload_file.h"
#include "workload.h"

namespace gpumux::experiments {

namespace {

void check_benchmarks(StrictTable& t, std::string_view key, const std::vector<std::string>& names) {
  for (const std::string& b : names)
    if (!workloads::find_workload(b)) t.fail(*t.node(key), key, fmt::format("unknown benchmark '{}' (see gpumux list)", b));
}

std::vector<uint32_t> counts(StrictTable& t, std::string_view key) {
  const toml::node* n = t.node(key);
  std::vector<uint32_t> out;
  auto one = [&](const toml::node& e) {
    auto v = e.value_exact<int64_t>();
    if (!v || *v < 1 || *v > 64) t.fail(e, key, "expected application counts in [1, 64]");
    out.push_back(uint32_t(*v));
  };
  if (const toml::array* arr = n->as_array()) {
    for (const auto& e : *arr) one(e);
  } else {
    one(*n);
  }
  if (out.empty()) t.fail(*n, key, "expected at least one application count");
  return out;
}

PolicyChoice policy_choice(StrictTable& t, const toml::node& e) {
  PolicyChoice p;
  if (auto name = e.value_exact<std::string>()) {
    p.label = *name;
    p.options.insert("name", *name);
  } else if (const toml::table* pt = e.as_table()) {
    p.options = *pt;
    p.options.is_inline(false);  // written as [policy] whichever way the study wrote it, as a name gives
    if (auto label = pt->get("label")) {
      auto l = label->value_exact<std::string>();
      if (!l || l->empty()) t.fail(*label, "policies", "label: expected a non-empty string");
      p.label = *l;
      p.options.erase("label");
    }
    if (auto priorities = pt->get("priorities")) {
      auto v = priorities->value_exact<bool>();
      if (!v) t.fail(*priorities, "policies", "priorities: expected true or false");
      p.priorities = *v;
      p.options.erase("priorities");
    }
    if (pt->get("apps")) {
      StrictTable at(*pt, t.qualified("policies"), t.file());
      p.apps = counts(at, "apps");
      p.options.erase("apps");
    }
    auto name = p.options.get("name") ? p.options.get("name")->value_exact<std::string>() : std::nullopt;
    if (!name) t.fail(e, "policies", "a policy table needs name = \"<policy>\"");
    if (p.label.empty()) p.label = *name;
  } else {
    t.fail(e, "policies", "expected a policy name or a table { label = ..., name = ..., <options> }");
  }
  auto names = frontend::sharing_policy_names();
  std::string name = *p.options.get("name")->value_exact<std::string>();
  if (std::find(names.begin(), names.end(), name) == names.end())
    t.fail(e, "policies", fmt::format("unknown sharing policy '{}' (known: {})", name, fmt::join(names, ", ")));
  return p;
}

// A mix entry: a benchmark name, or a table with `benchmark` (or `trace`, an
// Accel-Sim trace folder relative to the study, with an optional `name`) and
// the options of multitask::read_app_options, stored typed so that equal
// values print alike.
MixApp mix_app(StrictTable& t, const toml::node& e, const std::filesystem::path& dir) {
  if (auto name = e.value_exact<std::string>()) {
    if (!workloads::find_workload(*name)) t.fail(e, "mixes", fmt::format("unknown benchmark '{}' (see gpumux list)", *name));
    return {*name, {}};
  }
  const toml::table* et = e.as_table();
  if (!et) t.fail(e, "mixes", "expected benchmark names or { benchmark = \"...\", priority = ..., ... } tables");
  StrictTable at(*et, t.qualified("mixes"), t.file());
  MixApp a;
  auto benchmark = at.get<std::string>("benchmark", "a benchmark name");
  auto trace = at.get<std::string>("trace", "an Accel-Sim trace folder");
  if (benchmark.has_value() == trace.has_value())
    at.fail(e, "benchmark", "give one of 'benchmark' (the workload library) or 'trace' (an Accel-Sim trace folder)");
  if (trace) {
    std::shared_ptr<const multitask::TraceProgram> program;
    try {
      program = multitask::load_trace_program(std::filesystem::absolute(dir / *trace));
    } catch (const LoadError& x) {
      at.fail(*at.node("trace"), "trace", x.what());
    }
    a.trace = program->list.dir.string();  // normalised by the loader, as a workload file names it
    a.benchmark = std::string(kTracePrefix) + at.get<std::string>("name", "a name for the trace application")
                                                  .value_or(program->list.dir.filename().string());
  } else {
    a.benchmark = *benchmark;
    if (!workloads::find_workload(a.benchmark))
      at.fail(*at.node("benchmark"), "benchmark", fmt::format("unknown benchmark '{}' (see gpumux list)", a.benchmark));
  }
  multitask::AppSpec spec;
  multitask::read_app_options(at, spec);
  at.finish();
  if (et->contains("priority")) a.options.insert("priority", int64_t(spec.priority));
  if (et->contains("arrival_cycle")) a.options.insert("arrival_cycle", int64_t(spec.arrival));
  if (spec.qos_goal) a.options.insert("qos_goal", *spec.qos_goal);
  if (et->contains("cpu_gap_us")) a.options.insert("cpu_gap_us", spec.cpu_gap_us);
  if (const toml::node* ev = et->get("events")) a.options.insert("events", *ev);
  return a;
}

// cpu_gap_us = 5.0, or { default = 1.0, sgemm = 10.0 }.
// `key` = a value for every benchmark, or { default = v, <benchmark> = v, ... };
// `read(table, key)` reads one value.
template <typename T, typename Read>
ByBenchmark<T> by_benchmark(StrictTable& t, const std::string& key, const toml::node& n, ByBenchmark<T> out,
                            Read read) {
  const toml::table* bt = n.as_table();
  if (!bt) return ByBenchmark<T>{read(t, key), {}};
  StrictTable by(*bt, t.qualified(key), t.file());
  for (const auto& [k, value] : *bt) {
    std::string b(k.str());
    T v = read(by, b);
    if (b == "default")
      out.all = v;
    else if (!workloads::find_workload(b))
      by.fail(value, b, "not a benchmark (see gpumux list) or \"default\"");
    else
      out.by_benchmark[b] = v;
  }
  return out;
}

CpuGaps cpu_gaps(StrictTable& t, const toml::node& n) {
  return by_benchmark<double>(t, "cpu_gap_us", n, CpuGaps{},
                              [](StrictTable& st, const std::string& k) { return multitask::cpu_microseconds(st, k); });
}

// A table's benchmarks not listed keep "medium" unless it has a default.
ByBenchmark<std::string> sizes(StrictTable& t, const toml::node& n) {
  return by_benchmark<std::string>(t, "size", n, ByBenchmark<std::string>{"medium", {}},
                                   [](StrictTable& st, const std::string& k) {
                                     std::string size = st.get<std::string>(k, "a size name").value_or("");
                                     workloads::Size z;
                                     if (!workloads::parse_size(size, z))
                                       st.fail(*st.node(k), k, fmt::format("unknown size '{}'", size));
                                     return size;
                                   });
}

// qos_goals = [{ apps = 1, goals = [0.5, 0.6], sizes = [2] }, ...]
std::vector<QosGoalSweep> qos_goal_sweeps(StrictTable& t, const toml::node& n) {
  const toml::array* arr = n.as_array();
  if (!arr || !arr->is_array_of_tables() || arr->empty())
    t.fail(n, "qos_goals", "expected an array of { apps = ..., goals = [...], sizes = [...] } tables");
  std::vector<QosGoalSweep> out;
  for (const auto& e : *arr) {
    StrictTable qt(*e.as_table(), t.qualified("qos_goals"), t.file());
    QosGoalSweep q;
    q.apps = uint32_t(qt.integer("apps", 1, 64).value_or(1));
    const toml::node* g = qt.node("goals");
    const toml::array* goals = g ? g->as_array() : nullptr;
    if (!goals || goals->empty()) qt.fail(g ? *g : e, "goals", "expected a non-empty array of fractions in (0, 1]");
    for (const auto& v : *goals) {
      std::optional<double> f = v.value<double>();
      if (!f || !(*f > 0 && *f <= 1)) qt.fail(v, "goals", "expected fractions in (0, 1]");
      q.goals.push_back(*f);
    }
    if (qt.node("sizes")) q.sizes = counts(qt, "sizes");
    qt.finish();
    out.push_back(std::move(q));
  }
  return out;
}

// Applies the keys present in `t` ([sweep] or a [scale.*] table) to `s`.
void read_sweep(StrictTable& t, Sweep& s, const std::filesystem::path& dir) {
  if (const toml::node* n = t.node("size")) s.size = sizes(t, *n);
  if (t.node("set")) s.set = strings(t, "set");
  if (const toml::node* n = t.node("seeds")) {
    const toml::array* arr = n->as_array();
    if (!arr || arr->empty()) t.fail(*n, "seeds", "expected a non-empty array of seeds");
    s.seeds.clear();
    for (const auto& e : *arr) {
      auto v = e.value_exact<int64_t>();
      if (!v || *v < 0) t.fail(e, "seeds", "expected non-negative integers");
      s.seeds.push_back(uint64_t(*v));
    }
  }
  if (const toml::node* n = t.node("policies")) {
    const toml::array* arr = n->as_array();
    if (!arr || arr->empty()) t.fail(*n, "policies", "expected a non-empty array");
    s.policies.clear();
    for (const auto& e : *arr) {
      PolicyChoice p = policy_choice(t, e);
      for (const PolicyChoice& q : s.policies)
        if (q.label == p.label &&
            (p.apps.empty() || std::any_of(p.apps.begin(), p.apps.end(), [&](uint32_t n) { return q.runs(n); })))
          t.fail(e, "policies", fmt::format("label '{}' is used twice for the same mix size (entries sharing a label "
                                            "need disjoint `apps`)", p.label));
      s.policies.push_back(std::move(p));
    }
  }
  if (const toml::node* n = t.node("configs")) {
    const toml::array* arr = n->as_array();
    if (!arr || !arr->is_array_of_tables() || arr->empty())
      t.fail(*n, "configs", "expected an array of { label = ..., set = [...] } tables");
    s.configs.clear();
    for (const auto& e : *arr) {
      StrictTable ct(*e.as_table(), t.qualified("configs"), t.file());
      ConfigChoice c;
      c.label = ct.get<std::string>("label", "a string").value_or("");
      if (c.label.empty()) t.fail(e, "configs", "every config needs a label");
      c.set = strings(ct, "set");
      if (const toml::node* z = ct.node("size")) c.size = sizes(ct, *z);
      if (const toml::node* b = ct.node("warp_budgets")) {
        const toml::array* arr = b->as_array();
        if (!arr || arr->empty()) ct.fail(*b, "warp_budgets", "expected an array of budgets, one per mix position");
        for (const auto& v : *arr) {
          auto budget = v.value_exact<int64_t>();
          if (!budget || *budget < 1 || *budget > (1 << 16)) ct.fail(v, "warp_budgets", "expected integers in 1..65536");
          c.warp_budgets.push_back(uint32_t(*budget));
        }
      }
      ct.finish();
      s.configs.push_back(std::move(c));
    }
  }
  if (const toml::node* n = t.node("mixes")) {
    const toml::array* arr = n->as_array();
    if (!arr) t.fail(*n, "mixes", "expected an array of mixes (arrays of benchmark names or tables)");
    s.mixes.clear();
    for (const auto& e : *arr) {
      const toml::array* mix = e.as_array();
      if (!mix || mix->empty()) t.fail(e, "mixes", "expected arrays of benchmark names or tables");
      Mix m;
      for (const auto& b : *mix) m.push_back(mix_app(t, b, dir));
      s.mixes.push_back(std::move(m));
    }
  }
  if (const toml::node* n = t.node("cpu_gap_us")) s.cpu_gaps = cpu_gaps(t, *n);
  if (const toml::node* n = t.node("qos_goals")) s.qos_goals = qos_goal_sweeps(t, *n);
  if (auto m = t.integer("max_cycles", 1, int64_t(1) << 50)) s.max_cycles = uint64_t(*m);
  if (auto c = t.integer("completions", 1, 1000)) s.completions = uint32_t(*c);
  if (t.node("measure"))
    s.measure = t.choice("measure", {{"first", multitask::RunRule::Measure::First}, {"all", multitask::RunRule::Measure::All}},
                         multitask::RunRule::Measure::First);
  if (const toml::node* n = t.node("pairs")) {
    StrictTable pt(as_table(t, "pairs", *n), t.qualified("pairs"), t.file());
    s.pairs_of = strings(pt, "of");
    check_benchmarks(pt, "of", s.pairs_of);
    s.pairs_ordered = pt.get<bool>("ordered", "true or false").value_or(true);
    pt.finish();
  }
  if (const toml::node* n = t.node("random")) {
    StrictTable rt(as_table(t, "random", *n), t.qualified("random"), t.file());
    RandomMixes r;
    r.count = uint32_t(rt.integer("count", 1, 100000).value_or(0));
    if (!r.count) rt.fail(*n, "count", "missing: how many mixes of each size");
    if (!rt.node("apps")) rt.fail(*n, "apps", "missing: applications per mix (a number or a list)");
    r.apps = counts(rt, "apps");
    r.from = strings(rt, "from");
    if (r.from.empty()) rt.fail(*n, "from", "missing: the benchmarks to draw from");
    check_benchmarks(rt, "from", r.from);
    r.seed = uint64_t(rt.integer("seed", 0, int64_t(1) << 62).value_or(1));
    if (auto hp = rt.integer("high_priority", 1, 100)) r.high_priority = int(*hp);
    rt.finish();
    s.random = r;
  }
}

FigureSpec figure(StrictTable& f) {
  FigureSpec g;
  g.name = f.get<std::string>("name", "a string").value_or("");
  if (g.name.empty() || g.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") != std::string::npos)
    f.fail(f.node("name") ? *f.node("name") : f.table(), "name",
           "every figure needs a name of lowercase letters, digits, '-' and '_'");
  g.title = f.get<std::string>("title", "a string").value_or(g.name);
  g.caption = f.get<std::string>("caption", "a string").value_or("");
  g.kind = f.get<std::string>("kind", "bars, lines, cdf or scatter").value_or("bars");
  if (g.kind != "bars" && g.kind != "lines" && g.kind != "cdf" && g.kind != "scatter")
    f.fail(*f.node("kind"), "kind", fmt::format("'{}': expected bars, lines, cdf or scatter", g.kind));
  g.x = f.get<std::string>("x", "a column name").value_or("");
  g.y = f.get<std::string>("y", "a column name").value_or("");
  if (g.y.empty() || (g.x.empty() && g.kind != "cdf")) f.fail(f.table(), "x", "a figure needs x and y columns (cdf: y)");
  g.series = f.get<std::string>("series", "a column name").value_or("");
  g.aggregate = f.get<std::string>("aggregate", "an aggregate").value_or("geomean");
  if (!is_aggregate(g.aggregate))
    f.fail(*f.node("aggregate"), "aggregate", "expected geomean, mean, median, min, max, sum or count");
  if (auto w = f.get<std::string>("where", "filters such as \"policy=fcfs, apps>=4\"")) {
    try {
      g.where = parse_filters(*w);
    } catch (const std::invalid_argument& e) {
      f.fail(*f.node("where"), "where", e.what());
    }
  }
  g.overall = f.get<std::string>("overall", "a label such as \"all\"").value_or("");
  g.isolated = f.choice("rows", {{"mixes", false}, {"isolated", true}}, false);
  for (const toml::table* pt : tables(f, "paper")) {
    StrictTable p(*pt, f.qualified("paper"), f.file());
    FigureSpec::PaperPoint pp;
    pp.series = p.get<std::string>("series", "a series name").value_or("");
    const toml::node* x = p.node("x");
    if (!x) p.fail(*pt, "x", "missing");
    if (auto xs = x->value_exact<std::string>()) pp.x = *xs;
    else if (auto xd = x->value<double>()) pp.x = fmt::format("{}", *xd);
    else p.fail(*x, "x", "expected a string or a number");
    auto y = p.get<double>("y", "a number");
    if (!y) p.fail(*pt, "y", "missing");
    pp.y = *y;
    p.finish();
    g.paper.push_back(pp);
  }
  return g;
}

// known_failure = { scales = [...], reason = "..." }, or an array of them;
// every scale named once, and one the study defines.
std::vector<KnownFailure> known_failures(StrictTable& t, const toml::node& n, const std::vector<std::string>& scales) {
  const char* form = "expected { scales = [\"smoke\", ...], reason = \"...\" } or an array of such tables";
  if (n.is_string())
    t.fail(n, "known_failure",
           fmt::format("{} (a bare reason is no longer accepted: name the scales at which the trend fails)", form));
  std::vector<const toml::table*> decls;
  if (const toml::table* one = n.as_table()) decls.push_back(one);
  else if (const toml::array* arr = n.as_array(); arr && arr->is_array_of_tables() && !arr->empty())
    for (const auto& e : *arr) decls.push_back(e.as_table());
  else
    t.fail(n, "known_failure", form);
  std::vector<KnownFailure> out;
  std::set<std::string> named;
  for (const toml::table* d : decls) {
    StrictTable kt(*d, t.qualified("known_failure"), t.file());
    KnownFailure k;
    k.scales = strings(kt, "scales");
    k.reason = kt.get<std::string>("reason", "a string").value_or("");
    if (k.scales.empty()) kt.fail(*d, "scales", "missing: the scales at which the trend is expected to fail");
    if (k.reason.empty()) kt.fail(*d, "reason", "missing: why the trend fails at those scales");
    for (const std::string& sc : k.scales) {
      if (std::find(scales.begin(), scales.end(), sc) == scales.end())
        kt.fail(*kt.node("scales"), "scales",
                fmt::format("no scale '{}' in this study (it has: {})", sc, fmt::join(scales, ", ")));
      if (!named.insert(sc).second) kt.fail(*kt.node("scales"), "scales", fmt::format("scale '{}' declared twice", sc));
    }
    kt.finish();
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace

const KnownFailure* TrendSpec::known_failure(const std::string& scale) const {
  for (const KnownFailure& k : known_failures)
    if (std::find(k.scales.begin(), k.scales.end(), scale) != k.scales.end()) return &k;
  return nullptr;
}

namespace {

// A mix entry's option value as it appears in labels: numbers, strings, and
// tables (an event source) as (key=value,...).
std::string option_text(const toml::node& value) {
  if (value.is_integer()) return fmt::format("{}", *value.value<int64_t>());
  if (value.is_floating_point()) return fmt::format("{}", *value.value<double>());
  if (value.is_string()) return *value.value<std::string>();
  if (value.is_boolean()) return *value.value<bool>() ? "true" : "false";
  std::vector<std::string> parts;
  if (const toml::table* t = value.as_table())
    for (const auto& [key, v] : *t) parts.push_back(fmt::format("{}={}", key.str(), option_text(v)));
  return fmt::format("({})", fmt::join(parts, ","));
}

}  // namespace

std::string MixApp::label() const {
  if (options.empty()) return benchmark;
  std::vector<std::string> parts;
  for (const auto& [key, value] : options) parts.push_back(fmt::format("{}={}", key.str(), option_text(value)));
  return fmt::format("{}[{}]", benchmark, fmt::join(parts, ";"));
}

std::string mix_label(const Mix& mix) {
  std::vector<std::string> labels;
  for (const MixApp& a : mix) labels.push_back(a.label());
  return fmt::format("{}", fmt::join(labels, "+"));
}

int MixApp::priority() const { return int(options["priority"].value_or(int64_t(0))); }

MixApp MixApp::alone() const {
  MixApp a{benchmark, {}, trace};
  if (const toml::node* gap = options.get("cpu_gap_us")) a.options.insert("cpu_gap_us", *gap->value<double>());
  return a;
}

Study parse_study(std::string_view text, const std::string& name, const std::filesystem::path& dir,
                  const std::string& scale) {
  toml::table root = parse_toml(text, name);
  Study s;
  s.dir = dir;
  s.file = name;
  StrictTable top(root, "", name);
  s.name = top.get<std::string>("name", "a string").value_or(std::filesystem::absolute(dir).filename().string());
  s.title = top.get<std::string>("title", "a string").value_or(s.name);
  s.description = top.get<std::string>("description", "a string").value_or("");
  s.paper = top.get<std::string>("paper", "a string").value_or("");
  if (auto g = top.get<std::string>("gpu", "a preset name or config file")) {
    bool file = g->find('/') != std::string::npos || g->ends_with(".toml");
    s.gpu = file ? std::filesystem::absolute(dir / *g).lexically_normal().string() : *g;
    std::error_code ec;
    if (file && !std::filesystem::is_regular_file(s.gpu, ec))
      top.fail(*top.node("gpu"), "gpu", fmt::format("no config file {}", s.gpu));
    if (!file && !gpu::is_preset(s.gpu))
      top.fail(*top.node("gpu"), "gpu", fmt::format("no preset named '{}' (built-in: {})", s.gpu, builtin_preset_names()));
  }
  s.overrides = strings(top, "set");
  s.stats = strings(top, "stats");
  s.run = multitask::parse_run_rule(top);

  const toml::node* sw = top.node("sweep");
  if (!sw) throw LoadError(fmt::format("{}: no [sweep] table: a study needs mixes and policies", name));
  StrictTable st(as_table(top, "sweep", *sw), "sweep", name);
  read_sweep(st, s.sweep, dir);
  st.finish();

  const toml::node* sc = top.node("scale");
  if (!sc) throw LoadError(fmt::format("{}: no [scale.quick] and [scale.paper] tables", name));
  StrictTable scales(as_table(top, "scale", *sc), "scale", name);
  // In the order they are written (toml++ iterates tables sorted by key).
  std::vector<std::pair<std::string, const toml::node*>> ordered;
  for (const auto& [key, n] : *sc->as_table()) ordered.emplace_back(std::string(key.str()), &n);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.second->source().begin < b.second->source().begin; });
  for (const auto& [k, n] : ordered) {
    StrictTable t(as_table(scales, k, *n), "scale." + k, name);
    Sweep patched = s.sweep;
    read_sweep(t, patched, dir);  // every scale is validated, the selected one kept
    t.finish();
    s.scales.push_back(k);
    if (k == scale) s.sweep = patched;
  }
  for (const char* required : {"quick", "paper"})
    if (std::find(s.scales.begin(), s.scales.end(), required) == s.scales.end())
      throw LoadError(fmt::format("{}: scale.{}: missing (every study has a quick and a paper scale)", name, required));
  if (std::find(s.scales.begin(), s.scales.end(), scale) == s.scales.end())
    throw LoadError(fmt::format("{}: no scale '{}' (this study has: {})", name, scale, fmt::join(s.scales, ", ")));
  s.scale = scale;
  if (s.sweep.max_cycles) {
    if (s.run.until == multitask::RunRule::Until::Completions)
      throw LoadError(fmt::format("{}: scale {}: max_cycles needs [run] until = \"cycles\" or \"converged\"", name,
                                  scale));
    s.run.max_cycles = *s.sweep.max_cycles;
  }
  if (s.sweep.completions) {
    if (s.run.until != multitask::RunRule::Until::Completions)
      throw LoadError(fmt::format("{}: scale {}: completions needs [run] until = \"completions\"", name, scale));
    s.run.completions = *s.sweep.completions;
  }
  if (s.sweep.measure) s.run.measure = *s.sweep.measure;
  if (s.sweep.policies.empty()) throw LoadError(fmt::format("{}: sweep.policies: missing", name));
  if (s.sweep.mixes.empty() && s.sweep.pairs_of.size() < 2 && !s.sweep.random)
    throw LoadError(fmt::format("{}: scale {}: no mixes (sweep.mixes, sweep.pairs with two or more benchmarks, or "
                                "sweep.random)", name, scale));

  if (const toml::node* cn = top.node("classify")) {
    StrictTable ct(as_table(top, "classify", *cn), "classify", name);
    Classify c;
    c.from = strings(ct, "from");
    if (c.from.empty()) ct.fail(*cn, "from", "missing: the overrides of the configuration compared with the base");
    c.metric = ct.get<std::string>("metric", "\"cycles\" or \"kernel_cycles\"").value_or(c.metric);
    if (c.metric != "cycles" && c.metric != "kernel_cycles")
      ct.fail(*ct.node("metric"), "metric", fmt::format("'{}': expected \"cycles\" or \"kernel_cycles\"", c.metric));
    c.threshold = ct.get<double>("threshold", "a number").value_or(0);
    if (!(c.threshold > 0)) ct.fail(*cn, "threshold", "expected a speed-up > 0");
    c.above = ct.get<std::string>("above", "a class name").value_or("");
    c.below = ct.get<std::string>("below", "a class name").value_or("");
    if (c.above.empty() || c.below.empty()) ct.fail(*cn, "above", "both class names (above, below) are needed");
    ct.finish();
    s.classify = c;
  }
  for (const toml::table* ft : tables(top, "figure")) {
    StrictTable f(*ft, "figure", name);
    s.figures.push_back(figure(f));
    f.finish();
  }
  for (const toml::table* tt : tables(top, "trend")) {
    StrictTable t(*tt, "trend", name);
    TrendSpec tr;
    tr.name = t.get<std::string>("name", "a string").value_or("");
    tr.expr = t.get<std::string>("expr", "a trend expression").value_or("");
    if (tr.name.empty() || tr.expr.empty()) t.fail(*tt, "expr", "every trend needs a name and an expr");
    try {
      Trend::parse(tr.expr);
    } catch (const std::invalid_argument& e) {
      t.fail(*t.node("expr"), "expr", e.what());
    }
    tr.paper = t.get<std::string>("paper", "a string").value_or("");
    if (const toml::node* kf = t.node("known_failure")) tr.known_failures = known_failures(t, *kf, s.scales);
    t.finish();
    s.trends.push_back(std::move(tr));
  }
  top.finish();
  return s;
}

Study load_study(const std::filesystem::path& dir_or_file, const std::string& scale) {
  std::error_code ec;
  std::filesystem::path file = std::filesystem::is_directory(dir_or_file, ec) ? dir_or_file / "experiment.toml"
                                                                               : dir_or_file;
  std::ifstream in(file);
  if (!in) throw LoadError(fmt::format("{}: cannot open study file", file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_study(ss.str(), file.string(), file.parent_path().empty() ? "." : file.parent_path(), scale);
}

}  // namespace gpumux::experiments
