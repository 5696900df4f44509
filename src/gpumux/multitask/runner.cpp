#include "gpumux/multitask/runner.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "gpumux/core/cpu_time.h"
#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/gpu/progress.h"
#include "gpumux/gpu/qos/qos_manager.h"
#include "gpumux/multitask/event_report.h"
#include "gpumux/multitask/baseline_cache.h"
#include "gpumux/multitask/host_scheduler.h"
#include "gpumux/multitask/sharing_keys.h"
#include "gpumux/stats/writers.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::multitask {

namespace {

// Records TB spans per SM for the timeline as the dispatcher reports them.
class TbSpanRecorder : public frontend::TbEventSink {
 public:
  TbSpanRecorder(stats::Timeline& t, double core_mhz) : t_(t), mhz_(core_mhz) {}
  void tb_started(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now) override {
    started_[{sm, k.id, tb}] = now;
  }
  void tb_finished(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now) override {
    end_span(sm, k, tb, now, false);
  }
  void tb_preempted(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now) override {
    end_span(sm, k, tb, now, true);
  }
  void kernel_finished(const frontend::KernelRecord&) override {}
  // Each preemption on its SM's "preemptions" track, from request to the SM being free.
  void preemption_done(const frontend::PreemptionRecord& p) override {
    uint32_t track = t_.track("GPU", fmt::format("SM {:>3} preemptions", p.sm));
    t_.span(track, fmt::format("{} {}", p.mechanism, p.label), double(p.requested) / mhz_,
            double(p.latency()) / mhz_,
            {{"launch", p.kernel}, {"app", p.app}, {"tbs", p.tbs}, {"drained", p.drained}, {"switched", p.switched},
             {"flushed", p.flushed}, {"bytes_saved", p.bytes_saved}, {"insts_discarded", p.insts_discarded}});
  }

 private:
  void end_span(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now, bool preempted) {
    auto it = started_.find({sm, k.id, tb});
    if (it == started_.end()) return;
    uint32_t track = t_.track("GPU", fmt::format("SM {:>3}", sm));
    t_.span(track, k.label, double(it->second) / mhz_, double(now - it->second) / mhz_,
            {{"tb", tb}, {"launch", k.id}, {"app", k.app}, {"preempted", preempted}});
    started_.erase(it);
  }

