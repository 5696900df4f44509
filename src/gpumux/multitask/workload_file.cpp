#include "gpumux/multitask/workload_file.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "gpumux/core/error.h"
#include "gpumux/core/presets.h"
#include "gpumux/core/strict_toml.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/gpu/qos/qos_manager.h"
#include "gpumux/multitask/baseline_cache.h"
#include "gpumux/multitask/ipc_windows.h"
#include "gpumux/multitask/workload_policy_keys.h"
#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::multitask {

namespace {

runtime::Dim3 dims(StrictTable& t, std::string_view key) {
  const toml::node* n = t.node(key);
  if (!n) t.fail(toml::table{}, key, "missing");
  const toml::array* arr = n->as_array();
  if (!arr || arr->empty() || arr->size() > 3) t.fail(*n, key, "expected 1 to 3 dimensions, e.g. [64] or [16, 16]");
  uint32_t d[3] = {1, 1, 1};
  for (size_t i = 0; i < arr->size(); ++i) {
    auto v = arr->get(i)->value_exact<int64_t>();
    if (!v || *v < 1 || *v > (int64_t(1) << 31) - 1) t.fail(*n, key, "dimensions must be positive integers");
    d[i] = uint32_t(*v);
  }
  return {d[0], d[1], d[2]};
}

// A buffer's `texture = { ... }` (user_program.h): checked here, so that a
// bad combination names the file and line rather than failing at run time.
UserProgram::Buffer::Texture parse_texture(const toml::node& n, StrictTable& buffer, uint64_t bytes,
                                           const std::string& file) {
  const toml::table* tt = n.as_table();
  if (!tt) buffer.fail(n, "texture", "expected a table { format = \"f32\", ... }");
  StrictTable t(*tt, buffer.qualified("texture"), file);
  using exec::ChannelKind;
  UserProgram::Buffer::Texture tex;
  const std::pair<uint8_t, ChannelKind> format = t.choice(
      "format",
      {{"f32", std::pair<uint8_t, ChannelKind>{32, ChannelKind::Float}}, {"f16", {16, ChannelKind::Float}},
       {"s32", {32, ChannelKind::Signed}}, {"u32", {32, ChannelKind::Unsigned}}, {"s16", {16, ChannelKind::Signed}},
       {"u16", {16, ChannelKind::Unsigned}}, {"s8", {8, ChannelKind::Signed}}, {"u8", {8, ChannelKind::Unsigned}}},
      std::pair<uint8_t, ChannelKind>{32, ChannelKind::Float});
  tex.format.bits = format.first;
  tex.format.kind = format.second;
  tex.format.channels = uint8_t(t.integer("channels", 1, 4).value_or(1));
  tex.width = uint32_t(t.integer("width", 1, 65536).value_or(0));
  using exec::AddressMode;
  const AddressMode mode = t.choice("address",
                                    {{"clamp", AddressMode::Clamp}, {"border", AddressMode::Border},
                                     {"wrap", AddressMode::Wrap}, {"mirror", AddressMode::Mirror}},
                                    AddressMode::Clamp);
  tex.desc.address = {mode, mode, mode};
  tex.desc.filter = t.choice("filter", {{"point", exec::FilterMode::Point}, {"linear", exec::FilterMode::Linear}},
                             exec::FilterMode::Point);
  tex.desc.read = t.choice("read", {{"element", exec::ReadMode::ElementType},
                                    {"normalized_float", exec::ReadMode::NormalizedFloat}},
                           exec::ReadMode::ElementType);
  tex.desc.normalized_coords = t.get<bool>("normalized", "true or false").value_or(false);
  t.finish();
  try {
    exec::TextureObjects::check(tex.format, tex.desc);
  } catch (const ApiError& e) {
    buffer.fail(n, "texture", e.what());
  }
  const uint64_t row = uint64_t(std::max(tex.width, 1u)) * tex.format.element_bytes();
  const uint64_t limit = tex.width ? 65536 : uint64_t(1) << 28;
  if (bytes % row != 0 || bytes / row > limit)
    buffer.fail(n, "texture", fmt::format("the buffer's {} bytes are not a whole number of {}-byte {} (at most {})",
                                          bytes, row, tex.width ? "rows" : "elements", limit));
  return tex;
}

std::shared_ptr<UserProgram> parse_user_program(StrictTable& t, const toml::table& at, const std::filesystem::path& dir,
                                                 const std::string& ptx) {
  auto p = std::make_shared<UserProgram>();
  std::filesystem::path file = dir / ptx;
  std::ifstream in(file);
  if (!in) t.fail(*t.node("ptx"), "ptx", fmt::format("cannot open PTX file {}", file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  p->ptx_text = ss.str();
  p->ptx_file = file.string();
  using Init = UserProgram::Buffer::Init;
  for (const toml::table* bt : tables(t, "buffer")) {
    StrictTable b(*bt, t.qualified("buffer"), t.file());
    UserProgram::Buffer buf;
    auto name = b.get<std::string>("name", "a string");
    if (!name || name->empty()) throw LoadError(fmt::format("{}: {}: a buffer needs a name", where(*bt, t.file()), t.qualified("buffer")));
    for (const auto& o : p->buffers)
      if (o.name == *name) b.fail(*b.node("name"), "name", fmt::format("buffer '{}' is defined twice", *name));
    buf.name = *name;
    auto bytes = b.integer("bytes", 1, int64_t(1) << 36);
    if (!bytes) throw LoadError(fmt::format("{}: {}: buffer '{}' needs bytes", where(*bt, t.file()), t.qualified("buffer"), buf.name));
    buf.bytes = uint64_t(*bytes);
    buf.init = b.choice("init",
                        {{"none", Init::None}, {"zero", Init::Zero}, {"random", Init::Random},
                         {"iota_u32", Init::IotaU32}, {"iota_f32", Init::IotaF32}},
                        buf.init);
    if (const toml::node* tn = b.node("texture")) buf.texture = parse_texture(*tn, b, buf.bytes, t.file());
    b.finish();
    p->buffers.push_back(buf);
  }
  for (const toml::table* lt : tables(t, "launch")) {
    StrictTable l(*lt, t.qualified("launch"), t.file());
    UserProgram::Launch launch;
    auto kernel = l.get<std::string>("kernel", "a kernel name");
    if (!kernel) throw LoadError(fmt::format("{}: {}: a launch needs a kernel", where(*lt, t.file()), t.qualified("launch")));
    launch.kernel = *kernel;
    launch.grid = dims(l, "grid");
    launch.block = dims(l, "block");
    launch.dynamic_shared_bytes = uint64_t(l.integer("dynamic_shared_bytes", 0, 1 << 20).value_or(0));
    launch.repeat = uint32_t(l.integer("repeat", 1, 1000000).value_or(1));
    launch.cpu_us = cpu_microseconds(l, "cpu_us");
    for (const std::string& a : strings(l, "args")) {
      try {
        launch.args.push_back(parse_arg(a, p->buffers));
      } catch (const std::invalid_argument& e) {
        l.fail(*l.node("args"), "args", e.what());
      }
    }
    l.finish();
    p->launches.push_back(std::move(launch));
  }
  if (p->launches.empty())
    throw LoadError(fmt::format("{}: {}: a PTX application needs at least one [[app.launch]]", where(at, t.file()),
                                t.qualified("launch")));
  for (const std::string& o : strings(t, "outputs")) {
    auto it = std::find_if(p->buffers.begin(), p->buffers.end(), [&](const auto& b) { return b.name == o; });
    if (it == p->buffers.end()) t.fail(*t.node("outputs"), "outputs", fmt::format("no buffer named '{}'", o));
    p->outputs.push_back(size_t(it - p->buffers.begin()));
  }
  if (auto out = t.get<std::string>("output_dir", "a folder name")) {
    if (p->outputs.empty()) t.fail(*t.node("output_dir"), "output_dir", "needs outputs = [\"buffer\", ...] to write");
    p->output_dir = dir / *out;
    std::error_code ec;
    if (std::filesystem::exists(p->output_dir, ec) && !std::filesystem::is_directory(p->output_dir, ec))
      t.fail(*t.node("output_dir"), "output_dir", fmt::format("{} exists and is not a folder", p->output_dir.string()));
  }
  return p;
}

}  // namespace

std::string AppSpec::program() const {
  if (attached) return "attached";
  if (trace) return "trace:" + trace->list.dir.filename().string();
  return benchmark ? benchmark->name : "ptx:" + std::filesystem::path(user->ptx_file).filename().string();
}

std::string AppSpec::identity() const {
  // Host CPU time only when there is some, so that keys without it stay as they were.
  std::string cpu = cpu_gap_us ? fmt::format(" cpu_gap_us {}", cpu_gap_us) : "";
  if (events)
    cpu += fmt::format(" events {} {} {} {} {} {}", runtime::arrival_kind_name(events->kind), events->interval_us,
                       events->events, events->burst, events->start_us, events->seed);
  if (attached) return fmt::format("attached program {}{}", name, cpu);
  if (benchmark)
    return fmt::format("benchmark {} size {} seed {}{}", benchmark->name, workloads::size_name(size), seed, cpu);
  if (trace) return fmt::format("trace {:016x}{}", trace->hash, cpu);
  // The PTX text and the host program, in a canonical form.
  std::string s = fmt::format("ptx {:016x} seed {}{}", fnv1a64(user->ptx_text), seed, cpu);
  for (const auto& b : user->buffers) {
    s += fmt::format("\nbuffer {} {} {}", b.name, b.bytes, int(b.init));
    if (const auto& x = b.texture)  // only with a texture, so that other keys stay as they were
      s += fmt::format(" texture {} {} {} {} {} {} {} {}", x->format.channels, x->format.bits, int(x->format.kind),
                       x->width, int(x->desc.address[0]), int(x->desc.filter), int(x->desc.read),
                       x->desc.normalized_coords);
  }
  for (const auto& l : user->launches) {
    s += fmt::format("\nlaunch {} {}x{}x{} {}x{}x{} {} x{}", l.kernel, l.grid.x, l.grid.y, l.grid.z, l.block.x,
                     l.block.y, l.block.z, l.dynamic_shared_bytes, l.repeat);
    for (const auto& a : l.args) s += fmt::format(" {}:{}:{}", int(a.kind), a.buffer, a.bits);
    if (l.cpu_us) s += fmt::format(" cpu_us {}", l.cpu_us);
  }
  for (size_t o : user->outputs) s += fmt::format("\noutput {}", o);
  return s;
}

double cpu_microseconds(StrictTable& t, std::string_view key) {
  double us = t.get<double>(key, "microseconds").value_or(0);
  if (!(us >= 0 && us <= 1e6)) t.fail(*t.node(key), key, fmt::format("{} is outside [0, 1e6] microseconds", us));
  return us;
}

void read_app_options(StrictTable& t, AppSpec& a) {
  a.arrival = Cycle(t.integer("arrival_cycle", 0, int64_t(1) << 50).value_or(int64_t(a.arrival)));
  a.priority = int(t.integer("priority", -100, 100).value_or(a.priority));
  if (auto q = t.get<double>("qos_goal", "a number")) {
    if (!(*q > 0 && *q <= 1)) t.fail(*t.node("qos_goal"), "qos_goal", "expected a fraction in (0, 1]");
    a.qos_goal = *q;
  }
  if (t.node("cpu_gap_us")) a.cpu_gap_us = cpu_microseconds(t, "cpu_gap_us");
  if (const toml::node* n = t.node("events")) a.events = read_event_source(t, *n);
}

runtime::ArrivalProcess read_event_source(StrictTable& parent, const toml::node& n) {
  StrictTable t(as_table(parent, "events", n), parent.qualified("events"), parent.file());
  runtime::ArrivalProcess p;
  std::string kind = t.get<std::string>("process", "periodic, poisson or bursts").value_or("periodic");
  if (!runtime::parse_arrival_kind(kind, p.kind))
    t.fail(*t.node("process"), "process", fmt::format("'{}' is not periodic, poisson or bursts", kind));
  p.interval_us = t.get<double>("interval_us", "microseconds").value_or(p.interval_us);
  if (!(p.interval_us > 0 && p.interval_us <= 1e6))
    t.fail(*t.node("interval_us"), "interval_us", "expected microseconds in (0, 1e6]");
  p.events = uint32_t(t.integer("count", 1, 1 << 20).value_or(0));
  p.burst = uint32_t(t.integer("burst", 1, 4096).value_or(1));
  p.start_us = t.get<double>("start_us", "microseconds").value_or(0);
  if (!(p.start_us >= 0 && p.start_us <= 1e6)) t.fail(*t.node("start_us"), "start_us", "expected [0, 1e6] microseconds");
  if (p.kind != runtime::ArrivalProcess::Kind::Bursts && t.node("burst"))
    t.fail(*t.node("burst"), "burst", "only process = \"bursts\" takes a burst size");
  p.seed = uint64_t(t.integer("seed", 0, int64_t(1) << 62).value_or(0));
  t.finish();
  return p;
}

RunRule parse_run_rule(StrictTable& parent) {
  RunRule run;
  const toml::node* rn = parent.node("run");
  if (!rn) return run;
  StrictTable rt(as_table(parent, "run", *rn), parent.qualified("run"), parent.file());
  run.until = rt.choice("until",
                        {{"completions", RunRule::Until::Completions},
                         {"cycles", RunRule::Until::Cycles},
                         {"converged", RunRule::Until::Converged}},
                        run.until);
  const bool converged = run.until == RunRule::Until::Converged;
  // A converged run measures rates: keys about completed runs cannot apply.
  if (converged)
    for (const char* key : {"completions", "measure", "restart"})
      if (const toml::node* n = rt.node(key))
        rt.fail(*n, key,
                "cannot apply to until = \"converged\": it measures each app's rate, not completed runs (use "
                "until = \"completions\" for turnaround times)");
  run.completions = uint32_t(rt.integer("completions", 1, 1000).value_or(1));
  run.max_cycles = Cycle(rt.integer("max_cycles", 0, int64_t(1) << 50).value_or(0));
  run.measure = rt.choice("measure", {{"first", RunRule::Measure::First}, {"all", RunRule::Measure::All}}, run.measure);
  if (auto r = rt.get<bool>("restart", "true or false")) {
    if (!*r && run.until == RunRule::Until::Cycles)
      rt.fail(*rt.node("restart"), "restart", "restart = false needs until = \"completions\" (a cycle-limited run restarts)");
    run.restart = *r;
  }
  if (run.until == RunRule::Until::Cycles && run.max_cycles == 0)
    rt.fail(*rn, "max_cycles", "until = \"cycles\" needs max_cycles > 0");
  if (converged && run.max_cycles == 0)
    rt.fail(*rn, "max_cycles", "until = \"converged\" needs max_cycles > 0: where a run whose rates never converge ends");
  // Below 100 cycles a window holds too few instructions to be a rate, and sampling costs host time.
  run.ipc_window = Cycle(rt.integer("ipc_window", 100, int64_t(1) << 40).value_or(converged ? 10000 : 0));
  if (auto sm = rt.integer("ipc_sm", 0, 1 << 16)) {
    // A converged run's rates are the applications' over the GPU, not one SM's.
    if (converged) rt.fail(*rt.node("ipc_sm"), "ipc_sm", "not used with until = \"converged\" (its rates are the whole GPU's)");
    if (!run.ipc_window) rt.fail(*rt.node("ipc_sm"), "ipc_sm", "needs ipc_window (the windows it samples)");
    run.ipc_sm = uint32_t(*sm);
  }
  for (const char* key : {"tolerance", "windows"})
    if (const toml::node* n = rt.node(key); n && !converged)
      rt.fail(*n, key, "only used with until = \"converged\"");
  if (auto t = rt.get<double>("tolerance", "a relative tolerance")) {
    if (!(*t > 0 && *t < 1)) rt.fail(*rt.node("tolerance"), "tolerance", "expected a fraction in (0, 1), e.g. 0.02");
    run.convergence.tolerance = *t;
  }
  run.convergence.windows = uint32_t(rt.integer("windows", 2, 1000000).value_or(run.convergence.windows));
  rt.finish();
  return run;
}

namespace {

// The Spart baseline is a sharing policy steered by a QoS manager.
constexpr const char* kSpartTogether =
    "the sharing policy \"spart\" and the quota scheme \"spart\" are used together (Spart: spatial partitioning "
    "with hill climbing on SM counts, docs/qos.md)";

}  // namespace

WorkloadFile parse_workload(std::string_view text, const std::string& name, const std::filesystem::path& dir,
                            bool attached) {
  toml::table root = parse_toml(text, name);
  WorkloadFile w;
  w.source = name;
  StrictTable top(root, "", w.source);
  if (auto g = top.get<std::string>("gpu", "a preset name or config file")) {
    const bool file = g->find('/') != std::string::npos || g->ends_with(".toml");
    std::filesystem::path p = dir / *g;
    std::error_code ec;
    w.gpu = file ? p.string() : *g;
    if (file && !std::filesystem::is_regular_file(p, ec))
      top.fail(*top.node("gpu"), "gpu", fmt::format("no config file {}", p.string()));
    if (!file && !gpu::is_preset(w.gpu))
      top.fail(*top.node("gpu"), "gpu", fmt::format("no preset named '{}' (built-in: {})", w.gpu, builtin_preset_names()));
  }
  if (const toml::node* s = top.node("set")) {
    const toml::array* arr = s->as_array();
    if (!arr) top.fail(*s, "set", "expected an array of \"path.key=value\" strings");
    for (const auto& e : *arr) {
      auto v = e.value_exact<std::string>();
      if (!v) top.fail(e, "set", "expected \"path.key=value\" strings");
      w.overrides.push_back(*v);
    }
  }
  uint64_t seed = uint64_t(top.integer("seed", 0, int64_t(1) << 62).value_or(1));

  // Per-app tables of [policy] (tb_quota, tokens), by app name until the apps are read.
  using ByName = std::map<std::string, std::pair<uint32_t, const toml::node*>>;
  std::map<std::string, ByName> by_app_name;
  const toml::node* scheme_node = nullptr;
  if (const toml::node* pn = top.node("policy")) {
    StrictTable pt(as_table(top, "policy", *pn), "policy", w.source);
    w.policy = pt.get<std::string>("name", "a policy name").value_or("fcfs");
    for (std::string key : {"tb_quota", "tokens"}) {
      const toml::node* q = pt.node(key);
      if (!q) continue;
      // Checked here, not only in validate(), so that the error names the line.
      std::string_view user = key == "tokens" ? "dss" : "smk-quota";
      if (w.policy != user) pt.fail(*q, key, fmt::format("only used with policy {}, not '{}'", user, w.policy));
      StrictTable qt(as_table(pt, key, *q), fmt::format("policy.{}", key), w.source);
      for (const auto& [name, n] : *q->as_table()) {
        auto v = qt.integer(name.str(), key == "tokens" ? 0 : 1, 1 << 20);
        by_app_name[key][std::string(name.str())] = {uint32_t(*v), &n};
      }
    }
    parse_policy_keys(pt, w);
    if (auto ws = pt.get<std::string>("warp_scheduler", "a warp scheduler name")) {
      auto known = sm::warp_scheduler_names();
      if (std::find(known.begin(), known.end(), *ws) == known.end())
        pt.fail(*pt.node("warp_scheduler"), "warp_scheduler",
                fmt::format("unknown warp scheduler '{}' (known: {})", *ws, fmt::join(known, ", ")));
      w.warp_scheduler = *ws;
    }
    if (auto q = pt.get<std::string>("quota_scheme", "a quota scheme name")) {
      scheme_node = pt.node("quota_scheme");
      auto known = gpu::quota_scheme_names();
      if (std::find(known.begin(), known.end(), *q) == known.end())
        pt.fail(*scheme_node, "quota_scheme",
                fmt::format("unknown quota scheme '{}' (known: {})", *q, fmt::join(known, ", ")));
      w.quota_scheme = *q;
      if ((*q == "spart") != (w.policy == "spart"))
        pt.fail(*scheme_node, "quota_scheme", kSpartTogether);
    }
    if (auto adjust = pt.get<bool>("tb_adjustment", "true or false")) {
      const toml::node& n = *pt.node("tb_adjustment");
      if (w.quota_scheme.empty() || w.quota_scheme == "spart")
        pt.fail(n, "tb_adjustment", "only used with a quota scheme (naive, history, elastic, rollover, rollover-time)");
      if (w.policy != "smk-symmetric")
        pt.fail(n, "tb_adjustment",
                fmt::format("only used with policy smk-symmetric (the symmetric TB allocation it adjusts), not '{}'",
                            w.policy));
      w.tb_adjustment = *adjust;
    }
    w.copies.order = pt.choice("copy_order", {{"fcfs", frontend::CopyOrder::Fcfs}, {"priority", frontend::CopyOrder::Priority}},
                               frontend::CopyOrder::Fcfs);
    w.copies.chunk_bytes = uint64_t(pt.integer("copy_chunk_bytes", 0, int64_t(1) << 40).value_or(0));
    pt.finish();
  }

  if (const toml::node* rn = top.node("run"); attached && rn && rn->as_table()) {
    for (const auto& [key, n] : *rn->as_table())
      if (key.str() != "max_cycles")
        top.fail(n, fmt::format("run.{}", key.str()),
                 "cannot apply to programs attached to gpumux serve: each runs once, as it was started");
  }
  w.run = parse_run_rule(top);
  if (attached) w.run.restart = false;

  const toml::node* an = top.node("app");
  if (!an) throw LoadError(fmt::format("{}: no [[app]] entries: a workload needs at least one application", w.source));
  const toml::array* apps = an->as_array();
  if (!apps || !apps->is_array_of_tables()) top.fail(*an, "app", "expected [[app]] tables");
  std::map<std::string, int> name_uses;
  std::string qaws_scheduler;  // the config's warp scheduler, loaded for the first warp_budget
  std::optional<GpuParams> mig_gpu;  // the config's GPU, loaded for the first mig_profile
  for (size_t i = 0; i < apps->size(); ++i) {
    const toml::table& at = *apps->get(i)->as_table();
    std::string path = fmt::format("app[{}]", i);
    StrictTable t(at, path, w.source);
    AppSpec a;
    if (attached) {
      for (const char* key : {"benchmark", "ptx", "trace", "size", "seed", "events", "qos_goal"})
        if (const toml::node* n = t.node(key))
          t.fail(*n, key, "cannot apply to a program attached to gpumux serve (it brings its own kernels and inputs)");
      if (!t.node("name"))
        throw LoadError(fmt::format("{}: {}: needs a name: the GPUMUX_APP its program attaches with",
                                    where(at, w.source), path));
      a.attached = true;
    }
    auto bench = t.get<std::string>("benchmark", "a benchmark name");
    auto ptx = t.get<std::string>("ptx", "a PTX file name");
    auto trace_dir = t.get<std::string>("trace", "an Accel-Sim trace folder");
    if (!attached && int(bench.has_value()) + int(ptx.has_value()) + int(trace_dir.has_value()) != 1)
      throw LoadError(fmt::format("{}: {}: give one of 'benchmark' (the workload library), 'ptx' (your own kernels) "
                                  "or 'trace' (an Accel-Sim trace folder)",
                                  where(at, w.source), path));
    if (bench) {
      if (const toml::node* o = t.node("output_dir"))
        t.fail(*o, "output_dir", "only PTX applications write their outputs (a benchmark checks its own)");
      a.benchmark = workloads::find_workload(*bench);
      if (!a.benchmark)
        t.fail(*t.node("benchmark"), "benchmark", fmt::format("unknown benchmark '{}' (see gpumux list)", *bench));
      if (auto s = t.get<std::string>("size", "a size name"); s && !workloads::parse_size(*s, a.size))
        t.fail(*t.node("size"), "size", fmt::format("unknown size '{}' ({})", *s, workloads::size_names()));
      if (a.benchmark && !workloads::has_size(*a.benchmark, a.size))
        t.fail(t.node("size") ? *t.node("size") : *t.node("benchmark"), "size",
               workloads::missing_size_message(*a.benchmark, a.size));
    } else if (ptx) {
      a.user = parse_user_program(t, at, dir, *ptx);
    } else if (trace_dir) {
      for (const char* key : {"size", "output_dir", "events"})
        if (const toml::node* n = t.node(key))
          t.fail(*n, key, "does not apply to a trace application: it replays what was recorded");
      try {
        a.trace = load_trace_program(dir / *trace_dir);
      } catch (const LoadError& e) {
        t.fail(*t.node("trace"), "trace", e.what());
      }
    }
    read_app_options(t, a);
    if (const toml::node* b = t.node("warp_budget")) {
      a.warp_budget = uint32_t(*t.integer("warp_budget", 1, 1 << 16));
      if (qaws_scheduler.empty())
        qaws_scheduler = w.warp_scheduler.empty() ? gpu::load_config(w.gpu, w.overrides).values().sm.warp_scheduler
                                                  : w.warp_scheduler;
      if (qaws_scheduler != "qaws")
        t.fail(*b, "warp_budget",
               fmt::format("only used with sm.warp_scheduler = \"qaws\" (this workload's GPU has '{}')", qaws_scheduler));
    }
    // The client's own percentage, else the control daemon's default.
    auto pct = t.integer("active_thread_percentage", 1, 100);
    if (pct && w.policy != "mps")
      t.fail(*t.node("active_thread_percentage"), "active_thread_percentage",
             fmt::format("only used with policy mps, not '{}'", w.policy));
    if (uint32_t p = pct ? uint32_t(*pct) : w.policy_options.mps_default_percent; p < 100)
      w.policy_options.mps_percent_by_app[uint32_t(i)] = p;
    if (auto profile = t.get<std::string>("mig_profile", "a MIG profile name such as \"3g.20gb\"")) {
      const toml::node& n = *t.node("mig_profile");
      if (w.policy != "mig") t.fail(n, "mig_profile", fmt::format("only used with policy mig, not '{}'", w.policy));
      if (w.policy_options.mig_profile_by_app.count(uint32_t(i)))
        t.fail(n, "mig_profile", "this app's profile is given by [policy] mig_profiles already");
      if (!mig_gpu) mig_gpu = gpu::load_config(w.gpu, w.overrides).values().gpu;
      std::string error;
      frontend::parse_mig_profile(*profile, *mig_gpu, error);
      if (!error.empty()) t.fail(n, "mig_profile", error);
      w.policy_options.mig_profile_by_app[uint32_t(i)] = *profile;
    } else if (w.policy == "mig" && !w.policy_options.mig_profile_by_app.count(uint32_t(i))) {
      throw LoadError(fmt::format("{}: {}: policy mig needs a mig_profile (the app's GPU instance, e.g. \"3g.20gb\")",
                                  where(at, w.source), path));
    }
    a.seed = uint64_t(t.integer("seed", 0, int64_t(1) << 62).value_or(int64_t(seed + i)));
    if (auto n = t.get<std::string>("name", "a string")) {
      if (n->empty()) t.fail(*t.node("name"), "name", "must not be empty");
      a.name = *n;
    } else {
      std::string base = a.benchmark ? a.benchmark->name
                         : ptx       ? std::filesystem::path(*ptx).stem().string()
                                     : a.trace->list.dir.filename().string();
      int uses = name_uses[base]++;
      a.name = uses ? fmt::format("{}-{}", base, uses + 1) : base;
    }
    t.finish();
    for (const AppSpec& o : w.apps) {
      if (o.name == a.name)
        throw LoadError(fmt::format("{}: {}: app name '{}' is used twice", where(at, w.source), path, a.name));
      if (a.user && o.user && !a.user->output_dir.empty() && o.user->output_dir == a.user->output_dir)
        t.fail(*t.node("output_dir"), "output_dir", fmt::format("app '{}' writes to the same folder", o.name));
    }
    w.apps.push_back(std::move(a));
  }
  if (w.policy == "mig") {  // the instances must fit the GPU together
    if (!mig_gpu) mig_gpu = gpu::load_config(w.gpu, w.overrides).values().gpu;
    try {
      frontend::place_mig_instances(w.policy_options.mig_profile_by_app, *mig_gpu);
    } catch (const LoadError& e) {
      throw LoadError(fmt::format("{}: MIG profiles: {}", w.source, e.what()));
    }
  }
  for (auto& [key, entries] : by_app_name) {
    auto& by_app = key == "tokens" ? w.policy_options.tokens_by_app : w.policy_options.tb_quota_by_app;
    for (const auto& [qname, q] : entries) {
      auto it = std::find_if(w.apps.begin(), w.apps.end(), [&](const AppSpec& a) { return a.name == qname; });
      if (it == w.apps.end())
        throw LoadError(
            fmt::format("{}: policy.{}.{}: no app named '{}'", where(*q.second, w.source), key, qname, qname));
      by_app[uint32_t(it - w.apps.begin())] = q.first;
    }
  }
  if (scheme_node && std::none_of(w.apps.begin(), w.apps.end(), [](const AppSpec& a) { return a.qos_goal; }))
    throw LoadError(fmt::format("{}: policy.quota_scheme: no app has a qos_goal (the scheme would have no QoS kernel)",
                                where(*scheme_node, w.source)));
  top.finish();
  w.policy_options.num_apps = uint32_t(w.apps.size());
  for (size_t i = 0; i < w.apps.size(); ++i)
    if (w.apps[i].qos_goal) w.policy_options.qos_apps.insert(uint32_t(i));
  validate(w);
  return w;
}

WorkloadFile load_workload_file(const std::filesystem::path& file, bool attached) {
  std::ifstream in(file);
  if (!in) throw LoadError(fmt::format("{}: cannot open workload file", file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_workload(ss.str(), file.string(), file.parent_path(), attached);
}

void check_against_config(const WorkloadFile& w, const Config& config) {
  const std::string& scheduler = config.values().sm.warp_scheduler;
  for (const AppSpec& a : w.apps)
    if (a.warp_budget && scheduler != "qaws")
      throw LoadError(fmt::format("{}: app '{}': warp_budget is only used with sm.warp_scheduler = \"qaws\", but the "
                                  "overrides give '{}'", w.source, a.name, scheduler));
  check_sampled_sm(w.run.ipc_sm, config.values().gpu.num_sms, w.source);
}

void validate(const WorkloadFile& w) {
  if (w.apps.empty()) throw LoadError(fmt::format("{}: a workload needs at least one application", w.source));
  if (w.apps.size() > 64)  // each gets its own physical address range (sm_lsu.cpp)
    throw LoadError(fmt::format("{}: {} applications; at most 64 are supported", w.source, w.apps.size()));
  for (const AppSpec& a : w.apps)
    if (int(bool(a.benchmark)) + int(bool(a.user)) + int(bool(a.trace)) + int(a.attached) != 1)
      throw LoadError(fmt::format("{}: app '{}' needs one of a benchmark, a PTX program or a trace", w.source, a.name));
  auto names = frontend::sharing_policy_names();
  if (std::find(names.begin(), names.end(), w.policy) == names.end())
    throw LoadError(fmt::format("{}: policy.name: unknown sharing policy '{}' (known: {})", w.source, w.policy,
                                fmt::join(names, ", ")));
  if (w.policy == "smk-quota") {
    for (size_t i = 0; i < w.apps.size(); ++i)
      if (!w.policy_options.tb_quota_by_app.count(uint32_t(i)))
        throw LoadError(fmt::format("{}: policy.tb_quota: smk-quota needs a TB count for app '{}'", w.source,
                                    w.apps[i].name));
  } else if (!w.policy_options.tb_quota_by_app.empty()) {
    throw LoadError(fmt::format("{}: policy.tb_quota is only used by smk-quota, not by '{}'", w.source, w.policy));
  }
  if (!w.quota_scheme.empty()) {
    auto known = gpu::quota_scheme_names();
    if (std::find(known.begin(), known.end(), w.quota_scheme) == known.end())
      throw LoadError(fmt::format("{}: policy.quota_scheme: unknown quota scheme '{}' (known: {})", w.source,
                                  w.quota_scheme, fmt::join(known, ", ")));
    if (std::none_of(w.apps.begin(), w.apps.end(), [](const AppSpec& a) { return a.qos_goal; }))
      throw LoadError(fmt::format("{}: policy.quota_scheme: no app has a qos_goal", w.source));
  }
  if ((w.quota_scheme == "spart") != (w.policy == "spart"))
    throw LoadError(fmt::format("{}: policy: {}", w.source, kSpartTogether));
  // Under mig every app has its profile (checked per app above); [policy]
  // mig_profiles may list more: instances created with no process in them.
  if (w.policy != "mig" && !w.policy_options.mig_profile_by_app.empty())
    throw LoadError(fmt::format("{}: only policy mig takes MIG profiles ([[app]] mig_profile or [policy] mig_profiles)",
                                w.source));
  if (w.policy != "dss" && !w.policy_options.tokens_by_app.empty())
    throw LoadError(fmt::format("{}: policy.tokens is only used by dss, not by '{}'", w.source, w.policy));
}

}  // namespace gpumux::multitask
