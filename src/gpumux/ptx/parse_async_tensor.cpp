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

bool apply_wmma(Instruction& in, std::string_view m) {
  TensorOp& t = in.tensor;
  if (t.wmma == WmmaOp::None) {  // load.a / load.b / load.c / store.d / mma: the first two modifiers
    if (m == "load" || m == "store") return (t.count = m == "load" ? 1 : 2), true;
    if (m == "mma") return (t.wmma = WmmaOp::Mma), true;
    if (t.count == 1 && (m == "a" || m == "b" || m == "c")) {
      t.wmma = m == "a" ? WmmaOp::LoadA : m == "b" ? WmmaOp::LoadB : WmmaOp::LoadC;
      t.count = 0;  // from here: the number of layouts
      return true;
    }
    if (t.count != 2 || m != "d") return false;
    t.wmma = WmmaOp::StoreD;
    t.count = 0;
    return true;
  }
  if (m == "sync" || m == "aligned" || m == "rn") return true;
  if (parse_shape(m, t)) return true;
  if (m == "row" || m == "col") {
    const bool mma = t.wmma == WmmaOp::Mma;
    if (t.count >= (mma ? 2 : 1)) return false;
    (mma && t.count == 1 ? t.b_col : t.a_col) = m == "col";
    ++t.count;
    return true;
  }
  if (is_shared_space(m)) return (in.space = Space::Shared), true;
  if (m == "global") return (in.space = Space::Global), true;
  if (m == "satfinite") return t.satfinite = true;
  if (m == "xor" || m == "and") return (t.bitop = m == "xor" ? AtomOp::Xor : AtomOp::And), true;
  if (m == "popc") return t.bitop != AtomOp::None;
  auto ty = mma_type_from_name(m);
  if (!ty) return false;
  MmaType* slots[4] = {&t.d, &t.a, &t.b, &t.c};
  for (MmaType* s : slots)
    if (*s == MmaType::None) return (*s = *ty), true;
  return false;
}

// The A/B input type and the accumulator type of a wmma after its modifiers,
// from the types in d, a, b, c order (see finish_async_tensor).
bool wmma_shape_ok(const TensorOp& t, MmaType in, MmaType acc) {
  const bool k16 = (t.m == 16 && t.n == 16 && t.k == 16) || (t.m == 32 && t.n == 8 && t.k == 16) ||
                   (t.m == 8 && t.n == 32 && t.k == 16);
  switch (in) {
    case MmaType::F16: return k16 && (acc == MmaType::F16 || acc == MmaType::F32);
    case MmaType::BF16: return k16 && acc == MmaType::F32;
    case MmaType::Tf32: return t.m == 16 && t.n == 16 && t.k == 8 && acc == MmaType::F32;
    case MmaType::F64: return t.m == 8 && t.n == 8 && t.k == 4 && acc == MmaType::F64;
    case MmaType::S8:
    case MmaType::U8: return k16 && acc == MmaType::S32;
    case MmaType::S4:
    case MmaType::U4: return t.m == 8 && t.n == 8 && t.k == 32 && acc == MmaType::S32;
    case MmaType::B1: return t.m == 8 && t.n == 8 && t.k == 128 && acc == MmaType::S32;
    default: return false;
  }
}

