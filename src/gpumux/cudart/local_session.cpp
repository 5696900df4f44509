// The in-process simulated GPU: one timing device and one context (the
// program is one application). When the program exits it writes the run's
// summary (GPUMUX_SUMMARY), JSON (GPUMUX_JSON) and timeline (GPUMUX_TIMELINE).
// With GPUMUX_PROGRESS=SECONDS (gpumux exec on a terminal sets 0.5) a progress
// line on stderr, redrawn every SECONDS, shows how far a long simulation got.
#include <cxxabi.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpumux/cudart/session.h"
#include "gpumux/exec/address_space.h"
#include "gpumux/exec/builtins/services.h"
#include "gpumux/frontend/copy_engine.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/gpu/progress.h"
#include "gpumux/stats/timeline.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::cudart {

namespace {

constexpr char kDefaultConfig[] = "gtx980";

// "vadd(float const*, float*, int)" for "_Z4vaddPKfPfi"; other names as they are.
std::string demangled(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

// Template-heavy names (Thrust, CUB) run to kilobytes: the text summary keeps their start.
std::string shortened(std::string name) {
  constexpr size_t kMax = 100;
  if (name.size() > kMax) name = name.substr(0, kMax - 3) + "...";
  return name;
}

// Kernels on one track per stream, copies on their own track (core cycles and
// ticks to the trace's microseconds).
void write_timeline(timing::TimingBackend& tb, const char* path) {
  stats::Timeline t;
  const double mhz = tb.gpu().config().clock.core_mhz;
  std::string process = program_invocation_short_name;
  for (const auto& k : tb.kernels()) {
    if (!k.done) continue;
    t.span(t.track(process, frontend::queue_label(k)), demangled(k.name), double(k.activated) / mhz,
           double(k.cycles()) / mhz,
           {{"launch", k.id}, {"tbs", k.tbs}, {"warp_insts", k.warp_insts}, {"fault", bool(k.fault)}});
  }
  for (const frontend::CopyRecord& c : tb.gpu().copy_engine().records()) {
    if (!c.done) continue;
    t.span(t.track(process, "copies"), fmt::format("memcpy {}", frontend::to_string(c.dir)),
           stats::Timeline::us(c.started), stats::Timeline::us(c.finished - c.started), {{"bytes", c.bytes}});
  }
  t.write(path);
}

// GPUMUX_PROGRESS: seconds between redraws of the progress line; none: no line.
std::optional<double> progress_interval_from_env() {
  const char* text = std::getenv("GPUMUX_PROGRESS");
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  double s = std::strtod(text, &end);
  if (*end || !(s >= 0 && s <= 3600)) {
    fmt::print(stderr, "gpumux: error: GPUMUX_PROGRESS: '{}' is not a number of seconds from 0 to 3600\n", text);
    std::exit(2);
  }
  return s;
}

GpuConfig config_from_env() {
  const char* name = std::getenv("GPUMUX_CONFIG");
  try {
    return gpu::load_config(name && *name ? name : kDefaultConfig).values();
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpumux: error: GPUMUX_CONFIG: {}\n", e.what());
    std::exit(2);
  }
}

class LocalSession final : public Session {
 public:
  LocalSession() : config_(config_from_env()), device_(timing::make_device(config_)) {
    ctx_ = &device_->create_context(program_invocation_short_name);
    if (std::optional<double> interval = progress_interval_from_env())
      progress_.emplace(timing::backend_of(*device_).gpu(), stderr, *interval);
  }
  const GpuConfig& config() const override { return config_; }
  const runtime::DeviceLimits& limits() const override { return device_->limits(); }

  Module load_module(const std::string& ptx, const std::string& name) override {
    modules_.push_back(&ctx_->load_module_string(ptx, name));
    return {uint32_t(modules_.size() - 1), modules_.back()};
  }
  runtime::DevPtr symbol(uint32_t module, const std::string& name) override { return modules_.at(module)->symbol(name); }
  runtime::DevPtr malloc(uint64_t bytes) override { return ctx_->malloc(bytes); }
  void free(runtime::DevPtr p) override { ctx_->free(p); }
  bool is_device(runtime::DevPtr p) override { return ctx_->memory().find(p) != nullptr; }
  uint64_t bytes_allocated() override { return ctx_->memory().bytes_allocated(); }
  void write(runtime::DevPtr dst, const void* src, uint64_t n) override { ctx_->memory().write(dst, src, n); }
  void read(runtime::DevPtr src, void* dst, uint64_t n) override { ctx_->memory().read(src, dst, n); }
  void fill(runtime::DevPtr dst, uint8_t value, uint64_t n) override { ctx_->memory().fill(dst, value, n); }
  void transfer(runtime::Transfer t, uint64_t bytes) override { device_->backend().transfer(*ctx_, t, bytes); }
  void paging(const runtime::Paging& p) override { ctx_->paging(p); }
  void launch(uint32_t, const runtime::Kernel& k, runtime::Dim3 grid, runtime::Dim3 block, uint64_t smem,
              runtime::Stream s, const runtime::KernelArgs& args, bool cooperative, runtime::LaunchPath path) override {
    if (cooperative)
      ctx_->launch_cooperative(k, grid, block, smem, s, args, path);
    else
      ctx_->launch(k, grid, block, smem, s, args, path);
  }
  std::vector<uint32_t> device_sms() override { return ctx_->device_sms(); }
  runtime::Stream create_stream(int priority, std::span<const uint32_t> sms) override {
    return ctx_->create_stream(priority, sms);
  }
  runtime::Event create_event() override { return ctx_->create_event(); }
  void record(runtime::Event e, runtime::Stream s) override { ctx_->record(e, s); }
  void synchronize() override { ctx_->synchronize(); }
  void event_synchronize(runtime::Event e) override { ctx_->event_synchronize(e); }
  double event_elapsed_ms(runtime::Event a, runtime::Event b) override { return ctx_->event_elapsed_ms(a, b); }
  uint64_t heap_limit() override { return ctx_->builtin_services().heap_limit; }
  void set_heap_limit(uint64_t bytes) override { ctx_->set_device_heap_limit(bytes); }
  uint64_t malloc_array(const exec::ArrayDesc& d) override { return ctx_->malloc_array(d); }
  void free_array(uint64_t array) override { ctx_->free_array(array); }
  void memcpy_to_array(uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z, const void* src, uint64_t pitch,
                       uint64_t width_bytes, uint32_t height, uint32_t depth) override {
    ctx_->memcpy_to_array(array, x_bytes, y, z, src, pitch, width_bytes, height, depth);
  }
  void memcpy_from_array(void* dst, uint64_t pitch, uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z,
                         uint64_t width_bytes, uint32_t height, uint32_t depth) override {
    ctx_->memcpy_from_array(dst, pitch, array, x_bytes, y, z, width_bytes, height, depth);
  }
  uint64_t create_texture(const exec::TextureResource& r, const exec::TextureDesc& d) override {
    return ctx_->create_texture(r, d);
  }
  void destroy_texture(uint64_t texture) override { ctx_->destroy_texture(texture); }
  uint64_t create_surface(uint64_t array) override { return ctx_->create_surface(array); }
  void destroy_surface(uint64_t surface) override { ctx_->destroy_surface(surface); }
  void host_compute(double ns) override { ctx_->host_compute(ns); }
  void reset() override {
    std::string name = ctx_->name();
    device_->destroy_context(*ctx_);  // waits for the work; a faulted context is what a reset recovers from
    ctx_ = &device_->create_context(name);
    modules_.clear();
  }
  void finish(int status) override;

 private:
  GpuConfig config_;
  std::unique_ptr<runtime::Device> device_;
  runtime::Context* ctx_ = nullptr;
  std::vector<const runtime::Module*> modules_;  // by id
  std::optional<gpu::ProgressLine> progress_;
};

void LocalSession::finish(int) {
  progress_.reset();  // erases the line before the summary
  auto& tb = timing::backend_of(*device_);
  if (const char* path = std::getenv("GPUMUX_TIMELINE"); path && *path) {
    try {
      write_timeline(tb, path);
    } catch (const std::exception& e) {
      fmt::print(stderr, "gpumux: {}\n", e.what());
    }
  }
  const char* summary = std::getenv("GPUMUX_SUMMARY");
  const char* json_path = std::getenv("GPUMUX_JSON");
  if (!(summary && *summary) && !(json_path && *json_path)) return;
  std::optional<nlohmann::json> paging;  // demand paging's totals (docs/virtual-memory.md)
  if (config_.vm.demand_paging) {
    paging.emplace();
    for (const char* s : {"faults", "allocation_faults", "migrated_bytes", "prefetched_bytes", "evictions",
                          "written_back_bytes", "host_migrations"})
      (*paging)[s] = tb.gpu().stats().sum(fmt::format("vm.{}", s));
  }
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : tb.kernels())
    kernels.push_back({{"name", demangled(k.name)}, {"stream", k.stream}, {"tbs", k.tbs}, {"cycles", k.done ? k.cycles() : 0},
                       {"warp_instructions", k.warp_insts}, {"done", k.done}, {"fault", bool(k.fault)}});
  if (summary && *summary) {
    fmt::print(stderr, "gpumux: {} on {} ({} SMs): {} kernel launches, {} busy core cycles, {:.6f} ms simulated, "
               "{} warp instructions\n",
               program_invocation_short_name, config_.gpu.name, config_.gpu.num_sms, tb.kernels().size(),
               tb.busy_cycles(), tb.now_ms(), tb.warp_instructions());
    for (const auto& k : tb.kernels())
      fmt::print(stderr, "gpumux:   {:<10} {:>6} TBs {:>10} cycles  {}{}\n", frontend::queue_label(k), k.tbs,
                 k.done ? k.cycles() : 0, shortened(demangled(k.name)),
                 k.fault ? "  (device fault)" : k.done ? "" : "  (not finished)");
    if (paging)
      fmt::print(stderr,
                 "gpumux:   paging: {} faults ({} allocation-only), {} bytes migrated by faults, {} prefetched, "
                 "{} evictions, {} bytes written back\n",
                 paging->at("faults").get<uint64_t>(), paging->at("allocation_faults").get<uint64_t>(),
                 paging->at("migrated_bytes").get<uint64_t>(), paging->at("prefetched_bytes").get<uint64_t>(),
                 paging->at("evictions").get<uint64_t>(), paging->at("written_back_bytes").get<uint64_t>());
  }
  if (json_path && *json_path) {
    nlohmann::json j = {{"program", program_invocation_short_name}, {"gpu", config_.gpu.name},
                        {"busy_cycles", tb.busy_cycles()}, {"simulated_ms", tb.now_ms()},
                        {"warp_instructions", tb.warp_instructions()}, {"kernels", kernels}};
    if (paging) j["paging"] = *paging;
    std::ofstream f(json_path);
    f << j.dump(2) << "\n";
    if (!f) fmt::print(stderr, "gpumux: cannot write {}\n", json_path);
  }
}

}  // namespace

std::unique_ptr<Session> make_local_session() { return std::make_unique<LocalSession>(); }

}  // namespace gpumux::cudart
