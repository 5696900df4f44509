// Fragmentation as GPU Maestro defines it (ASPLOS'17 3.3.1, figure 6): free
// registers (or shared memory) that the kernel wanting a TB here cannot use
// because they are not contiguous, although they would suffice in total; and
// for how long. Free units beyond the kernel's whole TBs are under-utilisation,
// not fragmentation, and are not counted (the paper's figure 6 excludes them). The front end gives its verdict each
// time it offers the SM TBs, which it does whenever resources change.
#include "gpumux/sm/sm.h"

namespace gpumux::sm {

void Sm::register_fragmentation_stats(StatRegistry& stats, const std::string& pre) {
  stats.add(pre + "fragmentation.cycles", stats_.fragmented_cycles,
            "cycles a TB of the kernel was refused although enough registers and shared memory were free in total");
  stats.add(pre + "fragmentation.register_cycles", stats_.fragmented_register_cycles,
            "sum over those cycles of the free registers that would hold whole TBs of the kernel, when the "
            "register file refused the TB (fragmented share = this / cycles / sm.registers)");
  stats.add(pre + "fragmentation.shared_byte_cycles", stats_.fragmented_shared_byte_cycles,
            "sum over those cycles of the free shared-memory bytes that would hold whole TBs of the kernel, when "
            "shared memory refused the TB");
  stats.add(pre + "fragmentation.episodes", stats_.fragmentation_episodes,
            "fragmentation episodes (average duration = cycles / episodes)");
}

void Sm::fragmentation_verdict(const KernelInstance* refused) {
  const Cycle now = engine().wake_cycle(domain());
  Fragmentation& f = fragmentation_;
  if (f.key != kNoKey && now > f.since) {
    const uint64_t span = now - f.since;
    stats_.fragmented_cycles[f.key].add(span);
    stats_.fragmented_register_cycles[f.key].add(span * f.registers);
    stats_.fragmented_shared_byte_cycles[f.key].add(span * f.shared_bytes);
  }
  if (!refused) {
    f.key = kNoKey;
    return;
  }
  if (f.key != refused->key) stats_.fragmentation_episodes[refused->key].add();
  const TbNeeds& n = refused->needs;
  f.key = refused->key;
  f.since = now;
  // Free units that would hold whole TBs of the refused kernel, if the pool refused it.
  auto fragmented = [&](const RangeAllocator& pool, uint32_t need) {
    if (need == 0 || pool_fits(pool, *refused, need)) return 0u;
    const uint32_t free = pool.capacity() - pool.used();
    return free / need * need;
  };
  f.registers = fragmented(regs_, n.registers);
  f.shared_bytes = fragmented(smem_, n.shared_bytes);
}

}  // namespace gpumux::sm