std::string finish_wmma(Instruction& in) {
  TensorOp& t = in.tensor;
  if (t.wmma == WmmaOp::None) return "an operation (.load.a/.b/.c, .store.d, .mma)";
  if (t.m == 0) return "a shape (.m16n16k16, ...)";
  if (in.space == Space::None) in.space = Space::Generic;
  if (t.wmma == WmmaOp::Mma) {
    if (t.count != 2) return ".alayout.blayout";
    if (t.b == MmaType::None) {  // .dtype.ctype: f16 inputs
      t.c = t.a;
      t.a = t.b = MmaType::F16;
    }
    if (t.c == MmaType::None || t.a != t.b) return "types .dtype.atype.btype.ctype (or .dtype.ctype for f16)";
    if (t.a == MmaType::B1 && t.bitop == AtomOp::None) return ".xor.popc or .and.popc";
    if (!wmma_shape_ok(t, t.a, t.c) || !wmma_shape_ok(t, t.a, t.d)) return "a shape and types of the PTX ISA for sm_80";
  } else {
    if (t.count != 1) return "a layout (.row or .col)";
    const MmaType ty = t.d;  // the one type suffix
    t.d = MmaType::None;
    if (ty == MmaType::None || t.a != MmaType::None) return "one type";
    (t.wmma == WmmaOp::LoadA ? t.a : t.wmma == WmmaOp::LoadB ? t.b : t.wmma == WmmaOp::LoadC ? t.c : t.d) = ty;
    const bool input = t.wmma == WmmaOp::LoadA || t.wmma == WmmaOp::LoadB;
    // Some input type pairs with the accumulator of a load/store: check the shape with a plausible partner.
    const MmaType partner_in = ty == MmaType::F32 ? MmaType::F16 : ty == MmaType::S32 ? MmaType::S8 : ty;
    const bool ok = input ? (wmma_shape_ok(t, ty, MmaType::F32) || wmma_shape_ok(t, ty, MmaType::S32) ||
                             wmma_shape_ok(t, ty, MmaType::F64))
                          : (wmma_shape_ok(t, partner_in, ty) || wmma_shape_ok(t, MmaType::Tf32, ty) ||
                             wmma_shape_ok(t, MmaType::S4, ty) || wmma_shape_ok(t, MmaType::B1, ty));
    if (!ok) return "a shape and type of the PTX ISA for sm_80";
  }
  t.count = 0;
  return "";
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
  return op == Opcode::CpAsync || op == Opcode::Mbarrier || op == Opcode::Mma || op == Opcode::Ldmatrix ||
         op == Opcode::Wmma;
}

bool apply_async_tensor_modifier(Instruction& in, std::string_view m) {
  switch (in.op) {
    case Opcode::CpAsync: return apply_cp_async(in, m);
    case Opcode::Mbarrier: return apply_mbarrier(in, m);
    case Opcode::Mma: return apply_mma(in, m);
    case Opcode::Ldmatrix: return apply_ldmatrix(in, m);
    case Opcode::Wmma: return apply_wmma(in, m);
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
    case Opcode::Wmma: return finish_wmma(in);
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
    case Opcode::Wmma: {
      const TensorOp& t = in.tensor;
      if (t.wmma == WmmaOp::Mma) {
        if (in.nops != 4) return "4 operands: d, a, b, c";
        const char kNames[4] = {'d', 'a', 'b', 'c'};
        for (unsigned i = 0; i < 4; ++i) {
          const char what[2] = {kNames[i], 0};
          std::string e = check_vector(in.ops[i], wmma_fragment_regs(t, kNames[i]), what);
          if (!e.empty()) return e;
        }
        return "";
      }
      const bool store = t.wmma == WmmaOp::StoreD;
      const char which = t.wmma == WmmaOp::LoadA ? 'a' : t.wmma == WmmaOp::LoadB ? 'b' : store ? 'd' : 'c';
      const unsigned addr = store ? 0 : 1, frag = store ? 1 : 0;
      if ((in.nops != 2 && in.nops != 3) || in.ops[addr].kind != OperandKind::Addr ||
          (in.nops == 3 && !is_value(in.ops[2])))
        return store ? "[address], d{, stride}" : "fragment, [address]{, stride}";
      return check_vector(in.ops[frag], wmma_fragment_regs(t, which), "the fragment");
    }
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

unsigned wmma_fragment_regs(const TensorOp& t, char which) {
  const MmaType ty = which == 'a' ? t.a : which == 'b' ? t.b : which == 'c' ? t.c : t.d;
  const unsigned elements = which == 'a' ? unsigned(t.m) * t.k : which == 'b' ? unsigned(t.k) * t.n : unsigned(t.m) * t.n;
  const unsigned bits = mma_type_bits(ty);
  if (bits == 0) return 0;
  if (ty == MmaType::F16 && (which == 'a' || which == 'b')) return 8;  // every f16 shape: eight .f16x2
  return bits == 64 ? elements / 32 : elements * bits / 1024;
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
