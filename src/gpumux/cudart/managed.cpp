#include "gpumux/cudart/managed.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/cudart/session.h"

namespace gpumux::cudart {

void ManagedMemory::add(Session& s, uint64_t base, uint64_t bytes, bool host_initialized) {
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
  s.paging({runtime::Paging::Kind::Managed, base, bytes});
  if (host_initialized) s.paging({runtime::Paging::Kind::HostWrote, base, bytes});
  ranges_[base] = Range{bytes, std::vector<uint8_t>(bytes)};
}

bool ManagedMemory::remove(uint64_t base) { return ranges_.erase(base) > 0; }

bool ManagedMemory::contains(uint64_t addr) const {
  auto it = ranges_.upper_bound(addr);
  if (it == ranges_.begin()) return false;
  --it;
  return addr - it->first < it->second.bytes;
}

// Host stores are found per 4 KB block (a host page); each run of changed
// blocks is one report.
void ManagedMemory::push(Session& s) {
  constexpr uint64_t kBlock = 4096;
  for (auto& [base, r] : ranges_) {
    const auto* mirror = reinterpret_cast<const uint8_t*>(base);
    uint64_t run = 0, run_bytes = 0;
    for (uint64_t at = 0; at < r.bytes; at += kBlock) {
      const uint64_t n = std::min(kBlock, r.bytes - at);
      if (std::memcmp(mirror + at, r.synced.data() + at, n) != 0) {
        if (!run_bytes) run = at;
        run_bytes += n;
        continue;
      }
      if (run_bytes) s.paging({runtime::Paging::Kind::HostWrote, base + run, run_bytes});
      run_bytes = 0;
    }
    if (run_bytes) s.paging({runtime::Paging::Kind::HostWrote, base + run, run_bytes});
    s.write(base, mirror, r.bytes);
    std::memcpy(r.synced.data(), mirror, r.bytes);
  }
}

void ManagedMemory::pull(Session& s) {
  for (auto& [base, r] : ranges_) {
    s.read(base, reinterpret_cast<void*>(base), r.bytes);
    std::memcpy(r.synced.data(), reinterpret_cast<const void*>(base), r.bytes);
  }
}

}  // namespace gpumux::cudart
