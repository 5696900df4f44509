#include "gpumux/trace/accelsim_writer.h"

#include "gpumux/ptx/inst_info.h"

#include <algorithm>
#include <bit>
#include <iterator>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/exec/address_space.h"
#include "gpumux/exec/loaded_module.h"
#include "gpumux/exec/thread_block.h"
#include "gpumux/trace/sass_opcode.h"

namespace gpumux::trace {

namespace {

// Accel-Sim reads at most one destination and four source registers.
constexpr unsigned kMaxSources = 4;

// Trace register of a PTX register index: R<index>, skipping R255 (RZ, the
// zero register, which carries no dependence).
unsigned trace_reg(uint16_t r) { return r < 255 ? r : unsigned(r) + 1; }

// The general-purpose registers an instruction writes (first one only) and
// reads; predicates have no trace registers.
void registers(const ptx::Instruction& in, std::vector<uint16_t>& dst, std::vector<uint16_t>& src) {
  const bool writes = ptx::has_destination(in) && in.nops > 0;
  if (writes) {
    const ptx::Operand& d = in.ops[0];
    if (d.kind == ptx::OperandKind::Reg) dst.push_back(d.reg);
    if (d.kind == ptx::OperandKind::Vec)
      for (unsigned k = 0; k < d.vcount && dst.empty(); ++k)
        if (d.vec[k] != ptx::kNoReg) dst.push_back(d.vec[k]);
  }
  auto add = [&](uint16_t r) {
    if (r != ptx::kNoReg && src.size() < kMaxSources &&
        std::find(src.begin(), src.end(), r) == src.end())
      src.push_back(r);
  };
  for (unsigned i = writes ? 1 : 0; i < in.nops; ++i) {
    const ptx::Operand& o = in.ops[i];
    if (o.kind == ptx::OperandKind::Reg || o.kind == ptx::OperandKind::Addr) add(o.reg);
    if (o.kind == ptx::OperandKind::Vec)
      for (unsigned k = 0; k < o.vcount; ++k) add(o.vec[k]);
  }
}

// Address of one lane in its own space: generic addresses that reached shared
// or local memory are traced as offsets in that space.
uint64_t space_address(ptx::Space s, uint64_t a) {
  if (s == ptx::Space::Shared && a >= exec::kSharedWindow) return a - exec::kSharedWindow;
  if (s == ptx::Space::Local && a >= exec::kLocalWindow) return a - exec::kLocalWindow;
  return a;
}

// " <addr_mode> <addresses>": base and stride when the accessing lanes are
// contiguous with a constant stride (mode 1), else base and one delta from
// the previous lane per further lane (mode 2); mode 0 with no address when no
// lane accessed memory.
void append_addresses(std::string& s, const exec::MemAccess& a) {
  if (!a.mask) {
    s += " 0";
    return;
  }
  std::vector<uint64_t> addr;
  exec::for_each_lane(a.mask, [&](unsigned l) { addr.push_back(space_address(a.space, a.addr[l])); });
  const uint32_t run = a.mask >> std::countr_zero(a.mask);
  bool strided = (run & (run + 1)) == 0;  // one contiguous run of lanes
  const int64_t stride = addr.size() > 1 ? int64_t(addr[1] - addr[0]) : 0;
  strided &= stride == int64_t(int32_t(stride));
  for (size_t i = 1; i < addr.size() && strided; ++i) strided = int64_t(addr[i] - addr[i - 1]) == stride;
  auto out = std::back_inserter(s);
  if (strided) {
    fmt::format_to(out, " 1 0x{:x} {}", addr[0], stride);
    return;
  }
  fmt::format_to(out, " 2 0x{:x}", addr[0]);
  for (size_t i = 1; i < addr.size(); ++i) fmt::format_to(out, " {}", int64_t(addr[i] - addr[i - 1]));
}

}  // namespace

AccelsimTraceWriter::AccelsimTraceWriter(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec)
    throw ApiError(fmt::format("cannot create trace directory {}: {}", dir_.string(), ec.message()));
  open(list_, dir_ / "kernelslist.g");
}

AccelsimTraceWriter::~AccelsimTraceWriter() = default;

void AccelsimTraceWriter::open(std::ofstream& f, const std::filesystem::path& p) {
  f.close();
  f.open(p, std::ios::binary | std::ios::trunc);
  if (!f) throw ApiError(fmt::format("cannot write trace file {}", p.string()));
}

void AccelsimTraceWriter::on_memcpy_h2d(const runtime::Context&, runtime::DevPtr dst,
                                        uint64_t bytes) {
  list_ << fmt::format("MemcpyHtoD,0x{:016x},{}\n", dst, bytes) << std::flush;
}

