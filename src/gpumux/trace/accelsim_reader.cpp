#include "gpumux/trace/accelsim_reader.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/core/popcount.h"
#include "gpumux/trace/trace_file.h"

namespace gpumux::trace {

namespace {

// Bounds that keep a hostile header from allocating without limit.
constexpr uint64_t kMaxWarps = uint64_t(1) << 22;  // per kernel: streams are kept in memory
constexpr uint64_t kMaxAddresses = uint64_t(1) << 32;  // ReplayLine::addr is 32-bit
// Global addresses are kept modulo 2^39: a real GPU's virtual addresses
// (0x7f...) fold into the application's range of device addresses
// (sm/device_addresses.h), low bits (lines, sectors, channels) unchanged.
constexpr uint64_t kGlobalAddressMask = (uint64_t(1) << 39) - 1;
constexpr uint32_t kNoRegister = UINT32_MAX;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(uint8_t(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(uint8_t(s.back()))) s.remove_suffix(1);
  return s;
}

// Lines of a text with their 1-based numbers.
class Lines {
 public:
  Lines(std::string_view text, const std::string& name) : text_(text), name_(name) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = trim(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    ++number_;
    return true;
  }
  uint32_t number() const { return number_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw LoadError(fmt::format("{}:{}: {}", name_, number_, what));
  }

 private:
  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
  uint32_t number_ = 0;
};

// Whitespace-separated fields of one line.
class Fields {
 public:
  Fields(std::string_view s, const Lines& at) : s_(s), at_(at) {}
  bool done() {
    skip();
    return s_.empty();
  }
  std::string_view word(const char* what) {
    skip();
    if (s_.empty()) at_.fail(fmt::format("line ends where {} was expected", what));
    size_t n = 0;
    while (n < s_.size() && !std::isspace(uint8_t(s_[n]))) ++n;
    std::string_view w = s_.substr(0, n);
    s_.remove_prefix(n);
    return w;
  }
  uint64_t number(const char* what, int base, uint64_t max) {
    std::string_view w = word(what);
    if (base == 16 && w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) w.remove_prefix(2);
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v, base);
    if (ec != std::errc() || p != w.data() + w.size() || v > max)
      at_.fail(fmt::format("bad {} '{}'", what, w));
    return v;
  }
  int64_t signed_number(const char* what) {
    std::string_view w = word(what);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || p != w.data() + w.size()) at_.fail(fmt::format("bad {} '{}'", what, w));
    return v;
  }

 private:
  void skip() {
    while (!s_.empty() && std::isspace(uint8_t(s_.front()))) s_.remove_prefix(1);
  }
  std::string_view s_;
  const Lines& at_;
};

// "(x,y,z)" or "x,y,z": three numbers of at least `min`.
std::array<uint32_t, 3> parse_dim(std::string_view v, const Lines& at, const char* what, uint32_t min) {
  if (v.size() >= 2 && v.front() == '(' && v.back() == ')') v = v.substr(1, v.size() - 2);
  std::array<uint32_t, 3> d{};
  for (unsigned i = 0; i < 3; ++i) {
    size_t comma = i < 2 ? v.find(',') : v.size();
    if (comma == std::string_view::npos) at.fail(fmt::format("{} '{}' needs three components", what, v));
    std::string_view c = trim(v.substr(0, comma));
    uint32_t x = 0;
    auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), x);
    if (ec != std::errc() || p != c.data() + c.size() || x < min || (i == 2 && comma != v.size()))
      at.fail(fmt::format("bad {} '{}'", what, v));
    d[i] = x;
    v = comma < v.size() ? v.substr(comma + 1) : std::string_view{};
  }
  return d;
}

uint64_t parse_number(std::string_view v, const Lines& at, const char* what, uint64_t max) {
  Fields f(v, at);
  const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  uint64_t x = f.number(what, hex ? 16 : 10, max);
  if (!f.done()) at.fail(fmt::format("bad {} '{}'", what, v));
  return x;
}

