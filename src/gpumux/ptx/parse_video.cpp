#include "gpumux/ptx/parse_video.h"

#include <iterator>
#include <optional>
#include <utility>

#include <fmt/format.h>

namespace gpumux::ptx {

namespace {

struct VideoName {
  std::string_view name;
  VideoOp op;
  bool scalar, simd;  // which forms exist: name, name2 and name4
};

constexpr VideoName kVideoNames[] = {
    {"vadd", VideoOp::Add, true, true},      {"vsub", VideoOp::Sub, true, true},
    {"vabsdiff", VideoOp::Absdiff, true, true}, {"vmin", VideoOp::Min, true, true},
    {"vmax", VideoOp::Max, true, true},      {"vavrg", VideoOp::Avrg, false, true},
    {"vshl", VideoOp::Shl, true, false},     {"vshr", VideoOp::Shr, true, false},
    {"vset", VideoOp::Set, true, true},
};

// A SIMD selector "b" or "h" then one digit per lane, the highest lane first:
// per lane i, its digit in bits [4i, 4i+4) of `packed`. `max_digit` bounds a
// digit; `count` is the number of digits wanted (0: any number, as a mask).
bool simd_digits(std::string_view sel, char prefix, unsigned max_digit, unsigned count, uint16_t& packed) {
  if (sel.size() < 2 || sel[0] != prefix) return false;
  std::string_view d = sel.substr(1);
  if (count && d.size() != count) return false;
  packed = 0;
  for (size_t k = 0; k < d.size(); ++k) {
    if (d[k] < '0' || unsigned(d[k] - '0') > max_digit) return false;
    if (count) packed |= uint16_t(d[k] - '0') << (4 * (d.size() - 1 - k));
  }
  return true;
}

std::optional<uint8_t> scalar_selector(std::string_view sel) {
  static constexpr std::string_view kNames[] = {"", "b0", "b1", "b2", "b3", "h0", "h1"};
  for (uint8_t i = 1; i < std::size(kNames); ++i)
    if (sel == kNames[i]) return i;
  return std::nullopt;
}

}  // namespace

bool video_opcode(std::string_view base, Instruction& in) {
  uint8_t lanes = 1;
  if (!base.empty() && (base.back() == '2' || base.back() == '4')) {
    lanes = uint8_t(base.back() - '0');
    base.remove_suffix(1);
  }
  for (const VideoName& v : kVideoNames) {
    if (v.name != base || !(lanes == 1 ? v.scalar : v.simd)) continue;
    VideoModifiers& m = in.video;
    m.op = v.op;
    m.lanes = lanes;
    if (lanes == 4) {  // a: .b3210, b: .b7654, every byte written
      m.asel = 0x3210;
      m.bsel = 0x7654;
      m.dsel = 0xf;
    } else if (lanes == 2) {  // a: .h10, b: .h32, both halves written
      m.asel = 0x10;
      m.bsel = 0x32;
      m.dsel = 0x3;
    }
    return true;
  }
  return false;
}

bool apply_video_modifier(Instruction& in, std::string_view m) {
  VideoModifiers& v = in.video;
  if (m == "sat" && v.op != VideoOp::Set) return in.sat = true;
  if (m == "add" || ((m == "min" || m == "max") && v.lanes == 1)) {
    v.second = m == "add" ? AtomOp::Add : m == "min" ? AtomOp::Min : AtomOp::Max;
    return true;
  }
  if ((m == "clamp" || m == "wrap") && (v.op == VideoOp::Shl || v.op == VideoOp::Shr)) {
    v.clamp = m == "clamp";
    in.shf = v.clamp ? ShfMode::Clamp : ShfMode::Wrap;  // that a mode was given
    return true;
  }
  if (v.op == VideoOp::Set) {
    static constexpr std::pair<std::string_view, CmpOp> kCmps[] = {
        {"eq", CmpOp::Eq}, {"ne", CmpOp::Ne}, {"lt", CmpOp::Lt}, {"le", CmpOp::Le}, {"gt", CmpOp::Gt}, {"ge", CmpOp::Ge},
    };
    for (auto [name, cmp] : kCmps)
      if (m == name) {
        in.cmp = cmp;
        return true;
      }
  }
  return false;
}

unsigned video_type_count(const Instruction& in) { return in.video.op == VideoOp::Set ? 2 : 3; }

std::string finish_video_types(Instruction& in, const Type* types, unsigned n) {
  VideoModifiers& v = in.video;
  for (unsigned i = 0; i < n; ++i)
    if (types[i] != Type::U32 && types[i] != Type::S32) return "types .u32 or .s32";
  const bool set = v.op == VideoOp::Set;
  in.type = set ? Type::U32 : types[0];  // vset writes 0 or 1
  v.atype = types[set ? 0 : 1];
  v.btype = types[set ? 1 : 2];
  if (set && in.cmp == CmpOp::None) return "a comparison (.eq, .ne, .lt, .le, .gt, .ge)";
  if (v.op == VideoOp::Shl || v.op == VideoOp::Shr) {
    if (in.shf == ShfMode::None) return ".clamp or .wrap";
    if (v.btype != Type::U32) return "a .u32 shift amount type";
  }
  if (v.lanes > 1 && in.sat && v.second == AtomOp::Add) return "either .sat or .add (saturation cannot accumulate)";
  return "";
}

std::string apply_video_selector(Instruction& in, unsigned slot, std::string_view sel) {
  VideoModifiers& v = in.video;
  if (slot > 2) return fmt::format("no selector on operand {} (.{})", slot + 1, sel);
  if (v.lanes == 1) {
    auto s = scalar_selector(sel);
    if (!s) return fmt::format("selector .{}: one of .b0, .b1, .b2, .b3, .h0, .h1", sel);
    if (slot == 0) v.dsel = *s;
    else if (slot == 1) v.asel = *s;
    else v.bsel = *s;
    return "";
  }
  const char prefix = v.lanes == 4 ? 'b' : 'h';
  if (slot == 0) {  // the lanes written: distinct digits, highest first
    uint16_t unused = 0;
    if (!simd_digits(sel, prefix, v.lanes - 1, 0, unused) || sel.size() > size_t(v.lanes) + 1)
      return fmt::format("mask .{}: .{}<lanes, highest first>", sel, prefix);
    uint8_t mask = 0;
    int last = v.lanes;
    for (char c : sel.substr(1)) {
      const int lane = c - '0';
      if (lane >= last) return fmt::format("mask .{}: lanes must be distinct, highest first", sel);
      mask |= uint8_t(1u << lane);
      last = lane;
    }
    v.dsel = mask;
    return "";
  }
  uint16_t packed = 0;
  if (!simd_digits(sel, prefix, v.lanes == 4 ? 7 : 3, v.lanes, packed))
    return fmt::format("selector .{}: .{} and {} digits of 0-{}", sel, prefix, unsigned(v.lanes), v.lanes == 4 ? 7 : 3);
  (slot == 1 ? v.asel : v.bsel) = packed;
  return "";
}

std::string video_operands_error(const Instruction& in) {
  const VideoModifiers& v = in.video;
  const bool merge = v.lanes == 1 && v.dsel != kVideoWord;
  const unsigned want = v.lanes > 1 || merge || v.second != AtomOp::None ? 4 : 3;
  if (merge && v.second != AtomOp::None) return "either a secondary operation or a destination selector, not both";
  if (in.nops != want) return fmt::format("{} operands (d, a, b{})", want, want == 4 ? ", c" : "");
  if (in.ops[0].kind != OperandKind::Reg) return "a register destination";
  for (unsigned i = 1; i < in.nops; ++i)
    if (in.ops[i].kind != OperandKind::Reg && in.ops[i].kind != OperandKind::Imm)
      return fmt::format("a register or immediate as operand {}", i + 1);
  return "";
}

}  // namespace gpumux::ptx
