// Lazy shared-memory save (preemption.h): the shared memory of a TB switched
// with ContextSaveOptions::lazy_shared stays allocated here, parked, until the
// TB resumes here, a placement needs the space, or the front end places the
// TB elsewhere. Evicting writes it to the first lines of the TB's save area,
// one line per cycle through the same memory path as a context save.
#include <algorithm>
#include <utility>

#include "gpumux/sm/sm.h"

namespace gpumux::sm {

std::vector<Sm::ParkedShared>::const_iterator Sm::find_parked(uint32_t kernel_id, uint64_t tb_index) const {
  return std::find_if(parked_.begin(), parked_.end(),
                      [&](const ParkedShared& p) { return p.kernel->id == kernel_id && p.index == tb_index; });
}

std::vector<Sm::ParkedShared>::iterator Sm::find_parked(uint32_t kernel_id, uint64_t tb_index) {
  return parked_.begin() + (std::as_const(*this).find_parked(kernel_id, tb_index) - parked_.cbegin());
}

void Sm::park_shared(uint16_t ti) {
  const TbSlot& t = tbs_[ti];
  ParkedShared p;
  p.id = next_parked_id_++;
  p.kernel = t.kernel;
  p.index = t.index;
  p.smem = t.smem;
  parked_.push_back(p);
  stats_.shared_parked[t.kernel->key].add();
}

uint32_t Sm::parked_shared_bytes() const {
  uint32_t bytes = 0;
  for (const ParkedShared& p : parked_) bytes += p.smem.size;
  return bytes;
}

bool Sm::fits_parked(const KernelInstance& k, uint64_t tb_index) const {
  auto it = find_parked(k.id, tb_index);
  return it != parked_.end() && !it->evicting && slots_fit(k.needs) && pool_fits(regs_, k, k.needs.registers);
}

void Sm::make_room(const KernelInstance& k) {
  const TbNeeds& n = k.needs;
  if (parked_.empty() || !slots_fit(n) || !pool_fits(regs_, k, n.registers) || pool_fits(smem_, k, n.shared_bytes))
    return;
  // The shared memory as it will be once the evictions under way and the
  // ones started here are done.
  RangeAllocator after = smem_;
  for (const ParkedShared& p : parked_)
    if (p.evicting) after.release(p.smem);
  auto room = [&] {
    return two_way_ ? two_way_->fits(regs_, after, after, k.id, n.shared_bytes) : after.fits(n.shared_bytes);
  };
  for (ParkedShared& p : parked_) {
    if (room()) return;
    if (p.evicting) continue;
    after.release(p.smem);
    start_eviction(p);
  }
}

void Sm::evict_parked(uint32_t kernel_id, uint64_t tb_index) {
  auto it = find_parked(kernel_id, tb_index);
  if (it != parked_.end() && !it->evicting) start_eviction(*it);
}

void Sm::drop_parked(uint32_t kernel_id, uint64_t tb_index) {
  auto it = find_parked(kernel_id, tb_index);
  if (it == parked_.end()) return;
  // Write-back lines still queued are not sent; acknowledgements of lines
  // already sent find no parked entry and are ignored.
  std::erase_if(transfers_, [&](const ContextTransfer& x) { return x.token == (kContextToken | kParkedToken | it->id); });
  smem_.release(it->smem);
  parked_.erase(it);
  wake();
}

void Sm::start_eviction(ParkedShared& p) {
  const KernelInstance& k = *p.kernel;
  Cycle now = engine().wake_cycle(domain());
  p.evicting = true;
  p.lines_unacked = uint32_t((p.smem.size + mem::kLineBytes - 1) / mem::kLineBytes);
  stats_.shared_evictions[k.key].add();
  stats_.context_bytes_saved[k.key].add(p.smem.size);
  transfers_.push_back({kContextToken | kParkedToken | p.id, true, save_area(k, p.index), 0, p.lines_unacked, now,
                        uint16_t(k.app), uint16_t(k.id), k.key});
  wake();
}

void Sm::parked_ack(uint32_t id) {
  auto it = std::find_if(parked_.begin(), parked_.end(), [&](const ParkedShared& p) { return p.id == id; });
  if (it == parked_.end() || --it->lines_unacked > 0) return;
  KernelInstance& k = *it->kernel;
  uint64_t index = it->index;
  smem_.release(it->smem);
  parked_.erase(it);
  wake();
  listener_.shared_evicted(id_, k, index);
}

}  // namespace gpumux::sm