// Reads one "-key = value" header line into `h`; unknown keys are kept by
// newer tracers and skipped.
void header_line(std::string_view line, KernelHeader& h, const Lines& at, unsigned& seen) {
  size_t eq = line.find('=');
  if (eq == std::string_view::npos) at.fail(fmt::format("header line '{}' has no '='", line));
  std::string_view key = trim(line.substr(1, eq - 1)), v = trim(line.substr(eq + 1));
  auto num = [&](const char* what, uint64_t max) { return parse_number(v, at, what, max); };
  if (key == "kernel name") h.name = std::string(v), seen |= 1;
  else if (key == "kernel id") h.id = uint32_t(num("kernel id", UINT32_MAX));
  else if (key == "grid dim") h.grid = parse_dim(v, at, "grid dim", 1), seen |= 2;
  else if (key == "block dim") h.block = parse_dim(v, at, "block dim", 1), seen |= 4;
  else if (key == "shmem") h.shmem = num("shmem", uint64_t(1) << 32), seen |= 8;
  else if (key == "nregs") h.nregs = uint32_t(num("nregs", 255)), seen |= 16;
  else if (key == "binary version") h.binary_version = uint32_t(num("binary version", 1000)), seen |= 32;
  else if (key == "cuda stream id") h.stream = uint32_t(num("cuda stream id", UINT32_MAX));
  else if (key == "shmem base_addr") h.shmem_base = num("shmem base_addr", UINT64_MAX);
  else if (key == "local mem base_addr") h.local_base = num("local mem base_addr", UINT64_MAX);
  else if (key == "accelsim tracer version") h.tracer_version = uint32_t(num("tracer version", 1000));
  else if (key == "enable lineinfo") h.lineinfo = num("enable lineinfo", 1) != 0;
}

// A register name: R<n> (R255 is RZ; gpumux's exporter numbers PTX
// registers past it), UR0..UR62 (a separate file: ids from kUniformBase),
// or a name without a dependence (RZ, URZ, UR63, predicates): kNoRegister.
constexpr uint32_t kUniformBase = 1u << 16;
uint32_t register_id(std::string_view r, const Lines& at) {
  auto index = [&](std::string_view digits, uint32_t max) {
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || p != digits.data() + digits.size() || v > max)
      at.fail(fmt::format("bad register '{}'", r));
    return v;
  };
  if (r == "RZ" || r == "URZ" || r == "PT" || r == "UPT") return kNoRegister;
  if (r.size() > 2 && r.substr(0, 2) == "UR") {
    uint32_t v = index(r.substr(2), 63);
    return v == 63 ? kNoRegister : kUniformBase + v;
  }
  if (r.size() > 1 && r[0] == 'R') {
    uint32_t v = index(r.substr(1), kUniformBase - 1);
    return v == 255 ? kNoRegister : v;
  }
  if (r.size() > 1 && r[0] == 'P') return index(r.substr(1), 7), kNoRegister;
  if (r.size() > 2 && r.substr(0, 2) == "UP") return index(r.substr(2), 7), kNoRegister;
  at.fail(fmt::format("bad register '{}'", r));
}

class KernelParser {
 public:
  KernelParser(std::string_view text, const std::string& name) : lines_(text, name) { k_.file = name; }

  TraceKernel run() {
    std::string_view line;
    bool have = read_header(line);
    if (have && line == "#BEGIN_TB") grouped(line);
    else if (have) raw(line);
    finish();
    return std::move(k_);
  }

