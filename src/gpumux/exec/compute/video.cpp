// The video instructions (PTX ISA "Video Instructions"; ptx/parse_video.h):
// scalar ones on a byte, half or word of each source, extended to 33 bits,
// with a 34-bit result that is optionally clamped to the destination's range
// (of its byte or half when merged), then combined with c (.add/.min/.max) or
// merged into c; SIMD ones on 2 halves or 4 bytes picked from {b, a}, each
// result optionally clamped, then merged into c under the lane mask or summed
// into c (.add).
#include <algorithm>

#include "gpumux/exec/compute/families.h"
#include "gpumux/exec/compute/lanes.h"

namespace gpumux::exec::compute {

namespace {

using ptx::VideoOp;

// Bits [bits*index, bits*(index+1)) of v, sign- or zero-extended.
int64_t extend(uint64_t v, bool is_signed, unsigned bits, unsigned index) {
  const uint64_t x = (v >> (bits * index)) & ((uint64_t(1) << bits) - 1);
  return is_signed ? int64_t(x << (64 - bits)) >> (64 - bits) : int64_t(x);
}

// The byte, half or word a scalar selector names.
int64_t part(uint32_t v, ptx::Type t, uint8_t sel) {
  const bool s = t == ptx::Type::S32;
  if (sel >= ptx::kVideoH0) return extend(v, s, 16, sel - ptx::kVideoH0);
  if (sel >= ptx::kVideoB0) return extend(v, s, 8, sel - ptx::kVideoB0);
  return extend(v, s, 32, 0);
}

bool compare(ptx::CmpOp c, int64_t a, int64_t b) {
  switch (c) {
    case ptx::CmpOp::Eq: return a == b;
    case ptx::CmpOp::Ne: return a != b;
    case ptx::CmpOp::Lt: return a < b;
    case ptx::CmpOp::Le: return a <= b;
    case ptx::CmpOp::Gt: return a > b;
    default: return a >= b;  // Ge: the parser accepts nothing else
  }
}

// The primary operation on two extended values (shifts: scalar only).
int64_t primary(const ptx::Instruction& in, int64_t a, int64_t b) {
  const ptx::VideoModifiers& v = in.video;
  switch (v.op) {
    case VideoOp::Add: return a + b;
    case VideoOp::Sub: return a - b;
    case VideoOp::Absdiff: return a > b ? a - b : b - a;
    case VideoOp::Min: return std::min(a, b);
    case VideoOp::Max: return std::max(a, b);
    case VideoOp::Avrg: return a + b >= 0 ? (a + b + 1) >> 1 : (a + b) >> 1;
    case VideoOp::Set: return compare(in.cmp, a, b);
    case VideoOp::Shl:
    case VideoOp::Shr: {
      const uint64_t n = v.clamp ? std::min<uint64_t>(uint64_t(b), 32) : uint64_t(b) & 31;
      if (v.op == VideoOp::Shr) return a >> n;
      return int64_t((uint64_t(a) << n) << 30) >> 30;  // the 34-bit result
    }
    case VideoOp::None: break;
  }
  return 0;
}

// Clamps to the signed or unsigned range of `bits` bits.
int64_t saturate(int64_t x, bool is_signed, unsigned bits) {
  const int64_t lo = is_signed ? -(int64_t(1) << (bits - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
  return std::clamp(x, lo, hi);
}

uint32_t scalar(const ptx::Instruction& in, uint32_t a, uint32_t b, uint32_t c) {
  const ptx::VideoModifiers& v = in.video;
  const bool dsigned = in.type == ptx::Type::S32;
  const bool is_shift = v.op == VideoOp::Shl || v.op == VideoOp::Shr;
  int64_t t = primary(in, part(a, v.atype, v.asel), part(b, is_shift ? ptx::Type::U32 : v.btype, v.bsel));
  if (in.sat)
    t = saturate(t, dsigned, v.dsel >= ptx::kVideoH0 ? 16 : v.dsel >= ptx::kVideoB0 ? 8 : 32);
  const int64_t tc = extend(c, dsigned, 32, 0);
  switch (v.second) {
    case ptx::AtomOp::Add: return uint32_t(t + tc);
    case ptx::AtomOp::Min: return uint32_t(std::min(t, tc));
    case ptx::AtomOp::Max: return uint32_t(std::max(t, tc));
    default: break;
  }
  if (v.dsel == ptx::kVideoWord) return uint32_t(t);
  const unsigned bits = v.dsel >= ptx::kVideoH0 ? 16 : 8;
  const unsigned shift = bits * (v.dsel >= ptx::kVideoH0 ? v.dsel - ptx::kVideoH0 : v.dsel - ptx::kVideoB0);
  const uint32_t field = uint32_t((uint64_t(1) << bits) - 1) << shift;
  return (uint32_t(t) << shift & field) | (c & ~field);
}

uint32_t simd(const ptx::Instruction& in, uint32_t a, uint32_t b, uint32_t c) {
  const ptx::VideoModifiers& v = in.video;
  const unsigned bits = 32 / v.lanes;
  const uint64_t ab = uint64_t(b) << 32 | a;
  const bool asigned = v.atype == ptx::Type::S32, bsigned = v.btype == ptx::Type::S32;
  uint32_t merged = c;
  int64_t sum = c;
  for (unsigned i = 0; i < v.lanes; ++i) {
    const int64_t ta = extend(ab, asigned, bits, (v.asel >> (4 * i)) & 0xf);
    const int64_t tb = extend(ab, bsigned, bits, (v.bsel >> (4 * i)) & 0xf);
    int64_t t = primary(in, ta, tb);
    if (in.sat) t = saturate(t, in.type == ptx::Type::S32, bits);
    if (!((v.dsel >> i) & 1)) continue;
    sum += t;
    const uint32_t field = uint32_t((uint64_t(1) << bits) - 1) << (bits * i);
    merged = (uint32_t(t) << (bits * i) & field) | (merged & ~field);
  }
  return v.second == ptx::AtomOp::Add ? uint32_t(sum) : merged;
}

uint32_t video_result(const ptx::Instruction& in, uint32_t a, uint32_t b, uint32_t c) {
  return in.video.lanes == 1 ? scalar(in, a, b, c) : simd(in, a, b, c);
}

void video(StepContext& ctx, const ptx::Instruction& in) {
  const SrcLanes a(ctx, in.ops[1]), b(ctx, in.ops[2]);
  const SrcLanes c(ctx, in.nops > 3 ? in.ops[3] : in.ops[2]);  // c is unused in the 3-operand form
  const bool three = in.nops == 3;
  store_lanes(
      ctx, in.ops[0].reg,
      [&](uint64_t x, uint64_t y, uint64_t z) -> uint64_t {
        return video_result(in, uint32_t(x), uint32_t(y), three ? 0 : uint32_t(z));
      },
      a, b, c);
}

}  // namespace

ptx::ExecHandler bind_video(const ptx::Instruction& in, std::string& why) {
  if (in.video.op == VideoOp::None || in.nops < 3 || in.ops[0].kind != ptx::OperandKind::Reg)
    return reject(in, why, "malformed video instruction");
  return &video;
}

}  // namespace gpumux::exec::compute