  stats::Timeline& t_;
  double mhz_;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, Cycle> started_;
};

void add_app_tracks(stats::Timeline& t, const RunResult& r, double mhz) {
  for (const frontend::KernelRecord& k : r.kernels) {
    if (!k.done || k.app >= r.apps.size()) continue;
    std::string process = fmt::format("app {}: {}", k.app, r.apps[k.app].name);
    uint32_t track = t.track(process, k.depth ? frontend::queue_label(k) : "kernels");
    t.span(track, k.name, double(k.activated) / mhz, double(k.finished - k.activated) / mhz,
           {{"launch", k.id}, {"tbs", k.tbs}, {"depth", k.depth}, {"warp_insts", k.warp_insts}, {"ipc", k.ipc()},
            {"queued_at_us", double(k.enqueued) / mhz}, {"fault", bool(k.fault)}});
  }
  for (const frontend::CopyRecord& c : r.copies) {
    if (!c.done || c.app >= r.apps.size()) continue;
    std::string process = fmt::format("app {}: {}", c.app, r.apps[c.app].name);
    uint32_t track = t.track(process, "copies");
    t.span(track, fmt::format("memcpy {}", frontend::to_string(c.dir)), double(c.started) * 1e-6,
           double(c.finished - c.started) * 1e-6, {{"bytes", c.bytes}, {"engine", c.engine}});
  }
  for (size_t i = 0; i < r.apps.size(); ++i) {
    uint32_t track = t.track(fmt::format("app {}: {}", i, r.apps[i].name), "runs");
    for (size_t n = 0; n < r.apps[i].runs.size(); ++n) {
      const AppRun& run = r.apps[i].runs[n];
      t.span(track, fmt::format("{} run {}", r.apps[i].name, n), double(run.start) / mhz, double(run.cycles()) / mhz,
             {{"passed", run.passed}});
    }
  }
}

// Warp instructions issued by every kernel of application `app`.
uint64_t app_warp_insts(gpu::Gpu& g, uint32_t app) {
  uint64_t n = 0;
  for (size_t k = 1; k < g.keys().size(); ++k)
    if (g.keys().at(StatKey(k)).app == app) n += g.stats().sum("sm*.warp_insts", StatKey(k));
  return n;
}

// Thread instructions issued by every kernel of application `app`.
uint64_t app_thread_insts(gpu::Gpu& g, uint32_t app) {
  uint64_t n = 0;
  for (size_t k = 1; k < g.keys().size(); ++k)
    if (g.keys().at(StatKey(k)).app == app) n += g.stats().sum("sm*.thread_insts", StatKey(k));
  return n;
}

// The QoS result of every completed launch of an app that has a goal. A
// launch cut off by the end of the run counts only for an app without a
// completed one (a cycle-limited run): otherwise a restart's first cycles
// would stand for the app.
std::vector<KernelQos> kernel_qos(gpu::Gpu& g, const RunResult& r, const gpu::QosGoals& goals) {
  std::vector<KernelQos> out;
  std::vector<bool> completed(r.apps.size(), false);
  for (const frontend::KernelRecord& k : r.kernels)
    if (k.done && k.app < completed.size()) completed[k.app] = true;
  for (const frontend::KernelRecord& k : r.kernels) {
    std::optional<double> goal = goals.of(k.app);
    if (!goal || (!k.done && completed[k.app])) continue;
    // The launch's own count: a stat key is shared by every launch of a kernel.
    uint64_t threads = k.thread_insts;
    if (!k.done)
      for (const frontend::ActiveKernel& a : g.dispatcher().active_kernels())
        if (a.kernel->id == k.id) threads = a.kernel->thread_insts;
    Cycle end = k.done ? k.finished : r.cycles;
    if (threads == 0 || end <= k.first_tb) continue;
    out.push_back({k.id, k.app, k.label, *goal, double(threads) / double(end - k.first_tb), end - k.first_tb});
  }
  return out;
}

// The part of the run that is simulated: no baselines, no metrics. `goals`:
// those of the quota scheme and of the QoS results. `alone`: an isolated run
// (no timeline; o.attached runs attached apps as their isolated runs).
RunResult simulate(const WorkloadFile& w, const Config& config, const RunOptions& o, const gpu::QosGoals& goals,
                   bool alone, const std::vector<double>& issue_rates = {}) {
  stats::Timeline* timeline = alone ? nullptr : o.timeline;
  const AttachedProgram& attached = o.attached;
  RunResult result;
  const GpuConfig& cfg = config.values();
  result.gpu = cfg.gpu.name;
  result.policy = w.policy;
  result.quota_scheme = w.quota_scheme;
  auto dev = timing::make_device(cfg, frontend::make_sharing_policy(w.policy, w.policy_options));
  timing::TimingBackend& backend = timing::backend_of(*dev);
  backend.set_isolated_issue_rates(issue_rates);
  gpu::Gpu& g = backend.gpu();
  g.copy_engine().set_ordering(w.copies);
  if (!w.quota_scheme.empty())
    g.enable_qos(gpu::make_quota_scheme(w.quota_scheme, goals),
                 w.tb_adjustment ? std::optional<gpu::QosGoals>(goals) : std::nullopt);
  std::optional<TbSpanRecorder> spans;
  if (timeline) {
    spans.emplace(*timeline, cfg.clock.core_mhz);
    g.dispatcher().set_event_sink(&*spans);
  }

  std::optional<gpu::ProgressLine> progress;
  if (o.progress) progress.emplace(g, o.progress);
  HostScheduler hs(g);
  backend.set_waiter(&hs);
  dev->set_host_clock(&hs);
  size_t n = w.apps.size();
  std::vector<uint32_t> completions(n, 0);
  std::vector<bool> terminated(n, false);
  result.apps.resize(n);
  // IPC windows, and the convergence of the rates they give when the run ends on it.
  const bool until_converged = !alone && w.run.until == RunRule::Until::Converged;
  std::optional<RateConvergence> rates;
  std::optional<WindowSampler> sampler;
  if (until_converged) {
    std::vector<Cycle> arrivals;
    for (const AppSpec& a : w.apps) arrivals.push_back(a.arrival);
    rates.emplace(w.run.convergence, arrivals);
  }
  if (!alone && w.run.ipc_window) {
    std::vector<std::string> names;
    for (const AppSpec& a : w.apps) names.push_back(a.name);
    sampler.emplace(g, names, w.run.ipc_window, w.run.ipc_sm, [&](const IpcWindows& win) {
      if (!rates) return false;
      std::vector<uint64_t> counts;
      for (const WindowSeries& a : win.apps) counts.push_back(a.warp_insts.back());
      rates->add_window(win.ends.back(), counts);
      if (!rates->converged()) return false;
      hs.request_stop();
      return true;
    });
    hs.before_simulating([&] { sampler->arm(); });
  }
  auto all_done = [&] {
    for (size_t j = 0; j < n; ++j)
      if (!terminated[j] && completions[j] < w.run.completions) return false;
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    const AppSpec& a = w.apps[i];
    AppOutcome& out = result.apps[i];
    out.name = a.name;
    out.benchmark = a.program();
    out.size = a.benchmark ? workloads::size_name(a.size) : "-";
    out.arrival = a.arrival;
    out.priority = a.priority;
    hs.spawn(a.name, a.arrival, [&, i] {
      const AppSpec& app = w.apps[i];
      AppOutcome& o = result.apps[i];
      auto new_context = [&]() -> runtime::Context& {
        runtime::Context& ctx = dev->create_context(app.name, uint32_t(i));
        ctx.set_priority(app.priority);
        ctx.set_warp_budget(app.warp_budget.value_or(1));
        ctx.set_cpu_gap_ns(app.cpu_gap_us * 1000.0);
        if (app.events) {  // arrivals from the app's seed unless the source names its own
          runtime::ArrivalProcess p = *app.events;
          if (p.seed == 0) p.seed = app.seed;
          ctx.set_event_source(p);
        }
        return ctx;
      };
      for (;;) {
        Cycle start = hs.now();
        AppContext c{&new_context(), {}, [&, i](std::span<const std::string> env) {
                        g.dispatcher().policy().client_environment(uint32_t(i), env);
                      }};
        c.reset = [&]() -> runtime::Context& {
          dev->destroy_context(*c.ctx);
          return *(c.ctx = &new_context());
        };
        workloads::CheckResult check;
        bool failed = false;
        try {
          if (app.attached && !attached) throw ApiError(fmt::format("app {} is attached, but nothing serves it", app.name));
          check = app.attached ? attached(app, alone, c)
                  : app.user   ? run_user_program(*app.user, *c.ctx, app.seed)
                  : app.trace  ? run_trace_program(*app.trace, *c.ctx)
                               : workloads::run_workload(*app.benchmark, *c.ctx, app.size, app.seed);
        } catch (const std::runtime_error& e) {
          // A device fault or bad API use ends this application only, as a
          // broken CUDA context would; the others run on.
          check = {false, e.what()};
          failed = true;
        }
        Cycle end = hs.now();
        dev->destroy_context(*c.ctx);
        o.runs.push_back({start, end, check.passed, check.detail});
        if (failed || !check.passed) {
          o.error = check.detail;
          if (!failed) o.error = "CPU check failed: " + o.error;
          terminated[i] = true;
          if (rates) rates->retire(i);
          if (w.run.until == RunRule::Until::Completions && all_done()) hs.request_stop();
          return;
        }
        ++completions[i];
        if (w.run.until == RunRule::Until::Completions && all_done()) {
          hs.request_stop();
          return;
        }
        if (!w.run.restart && completions[i] >= w.run.completions) return;
        // Otherwise restart, to keep the pressure on the others.
      }
    });
  }
  auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_seconds();
  hs.run(w.run.max_cycles ? w.run.max_cycles : kNever);
  progress.reset();
  result.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.host_cpu_seconds = process_cpu_seconds() - cpu0;
  result.cycles = g.core_cycle();
  // A run that stopped early hit its cycle limit unless its rule was met first
  // (all done, or converged); a cycle-limited run ends only at the limit.
  const bool converged = rates && rates->converged();
  const bool done = w.run.until == RunRule::Until::Completions ? all_done() : converged;
  result.stopped_by_limit = hs.stopped_early() && !done;
  if (sampler) {
    sampler->finish(result.cycles);
    result.ipc_windows = sampler->windows();
  }
  if (rates) {
    ConvergenceReport& c = result.convergence.emplace();
    c.rule = w.run.convergence;
    c.window = w.run.ipc_window;
    c.converged = converged;
    // Converged: the window end where it did (the engine stopped before any later edge).
    c.at = converged ? result.ipc_windows->ends.back() : result.cycles;
    for (size_t i = 0; i < n; ++i) {
      c.names.push_back(w.apps[i].name);
      c.apps.push_back(rates->estimate(i));
    }
  }
  result.warp_insts = g.warp_instructions();
  result.kernels = g.dispatcher().records();
  result.preemptions = g.dispatcher().preemptions();
  result.copies = g.copy_engine().records();
  if (const frontend::EventEngine* ev = g.events_if_any()) result.events = ev->records();
  for (size_t i = 0; i < n; ++i) {
    result.apps[i].warp_insts = app_warp_insts(g, uint32_t(i));
    result.apps[i].thread_insts = app_thread_insts(g, uint32_t(i));
    result.apps[i].busy_cycles = run_busy_cycles(result.kernels, uint32_t(i), result.cycles);
  }
  result.qos = kernel_qos(g, result, goals);
  if (o.statistics && !alone) result.stats = stats::to_json(g.stats(), g.keys());  // isolated runs keep counts only
  if (timeline) add_app_tracks(*timeline, result, cfg.clock.core_mhz);
  if (timeline) add_event_tracks(*timeline, result.events, cfg.clock.core_mhz);
  if (timeline && result.ipc_windows) add_ipc_tracks(*timeline, *result.ipc_windows, cfg.clock.core_mhz);
  return result;
}

// The measured time of an app in the shared run (see AppOutcome::shared).
void measure(AppOutcome& a, const RunRule& rule, Cycle run_end, const RateEstimate* rate) {
  a.by_rate = false;
  a.shared = 0;
  if (rate) {  // a converged run: by its rate estimate, whatever runs completed
    a.by_rate = a.error.empty() && rate->ipc > 0;
    if (a.by_rate) a.shared = 1.0 / rate->ipc;
    return;
  }
  size_t counted = 0;
  for (const AppRun& run : a.runs) {
    if (!run.passed) break;
    a.shared += double(run.cycles());
    ++counted;
    if (rule.measure == RunRule::Measure::First) break;
  }
  if (counted) {
    a.shared /= double(counted);
  } else if (a.error.empty() && a.warp_insts > 0) {
    a.by_rate = true;  // cut off by the cycle limit: compare issue rates
    a.shared = double(run_end - a.arrival) / double(a.warp_insts);
  }
}

struct Baseline {
  double cycles = 0;
  uint64_t warp_insts = 0;
  uint64_t thread_insts = 0;
  Cycle kernel_cycles = 0;  // its kernels were busy (kernel_busy_cycles)
  double event_cycles = 0;  // mean launch-to-end cycles of its event kernels (0: none)
  // Thread instructions per core cycle while its kernels ran.
  double ipc() const { return kernel_cycles ? double(thread_insts) / double(kernel_cycles) : 0.0; }
};

// What the only application's only run measured, when it passed.
std::optional<Baseline> measured_alone(const RunResult& r) {
  const AppOutcome& out = r.apps[0];
  if (!out.ok() || !out.runs[0].passed) return std::nullopt;
  double event_cycles = 0;
  size_t events = 0;
  for (const frontend::EventRecord& e : r.events)
    if (e.done) {
      event_cycles += double(e.finished - e.launched);
      ++events;
    }
  return Baseline{double(out.runs[0].cycles()), out.warp_insts, out.thread_insts,
                  kernel_busy_cycles(r.kernels, 0, out.runs[0]), events ? event_cycles / double(events) : 0.0};
}

std::string baseline_key(const AppSpec& a, const Config& config) {
  return fmt::format("gpumux isolated run v1\nbuild {}\n{}\nconfig\n{}", build_id(), a.identity(), config.dump());
}

std::optional<BaselineCache> open_cache(const RunOptions& o) {
  if (!o.use_cache) return std::nullopt;
  return BaselineCache(o.cache_dir.empty() ? BaselineCache::default_dir() : o.cache_dir);
}

void store(std::optional<BaselineCache>& cache, const std::string& key, const Baseline& b) {
  if (cache)
    cache->put(key, {{"cycles", b.cycles},
                     {"warp_insts", b.warp_insts},
                     {"thread_insts", b.thread_insts},
                     {"kernel_cycles", b.kernel_cycles},
                     {"event_cycles", b.event_cycles}});
}

// The isolated run of `a`, as isolated() simulates it: alone under fcfs, from
// cycle 0, one run.
WorkloadFile isolated_workload(const AppSpec& a, const WorkloadFile& w) {
  WorkloadFile alone;
  alone.source = w.source + " (isolated " + a.name + ")";
  alone.policy = "fcfs";
  AppSpec solo = a;
  solo.arrival = 0;
  solo.priority = 0;
  solo.warp_budget.reset();  // a single kernel is one QAWS group: its budget cannot matter
  alone.apps = {solo};
  return alone;
}

// True when `w` is exactly its only application's isolated run, so that its
// result is the baseline itself (studies run these first, to fill the cache).
bool is_isolated_run(const WorkloadFile& w) {
  if (w.apps.size() != 1) return false;
  WorkloadFile alone = isolated_workload(w.apps[0], w);
  const AppSpec &a = w.apps[0], &b = alone.apps[0];
  return w.policy == alone.policy && w.quota_scheme.empty() && w.policy_options.tb_quota_by_app.empty() &&
         w.copies == alone.copies &&
         a.arrival == b.arrival &&
         a.priority == b.priority && a.warp_budget == b.warp_budget && w.run.until == alone.run.until && w.run.completions == alone.run.completions &&
         w.run.max_cycles == alone.run.max_cycles && w.run.restart == alone.run.restart;
}

// The app alone on the same GPU: one run, from cycle 0. Nothing when that run
// fails; `error` says why.
std::optional<Baseline> isolated(const AppSpec& a, const Config& config, const WorkloadFile& w, const RunOptions& o,
                                 std::string& error) {
  std::string key = baseline_key(a, config);
  std::optional<BaselineCache> cache = open_cache(o);
  if (cache) {
    // An entry without thread counts or event cycles predates the QoS goals or
    // EDGE's ANTT (possible under the fixed build id "unknown-build" of builds
    // outside CMake): a miss.
    if (auto hit = cache->get(key); hit && hit->contains("thread_insts") && hit->contains("event_cycles"))
      return Baseline{hit->at("cycles").get<double>(), hit->at("warp_insts").get<uint64_t>(),
                      hit->at("thread_insts").get<uint64_t>(), hit->at("kernel_cycles").get<Cycle>(),
                      hit->at("event_cycles").get<double>()};
  }
  RunResult r = simulate(isolated_workload(a, w), config, o, {}, true);
  const AppOutcome& out = r.apps[0];
  std::optional<Baseline> b = measured_alone(r);
  if (!b) {
    error = fmt::format("isolated run of {} ({}) failed: {}", a.name, a.program(),
                        out.error.empty() ? out.runs.at(0).detail : out.error);
    return std::nullopt;
  }
  store(cache, key, *b);
  return b;
}

}  // namespace