 private:
  // Reads the header; returns with the first body line in `line` (false at the end).
  bool read_header(std::string_view& line) {
    unsigned seen = 0;
    bool have = false;
    while ((have = lines_.next(line))) {
      if (line.empty() || (line[0] == '#' && line != "#BEGIN_TB")) continue;
      if (line[0] != '-') break;
      header_line(line, k_.header, lines_, seen);
    }
    static constexpr const char* kKeys[] = {"kernel name", "grid dim", "block dim", "shmem", "nregs", "binary version"};
    for (unsigned i = 0; i < 6; ++i)
      if (!(seen >> i & 1)) lines_.fail(fmt::format("the header has no '-{}' line", kKeys[i]));
    const KernelHeader& h = k_.header;
    std::optional<IsaFamily> f = isa_family(h.binary_version);
    if (!f)
      lines_.fail(fmt::format("binary version {} is not supported (Volta 70/72, Turing 75, Ampere 80/86/87/89, "
                              "Hopper 90)", h.binary_version));
    k_.family = *f;
    const uint64_t threads = uint64_t(h.block[0]) * h.block[1] * h.block[2];
    if (threads > 1024) lines_.fail(fmt::format("block dim has {} threads (at most 1024)", threads));
    k_.replay.warps_per_tb = uint32_t((threads + 31) / 32);
    tbs_ = uint64_t(h.grid[0]) * h.grid[1] * h.grid[2];
    if (tbs_ > kMaxWarps || tbs_ * k_.replay.warps_per_tb > kMaxWarps)
      lines_.fail(fmt::format("grid of {} TBs x {} warps: at most {} warps per kernel can be replayed", tbs_,
                              k_.replay.warps_per_tb, kMaxWarps));
    k_.replay.streams.resize(tbs_ * k_.replay.warps_per_tb);
    tb_seen_.assign(tbs_, false);
    return have;
  }

  uint64_t tb_index(std::array<uint64_t, 3> c) {
    const auto& g = k_.header.grid;
    if (c[0] >= g[0] || c[1] >= g[1] || c[2] >= g[2])
      lines_.fail(fmt::format("thread block ({},{},{}) is outside the grid ({},{},{})", c[0], c[1], c[2], g[0], g[1],
                              g[2]));
    return c[0] + g[0] * (c[1] + uint64_t(g[1]) * c[2]);
  }

  std::vector<exec::ReplayLine>& stream(uint64_t tb, uint64_t warp) {
    if (warp >= k_.replay.warps_per_tb)
      lines_.fail(fmt::format("warp {}, but a TB of this kernel has {} warps", warp, k_.replay.warps_per_tb));
    return k_.replay.streams[tb * k_.replay.warps_per_tb + warp];
  }

  // #BEGIN_TB ... #END_TB blocks.
  void grouped(std::string_view line) {
    for (;;) {
      if (line != "#BEGIN_TB") lines_.fail(fmt::format("expected #BEGIN_TB, found '{}'", line));
      uint64_t tb = UINT64_MAX;
      std::vector<exec::ReplayLine>* s = nullptr;
      uint64_t expected = 0, warp = 0;
      std::array<uint32_t, 3> coords{};
      for (;;) {
        if (!lines_.next(line)) lines_.fail("the file ends inside a TB (no #END_TB): truncated trace");
        if (line.empty() || (line[0] == '#' && line != "#END_TB")) continue;
        if (line == "#END_TB" || line.starts_with("warp")) {
          if (s && s->size() != expected)
            lines_.fail(fmt::format("warp {} has {} instructions, its 'insts' line says {}", warp, s->size(),
                                    expected));
          if (line == "#END_TB") break;
        }
        if (line.starts_with("thread block")) {
          if (tb != UINT64_MAX) lines_.fail("a second 'thread block' line in one TB");
          coords = parse_dim(value_of(line), lines_, "thread block", 0);
          tb = begin_tb({coords[0], coords[1], coords[2]});
        } else if (line.starts_with("cluster") && !s) {
          // Hopper clusters ("cluster id", "cluster cta", "cluster rank"): not modelled.
        } else if (line.starts_with("warp")) {
          if (tb == UINT64_MAX) lines_.fail("'warp' before 'thread block'");
          warp = parse_number(value_of(line), lines_, "warp", UINT32_MAX);
          s = &stream(tb, warp);
          if (!s->empty()) lines_.fail(fmt::format("warp {} appears twice in this TB", warp));
          if (!lines_.next(line) || !line.starts_with("insts"))
            lines_.fail("expected 'insts = N' after 'warp = I'");
          expected = parse_number(value_of(line), lines_, "insts", UINT32_MAX);
          s->reserve(std::min<uint64_t>(expected, 1 << 16));
        } else {
          if (!s) lines_.fail(fmt::format("instruction line before 'warp = I': '{}'", line));
          if (s->size() == expected) lines_.fail(fmt::format("more than the {} instructions of warp {}", expected, warp));
          Fields f(line, lines_);
          if (k_.header.tracer_version < 3) {
            // Tracer versions before 3 (or a file that names none, as Accel-Sim reads it)
            // repeat the TB and warp in front of every line: they must agree.
            for (uint32_t x : coords)
              if (f.number("thread block coordinate", 10, UINT32_MAX) != x)
                lines_.fail(fmt::format("the line's thread block is not this TB's ({},{},{}); a file of tracer "
                                        "version {} has 'x y z warp' before each line",
                                        coords[0], coords[1], coords[2], k_.header.tracer_version));
            if (f.number("warp", 10, UINT32_MAX) != warp) lines_.fail(fmt::format("the line's warp is not {}", warp));
          }
          if (k_.header.lineinfo) f.number("source line", 10, UINT32_MAX);
          instruction(f, *s);
        }
      }
      do {
        if (!lines_.next(line)) return;
      } while (line.empty() || (line[0] == '#' && line != "#BEGIN_TB"));
    }
  }

