#include "gpumux/cudart/managed.h"

#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/cudart/session.h"

namespace gpumux::cudart {

void ManagedMemory::add(uint64_t base, uint64_t bytes) {
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  for (uint64_t p = base / page * page; p < base + bytes; p += page) {
    if (pages_.count(p)) continue;
    void* want = reinterpret_cast<void*>(p);
    void* got = mmap(want, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got != want) {
      if (got != MAP_FAILED) munmap(got, page);
      throw ApiError(fmt::format("managed memory: the host address range of device address 0x{:x} is in use", p));
    }
    pages_.insert(p);
  }
  ranges_[base] = bytes;
}

bool ManagedMemory::remove(uint64_t base) { return ranges_.erase(base) > 0; }

bool ManagedMemory::contains(uint64_t addr) const {
  auto it = ranges_.upper_bound(addr);
  if (it == ranges_.begin()) return false;
  --it;
  return addr - it->first < it->second;
}

void ManagedMemory::push(Session& s) const {
  for (auto [base, bytes] : ranges_) s.write(base, reinterpret_cast<const void*>(base), bytes);
}

void ManagedMemory::pull(Session& s) const {
  for (auto [base, bytes] : ranges_) s.read(base, reinterpret_cast<void*>(base), bytes);
}

}  // namespace gpumux::cudart
