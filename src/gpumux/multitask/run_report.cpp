// What a multiprogrammed run reports: its text summary (`gpumux run`'s
// output) and its JSON (`--json`, a study's run.json).
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "gpumux/multitask/event_report.h"
#include "gpumux/multitask/runner.h"

namespace gpumux::multitask {
namespace {

// A time as the summary table shows it: whole cycles, or cycles per warp instruction.
std::string time_text(double t, bool by_rate) { return by_rate ? fmt::format("{:.4f}", t) : fmt::format("{:.0f}", t); }

}  // namespace

std::string format_summary(const RunResult& r) {
  std::string s = fmt::format("gpumux: {} application(s) on {} under {}: {} core cycles, {} warp instructions, "
                              "{:.2f} host s{}\n",
                              r.apps.size(), r.gpu, r.policy, r.cycles, r.warp_insts, r.host_seconds,
                              r.stopped_by_limit ? " (stopped at the cycle limit)" : "");
  s += fmt::format("{:<3} {:<14} {:<12} {:>5} {:>4} {:>12} {:>12} {:>7}  {}\n", "app", "name", "benchmark", "prio",
                   "runs", "cycles", "alone", "NTT", "check");
  for (size_t i = 0; i < r.apps.size(); ++i) {
    const AppOutcome& a = r.apps[i];
    std::string ntt = "-";
    if (r.metrics) ntt = fmt::format("{:.3f}", r.metrics->apps[i].ntt);
    std::string check = !a.error.empty() ? "FAIL: " + a.error
                        : a.runs.empty() ? (r.convergence ? "no run completed (measured by rate)" : "incomplete (cycle limit)")
                                         : "PASS";
    std::string unit = a.by_rate ? " cyc/inst" : "";
    std::string alone = !a.alone_error.empty() ? "n/a" : a.alone > 0 ? time_text(a.alone, a.by_rate) : "-";
    s += fmt::format("{:<3} {:<14} {:<12} {:>5} {:>4} {:>12} {:>12} {:>7}  {}{}\n", i, a.name, a.benchmark,
                     a.priority, a.runs.size(), time_text(a.shared, a.by_rate), alone, ntt, check, unit);
  }
  for (size_t i = 0; i < r.apps.size(); ++i)
    if (!r.apps[i].alone_error.empty())
      s += fmt::format("app {} has no baseline, so no NTT, STP, ANTT or fairness: {}\n", i, r.apps[i].alone_error);
  if (r.metrics)
    s += fmt::format("STP {:.3f}   ANTT {:.3f}   fairness {:.3f}\n", r.metrics->stp, r.metrics->antt,
                     r.metrics->fairness);
  if (r.kernel_metrics)
    s += fmt::format("on kernel CPI: STP {:.3f}   ANTT {:.3f}   fairness {:.3f}\n", r.kernel_metrics->stp,
                     r.kernel_metrics->antt, r.kernel_metrics->fairness);
  for (const KernelQos& q : r.qos)
    s += fmt::format("QoS{}: launch {} {}: IPC {:.2f} of goal {:.2f} thread insts/cycle ({:.1f}%), {}\n",
                     r.quota_scheme.empty() ? "" : " (" + r.quota_scheme + ")", q.launch, q.label, q.ipc,
                     q.goal_ipc, 100 * q.ratio(), q.reached() ? "reached" : "missed");
  if (!r.preemptions.empty()) {
    uint64_t drained = 0, switched = 0, flushed = 0, bytes = 0, done = 0;
    Cycle latency = 0, worst = 0;
    for (const frontend::PreemptionRecord& p : r.preemptions) {
      drained += p.drained;
      switched += p.switched;
      flushed += p.flushed;
      bytes += p.bytes_saved;
      if (!p.done()) continue;
      ++done;
      latency += p.latency();
      worst = std::max(worst, p.latency());
    }
    s += fmt::format("preemptions ({}): {} requests, TBs drained {} / switched {} / flushed {}, {:.1f} KB saved, "
                     "latency mean {:.0f} max {} cycles\n",
                     r.preemptions.front().mechanism, r.preemptions.size(), drained, switched, flushed,
                     double(bytes) / 1024, done ? double(latency) / double(done) : 0.0, worst);
  }
  s += events_summary(r.events);
  if (r.convergence) s += format_convergence(*r.convergence);
  return s;
}

nlohmann::json to_json(const RunResult& r) {
  using nlohmann::json;
  json apps = json::array();
  for (size_t i = 0; i < r.apps.size(); ++i) {
    const AppOutcome& a = r.apps[i];
    json runs = json::array();
    for (const AppRun& run : a.runs)
      runs.push_back({{"start", run.start}, {"end", run.end}, {"cycles", run.cycles()}, {"passed", run.passed},
                      {"detail", run.detail}});
    apps.push_back({{"name", a.name}, {"benchmark", a.benchmark}, {"size", a.size}, {"arrival_cycle", a.arrival},
                    {"priority", a.priority}, {"runs", runs}, {"error", a.error}, {"warp_insts", a.warp_insts},
                    {"thread_insts", a.thread_insts},
                    {"shared", a.shared}, {"alone", a.alone_error.empty() ? json(a.alone) : json(nullptr)},
                    {"alone_error", a.alone_error}, {"unit", a.by_rate ? "cycles/warp_inst" : "cycles"},
                    {"first_run_kernel_cycles",
                     a.runs.empty() ? 0 : kernel_busy_cycles(r.kernels, uint32_t(i), a.runs[0])},
                    {"alone_kernel_cycles", a.alone_kernel_cycles}, {"alone_event_cycles", a.alone_event_cycles},
                    {"busy_cycles", a.busy_cycles}, {"shared_cpi", a.shared_cpi}, {"alone_cpi", a.alone_cpi}});
  }
  json kernels = json::array();
  for (const frontend::KernelRecord& k : r.kernels)
    kernels.push_back({{"launch", k.id}, {"app", k.app}, {"stream", k.stream}, {"priority", k.priority},
                       {"name", k.name}, {"label", k.label}, {"tbs", k.tbs}, {"warp_insts", k.warp_insts},
                       {"enqueued", k.enqueued}, {"activated", k.activated}, {"first_tb", k.first_tb},
                       {"finished", k.finished}, {"done", k.done}, {"fault", bool(k.fault)},
                       {"response_cycles", k.done ? k.finished - k.enqueued : 0}, {"ipc", k.ipc()},
                       {"tbs_preempted", k.tbs_preempted}, {"tb_cycles", k.tb_cycles},
                       {"sm_save_cycles", k.sm_save_cycles}, {"shared_bytes", k.shared_bytes}});
  json copies = json::array();
  for (const frontend::CopyRecord& c : r.copies)
    copies.push_back({{"app", c.app}, {"dir", frontend::to_string(c.dir)}, {"bytes", c.bytes},
                      {"submitted_ps", c.submitted}, {"started_ps", c.started}, {"finished_ps", c.finished},
                      {"engine", c.engine}, {"done", c.done}});
  json preemptions = json::array();
  for (const frontend::PreemptionRecord& p : r.preemptions)
    preemptions.push_back({{"sm", p.sm}, {"launch", p.kernel}, {"app", p.app}, {"label", p.label},
                           {"mechanism", p.mechanism}, {"requested", p.requested}, {"freed", p.freed},
                           {"latency_cycles", p.done() ? p.latency() : 0}, {"done", p.done()}, {"tbs", p.tbs},
                           {"drained", p.drained}, {"switched", p.switched}, {"flushed", p.flushed},
                           {"bytes_saved", p.bytes_saved}, {"insts_discarded", p.insts_discarded},
                           {"escalated", p.escalated}});
  json qos = json::array();
  for (const KernelQos& q : r.qos)
    qos.push_back({{"launch", q.launch}, {"app", q.app}, {"label", q.label}, {"goal_ipc", q.goal_ipc},
                   {"ipc", q.ipc}, {"cycles", q.cycles}, {"ratio", q.ratio()}, {"reached", q.reached()}});
  json out = {{"gpu", r.gpu},         {"policy", r.policy},   {"cycles", r.cycles},
              {"warp_insts", r.warp_insts}, {"host_seconds", r.host_seconds},
              {"host_cpu_seconds", r.host_cpu_seconds},
              {"stopped_by_limit", r.stopped_by_limit}, {"apps", apps}, {"kernels", kernels},
              {"copies", copies}, {"preemptions", preemptions}, {"statistics", r.stats},
              {"quota_scheme", r.quota_scheme}, {"qos", qos}, {"events", events_json(r.events)}};
  out["metrics"] = r.metrics ? to_json(*r.metrics) : json(nullptr);
  out["kernel_metrics"] = r.kernel_metrics ? to_json(*r.kernel_metrics) : json(nullptr);
  out["ipc_windows"] = r.ipc_windows ? to_json(*r.ipc_windows) : json(nullptr);
  out["convergence"] = r.convergence ? to_json(*r.convergence) : json(nullptr);
  return out;
}

nlohmann::json to_json(RunResult&& r) {
  nlohmann::json stats = std::move(r.stats);
  r.stats = nullptr;
  nlohmann::json out = to_json(std::as_const(r));
  out["statistics"] = std::move(stats);
  return out;
}

}  // namespace gpumux::multitask
