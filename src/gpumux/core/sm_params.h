// Parameters of one SM. They live here until the SM model (src/gpumux/sm/)
// exists; then they move beside it.
#pragma once

#include <cstdint>
#include <string>

#include "gpumux/core/params.h"

namespace gpumux {

// Result latencies of the functional units, in core cycles.
struct SmLatencyParams {
  uint32_t int_alu = 6;
  uint32_t fp32 = 6;
  uint32_t fp64 = 48;
  uint32_t sfu = 20;
  uint32_t shared_mem = 24;

  static void declare(ParamDecl<SmLatencyParams>& d) {
    d.param("int", &SmLatencyParams::int_alu, "cycles", "integer ALU result latency").range(1, 1000);
    d.param("fp32", &SmLatencyParams::fp32, "cycles", "single-precision result latency").range(1, 1000);
    d.param("fp64", &SmLatencyParams::fp64, "cycles", "double-precision result latency").range(1, 1000);
    d.param("sfu", &SmLatencyParams::sfu, "cycles", "special function unit (rcp, sqrt, sin...) result latency")
        .range(1, 1000);
    d.param("shared_mem", &SmLatencyParams::shared_mem, "cycles", "shared memory load latency without bank conflicts")
        .range(1, 1000);
  }
};

struct SmParams {
  uint32_t warp_slots = 64;
  uint32_t tb_slots = 32;
  uint32_t max_threads = 2048;
  uint32_t registers = 65536;
  uint32_t shared_mem_bytes = 98304;
  uint32_t sub_cores = 4;
  std::string warp_scheduler = "gto";
  SmLatencyParams latency;

  static void declare(ParamDecl<SmParams>& d) {
    d.param("warp_slots", &SmParams::warp_slots, "warps", "resident warps per SM").range(1, 1024);
    d.param("tb_slots", &SmParams::tb_slots, "TBs", "resident thread blocks per SM").range(1, 1024);
    d.param("max_threads", &SmParams::max_threads, "threads", "resident threads per SM").range(32, 32768);
    d.param("registers", &SmParams::registers, "32-bit registers", "register file size per SM").range(1024, 1 << 24);
    d.param("shared_mem_bytes", &SmParams::shared_mem_bytes, "bytes", "shared memory per SM").range(0, 1 << 24);
    d.param("sub_cores", &SmParams::sub_cores, "", "processing blocks per SM, each with one warp scheduler")
        .range(1, 16);
    d.param("warp_scheduler", &SmParams::warp_scheduler, "", "warp scheduling policy of each sub-core")
        .choices({"lrr", "gto", "two-level"});
    d.section("latency", &SmParams::latency, "functional unit latencies");
    d.check([](const SmParams& p) -> std::string {
      if (p.max_threads % 32 != 0) return "sm.max_threads must be a multiple of the warp size (32)";
      if (p.warp_slots % p.sub_cores != 0) return "sm.warp_slots must be a multiple of sm.sub_cores";
      return "";
    });
  }
};

}  // namespace gpumux
