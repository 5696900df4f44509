#include "gpumux/sm/inst_timing.h"

#include <algorithm>

#include "gpumux/exec/loaded_module.h"
#include "gpumux/ptx/inst_info.h"
#include "gpumux/ptx/resources.h"
#include "gpumux/sm/opcode_latency.h"

namespace gpumux::sm {

using ptx::Opcode;

const char* unit_name(Unit u) {
  static constexpr const char* kNames[kNumUnits] = {"int", "fp32", "fp64", "sfu", "branch", "ldst", "tensor"};
  return kNames[unsigned(u)];
}

namespace {

bool is_transcendental(Opcode op) {
  switch (op) {
    case Opcode::Rcp: case Opcode::Sqrt: case Opcode::Rsqrt: case Opcode::Sin: case Opcode::Cos:
    case Opcode::Lg2: case Opcode::Ex2: case Opcode::Tanh:
      return true;
    default:
      return false;
  }
}

void add_operand_regs(const ptx::Operand& o, std::vector<RegRef>& out) {
  switch (o.kind) {
    case ptx::OperandKind::Reg:
    case ptx::OperandKind::Addr:
      if (o.reg != ptx::kNoReg) out.push_back({o.reg, false});
      break;
    case ptx::OperandKind::Pred:
      out.push_back({o.reg, true});
      break;
    case ptx::OperandKind::Vec:
      for (unsigned k = 0; k < o.vcount; ++k)
        if (o.vec[k] != ptx::kNoReg) out.push_back({o.vec[k], o.vec_is_pred});
      break;
    default:
      break;
  }
}

// Cycles the tensor-core unit is busy for one mma: `per_f16_mma` per 2048 f16
// multiply-adds, scaled by the multiply-adds of the shape and by the type's
// rate relative to f16 (A100: tf32 half, f64 1/16, 8-bit twice, 4-bit four
// times, b1 sixteen times the f16 rate).
uint32_t tensor_interval(const ptx::TensorOp& t, uint32_t per_f16_mma) {
  uint32_t num = 1, den = 1;
  switch (t.a) {
    case ptx::MmaType::Tf32: num = 2; break;
    case ptx::MmaType::F64: num = 16; break;
    case ptx::MmaType::S8: case ptx::MmaType::U8: den = 2; break;
    case ptx::MmaType::S4: case ptx::MmaType::U4: den = 4; break;
    case ptx::MmaType::B1: den = 16; break;
    default: break;
  }
  const uint64_t macs = uint64_t(t.m) * t.n * t.k;
  return uint32_t(std::clamp<uint64_t>((uint64_t(per_f16_mma) * macs * num + 1024 * den) / (2048 * den), 1, 255));
}

// Unit, kind, latency and interval by the unit the instruction runs on.
InstTiming classify_by_unit(const ptx::Instruction& in, const SmParams& p) {
  InstTiming t;
  auto set = [&](Unit u, uint32_t latency, uint32_t interval, InstKind k = InstKind::Alu) {
    t.unit = u;
    t.latency = uint16_t(latency);
    t.interval = uint8_t(interval);
    t.kind = k;
  };
  const SmLatencyParams& l = p.latency;
  const SmIntervalParams& ii = p.interval;
  switch (in.op) {
    case Opcode::Ld: case Opcode::Ldu: case Opcode::St: case Opcode::Atom: case Opcode::Red:
    case Opcode::Prefetch:
      set(Unit::LdSt, l.shared_mem, ii.ldst, InstKind::Memory);
      return t;
    case Opcode::Tex: case Opcode::Tld4: case Opcode::Suld: case Opcode::Sust:
      set(Unit::LdSt, l.texture, ii.ldst, InstKind::Memory);
      t.texture = true;
      return t;
    case Opcode::Bar:
      set(Unit::Branch, l.branch, ii.branch, in.bar == ptx::BarKind::Warp ? InstKind::Alu : InstKind::Barrier);
      return t;
    case Opcode::Membar:
      set(Unit::Branch, l.branch, ii.branch, InstKind::Fence);
      return t;
    case Opcode::Bra: case Opcode::Call: case Opcode::Ret: case Opcode::Exit: case Opcode::Trap:
    case Opcode::Brkpt: case Opcode::Nanosleep:
      set(Unit::Branch, l.branch, ii.branch, InstKind::Control);
      return t;
    case Opcode::Wmma:
      if (in.tensor.wmma == ptx::WmmaOp::Mma) set(Unit::Tensor, l.tensor, tensor_interval(in.tensor, ii.tensor));
      else set(Unit::LdSt, l.shared_mem, ii.ldst, InstKind::Memory);
      return t;
    case Opcode::Mbarrier: case Opcode::Ldmatrix:
      set(Unit::LdSt, l.shared_mem, ii.ldst, InstKind::Memory);
      return t;
    case Opcode::CpAsync:
      if (in.async == ptx::AsyncOp::Copy) {
        set(Unit::LdSt, l.shared_mem, ii.ldst, InstKind::Memory);
        t.async_copy = true;
      } else {
        set(Unit::Branch, l.branch, ii.branch,
            in.async == ptx::AsyncOp::Commit ? InstKind::AsyncCommit : InstKind::AsyncWait);
        if (in.async == ptx::AsyncOp::WaitGroup)
          t.async_keep = uint8_t(std::min<uint64_t>(uint64_t(in.ops[0].imm), kAsyncWaitAll - 1));
      }
      return t;
    case Opcode::Mma:
      set(Unit::Tensor, l.tensor, tensor_interval(in.tensor, ii.tensor));
      return t;
    case Opcode::Shfl: case Opcode::Vote: case Opcode::Match: case Opcode::Activemask: case Opcode::Redux:
      set(Unit::Branch, l.branch, ii.branch);
      return t;
    default:
      break;
  }
  bool f64 = in.type == ptx::Type::F64 || in.type2 == ptx::Type::F64;
  bool flt = ptx::type_is_float(in.type) || ptx::type_is_float(in.type2);
  if (f64) {
    // Double-precision division and square root are long iterative sequences.
    bool iterative = in.op == Opcode::Div || is_transcendental(in.op);
    set(Unit::Fp64, iterative ? l.fp64 * 4 : l.fp64, iterative ? ii.fp64 * 4 : ii.fp64);
  } else if (is_transcendental(in.op) || (flt && in.op == Opcode::Div)) {
    set(Unit::Sfu, l.sfu, ii.sfu);
  } else if (in.op == Opcode::Div || in.op == Opcode::Rem) {
    // Integer division is a multi-instruction sequence on real GPUs.
    set(Unit::Int, l.sfu * 2, ii.sfu);
  } else if (flt) {
    set(Unit::Fp32, l.fp32, ii.fp32);
  } else {
    set(Unit::Int, l.int_alu, ii.int_alu);
  }
  return t;
}

// Operand-log entries of an instruction that may reach global memory (and so
// fault); 0 for one that cannot (shared, local, constant, parameter).
uint8_t fault_log_entries(const ptx::Instruction& in) {
  const bool global = in.space == ptx::Space::Global || in.space == ptx::Space::Generic ||
                      in.space == ptx::Space::None;
  switch (in.op) {
    case Opcode::Ld: case Opcode::Ldu: return global ? 1 : 0;
    case Opcode::St: case Opcode::Atom: case Opcode::Red: return global ? 2 : 0;
    case Opcode::Tex: case Opcode::Tld4: case Opcode::Suld: return 1;  // texels and surfaces are global memory
    case Opcode::Sust: return 2;
    case Opcode::CpAsync: return in.async == ptx::AsyncOp::Copy ? 1 : 0;  // reads global memory
    case Opcode::Wmma:
      if (in.tensor.wmma == ptx::WmmaOp::Mma || !global) return 0;
      return in.tensor.wmma == ptx::WmmaOp::StoreD ? 2 : 1;
    default: return 0;
  }
}

}  // namespace

InstTiming classify(const ptx::Instruction& in, const SmParams& p) {
  InstTiming t = classify_by_unit(in, p);
  if (uint32_t latency = opcode_latency(in, p.opcode_latency)) t.latency = uint16_t(latency);
  t.fault_log_entries = fault_log_entries(in);
  return t;
}

ModuleTiming::ModuleTiming(const exec::LoadedModule& m, const SmParams& p) {
  const ptx::Module& ir = m.ir();
  funcs_.resize(ir.functions.size());
  std::vector<RegRef> src, dst;
  for (size_t f = 0; f < ir.functions.size(); ++f) {
    const ptx::Function& fn = ir.functions[f];
    funcs_[f].reserve(fn.insts.size());
    for (const ptx::Instruction& in : fn.insts) {
      InstTiming t = classify(in, p);
      t.builtin_call = in.op == ptx::Opcode::Call && in.ops[0].kind == ptx::OperandKind::Func &&
                       ir.functions[in.ops[0].sym].is_extern;
      src.clear();
      dst.clear();
      bool has_dst = ptx::has_destination(in) && in.nops > 0;
      for (unsigned i = has_dst ? 1 : 0; i < in.nops; ++i) add_operand_regs(in.ops[i], src);
      if (in.guard != ptx::kNoReg) src.push_back({in.guard, true});
      if (has_dst) add_operand_regs(in.ops[0], dst);
      if (in.pred_dst2 != ptx::kNoReg) dst.push_back({in.pred_dst2, true});
      for (std::vector<RegRef>* refs : {&src, &dst})
        for (RegRef& r : *refs)
          if (!r.pred) r.slot = m.register_slot(uint32_t(f), r.index);
      t.regs = uint32_t(pool_.size());
      t.num_src = uint8_t(src.size());
      t.num_dst = uint8_t(dst.size());
      pool_.insert(pool_.end(), src.begin(), src.end());
      pool_.insert(pool_.end(), dst.begin(), dst.end());
      funcs_[f].push_back(t);
    }
    // A replayed trace has no control-flow graph: a live-register save keeps
    // every register the trace header declares.
    if (fn.is_extern) live_.emplace_back(fn.insts.size(), 0);
    else if (m.replay()) live_.emplace_back(fn.insts.size(), m.kernel(uint32_t(f)).resources.registers);
    else live_.push_back(ptx::live_units_before(fn));
  }
}

}  // namespace gpumux::sm
