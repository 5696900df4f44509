#include "gpumux/multitask/host_scheduler.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpumux::multitask {

namespace {

// Ends Engine::run() at a program's start cycle, so the scheduler can start it.
class Alarm : public Component {
 public:
  Alarm(Engine& e, DomainId d) : Component(e, d, "host-programs") {}
  void set(Cycle c) { wake_at(engine().clock(domain()).tick_of(c)); }
  Cycle tick(Cycle) override {
    engine().stop();
    return kNever;
  }
  std::string describe_wait() const override { return ""; }
};

}  // namespace

HostScheduler::HostScheduler(gpu::Gpu& gpu)
    : gpu_(gpu), alarm_(std::make_unique<Alarm>(gpu.engine(), gpu.clocks().core)) {}

HostScheduler::~HostScheduler() {
  abandon_all();
  for (auto& t : tasks_)
    if (t->thread.joinable()) t->thread.join();
}

void HostScheduler::spawn(std::string name, Cycle start, Program program) {
  auto t = std::make_unique<Task>();
  t->name = std::move(name);
  t->start = start;
  t->program = std::move(program);
  size_t index = tasks_.size();
  Task& task = *t;
  tasks_.push_back(std::move(t));
  // The thread gets its Task by reference, not through tasks_: a later spawn may
  // reallocate the vector while this thread starts.
  task.thread = std::thread([this, &task, index] { thread_main(task, index); });
}

void HostScheduler::thread_main(Task& t, size_t index) {
  {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return turn_ == index; });
  }
  if (!t.abandon) {
    try {
      t.program();
    } catch (const Abandoned&) {
    } catch (...) {
      t.error = std::current_exception();
    }
  }
  std::lock_guard lock(mutex_);
  t.state = State::Finished;
  turn_ = kScheduler;
  cv_.notify_all();
}

void HostScheduler::resume(size_t index) {
  Task& t = *tasks_[index];
  current_ = index;
  if (t.state != State::Finished) t.state = State::Running;
  std::unique_lock lock(mutex_);
  turn_ = index;
  cv_.notify_all();
  cv_.wait(lock, [&] { return turn_ == kScheduler; });
  current_ = kScheduler;
}

void HostScheduler::yield(size_t index) {
  std::unique_lock lock(mutex_);
  turn_ = kScheduler;
  cv_.notify_all();
  cv_.wait(lock, [&] { return turn_ == index; });
}

void HostScheduler::wait_until(const std::function<bool()>& ready) {
  if (current_ == kScheduler) throw std::logic_error("HostScheduler::wait_until called outside a host program");
  size_t index = current_;
  Task& t = *tasks_[index];
  if (t.abandon) throw Abandoned{};
  if (ready()) return;
  t.ready = ready;
  t.state = State::Waiting;
  yield(index);
  t.ready = nullptr;
  if (t.abandon) throw Abandoned{};
}

void HostScheduler::spend(uint64_t ps) {
  if (current_ == kScheduler) throw std::logic_error("HostScheduler::spend called outside a host program");
  Task& t = *tasks_[current_];
  const Engine& engine = gpu_.engine();
  Cycle until = engine.clock(gpu_.clocks().core).cycle_at_or_after(engine.now() + ps);
  t.wake = until;
  wait_until([this, until] { return now() >= until; });
  t.wake = kNever;
}

bool HostScheduler::runnable(const Task& t) const {
  switch (t.state) {
    case State::NotStarted:
      return t.start <= now();
    case State::Waiting:
      return t.ready();
    default:
      return false;
  }
}

void HostScheduler::abandon_all() {
  for (size_t i = 0; i < tasks_.size(); ++i) {
    Task& t = *tasks_[i];
    if (t.state == State::Finished) continue;
    t.abandon = true;
    resume(i);
  }
}

std::string HostScheduler::describe_tasks() const {
  std::string s;
  for (const auto& t : tasks_) {
    const char* st = t->state == State::NotStarted ? "not started"
                     : t->wake != kNever            ? "computing on the host"
                     : t->state == State::Waiting  ? "waiting for the GPU"
                     : t->state == State::Running  ? "running"
                                                   : "finished";
    s += fmt::format("  host program {}: {}\n", t->name, st);
  }
  return s;
}

void HostScheduler::run(Cycle stop_at) {
  Engine& engine = gpu_.engine();
  try {
    for (;;) {
      // Resume the first program that may continue; rescan from the start
      // after each, so that the order never depends on thread timing.
      size_t pick = kScheduler;
      for (size_t i = 0; i < tasks_.size() && !stop_requested_ && pick == kScheduler; ++i)
        if (runnable(*tasks_[i])) pick = i;
      if (pick != kScheduler) {
        resume(pick);
        if (tasks_[pick]->error) std::rethrow_exception(tasks_[pick]->error);
        continue;
      }
      if (std::all_of(tasks_.begin(), tasks_.end(), [](const auto& t) { return t->state == State::Finished; }))
        return;
      if (stop_requested_ || now() >= stop_at) {
        stopped_early_ = true;
        abandon_all();
        return;
      }
      // Simulate until a kernel or copy completes (they stop the engine), or
      // the next program start, the end of a program's host CPU time or the
      // cycle limit.
      Cycle wake = stop_at;
      for (const auto& t : tasks_) {
        if (t->state == State::NotStarted) wake = std::min(wake, t->start);
        if (t->state == State::Waiting) wake = std::min(wake, t->wake);
      }
      if (wake != kNever) static_cast<Alarm&>(*alarm_).set(wake);
      if (before_simulating_) before_simulating_();
      engine.run();
      if (engine.idle() && std::none_of(tasks_.begin(), tasks_.end(), [&](const auto& t) { return runnable(*t); }))
        throw gpu::SimulationError(fmt::format(
            "host programs wait for GPU work that can never complete (core cycle {})\n{}{}", now(),
            describe_tasks(), gpu_.report()));
    }
  } catch (...) {
    abandon_all();
    throw;
  }
}

}  // namespace gpumux::multitask
