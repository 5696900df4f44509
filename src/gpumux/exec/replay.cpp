#include "gpumux/exec/replay.h"

#include "gpumux/exec/loaded_module.h"
#include "gpumux/exec/thread_block.h"
#include "gpumux/exec/warp.h"

namespace gpumux::exec {

namespace {

// The hidden state's lanes (ReplayKernel::state_reg).
enum : unsigned { kNextLine = 0, kLiveLanes = 1, kStream = 2 };

const ReplayKernel& replay_of(const Warp& w) { return *w.tb().launch().module->replay(); }

// Lanes that execute `line`: its mask, or every live lane for a line no lane
// executed (all predicated off), whose issue the SM still times.
uint32_t issue_lanes(const ReplayLine& line, uint32_t live) {
  const uint32_t m = line.mask & live;
  return m ? m : live;
}

// Moves the warp to the line after the current one; past its last line, its
// remaining lanes exit.
void advance(Warp& w, const ReplayKernel& r, uint64_t* state) {
  const uint32_t live = uint32_t(state[kLiveLanes]);
  if (!live) return;  // every lane exited: the warp ends after this step
  const std::vector<ReplayLine>& stream = r.streams[state[kStream]];
  const uint64_t next = state[kNextLine] + 1;
  if (next >= stream.size()) {
    state[kLiveLanes] = 0;
    w.exit_lanes(live);
    return;
  }
  state[kNextLine] = next;
  w.replay_at(stream[next].pc, issue_lanes(stream[next], live));
}

const ReplayLine& current(const ReplayKernel& r, const uint64_t* state) {
  return r.streams[state[kStream]][state[kNextLine]];
}

uint64_t* state_of(StepContext& c, const ReplayKernel& r) { return c.regs + size_t(r.state_reg) * kWarpSize; }

void replay_work(StepContext& c, const ptx::Instruction&) {
  Warp& w = *c.warp;
  const ReplayKernel& r = replay_of(w);
  uint64_t* state = state_of(c, r);
  const ReplayLine& line = current(r, state);
  if (line.space != ptx::Space::None && line.mask && w.recording()) {
    MemAccess& a = w.access();
    a.space = line.space;
    a.is_store = line.flags & ReplayLine::kStore;
    a.is_atomic = line.flags & ReplayLine::kAtomic;
    a.bytes = line.bytes;
    a.mask = line.mask;
    uint32_t k = line.addr;
    for_each_lane(line.mask, [&](unsigned lane) { a.addr[lane] = r.addrs[k++]; });
  }
  advance(w, r, state);
}

// Every live thread of the warp arrives, whatever the line's mask: the
// TB's barrier counts the threads that have not exited.
void replay_barrier(StepContext& c, const ptx::Instruction& in) {
  Warp& w = *c.warp;
  const ReplayKernel& r = replay_of(w);
  uint64_t* state = state_of(c, r);
  w.tb().arrive(w, 0, 0, uint32_t(state[kLiveLanes]), in.bar != ptx::BarKind::Arrive, nullptr, 0);
  advance(w, r, state);
}

void replay_exit(StepContext& c, const ptx::Instruction&) {
  Warp& w = *c.warp;
  const ReplayKernel& r = replay_of(w);
  uint64_t* state = state_of(c, r);
  const uint32_t live = uint32_t(state[kLiveLanes]);
  const uint32_t leaving = current(r, state).mask & live;
  state[kLiveLanes] = live & ~leaving;
  if (leaving) w.exit_lanes(leaving);
  advance(w, r, state);
}

}  // namespace

bool ReplayKernel::start(Warp& w) const {
  const Dim c = w.tb().ctaid(), g = w.tb().launch().grid;
  const uint64_t tb = c[0] + uint64_t(g[0]) * (c[1] + uint64_t(g[1]) * c[2]);
  const uint64_t s = tb * warps_per_tb + w.index();
  if (s >= streams.size() || streams[s].empty()) return false;
  const uint32_t live = w.active_mask();
  uint64_t* state = w.register_lanes(state_reg);
  state[kStream] = s;
  state[kNextLine] = 0;
  state[kLiveLanes] = live;
  w.replay_at(streams[s][0].pc, issue_lanes(streams[s][0], live));
  return true;
}

ptx::ExecHandler replay_handler(const ptx::Instruction& in) {
  switch (in.op) {
    case ptx::Opcode::Bar: return &replay_barrier;
    case ptx::Opcode::Exit: return &replay_exit;
    default: return &replay_work;
  }
}

}  // namespace gpumux::exec
