// Parameters of virtual memory (docs/virtual-memory.md): address translation
// through per-SM L1 TLBs, a shared L2 TLB and page-table walkers, and demand
// paging of global memory from the host. Off by default: then nothing of it
// is built and no request pays for it.
#pragma once

#include <cstdint>
#include <string>

#include "gpumux/core/params.h"

namespace gpumux::mem {

struct TlbParams {
  uint32_t entries = 32;
  uint32_t ways = 8;
  uint32_t mshrs = 32;    // distinct pages being translated at once
  uint32_t latency = 40;  // core cycles from lookup to its answer

  static void declare(ParamDecl<TlbParams>& d) {
    d.param("entries", &TlbParams::entries, "entries", "translations held (LRU within a set)").range(1, 1 << 20);
    d.param("ways", &TlbParams::ways, "ways", "associativity").range(1, 1 << 20);
    d.param("mshrs", &TlbParams::mshrs, "misses", "pages whose translation may be outstanding at once")
        .range(1, 1 << 16);
    d.param("latency", &TlbParams::latency, "cycles", "lookup latency (core cycles)").range(1, 100000);
    d.check([](const TlbParams& p) -> std::string {
      return p.entries % p.ways != 0 ? "a TLB's entries must be a multiple of its ways" : "";
    });
  }
};

struct VmParams {
  bool translation = false;
  uint32_t page_bytes = 4096;
  uint32_t migration_bytes = 65536;  // what one fault brings to the device
  TlbParams l1_tlb{32, 8, 32, 40};
  TlbParams l2_tlb{1024, 8, 128, 70};
  uint32_t walkers = 64;
  uint32_t walk_latency = 500;  // core cycles
  bool demand_paging = false;
  double fault_us = 12.0;  // host service time of one fault, data transfer included
  // Thesis 6.5.3: a fault on a page the host never wrote needs no transfer,
  // 10 us over NVLink (12 us over PCIe, where fault_us is 25).
  double fault_alloc_us = 10.0;
  // Device memory for paged data; 0: unlimited (nothing is evicted). An
  // extension of the thesis (docs/virtual-memory.md, "Oversubscription").
  uint64_t device_memory_bytes = 0;
  // Thesis 6.4.2: allocation-only faults handled on the GPU, in parallel; its
  // handler's latency is estimated at 20 us (6.5.4).
  bool local_faults = false;
  double local_fault_us = 20.0;
  // Thesis 6.5.4: "there is no page migrations in this experiment (i.e.,
  // explicit transfers)": what the runtime copies in is on the device.
  bool copies_resident = false;

  static void declare(ParamDecl<VmParams>& d) {
    d.param("translation", &VmParams::translation, "",
            "translate global and local accesses through the TLBs and page-table walkers (virtual-memory.md)");
    d.param("page_bytes", &VmParams::page_bytes, "bytes", "page size (power of two)").range(4096, 1 << 30);
    d.param("migration_bytes", &VmParams::migration_bytes, "bytes",
            "bytes migrated by one fault (power-of-two multiple of page_bytes)")
        .range(4096, 1 << 30);
    d.section("l1_tlb", &VmParams::l1_tlb, "per-SM TLB, looked up on L1D misses (the L1D is virtually tagged)");
    d.section("l2_tlb", &VmParams::l2_tlb, "TLB shared by all SMs, looked up on L1 TLB misses");
    d.param("walkers", &VmParams::walkers, "walkers", "page-table walks in progress at once").range(1, 1 << 16);
    d.param("walk_latency", &VmParams::walk_latency, "cycles", "core cycles of one page-table walk").range(1, 1000000);
    d.param("demand_paging", &VmParams::demand_paging, "",
            "global memory starts on the host: the first touch of a migration unit faults and the host migrates it "
            "(needs translation)");
    d.param("fault_us", &VmParams::fault_us, "us",
            "host service time of one fault with its data transfer; faults are serviced one at a time")
        .range_float(0.0, 1e6);
    d.param("fault_alloc_us", &VmParams::fault_alloc_us, "us",
            "host service time of a fault on a migration unit the host never wrote (no transfer); "
            "at most fault_us, whose excess over it is also the write-back time of an evicted unit")
        .range_float(0.0, 1e6);
    d.param("device_memory_bytes", &VmParams::device_memory_bytes, "bytes",
            "device memory for demand-paged data, in whole migration units; when full a fault evicts the least "
            "recently used unit (0: unlimited)");
    d.param("local_faults", &VmParams::local_faults, "",
            "faults on migration units the host holds no data for (allocation-only: output pages, the device heap) "
            "are handled on the GPU, each in local_fault_us and in parallel, instead of one at a time by the host "
            "(thesis 6.4.2; needs demand_paging and a preemptible sm.fault_pipeline.mode)");
    d.param("local_fault_us", &VmParams::local_fault_us, "us",
            "latency of the GPU's fault handler for one allocation-only fault (local_faults)")
        .range_float(0.0, 1e6);
    d.param("copies_resident", &VmParams::copies_resident, "",
            "data the runtime copies in (cudaMemcpy, a workload's inputs) is placed on the device by the copy, as "
            "explicit copies are, and memsets are device work; only memory the host never wrote faults, "
            "allocation-only (the thesis's setting of figures 6.14 and 6.15)");
    d.check([](const VmParams& p) -> std::string {
      if ((p.page_bytes & (p.page_bytes - 1)) != 0) return "vm.page_bytes must be a power of two";
      if ((p.migration_bytes & (p.migration_bytes - 1)) != 0 || p.migration_bytes < p.page_bytes)
        return "vm.migration_bytes must be a power of two no smaller than vm.page_bytes";
      if (p.demand_paging && !p.translation) return "vm.demand_paging needs vm.translation = true";
      if (p.fault_alloc_us > p.fault_us) return "vm.fault_alloc_us must not exceed vm.fault_us";
      if ((p.local_faults || p.copies_resident) && !p.demand_paging)
        return "vm.local_faults and vm.copies_resident need vm.demand_paging = true";
      if (p.device_memory_bytes != 0 && p.device_memory_bytes < p.migration_bytes)
        return "vm.device_memory_bytes must be 0 (unlimited) or at least vm.migration_bytes";
      return "";
    });
  }
};

}  // namespace gpumux::mem
