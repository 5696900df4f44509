#include "gpumux/exec/warp.h"

#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/core/popcount.h"
#include "gpumux/exec/address_space.h"
#include "gpumux/exec/loaded_module.h"
#include "gpumux/exec/replay.h"
#include "gpumux/exec/thread_block.h"

namespace gpumux::exec {

namespace {
constexpr uint32_t kNoPc = 0xffffffffu;
}  // namespace

Warp::Warp(ThreadBlock& tb, uint32_t index, uint32_t valid_lanes) : tb_(&tb), index_(index) {
  const GridLaunch& l = tb.launch();
  const ptx::Function& fn = l.module->exec_function(l.kernel);
  const FrameLayout& fl = l.module->frame(l.kernel);
  frames_.reserve(4);
  simt_.reserve(16);
  frames_.push_back(Frame{l.kernel, 0, 0, 0, 0, 0, 0, 0, 0, 0, &fn});
  regs_.assign(size_t(fn.num_regs) * kWarpSize, 0);
  preds_.assign(fn.num_preds, 0);
  grow_per_thread(local_, local_stride_, fl.local_bytes, "local memory");
  grow_per_thread(params_, param_stride_, fl.param_bytes, "parameter space");
  local_top_ = uint32_t(fl.local_bytes);
  param_top_ = uint32_t(fl.param_bytes);
  simt_.push_back(SimtEntry{0, kNoPc, valid_lanes});
  if (!valid_lanes) state_ = WarpState::Exited;
  else if (const ReplayKernel* r = l.module->replay(); r && !r->start(*this)) {
    exit_lanes(valid_lanes);  // nothing recorded: its threads never run
    state_ = WarpState::Exited;
  }
}

const ptx::Instruction& Warp::next_instruction() const {
  return tb_->launch().module->function(frames_.back().fn).insts[simt_.back().pc];
}

uint32_t Warp::guard_true_mask(const ptx::Instruction& in) const {
  uint32_t p = preds_[frames_.back().pred_base + in.guard];
  return in.guard_neg ? ~p : p;
}

const ptx::Instruction& Warp::step() {
  Frame& f = frames_.back();
  SimtEntry& e = simt_.back();
  const LoadedModule& mod = *tb_->launch().module;
  const uint32_t pc = e.pc;
  const ptx::Instruction& in = mod.function(f.fn).insts[pc];
  uint32_t mask = e.mask;
  if (in.guard != ptx::kNoReg) mask &= guard_true_mask(in);
  ++e.pc;  // fall through unless the handler transfers control
  ++executed_;
  mem_.mask = 0;
  if (mask || in.op == ptx::Opcode::Bra) {
    StepContext c;
    c.warp = this;
    c.mask = mask;
    c.regs = regs_.data() + size_t(f.slot_base) * kWarpSize;
    c.preds = preds_.data() + f.pred_base;
    in.handler(c, f.code->insts[pc]);  // its registers as storage slots
  }
  pop_reconverged();
  return in;
}

void Warp::pop_reconverged() {
  for (;;) {
    if (simt_.size() > frames_.back().simt_base) {
      const SimtEntry& top = simt_.back();
      if (top.mask && top.pc != top.rpc) return;
      simt_.pop_back();
      continue;
    }
    // The frame's stack is empty: every lane returned (or exited).
    if (frames_.size() == 1) {
      state_ = WarpState::Exited;
      simt_.push_back(SimtEntry{0, kNoPc, 0});  // keeps pc()/active_mask() valid
      return;
    }
    Frame callee = frames_.back();
    frames_.pop_back();
    const Frame& caller = frames_.back();
    const LoadedModule& mod = *tb_->launch().module;
    const ptx::Instruction& call = mod.function(caller.fn).insts[callee.call_pc];
    const FrameLayout& cl = mod.frame(callee.fn);
    const FrameLayout& rl = mod.frame(caller.fn);
    // Copy return values into the caller's call-block .param variables.
    for (size_t i = 0; i < call.call_rets.size() && i < cl.ret_offset.size(); ++i) {
      const ptx::Param& r = mod.function(callee.fn).rets[i];
      uint64_t dst = caller.param_base + rl.local_var_offset[call.call_rets[i].sym];
      uint64_t src = callee.param_base + cl.ret_offset[i];
      for_each_lane(callee.returned, [&](unsigned lane) {
        std::memcpy(param_ptr(lane, dst, r.size), param_ptr(lane, src, r.size), r.size);
      });
    }
    regs_.resize(size_t(callee.slot_base) * kWarpSize);
    preds_.resize(callee.pred_base);
    local_top_ = callee.local_base;
    param_top_ = callee.param_base;
  }
}

void Warp::branch(uint32_t taken, uint32_t target, uint32_t reconv) {
  SimtEntry& e = simt_.back();
  uint32_t active = e.mask;
  taken &= active;
  if (taken == active) {
    e.pc = target;
    return;
  }
  if (!taken) return;  // e.pc already points past the branch
  uint32_t fallthrough = e.pc;
  e.pc = reconv;  // this entry waits at the reconvergence point with the full mask
  simt_.push_back(SimtEntry{fallthrough, reconv, active & ~taken});
  simt_.push_back(SimtEntry{target, reconv, taken});
}

void Warp::defer_call(uint32_t later) {
  // The current entry waits past the call with every lane; above it, the
  // deferred lanes re-execute the call once the calling lanes' placeholder
  // (at its reconvergence point, popped when their callee returns) is gone.
  const SimtEntry e = simt_.back();
  simt_.push_back(SimtEntry{e.pc - 1, e.pc, later});
  simt_.push_back(SimtEntry{e.pc, e.pc, e.mask & ~later});
}

void Warp::call(const ptx::Instruction& in, uint32_t mask, uint32_t callee) {
  const LoadedModule& mod = *tb_->launch().module;
  const ptx::Function& fn = mod.exec_function(callee);
  const FrameLayout& cl = mod.frame(callee);
  const Frame caller = frames_.back();
  const FrameLayout& rl = mod.frame(caller.fn);
  Frame f;
  f.fn = callee;
  f.code = &fn;
  f.ret_pc = simt_.back().pc;
  f.call_pc = f.ret_pc - 1;
  f.simt_base = uint32_t(simt_.size());
  f.reg_base = caller.reg_base + mod.function(caller.fn).num_regs;
  f.slot_base = uint32_t(regs_.size() / kWarpSize);
  f.pred_base = uint32_t(preds_.size());
  f.local_base = local_top_;
  f.param_base = param_top_;
  if (frames_.size() >= 1024) fault("call stack overflow (recursion deeper than 1024)", {});
  grow_per_thread(local_, local_stride_, uint64_t(local_top_) + cl.local_bytes, "local memory");
  grow_per_thread(params_, param_stride_, uint64_t(param_top_) + cl.param_bytes,
                  "parameter space");
  local_top_ += uint32_t(cl.local_bytes);
  param_top_ += uint32_t(cl.param_bytes);
  regs_.resize(regs_.size() + size_t(fn.num_regs) * kWarpSize, 0);
  preds_.resize(preds_.size() + fn.num_preds, 0);
  // Copy arguments from the caller's call-block .param variables.
  for (size_t i = 0; i < in.call_args.size() && i < fn.params.size(); ++i) {
    const ptx::Operand& a = in.call_args[i];
    uint64_t size = fn.params[i].size;
    uint64_t dst = f.param_base + cl.param_offset[i];
    if (a.kind == ptx::OperandKind::Symbol && a.scope == ptx::SymScope::Local) {
      uint64_t src = caller.param_base + rl.local_var_offset[a.sym];
      for_each_lane(mask, [&](unsigned lane) {
        std::memcpy(param_ptr(lane, dst, size), param_ptr(lane, src, size), size);
      });
    } else {  // a register or immediate argument
      StepContext c;
      c.warp = this;
      c.regs = regs_.data() + size_t(caller.slot_base) * kWarpSize;
      c.preds = preds_.data() + caller.pred_base;
      for_each_lane(mask, [&](unsigned lane) {
        uint64_t v = c.src(a, lane);
        std::memcpy(param_ptr(lane, dst, size), &v, std::min<uint64_t>(size, 8));
      });
    }
  }
  frames_.push_back(f);
  simt_.push_back(SimtEntry{0, kNoPc, mask});
}

void Warp::ret(uint32_t mask) {
  if (frames_.size() == 1) return exit_lanes(mask);
  frames_.back().returned |= mask;
  for (size_t i = frames_.back().simt_base; i < simt_.size(); ++i) simt_[i].mask &= ~mask;
}

void Warp::exit_lanes(uint32_t mask) {
  remove_lanes(mask, 0);
  tb_->on_lanes_exited(uint32_t(gpumux::popcount(mask)));
}

void Warp::remove_lanes(uint32_t mask, size_t from_frame) {
  for (size_t i = frames_[from_frame].simt_base; i < simt_.size(); ++i) simt_[i].mask &= ~mask;
  for (size_t i = from_frame; i < frames_.size(); ++i) frames_[i].returned &= ~mask;
}

void Warp::grow_per_thread(std::vector<uint8_t>& buf, uint32_t& stride, uint64_t need,
                           const char* what) {
  if (need <= stride) return;
  uint64_t limit = tb_->launch().max_local_per_thread;
  if (need > limit)
    fault(fmt::format("{} overflow: a thread needs {} bytes, the limit is {}", what, need, limit),
          {});
  uint64_t ns = std::max<uint64_t>(need, std::min<uint64_t>(limit, uint64_t(stride) * 2));
  ns = (ns + 15) & ~uint64_t(15);
  std::vector<uint8_t> nb(ns * kWarpSize, 0);
  for (unsigned lane = 0; lane < kWarpSize && stride; ++lane)
    std::memcpy(&nb[lane * ns], &buf[lane * size_t(stride)], stride);
  buf.swap(nb);
  stride = uint32_t(ns);
}

uint8_t* Warp::local_ptr(unsigned lane, uint64_t offset, uint64_t bytes) {
  if (offset + bytes > local_top_ || offset + bytes < offset) return nullptr;
  return &local_[lane * size_t(local_stride_) + offset];
}

uint8_t* Warp::param_ptr(unsigned lane, uint64_t offset, uint64_t bytes) {
  if (offset + bytes > param_stride_ || offset + bytes < offset) return nullptr;
  return &params_[lane * size_t(param_stride_) + offset];
}

void Warp::release_from_barrier(uint32_t reduction) {
  state_ = WarpState::Ready;
  if (!pending_red_) return;
  const ptx::Operand& d = pending_red_->ops[0];
  const Frame& f = frames_.back();
  if (d.kind == ptx::OperandKind::Pred) {
    uint32_t& p = preds_[f.pred_base + d.reg];
    p = reduction ? (p | pending_red_lanes_) : (p & ~pending_red_lanes_);
  } else if (d.kind == ptx::OperandKind::Reg) {
    uint64_t* r = regs_.data() + (size_t(f.slot_base) + d.reg) * kWarpSize;
    for_each_lane(pending_red_lanes_, [&](unsigned lane) { r[lane] = reduction; });
  }
  pending_red_ = nullptr;
}

uint64_t Warp::clock() const {
  const uint64_t* cycles = tb_->clock_source();
  return cycles ? *cycles : executed_;
}

void Warp::fault(const std::string& reason, std::optional<unsigned> lane) const {
  const GridLaunch& l = tb_->launch();
  const ptx::Module& m = l.module->ir();
  const Frame& f = frames_.back();
  const ptx::Function& fn = m.functions[f.fn];
  // step() advanced pc before running the handler; report the instruction itself.
  uint32_t pc = simt_.empty() ? 0 : simt_.back().pc;
  if (pc > 0 && pc <= fn.insts.size()) --pc;
  FaultSite s;
  s.kernel = l.function().name;
  s.tb_x = tb_->ctaid()[0];
  s.tb_y = tb_->ctaid()[1];
  s.tb_z = tb_->ctaid()[2];
  s.warp = index_;
  s.lane = lane;
  s.pc = pc;
  s.function = fn.name;
  if (pc < fn.insts.size()) {
    const ptx::Instruction& in = fn.insts[pc];
    s.ptx = m.loc(in.line);
    if (in.src_line && in.src_file < m.files.size())
      s.source = SourceLoc{m.files[in.src_file], in.src_line};
  }
  throw DeviceFault(reason, s);
}

// ---- StepContext out-of-line parts ----

void StepContext::fault(const std::string& reason, std::optional<unsigned> lane) const {
  if (!warp) throw DeviceFault(reason, FaultSite{});
  warp->fault(reason, lane);
}

namespace {

uint64_t special_value(const Warp& w, const ptx::Operand& o, unsigned lane) {
  const ThreadBlock& tb = w.tb();
  const GridLaunch& l = tb.launch();
  using S = ptx::SpecialReg;
  unsigned c = o.comp < 3 ? o.comp : 0;
  // Where the layout put the reserved region (present whenever the kernel reads these registers).
  auto reserved = [&] { return l.module->kernel(l.kernel).shared.reserved_offset; };
  switch (o.sreg) {
    case S::Tid: {
      uint32_t t = w.thread_linear(lane);
      uint32_t x = t % l.block[0], y = (t / l.block[0]) % l.block[1],
               z = t / (l.block[0] * l.block[1]);
      return c == 0 ? x : c == 1 ? y : z;
    }
    case S::Ntid: return l.block[c];
    case S::Ctaid: return tb.ctaid()[c];
    case S::Nctaid: return l.grid[c];
    case S::Laneid: return lane;
    case S::Warpid: return w.index();
    case S::Nwarpid: return l.warps_per_tb();
    case S::Smid: return tb.smid();
    case S::Nsmid: return l.num_sms;
    case S::Gridid: return l.grid_id;
    case S::Clock:
    case S::Clock64:
    case S::Globaltimer:
    case S::GlobaltimerLo: return w.clock();  // read as .u32, the low half
    case S::ClockHi:
    case S::GlobaltimerHi: return w.clock() >> 32;
    case S::LanemaskEq: return 1u << lane;
    case S::LanemaskLt: return (1u << lane) - 1;
    case S::LanemaskLe: return (2ull << lane) - 1;
    case S::LanemaskGt: return ~((2ull << lane) - 1) & 0xffffffffu;
    case S::LanemaskGe: return ~((1u << lane) - 1);
    case S::Envreg: return o.comp == 1 ? l.grid_sync >> 32 : o.comp == 2 ? l.grid_sync & 0xffffffffu : 0;
    case S::Pm:
    case S::Pm64:
    case S::CurrentGraphExec: return 0;
    case S::DynamicSmemSize: return l.dyn_smem;
    case S::TotalSmemSize:  // the user's static and dynamic shared memory, without the reserved region
      return tb.shared().size() - (reserved() == ptx::kNoSharedOffset ? 0 : ptx::kReservedSmemBytes);
    case S::ReservedSmemBegin: return reserved();
    case S::ReservedSmemEnd: return reserved() + ptx::kReservedSmemBytes;
    case S::ReservedSmemCap: return ptx::kReservedSmemBytes;
    // Two halves of the region (which system software uses which part is not
    // published; cooperative groups keeps its 288-byte block scratch at _1).
    case S::ReservedSmemOffset: return reserved() + o.comp * (ptx::kReservedSmemBytes / 2);
    case S::None: break;
  }
  return 0;
}

}  // namespace

uint64_t StepContext::src_slow(const ptx::Operand& o, unsigned lane) const {
  switch (o.kind) {
    case ptx::OperandKind::Special:
      return special_value(*warp, o, lane);
    case ptx::OperandKind::Symbol:
      return symbol_address(*warp, o) + o.imm;  // mov %r, sym+imm
    case ptx::OperandKind::Func:
      // A function's "address" only needs to be distinct; indirect calls are
      // rejected at load time.
      return kFunctionAddressBase + o.sym;
    case ptx::OperandKind::Pred:
      return ((preds[o.reg] >> lane) & 1u) != o.neg;
    default:
      fault(fmt::format("operand kind {} cannot be read as a value", int(o.kind)), lane);
  }
}

void StepContext::src_lanes_slow(const ptx::Operand& o, uint64_t* out) const {
  if (mask == 0) return;
  using S = ptx::SpecialReg;
  const unsigned first = unsigned(std::countr_zero(mask));
  const bool special = o.kind == ptx::OperandKind::Special;
  if (special && o.sreg == S::Tid) {
    // (x, y, z) of consecutive threads: a mixed-radix count, one division for the first lane.
    const GridLaunch& l = warp->tb().launch();
    const unsigned c = o.comp < 3 ? o.comp : 0;
    const uint32_t t = warp->thread_linear(first);
    uint32_t x = t % l.block[0], y = (t / l.block[0]) % l.block[1], z = t / (l.block[0] * l.block[1]);
    for (unsigned lane = first; lane < kWarpSize; ++lane) {
      if (mask >> lane & 1) out[lane] = c == 0 ? x : c == 1 ? y : z;
      if (++x == l.block[0]) {
        x = 0;
        if (++y == l.block[1]) {
          y = 0;
          ++z;
        }
      }
    }
    return;
  }
  const bool per_lane = o.kind == ptx::OperandKind::Pred ||
                        (special && (o.sreg == S::Laneid || (o.sreg >= S::LanemaskEq && o.sreg <= S::LanemaskGe)));
  if (per_lane) {
    for_each_lane(mask, [&](unsigned lane) { out[lane] = src_slow(o, lane); });
    return;
  }
  const uint64_t v = src_slow(o, first);
  for_each_lane(mask, [&](unsigned lane) { out[lane] = v; });
}

uint64_t symbol_address(const Warp& w, const ptx::Operand& o) {
  const GridLaunch& l = w.tb().launch();
  const LoadedModule& mod = *l.module;
  const Frame& f = w.frame();
  switch (o.scope) {
    case ptx::SymScope::Module: {
      const ptx::Variable& v = mod.ir().globals[o.sym];
      if (v.space == ptx::Space::Shared) {
        if (v.is_extern) return mod.kernel(l.kernel).shared.dynamic_offset;
        return mod.kernel(l.kernel).shared.module_offset[o.sym];
      }
      return mod.global_address(o.sym);
    }
    case ptx::SymScope::Local: {
      const ptx::Variable& v = mod.function(f.fn).locals[o.sym];
      if (v.space == ptx::Space::Shared) return mod.kernel(l.kernel).shared.local_offset[f.fn][o.sym];
      uint64_t off = mod.frame(f.fn).local_var_offset[o.sym];
      return v.space == ptx::Space::Local ? f.local_base + off : f.param_base + off;
    }
    case ptx::SymScope::Param:
      if (w.in_kernel_frame()) return mod.function(f.fn).params[o.sym].offset;
      return f.param_base + mod.frame(f.fn).param_offset[o.sym];
    case ptx::SymScope::Ret:
      return f.param_base + mod.frame(f.fn).ret_offset[o.sym];
  }
  return 0;
}

}  // namespace gpumux::exec