  // "x y z warp PC ..." lines.
  void raw(std::string_view line) {
    do {
      if (line.empty() || line[0] == '#') continue;
      Fields f(line, lines_);
      std::array<uint64_t, 3> c{};
      for (uint64_t& x : c) x = f.number("thread block coordinate", 10, UINT32_MAX);
      const uint64_t tb = tb_index(c);
      tb_seen_[tb] = true;
      const uint64_t warp = f.number("warp", 10, UINT32_MAX);
      if (k_.header.lineinfo) f.number("source line", 10, UINT32_MAX);
      instruction(f, stream(tb, warp));
    } while (lines_.next(line));
  }

  static std::string_view value_of(std::string_view line) {
    size_t eq = line.find('=');
    return eq == std::string_view::npos ? std::string_view{} : trim(line.substr(eq + 1));
  }

  uint64_t begin_tb(std::array<uint64_t, 3> c) {
    const uint64_t tb = tb_index(c);
    if (tb_seen_[tb]) lines_.fail(fmt::format("thread block ({},{},{}) appears twice", c[0], c[1], c[2]));
    tb_seen_[tb] = true;
    return tb;
  }

  // A dense index for a register of the trace (the hidden state register
  // follows them: ReplayKernel::state_reg is 16-bit).
  uint16_t dense(uint32_t id) {
    auto [it, fresh] = dense_.try_emplace(id, uint16_t(k_.num_regs));
    if (fresh && ++k_.num_regs >= UINT16_MAX) lines_.fail("more than 65534 distinct registers in one kernel");
    return it->second;
  }

