#include "gpumux/ptx/parse_async_tensor.h"

#include <charconv>
#include <optional>

#include <fmt/format.h>

namespace gpumux::ptx {

namespace {

std::optional<MmaType> mma_type_from_name(std::string_view s) {
  static constexpr std::pair<std::string_view, MmaType> kTypes[] = {
      {"f16", MmaType::F16}, {"bf16", MmaType::BF16}, {"tf32", MmaType::Tf32}, {"f32", MmaType::F32},
      {"f64", MmaType::F64}, {"s8", MmaType::S8},     {"u8", MmaType::U8},     {"s4", MmaType::S4},
      {"u4", MmaType::U4},   {"b1", MmaType::B1},     {"s32", MmaType::S32},
  };
  for (const auto& [name, t] : kTypes)
    if (name == s) return t;
  return std::nullopt;
}

bool is_shared_space(std::string_view m) { return m == "shared" || m == "shared::cta"; }

// "m16n8k16" -> {16, 8, 16}
bool parse_shape(std::string_view m, TensorOp& t) {
  unsigned v[3];
  const char kLetters[3] = {'m', 'n', 'k'};
  const char* p = m.data();
  const char* end = m.data() + m.size();
  for (unsigned i = 0; i < 3; ++i) {
    if (p == end || *p != kLetters[i]) return false;
    auto r = std::from_chars(p + 1, end, v[i]);
    if (r.ec != std::errc() || v[i] == 0 || v[i] > 1024) return false;
    p = r.ptr;
  }
  if (p != end) return false;
  t.m = uint16_t(v[0]);
  t.n = uint16_t(v[1]);
  t.k = uint16_t(v[2]);
  return true;
}

bool apply_cp_async(Instruction& in, std::string_view m) {
  if (m == "async") return true;
  if (m == "ca" || m == "cg") in.async = AsyncOp::Copy, in.nc = m == "cg";
  else if (m == "commit_group") in.async = AsyncOp::Commit;
  else if (m == "wait_group") in.async = AsyncOp::WaitGroup;
  else if (m == "wait_all") in.async = AsyncOp::WaitAll;
  else if (m == "mbarrier") in.async = AsyncOp::MbarrierArrive;
  else if (m == "arrive") return in.async == AsyncOp::MbarrierArrive;
  else if (m == "noinc") in.noinc = true;
  else if (is_shared_space(m)) in.space = Space::Shared;
  else if (m == "L2::cache_hint") in.cache_policy = true;
  else return m == "global" || m == "b64" || m == "L2::64B" || m == "L2::128B" || m == "L2::256B";
  return true;
}

bool apply_mbarrier(Instruction& in, std::string_view m) {
  static constexpr std::pair<std::string_view, MbarOp> kOps[] = {
      {"init", MbarOp::Init},         {"inval", MbarOp::Inval},
      {"arrive", MbarOp::Arrive},     {"arrive_drop", MbarOp::ArriveDrop},
      {"test_wait", MbarOp::TestWait}, {"try_wait", MbarOp::TryWait},
      {"pending_count", MbarOp::PendingCount},
  };
  for (const auto& [name, op] : kOps)
    if (name == m) {
      in.mbar = op;
      return true;
    }
  if (m == "parity") {
    if (in.mbar == MbarOp::TestWait) in.mbar = MbarOp::TestWaitParity;
    else if (in.mbar == MbarOp::TryWait) in.mbar = MbarOp::TryWaitParity;
    else return false;
  } else if (m == "noComplete") {
    in.noinc = true;
  } else if (is_shared_space(m)) {
    in.space = Space::Shared;
  } else if (m == "b64") {
    in.type = Type::B64;
  } else {
    // Memory order and CTA scope only order memory, which the engine keeps in
    // program order; cluster scope and expect-tx are sm_90 features.
    return m == "release" || m == "acquire" || m == "relaxed" || m == "cta";
  }
  return true;
}

bool apply_mma(Instruction& in, std::string_view m) {
  TensorOp& t = in.tensor;
  if (m == "sync" || m == "aligned") return true;
  if (parse_shape(m, t)) return true;
  if (m == "row" || m == "col") {
    // The first layout is A's, the second B's.
    if (t.d != MmaType::None || t.count >= 2) return false;
    (t.count++ == 0 ? t.a_col : t.b_col) = m == "col";
    return true;
  }
  if (m == "satfinite") return t.satfinite = true;
  if (m == "xor" || m == "and") {
    t.bitop = m == "xor" ? AtomOp::Xor : AtomOp::And;
    return true;
  }
  if (m == "popc") return t.bitop != AtomOp::None;
  auto ty = mma_type_from_name(m);
  if (!ty) return false;
  MmaType* slots[4] = {&t.d, &t.a, &t.b, &t.c};
  for (MmaType* s : slots)
    if (*s == MmaType::None) {
      *s = *ty;
      return true;
    }
  return false;
}

bool apply_ldmatrix(Instruction& in, std::string_view m) {
  TensorOp& t = in.tensor;
  if (m == "sync" || m == "aligned") return true;
  if (m == "m8n8") return parse_shape("m8n8k1", t);
  if (m == "x1" || m == "x2" || m == "x4") {
    t.count = uint8_t(m[1] - '0');
    return true;
  }
  if (m == "trans") return t.trans = true;
  if (is_shared_space(m)) {
    in.space = Space::Shared;
    return true;
  }
  if (m == "b16") {
    in.type = Type::B16;
    return true;
  }
  return false;
}

bool is_value(const Operand& o) { return o.kind == OperandKind::Reg || o.kind == OperandKind::Imm; }

std::string check_cp_async(Instruction& in) {
  switch (in.async) {
    case AsyncOp::Copy: {
      if (in.cache_policy) {
        if (in.nops < 4 || in.ops[in.nops - 1].kind != OperandKind::Reg) return "a cache-policy register last";
        --in.nops;  // a hint
      }
      if (in.nops < 3 || in.nops > 4) return "3 or 4 operands: [dst], [src], cp-size{, src-size | ignore-src}";
      if (in.ops[0].kind != OperandKind::Addr || in.ops[1].kind != OperandKind::Addr)
        return "shared [dst] and global [src] addresses";
      if (in.ops[2].kind != OperandKind::Imm) return "an immediate cp-size";
      const uint64_t size = in.ops[2].imm;
      if (in.nc ? size != 16 : (size != 4 && size != 8 && size != 16))
        return in.nc ? "cp-size 16 (.cg)" : "cp-size 4, 8 or 16";
      if (in.nops == 4 && !is_value(in.ops[3]) && in.ops[3].kind != OperandKind::Pred)
        return "a src-size value or an ignore-src predicate";
      return "";
    }
    case AsyncOp::Commit:
    case AsyncOp::WaitAll: return in.nops == 0 ? "" : "no operands";
    case AsyncOp::WaitGroup: return in.nops == 1 && in.ops[0].kind == OperandKind::Imm ? "" : "an immediate group count";
    case AsyncOp::MbarrierArrive:
      return in.nops == 1 && in.ops[0].kind == OperandKind::Addr ? "" : "one [mbarrier] address";
    case AsyncOp::None: break;
  }
  return "a form (.ca, .cg, .commit_group, .wait_group, .wait_all, .mbarrier.arrive)";
}

std::string check_mbarrier(const Instruction& in) {
  auto addr_at = [&](unsigned i) { return i < in.nops && in.ops[i].kind == OperandKind::Addr; };
  switch (in.mbar) {
    case MbarOp::Init:
      return in.nops == 2 && addr_at(0) && is_value(in.ops[1]) ? "" : "[mbarrier], count";
    case MbarOp::Inval: return in.nops == 1 && addr_at(0) ? "" : "[mbarrier]";
    case MbarOp::Arrive:
    case MbarOp::ArriveDrop:
      return (in.nops == 2 || (in.nops == 3 && is_value(in.ops[2]))) && addr_at(1) &&
                     (in.ops[0].kind == OperandKind::Reg || in.ops[0].kind == OperandKind::Sink)
                 ? ""
                 : "state, [mbarrier]{, count}";
    case MbarOp::TestWait:
    case MbarOp::TestWaitParity:
    case MbarOp::TryWait:
    case MbarOp::TryWaitParity: {
      const bool try_wait = in.mbar == MbarOp::TryWait || in.mbar == MbarOp::TryWaitParity;
      return (in.nops == 3 || (try_wait && in.nops == 4)) && in.ops[0].kind == OperandKind::Pred && addr_at(1) &&
                     is_value(in.ops[2])
                 ? ""
                 : "p, [mbarrier], state";
    }
    case MbarOp::PendingCount:
      return in.nops == 2 && in.ops[0].kind == OperandKind::Reg && is_value(in.ops[1]) ? "" : "count, state";
    case MbarOp::None: break;
  }
  return "an operation";
}

std::string check_vector(const Operand& o, unsigned want, const char* what) {
  if (o.kind != OperandKind::Vec || o.vcount != want) return fmt::format("{} as a vector of {} registers", what, want);
  for (unsigned i = 0; i < o.vcount; ++i)
    if (o.vec[i] == kNoReg) return fmt::format("{} without '_'", what);
  return "";
}

std::string check_mma(const Instruction& in) {
  if (in.nops != 4) return "4 operands: d, a, b, c";
  const char kNames[4] = {'d', 'a', 'b', 'c'};
  for (unsigned i = 0; i < 4; ++i) {
    const char what[2] = {kNames[i], 0};
    std::string e = check_vector(in.ops[i], mma_fragment_regs(in.tensor, kNames[i]), what);
    if (!e.empty()) return e;
  }
  return "";
}

}  // namespace

bool is_async_or_tensor(Opcode op) {
  return op == Opcode::CpAsync || op == Opcode::Mbarrier || op == Opcode::Mma || op == Opcode::Ldmatrix;
}

bool apply_async_tensor_modifier(Instruction& in, std::string_view m) {
  switch (in.op) {
    case Opcode::CpAsync: return apply_cp_async(in, m);
    case Opcode::Mbarrier: return apply_mbarrier(in, m);
    case Opcode::Mma: return apply_mma(in, m);
    case Opcode::Ldmatrix: return apply_ldmatrix(in, m);
    default: return false;
  }
}

std::string finish_async_tensor(Instruction& in) {
  switch (in.op) {
    case Opcode::CpAsync:
      if (in.async == AsyncOp::None) return "a form (.ca, .cg, .commit_group, .wait_group, .wait_all, .mbarrier.arrive)";
      if (in.async == AsyncOp::Copy && in.space != Space::Shared) return ".shared.global";
      in.type = Type::U32;
      return "";
    case Opcode::Mbarrier:
      if (in.mbar == MbarOp::None) return "an operation (.init, .arrive, .test_wait, ...)";
      if (in.type != Type::B64) return ".b64";
      if (in.space == Space::None) in.space = Space::Generic;
      return "";
    case Opcode::Mma: {
      TensorOp& t = in.tensor;
      if (t.m == 0) return "a shape (.m16n8k16, ...)";
      if (t.c == MmaType::None) return "four types (.dtype.atype.btype.ctype)";
      if (t.a == MmaType::B1 && t.bitop == AtomOp::None) return ".xor.popc or .and.popc";
      t.count = 0;  // counted the layouts while parsing
      if (mma_fragment_regs(t, 'a') == 0 || mma_fragment_regs(t, 'c') == 0)
        return "a shape and types of the PTX ISA for sm_80";
      return "";
    }
    case Opcode::Ldmatrix:
      if (in.tensor.m != 8 || in.tensor.count == 0) return ".m8n8 and .x1, .x2 or .x4";
      if (in.type != Type::B16) return ".b16";
      if (in.space == Space::None) in.space = Space::Generic;
      return "";
    default: return "";
  }
}

std::string check_async_tensor_operands(Instruction& in) {
  switch (in.op) {
    case Opcode::CpAsync: return check_cp_async(in);
    case Opcode::Mbarrier: return check_mbarrier(in);
    case Opcode::Mma: return check_mma(in);
    case Opcode::Ldmatrix:
      if (in.nops != 2 || in.ops[1].kind != OperandKind::Addr) return "d, [address]";
      return check_vector(in.ops[0], in.tensor.count, "d");
    default: return "";
  }
}

unsigned mma_type_bits(MmaType t) {
  switch (t) {
    case MmaType::F16:
    case MmaType::BF16: return 16;
    case MmaType::Tf32:
    case MmaType::F32:
    case MmaType::S32: return 32;
    case MmaType::F64: return 64;
    case MmaType::S8:
    case MmaType::U8: return 8;
    case MmaType::S4:
    case MmaType::U4: return 4;
    case MmaType::B1: return 1;
    case MmaType::None: break;
  }
  return 0;
}

unsigned mma_fragment_regs(const TensorOp& t, char which) {
  // The shapes sm_80 offers, by input type: (m, n, k) with k in units of the type.
  const MmaType in_type = t.a;
  const unsigned bits = mma_type_bits(in_type);
  if (bits == 0 || mma_type_bits(t.b) != bits) return 0;
  const bool m16 = t.m == 16 && t.n == 8, m8 = t.m == 8 && t.n == 8;
  bool ok = false;
  switch (in_type) {
    case MmaType::F16:
    case MmaType::BF16: ok = m16 && (t.k == 8 || t.k == 16); break;
    case MmaType::Tf32: ok = m16 && (t.k == 4 || t.k == 8); break;
    case MmaType::F64: ok = m8 && t.k == 4; break;
    case MmaType::S8:
    case MmaType::U8: ok = (m8 && t.k == 16) || (m16 && (t.k == 16 || t.k == 32)); break;
    case MmaType::S4:
    case MmaType::U4: ok = (m8 && t.k == 32) || (m16 && (t.k == 32 || t.k == 64)); break;
    case MmaType::B1: ok = (m8 && t.k == 128) || (m16 && (t.k == 128 || t.k == 256)); break;
    default: break;
  }
  if (!ok) return 0;
  // Accumulators: f16 or f32 for f16 inputs, f32 for bf16/tf32, f64 for f64, s32 for integers.
  auto acc_ok = [&](MmaType c) {
    switch (in_type) {
      case MmaType::F16: return c == MmaType::F16 || c == MmaType::F32;
      case MmaType::BF16:
      case MmaType::Tf32: return c == MmaType::F32;
      case MmaType::F64: return c == MmaType::F64;
      default: return c == MmaType::S32;
    }
  };
  if (!acc_ok(t.c) || !acc_ok(t.d)) return 0;
  if (t.a_col || !t.b_col) return 0;  // the sm_80 shapes are all .row.col
  const unsigned per_lane_bits = [&] {
    switch (which) {
      case 'a': return unsigned(t.m) * t.k * bits / 32;
      case 'b': return unsigned(t.k) * t.n * bits / 32;
      case 'c': return unsigned(t.m) * t.n * mma_type_bits(t.c) / 32;
      default: return unsigned(t.m) * t.n * mma_type_bits(t.d) / 32;
    }
  }();
  // 64-bit values take one (64-bit) register each; smaller ones pack into 32-bit registers.
  const unsigned reg_bits = (which == 'a' || which == 'b' ? bits : mma_type_bits(which == 'c' ? t.c : t.d)) == 64 ? 64 : 32;
  return per_lane_bits / reg_bits;
}

}  // namespace gpumux::ptx
