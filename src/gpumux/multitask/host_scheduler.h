// Runs the host programs of several applications concurrently against one
// simulated GPU, in simulated time.
//
// Each program (an application's host driver: allocations, copies, launches,
// synchronizations) runs on its own thread, but only one thread runs at a
// time: a program runs until it blocks in simulated time (a synchronize, a
// copy), then hands control back to the scheduler, which simulates until some
// blocked program may continue. Programs are resumed in a fixed order (lowest
// index first) at the simulated cycle their wait ends, so a run is a pure
// function of its inputs, whatever the host's thread timing.
//
// It is also the device's host clock: host CPU time (Context::host_compute
// and CPU gaps) blocks a program until that simulated time has passed, while
// the GPU and the other programs run on (each program has its own CPU).
//
//   HostScheduler hs(gpu);
//   timing_backend.set_waiter(&hs);
//   hs.spawn("app0", 0, [&] { run_workload(...); });
//   device.set_host_clock(&hs);
//   hs.spawn("app1", 5000, [&] { ... });   // arrives at core cycle 5000
//   hs.run();
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpumux/gpu/gpu.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::multitask {

class HostScheduler : public timing::HostWaiter, public runtime::HostClock {
 public:
  using Program = std::function<void()>;

  explicit HostScheduler(gpu::Gpu& gpu);
  ~HostScheduler() override;
  HostScheduler(const HostScheduler&) = delete;
  HostScheduler& operator=(const HostScheduler&) = delete;

  // Adds a program that starts at core cycle `start`. Before run() only.
  void spawn(std::string name, Cycle start, Program program);
  // Runs programs and the simulation until every program has returned, a
  // program called request_stop(), or core cycle `stop_at` is reached;
  // programs still running then are abandoned (unwound, their waits never
  // return). Rethrows an exception escaping a program or the simulation.
  void run(Cycle stop_at = kNever);
  // From a program: blocks in simulated time until ready() holds.
  void wait_until(const std::function<bool()>& ready) override;
  // From a program: blocks for `ps` picoseconds of simulated time, rounded up
  // to the next core cycle edge.
  void spend(uint64_t ps) override;
  // From a program or a component: end the run when this program next blocks
  // or returns, or when the engine next stops.
  void request_stop() { stop_requested_ = true; }
  // Called before each stretch of simulation (e.g. to wake a sampler that
  // sleeps while the engine is idle). Before run() only.
  void before_simulating(std::function<void()> f) { before_simulating_ = std::move(f); }
  bool stopped_early() const { return stopped_early_; }
  Cycle now() const { return gpu_.core_cycle(); }

 private:
  enum class State : uint8_t { NotStarted, Running, Waiting, Finished };
  struct Task {
    std::string name;
    Cycle start = 0;
    Program program;
    State state = State::NotStarted;
    std::function<bool()> ready;
    Cycle wake = kNever;  // waiting for this core cycle (spend), not for the GPU
    bool abandon = false;
    std::exception_ptr error;
    std::thread thread;
  };
  // Thrown in an abandoned program's thread to unwind it; deliberately not a
  // std::exception so that programs' own handlers do not catch it.
  struct Abandoned {};

  void thread_main(Task& t, size_t index);
  void resume(size_t index);  // scheduler side: run task `index` until it blocks or ends
  void yield(size_t index);   // task side: give control back, wait for the next turn
  bool runnable(const Task& t) const;
  void abandon_all();
  std::string describe_tasks() const;

  gpu::Gpu& gpu_;
  std::unique_ptr<Component> alarm_;  // stops the engine at program start cycles
  std::vector<std::unique_ptr<Task>> tasks_;
  std::mutex mutex_;
  std::condition_variable cv_;
  static constexpr size_t kScheduler = ~size_t{0};
  size_t turn_ = kScheduler;
  size_t current_ = kScheduler;
  bool stop_requested_ = false, stopped_early_ = false;
  std::function<void()> before_simulating_;
};

}  // namespace gpumux::multitask