  void registers(Fields& f, std::vector<uint16_t>& out, const char* what) {
    const uint64_t n = f.number(what, 10, 32);
    out.clear();
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t id = register_id(f.word("a register"), lines_);
      // The scoreboard tracks up to 8 per side (ptx::Operand::vec).
      if (id != kNoRegister && out.size() < 8) out.push_back(dense(id));
    }
  }

  const SassInfo& info_of(std::string_view opcode) {
    auto it = infos_.find(std::string(opcode));
    if (it != infos_.end()) return it->second;
    std::string why;
    std::optional<SassInfo> i = classify_sass(opcode, k_.family, why);
    if (!i) lines_.fail(fmt::format("{} (binary version {})", why, k_.header.binary_version));
    return infos_.emplace(std::string(opcode), *i).first->second;
  }

  void instruction(Fields& f, std::vector<exec::ReplayLine>& s) {
    const uint64_t pc = f.number("PC", 16, UINT64_MAX);
    exec::ReplayLine r;
    r.mask = uint32_t(f.number("mask", 16, UINT32_MAX));
    registers(f, dst_, "destination count");
    const std::string_view opcode = f.word("the opcode");
    registers(f, src_, "source count");
    const SassInfo info = info_of(opcode);
    const uint64_t width = f.number("memory width", 10, 1 << 10);
    auto [it, fresh] = pcs_.try_emplace(pc, uint32_t(statics_.size()));
    if (fresh) {
      statics_.push_back({pc, std::string(opcode), info, dst_, src_, lines_.number()});
    } else if (const StaticInst& st = statics_[it->second]; is_memory(st.info) != is_memory(info) ||
                                                            (!is_memory(info) && st.info.cls != info.cls)) {
      lines_.fail(fmt::format("PC {:x} was '{}' at line {}, now '{}'", pc, st.opcode, st.line, opcode));
    }
    r.pc = it->second;
    if (width) addresses(f, r, info, width);
    else if (info.space == ptx::Space::Const && r.mask) const_access(r);
    // Tracer version 5 ends every line with the instruction's immediate
    // (DEPBAR's count); it does not change the timing here.
    if (!f.done()) f.signed_number("immediate");
    if (!f.done()) lines_.fail("unexpected fields after the instruction");
    s.push_back(r);
  }

  static bool is_memory(const SassInfo& i) { return i.space != ptx::Space::None; }

  void push_address(uint64_t a) {
    if (k_.replay.addrs.size() >= kMaxAddresses) lines_.fail("too many addresses in one kernel");
    k_.replay.addrs.push_back(a);
  }

  // A constant-bank load with no addresses: one address for the warp.
  void const_access(exec::ReplayLine& r) {
    r.space = ptx::Space::Const;
    r.bytes = 4;
    r.addr = uint32_t(k_.replay.addrs.size());
    for (uint32_t m = r.mask; m; m &= m - 1) push_address(0);
  }

  void addresses(Fields& f, exec::ReplayLine& r, const SassInfo& info, uint64_t width) {
    const unsigned n = unsigned(gpumux::popcount(r.mask));
    if (f.done() && n == 0) return;  // no lane, no address mode
    const uint64_t mode = f.number("address mode", 10, 2);
    if (!is_memory(info)) lines_.fail("addresses on an instruction that is not a memory access");
    if (n == 0) {
      // No lane executed it: the tracer still writes a base (and a stride).
      if (mode != 0) f.number("address", 16, UINT64_MAX);
      if (mode == 1) f.signed_number("stride");
      return;
    }
    r.space = info.space;
    r.bytes = uint16_t(width);
    r.flags = info.cls == SassClass::Store ? exec::ReplayLine::kStore
              : info.cls == SassClass::Atomic || info.cls == SassClass::Reduction ? exec::ReplayLine::kAtomic
                                                                                   : 0;
    r.addr = uint32_t(k_.replay.addrs.size());
    uint64_t a = 0;
    int64_t stride = 0;
    for (unsigned i = 0; i < n; ++i) {
      if (mode == 0 || i == 0) a = f.number("address", 16, UINT64_MAX);
      else if (mode == 1) a += uint64_t(stride);
      else a += uint64_t(f.signed_number("address delta"));
      if (mode == 1 && i == 0) stride = f.signed_number("stride");
      push_address(space_address(info.space, a));
    }
  }

  // Shared and local addresses as offsets in their space; global ones folded.
  uint64_t space_address(ptx::Space s, uint64_t a) const {
    const KernelHeader& h = k_.header;
    if (s == ptx::Space::Shared) return h.shmem_base && a >= h.shmem_base ? a - h.shmem_base : a;
    if (s == ptx::Space::Local) return h.local_base && a >= h.local_base ? a - h.local_base : a;
    return a & kGlobalAddressMask;
  }

  // Static code in PC order with placeholders in gaps; every TB and warp present.
  void finish() {
    for (uint64_t tb = 0; tb < tbs_; ++tb) {
      if (!tb_seen_[tb])
        lines_.fail(fmt::format("truncated trace: thread block {} of {} (linear index) is missing", tb, tbs_));
      for (uint32_t w = 0; w < k_.replay.warps_per_tb; ++w)
        if (k_.replay.streams[tb * k_.replay.warps_per_tb + w].empty())
          lines_.fail(fmt::format("truncated trace: warp {} of thread block {} (linear index) has no instructions", w,
                                  tb));
    }
    std::vector<uint32_t> order(statics_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return statics_[a].pc < statics_[b].pc; });
    std::vector<uint32_t> index_of(statics_.size());
    const uint64_t step = 16;  // bytes per SASS instruction from Volta on
    for (uint32_t i : order) {
      if (!k_.code.empty() && statics_[i].pc > k_.code.back().pc + step) {
        StaticInst gap;
        gap.pc = k_.code.back().pc + step;
        k_.code.push_back(std::move(gap));
      }
      index_of[i] = uint32_t(k_.code.size());
      k_.code.push_back(std::move(statics_[i]));
    }
    for (auto& s : k_.replay.streams)
      for (exec::ReplayLine& r : s) r.pc = index_of[r.pc];
  }

  Lines lines_;
  TraceKernel k_;
  uint64_t tbs_ = 0;
  std::vector<bool> tb_seen_;
  std::vector<StaticInst> statics_;  // in order of first appearance
  std::unordered_map<uint64_t, uint32_t> pcs_;
  std::unordered_map<std::string, SassInfo> infos_;
  std::unordered_map<uint32_t, uint16_t> dense_;
  std::vector<uint16_t> dst_, src_;
};

}  // namespace

