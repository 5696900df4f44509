// Parameters of one SM (src/gpumux/sm/). They stay in core/ because the
// config tree (core/config.h) and the gpgpusim.config importer include them.
#pragma once

#include <cstdint>
#include <string>

#include "gpumux/core/opcode_latency_params.h"
#include "gpumux/core/params.h"

namespace gpumux {

// Result latencies of the functional units, in core cycles.
struct SmLatencyParams {
  uint32_t int_alu = 6;
  uint32_t fp32 = 6;
  uint32_t fp64 = 48;
  uint32_t sfu = 20;
  uint32_t shared_mem = 24;
  uint32_t branch = 2;
  uint32_t constant = 8;
  uint32_t texture = 60;
  uint32_t tensor = 32;

  static void declare(ParamDecl<SmLatencyParams>& d) {
    d.param("int", &SmLatencyParams::int_alu, "cycles", "integer ALU result latency").range(1, 1000);
    d.param("fp32", &SmLatencyParams::fp32, "cycles", "single-precision result latency").range(1, 1000);
    d.param("fp64", &SmLatencyParams::fp64, "cycles", "double-precision result latency").range(1, 1000);
    d.param("sfu", &SmLatencyParams::sfu, "cycles", "special function unit (rcp, sqrt, sin...) result latency")
        .range(1, 1000);
    d.param("shared_mem", &SmLatencyParams::shared_mem, "cycles", "shared memory load latency without bank conflicts")
        .range(1, 1000);
    d.param("branch", &SmLatencyParams::branch, "cycles",
            "control unit latency (branch, warp vote/shuffle, barrier arrival)")
        .range(1, 1000);
    d.param("constant", &SmLatencyParams::constant, "cycles",
            "constant / parameter load latency (constant cache hit) for one distinct address")
        .range(1, 1000);
    d.param("texture", &SmLatencyParams::texture, "cycles",
            "texture unit: cycles a texture fetch or surface access (tex, tld4, suld, sust) adds to the L1 path "
            "(addressing and filtering)")
        .range(0, 1000);
    d.param("tensor", &SmLatencyParams::tensor, "cycles", "tensor-core (mma) result latency").range(1, 1000);
  }
};

// Initiation intervals: cycles a sub-core's unit is busy per warp instruction
// (32 lanes / lanes of that unit in the sub-core).
struct SmIntervalParams {
  uint32_t int_alu = 1;
  uint32_t fp32 = 1;
  uint32_t fp64 = 32;
  uint32_t sfu = 4;
  uint32_t branch = 1;
  uint32_t ldst = 1;
  uint32_t tensor = 8;

  static void declare(ParamDecl<SmIntervalParams>& d) {
    d.param("int", &SmIntervalParams::int_alu, "cycles", "integer unit: cycles between warp instructions").range(1, 256);
    d.param("fp32", &SmIntervalParams::fp32, "cycles", "FP32 unit: cycles between warp instructions").range(1, 256);
    d.param("fp64", &SmIntervalParams::fp64, "cycles", "FP64 unit: cycles between warp instructions").range(1, 256);
    d.param("sfu", &SmIntervalParams::sfu, "cycles", "special function unit: cycles between warp instructions")
        .range(1, 256);
    d.param("branch", &SmIntervalParams::branch, "cycles", "control unit: cycles between warp instructions")
        .range(1, 256);
    d.param("ldst", &SmIntervalParams::ldst, "cycles", "load/store issue port: cycles between warp instructions")
        .range(1, 256);
    d.param("tensor", &SmIntervalParams::tensor, "cycles",
            "tensor-core unit: cycles per mma of 2048 f16 multiply-adds (m16n8k16); other shapes and "
            "types scale with their multiply-adds and the type's rate (docs/timing-sm.md)")
        .range(1, 64);
  }
};

// Register-file banks and operand collector units (docs/timing-sm.md). Off
// (banks = 0) by default: operands are read at issue, at no cost.
struct SmOperandCollectorParams {
  uint32_t banks = 0;
  uint32_t collector_units = 2;
  uint32_t read_ports = 1;