bool RunResult::all_passed() const {
  // A converged run measures rates: an app need not have completed a run.
  for (const AppOutcome& a : apps)
    if (!a.error.empty() || (a.runs.empty() && !convergence)) return false;
  return true;
}

RunResult run_workload(const WorkloadFile& w, const RunOptions& o) {
  validate(w);
  std::vector<std::string> overrides = w.overrides;
  overrides.insert(overrides.end(), o.overrides.begin(), o.overrides.end());
  // Isolated runs leave the sharing-only keys at the GPU's own values (sharing_keys.h),
  // and the policy's warp scheduler, which is the shared run's.
  const std::vector<std::string> alone_overrides = without_sharing_only(overrides);
  if (!w.warp_scheduler.empty()) overrides.push_back("sm.warp_scheduler=" + w.warp_scheduler);
  Config config = gpu::load_config(w.gpu, overrides);
  check_against_config(w, config);
  const Config alone_config =
      alone_overrides.size() == overrides.size() ? config : gpu::load_config(w.gpu, alone_overrides);
  // Goals first: the quota scheme needs them during the run.
  std::vector<std::optional<Baseline>> alone(w.apps.size());
  gpu::QosGoals goals;
  goals.ipc_by_app.resize(w.apps.size());
  for (size_t i = 0; i < w.apps.size(); ++i) {
    if (!w.apps[i].qos_goal) continue;
    std::string error;
    alone[i] = isolated(w.apps[i], alone_config, w, o, error);
    // A goal is a fraction of the isolated IPC: without that run there is no goal.
    if (!alone[i]) throw ApiError(fmt::format("app {}: qos_goal needs its isolated run, but {}", w.apps[i].name, error));
    goals.ipc_by_app[i] = *w.apps[i].qos_goal * alone[i]->ipc();
  }
  // ka-fair's quotas need every app's isolated issue rate.
  std::vector<double> issue_rates;
  const GpuConfig& cfg = config.values();
  if (cfg.sm.warp_scheduler == "ka-fair") {
    for (size_t i = 0; i < w.apps.size(); ++i) {
      std::string error;
      if (!alone[i]) alone[i] = isolated(w.apps[i], alone_config, w, o, error);
      if (!alone[i])
        throw ApiError(fmt::format("app {}: sm.warp_scheduler ka-fair needs its isolated run, but {}", w.apps[i].name,
                                   error));
      double scheduler_cycles = double(std::max<Cycle>(alone[i]->kernel_cycles, 1)) * cfg.gpu.num_sms * cfg.sm.sub_cores;
      issue_rates.push_back(double(alone[i]->warp_insts) / scheduler_cycles);
    }
  }
  RunResult r = simulate(w, config, o, goals, false, issue_rates);
  for (size_t i = 0; i < r.apps.size(); ++i)
    measure(r.apps[i], w.run, r.cycles, r.convergence ? &r.convergence->apps[i] : nullptr);
  if (!o.baselines) return r;
  std::vector<AppTimes> times, cpis;
  // A run that is its own baseline is used and cached rather than simulated again.
  const bool own_run = is_isolated_run(w) && alone_overrides.size() == overrides.size();
  std::optional<Baseline> own = own_run ? measured_alone(r) : std::nullopt;
  if (own) {
    std::optional<BaselineCache> cache = open_cache(o);
    store(cache, baseline_key(w.apps[0], alone_config), *own);
  }
  for (size_t i = 0; i < r.apps.size(); ++i) {
    AppOutcome& a = r.apps[i];
    std::optional<Baseline> b = own;
    if (own_run && !own) a.alone_error = "this run is its isolated run, and it failed";
    else if (!own_run) b = alone[i] ? alone[i] : isolated(w.apps[i], alone_config, w, o, a.alone_error);
    if (!b) continue;
    a.alone = a.by_rate ? b->cycles / double(std::max<uint64_t>(b->warp_insts, 1)) : b->cycles;
    a.alone_kernel_cycles = double(b->kernel_cycles);
    a.alone_event_cycles = b->event_cycles;
    if (a.shared > 0) times.push_back({a.name, a.shared, a.alone});
    a.shared_cpi = kernel_cpi(double(a.busy_cycles), a.thread_insts);
    a.alone_cpi = kernel_cpi(double(b->kernel_cycles), b->thread_insts);
    if (a.shared_cpi > 0 && a.alone_cpi > 0) cpis.push_back({a.name, a.shared_cpi, a.alone_cpi});
  }
  if (times.size() == r.apps.size()) r.metrics = compute_metrics(times);
  if (cpis.size() == r.apps.size()) r.kernel_metrics = compute_metrics(cpis);
  if (r.metrics && r.convergence) set_metric_bounds(*r.convergence, *r.metrics);
  return r;
}

}  // namespace gpumux::multitask