void AccelsimTraceWriter::on_launch_begin(const runtime::Context&, runtime::Stream s,
                                          const exec::GridLaunch& g) {
  const std::string file = fmt::format("kernel-{}.traceg", ++kernel_id_);
  list_ << file << "\n" << std::flush;
  open(kernel_, dir_ / file);
  // The kernel's instructions take PCs from 0, its callees follow in module order.
  const ptx::Module& m = g.module->ir();
  code_.clear();
  last_range_ = 0;
  uint64_t next = m.functions[g.kernel].insts.size();
  code_.push_back({m.functions[g.kernel].insts.data(), m.functions[g.kernel].insts.size(), 0});
  for (size_t f = 0; f < m.functions.size(); ++f) {
    if (f == g.kernel || m.functions[f].insts.empty()) continue;
    code_.push_back({m.functions[f].insts.data(), m.functions[f].insts.size(), next});
    next += m.functions[f].insts.size();
  }
  const exec::KernelLayout& kl = g.module->kernel(g.kernel);
  kernel_ << fmt::format(
      "-kernel name = {}\n-kernel id = {}\n-grid dim = ({},{},{})\n-block dim = ({},{},{})\n"
      "-shmem = {}\n-nregs = {}\n-binary version = {}\n-cuda stream id = {}\n"
      "-shmem base_addr = 0x{:016x}\n-local mem base_addr = 0x{:016x}\n"
      "-nvbit version = none (gpumux)\n-accelsim tracer version = {}\n-enable lineinfo = 0\n\n"
      "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
      "[adrrescompress?] [mem_addresses] immediate\n\n",
      g.function().name, kernel_id_, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1],
      g.block[2], kl.shared.dynamic_offset + g.dyn_smem, kl.resources.registers, kBinaryVersion,
      s.id, exec::kSharedWindow, exec::kLocalWindow, kTracerVersion);
}

void AccelsimTraceWriter::on_tb_begin(const exec::ThreadBlock& tb) {
  warp_text_.assign(tb.warps().size(), std::string());
  warp_insts_.assign(tb.warps().size(), 0);
}

uint64_t AccelsimTraceWriter::pc_of(const ptx::Instruction& in) {
  auto contains = [&](const CodeRange& r) {
    return std::greater_equal<>()(&in, r.first) && std::less<>()(&in, r.first + r.count);
  };
  if (!contains(code_[last_range_]))
    for (size_t i = 0; i < code_.size(); ++i)
      if (contains(code_[i])) last_range_ = i;
  const CodeRange& r = code_[last_range_];
  return (r.base + uint64_t(&in - r.first)) * 16;
}

void AccelsimTraceWriter::on_instruction(const exec::Warp& w, const ptx::Instruction& in,
                                         uint32_t mask, const exec::MemAccess& access) {
  const ptx::Space space = access.mask ? access.space : in.space;
  const uint64_t pc = pc_of(in);
  const SassForm form = sass_form(in, space, last_range_ == 0);
  std::vector<uint16_t> dst, src;
  registers(in, dst, src);
  std::string& s = warp_text_[w.index()];
  auto out = std::back_inserter(s);
  fmt::format_to(out, "{:04x} {:08x} {}", pc, mask, dst.size());
  for (uint16_t r : dst) fmt::format_to(out, " R{}", trace_reg(r));
  fmt::format_to(out, " {} {}", form.opcode, src.size());
  for (uint16_t r : src) fmt::format_to(out, " R{}", trace_reg(r));
  if (form.memory) {
    const unsigned width = access.mask ? access.bytes : ptx::type_size(in.type) * in.vec;
    fmt::format_to(out, " {}", width);
    append_addresses(s, access);
  } else {
    s += " 0";
  }
  s += " 0\n";  // version 5's immediate (DEPBAR's count): no PTX instruction has one
  ++warp_insts_[w.index()];
}

void AccelsimTraceWriter::on_tb_end(const exec::ThreadBlock& tb) {
  const exec::Dim c = tb.ctaid();
  kernel_ << fmt::format("#BEGIN_TB\n\nthread block = {},{},{}\n\n", c[0], c[1], c[2]);
  for (size_t i = 0; i < warp_text_.size(); ++i)
    kernel_ << fmt::format("warp = {}\ninsts = {}\n", i, warp_insts_[i]) << warp_text_[i] << "\n";
  kernel_ << "#END_TB\n\n";
}

void AccelsimTraceWriter::on_launch_end() {
  kernel_.close();
  if (kernel_.fail()) throw ApiError(fmt::format("error writing kernel-{}.traceg", kernel_id_));
}

}  // namespace gpumux::trace