  static void declare(ParamDecl<SmOperandCollectorParams>& d) {
    d.param("banks", &SmOperandCollectorParams::banks, "banks",
            "register-file banks per sub-core; register r of warp slot s is in bank (r + s) mod banks "
            "(0: off, operands are read at issue)")
        .range(0, 64);
    d.param("collector_units", &SmOperandCollectorParams::collector_units, "units",
            "operand collector units per sub-core: an instruction holds one from issue until its source "
            "registers are read")
        .range(1, 64);
    d.param("read_ports", &SmOperandCollectorParams::read_ports, "reads/cycle",
            "register reads each bank serves per cycle")
        .range(1, 16);
  }
};

// How the SM deals with instructions that may page fault (docs/virtual-memory.md,
// Tanasic's thesis section 6.3). The default, stall-on-fault, is the thesis's
// baseline and gpumux's SM without any of it.
struct SmFaultPipelineParams {
  std::string mode = "stall-on-fault";
  // Estimate: the thesis gives no size ("negligible" logic, section 6.3.2).
  // Two in-flight global memory instructions per warp slot of Table 6.1's SM
  // (64 warps), enough not to limit the memory parallelism of its kernels.
  uint32_t replay_queue = 128;
  // Section 6.5.2 evaluates 8 KB and 16 KB; 16 KB is the size it finds enough (99.8%).
  uint32_t operand_log_bytes = 16384;
  // TB switching on fault (thesis 6.4.1, 6.5.3): "a maximum of 4 extra thread
  // blocks per SM" is the thesis's setting; 0 keeps it off (the default).
  uint32_t extra_tbs = 0;
  // Figure 6.13's "ideal 1 cycle context switching": nothing is moved.
  bool ideal_switch = false;

  static void declare(ParamDecl<SmFaultPipelineParams>& d) {
    d.param("mode", &SmFaultPipelineParams::mode, "",
            "pipeline for global memory instructions, which may page fault (docs/virtual-memory.md): "
            "stall-on-fault (the baseline) or one that makes faults preemptible (the others need vm.translation)")
        .choices({
#define GPUMUX_FAULT_PIPELINE(name, disable, holds, queue, log) name,
#include "gpumux/sm/fault_pipelines.inc"
#undef GPUMUX_FAULT_PIPELINE
        });
    d.param("replay_queue", &SmFaultPipelineParams::replay_queue, "instructions",
            "replay-queue and operand-log: global memory instructions in flight per SM (issue to commit); a full "
            "queue stalls the next one")
        .range(1, 1 << 16);
    d.param("operand_log_bytes", &SmFaultPipelineParams::operand_log_bytes, "bytes",
            "operand-log: log size per SM in 256 B entries (8 B per thread x 32), split evenly between the TBs "
            "of the kernel's occupancy; a load takes 1 entry, a store or atomic 2")
        .range(256, 1 << 24);
    d.param("extra_tbs", &SmFaultPipelineParams::extra_tbs, "TBs",
            "TB switching on fault (thesis 6.4.1): a TB whose warps all wait for page faults or at a barrier is "
            "switched out for a ready one, and at most this many TBs switched out of an SM wait off-chip for "
            "their faults at once (thesis 4; 0: off). Needs vm.demand_paging and mode replay-queue or operand-log")
        .range(0, 64);
    d.param("ideal_switch", &SmFaultPipelineParams::ideal_switch, "",
            "TB switching on fault: switches move no context (figure 6.13's ideal 1-cycle save and restore)");
  }
};

struct SmParams {
  uint32_t warp_slots = 64;
  uint32_t tb_slots = 32;
  uint32_t max_threads = 2048;
  uint32_t registers = 65536;
  uint32_t register_granularity = 256;
  uint32_t shared_mem_bytes = 98304;
  uint32_t shared_mem_granularity = 256;
  uint32_t sub_cores = 4;
  std::string warp_scheduler = "gto";
  uint32_t two_level_active = 8;
  uint32_t fetch_latency = 4;
  uint32_t tb_launch_latency = 0;
  uint32_t lsu_queue = 8;
  uint32_t mem_ops_per_warp = 8;
  uint32_t warp_context_bytes = 128;
  uint32_t two_way_pairs = 0;
  SmLatencyParams latency;
  SmIntervalParams interval;
  SmOpcodeLatencyParams opcode_latency;
  SmOperandCollectorParams operand_collector;
  SmFaultPipelineParams fault_pipeline;

