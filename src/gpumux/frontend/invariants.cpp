#include "gpumux/frontend/invariants.h"

#include <stdexcept>

#include <fmt/format.h>

namespace gpumux::frontend {
namespace {

[[noreturn]] void fail(const sm::Sm& s, const SharingPolicy& p, const std::string& what) {
  throw std::logic_error(fmt::format("SM {} invariant broken under sharing policy {}: {}", s.id(), p.name(), what));
}

void check_pool(const sm::Sm& s, const SharingPolicy& p, const sm::RangeAllocator& a, const char* pool) {
  if (a.used() > a.capacity()) fail(s, p, fmt::format("{} in use ({}) exceed the capacity ({})", pool, a.used(), a.capacity()));
  if (a.largest_free() > a.capacity() - a.used())
    fail(s, p, fmt::format("{}: a free range of {} but only {} of {} unused (overlapping allocations)", pool,
                           a.largest_free(), a.capacity() - a.used(), a.capacity()));
}

}  // namespace

void check_sm_invariants(const sm::Sm& s, const SharingPolicy& p) {
  check_pool(s, p, s.register_file(), "registers");
  check_pool(s, p, s.shared_memory(), "shared memory bytes");
  if (s.resident_tbs() > s.params().tb_slots)
    fail(s, p, fmt::format("{} resident TBs exceed the {} TB slots", s.resident_tbs(), s.params().tb_slots));
}

void check_sm_invariants(const sm::Sm& s, const SharingPolicy& p, std::span<const ActiveKernel> kernels) {
  check_sm_invariants(s, p);
  const SmParams& sp = s.params();
  uint64_t tbs = 0, warps = 0, threads = 0, regs = 0, smem = 0;
  std::string residents;
  uint32_t kernels_here = 0;
  for (const ActiveKernel& a : kernels) {
    uint32_t n = s.resident_tbs(a.kernel->id);
    if (n == 0) continue;
    if (!a.kernel->may_use_sm(s.id()))
      fail(s, p, fmt::format("{} TBs of {} resident outside the SMs of its green context", n, a.kernel->label));
    if (n > a.tbs_running)
      fail(s, p, fmt::format("{} TBs of {} resident but only {} of its TBs are running", n, a.kernel->label,
                             a.tbs_running));
    const sm::TbNeeds& need = a.kernel->needs;
    tbs += n;
    warps += uint64_t(n) * need.warps;
    threads += uint64_t(n) * need.threads;
    regs += uint64_t(n) * need.registers;
    smem += uint64_t(n) * need.shared_bytes;
    residents += fmt::format("{}{} x{}", residents.empty() ? "" : ", ", a.kernel->label, n);
    ++kernels_here;
  }
  if (tbs != s.resident_tbs())
    fail(s, p, fmt::format("{} resident TBs but the active kernels account for {} ({})", s.resident_tbs(), tbs,
                           residents));
  if (warps > sp.warp_slots)
    fail(s, p, fmt::format("resident TBs hold {} warps, more than the {} warp slots ({})", warps, sp.warp_slots,
                           residents));
  if (threads > sp.max_threads)
    fail(s, p, fmt::format("resident TBs hold {} threads, more than the {} allowed ({})", threads, sp.max_threads,
                           residents));
  if (regs != s.register_file().used())
    fail(s, p, fmt::format("resident TBs need {} registers but {} are allocated ({})", regs,
                           s.register_file().used(), residents));
  // Parked shared memory (lazy save) belongs to TBs switched off the SM.
  smem += s.parked_shared_bytes();
  if (smem != s.shared_memory().used())
    fail(s, p, fmt::format("resident TBs need {} shared memory bytes ({} parked) but {} are allocated ({})", smem,
                           s.parked_shared_bytes(), s.shared_memory().used(), residents));
  if (p.exclusive_sms() && kernels_here > 1)
    fail(s, p, fmt::format("the policy gives an SM to one kernel at a time, but {} kernels are resident ({})",
                           kernels_here, residents));
}

}  // namespace gpumux::frontend