TraceList parse_trace_list(std::string_view text, const std::string& name) {
  TraceList l;
  l.list_file = name;
  Lines lines(text, name);
  std::string_view line;
  while (lines.next(line)) {
    if (line.empty() || line[0] == '#') continue;
    TraceCommand c;
    c.line = lines.number();
    if (line.starts_with("Memcpy")) {
      // "MemcpyHtoD,0x<dst>,<bytes>"; other directions are not in Accel-Sim's lists.
      if (!line.starts_with("MemcpyHtoD,")) lines.fail(fmt::format("unknown copy '{}'", line));
      std::string_view rest = line.substr(11);
      size_t comma = rest.find(',');
      if (comma == std::string_view::npos) lines.fail("MemcpyHtoD needs an address and a size");
      c.kind = TraceCommand::Kind::MemcpyHtoD;
      c.addr = parse_number(trim(rest.substr(0, comma)), lines, "copy address", UINT64_MAX);
      c.bytes = parse_number(trim(rest.substr(comma + 1)), lines, "copy size", uint64_t(1) << 40);
    } else {
      if (line.find_first_of(" \t,/\\") != std::string_view::npos || line.starts_with(".."))
        lines.fail(fmt::format("'{}' is neither a MemcpyHtoD nor a kernel file name", line));
      c.file = std::string(line);
    }
    l.commands.push_back(std::move(c));
  }
  return l;
}

TraceList read_trace_list(const std::filesystem::path& dir) {
  for (const char* name : {"kernelslist.g", "kernelslist"}) {
    const std::filesystem::path p = dir / name;
    if (!std::filesystem::exists(p)) continue;
    TraceList l = parse_trace_list(read_trace_file(p), p.string());
    l.dir = dir;
    l.list_file = name;
    return l;
  }
  throw LoadError(fmt::format("{}: no kernelslist.g (or kernelslist) in this trace folder", dir.string()));
}

TraceKernel parse_kernel_trace(std::string_view text, const std::string& name) {
  return KernelParser(text, name).run();
}

TraceKernel read_kernel_trace(const std::filesystem::path& file) {
  return parse_kernel_trace(read_trace_file(file), file.string());
}

}  // namespace gpumux::trace