  static void declare(ParamDecl<SmParams>& d) {
    d.param("warp_slots", &SmParams::warp_slots, "warps", "resident warps per SM").range(1, 1024);
    d.param("tb_slots", &SmParams::tb_slots, "TBs", "resident thread blocks per SM").range(1, 1024);
    d.param("max_threads", &SmParams::max_threads, "threads", "resident threads per SM").range(32, 32768);
    d.param("registers", &SmParams::registers, "32-bit registers", "register file size per SM").range(1024, 1 << 24);
    d.param("register_granularity", &SmParams::register_granularity, "32-bit registers",
            "a TB's register allocation is rounded up to a multiple of this")
        .range(1, 1 << 16);
    d.param("shared_mem_bytes", &SmParams::shared_mem_bytes, "bytes", "shared memory per SM").range(0, 1 << 24);
    d.param("shared_mem_granularity", &SmParams::shared_mem_granularity, "bytes",
            "a TB's shared memory allocation is rounded up to a multiple of this")
        .range(1, 1 << 16);
    d.param("sub_cores", &SmParams::sub_cores, "", "processing blocks per SM, each with one warp scheduler")
        .range(1, 16);
    // The registered policies (sm/warp_scheduler/policies.inc) are the choices.
    d.param("warp_scheduler", &SmParams::warp_scheduler, "", "warp scheduling policy of each sub-core")
        .choices({
#define GPUMUX_WARP_SCHEDULER(fn, name) name,
#include "gpumux/sm/warp_scheduler/policies.inc"
#undef GPUMUX_WARP_SCHEDULER
        });
    d.param("two_level_active", &SmParams::two_level_active, "warps",
            "two-level scheduler: warps in the active set of each sub-core")
        .range(1, 1024);
    d.param("fetch_latency", &SmParams::fetch_latency, "cycles",
            "fetch + decode into the instruction buffer: paid when a warp starts and after a taken branch")
        .range(0, 1000);
    d.param("tb_launch_latency", &SmParams::tb_launch_latency, "cycles",
            "from a new TB's placement on the SM to its warps' first fetch (TB set-up; 0: none)")
        .range(0, 1000000);
    d.param("lsu_queue", &SmParams::lsu_queue, "instructions",
            "memory instructions waiting in the load/store unit; a full queue stalls issue (memory stall)")
        .range(1, 1024);
    d.param("mem_ops_per_warp", &SmParams::mem_ops_per_warp, "instructions",
            "outstanding loads/stores/atomics per warp (scoreboard entries for memory)")
        .range(1, 32);
    d.param("warp_context_bytes", &SmParams::warp_context_bytes, "bytes",
            "state a context switch saves per warp besides registers and shared memory (PC, SIMT stack, call "
            "frames, barrier state)")
        .range(0, 1 << 16);
    d.param("two_way_pairs", &SmParams::two_way_pairs, "pairs",
            "GPU Maestro's 2-way allocation (docs/two-way-allocation.md): registers and shared memory split into "
            "this many equal parts, two kernels per part allocating from its opposite ends, boundary TBs "
            "preempted first (1: 2-way, n > 1: 2n-way; 0: off, one-ended first-fit)")
        .range(0, 64);
    d.section("latency", &SmParams::latency, "functional unit latencies");
    d.section("interval", &SmParams::interval, "functional unit initiation intervals (per sub-core)");
    d.section("opcode_latency", &SmParams::opcode_latency,
              "per-opcode result latencies overriding the unit's (0: the unit's latency)");
    d.section("operand_collector", &SmParams::operand_collector,
              "register-file banks and operand collector units (off unless banks > 0)");
    d.section("fault_pipeline", &SmParams::fault_pipeline,
              "preemptible page faults: the issue rules of the thesis's section 6.3 pipelines");
    d.check([](const SmParams& p) -> std::string {
      if (p.max_threads % 32 != 0) return "sm.max_threads must be a multiple of the warp size (32)";
      if (p.warp_slots % p.sub_cores != 0) return "sm.warp_slots must be a multiple of sm.sub_cores";
      // Every TB must be able to log one store (2 entries of 256 B): the thesis's
      // reason for 8 KB as its smallest log with 16 TBs per SM (section 6.5.2).
      if (p.fault_pipeline.mode == "operand-log" && p.fault_pipeline.operand_log_bytes / 256 < 2 * p.tb_slots)
        return "sm.fault_pipeline.operand_log_bytes must give every TB slot 2 entries of 256 B (512 * sm.tb_slots)";
      return "";
    });
  }
};

}  // namespace gpumux
