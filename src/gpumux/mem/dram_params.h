// Parameters of one DRAM channel (one per memory partition). Timings are in
// DRAM command-clock cycles (clock.dram_mhz).
#pragma once

#include <cstdint>

#include "gpumux/core/params.h"

namespace gpumux::mem {

struct DramParams {
  uint32_t banks = 16;
  uint32_t row_bytes = 2048;   // row buffer (page) size per channel
  uint32_t bus_bytes = 8;      // data bus width
  uint32_t data_rate = 4;      // transfers per command clock
  uint32_t burst_length = 4;   // transfers per column command
  uint32_t queue_size = 32;    // scheduler queue entries
  uint32_t controller_latency = 100;  // cycles of controller and PHY pipeline per request
  uint32_t tRCD = 24;
  uint32_t tRP = 24;
  uint32_t tRAS = 56;
  uint32_t tCL = 24;
  uint32_t tWL = 8;
  uint32_t tCCD = 1;
  uint32_t tRRD = 10;
  uint32_t tWR = 24;
  uint32_t tREFI = 0;  // 0: refresh not modeled
  uint32_t tRFC = 0;

  // Bytes moved by one column command.
  uint32_t atom_bytes() const { return bus_bytes * burst_length; }
  // Data-bus cycles of one column command.
  uint32_t burst_cycles() const { return burst_length / data_rate; }

  static void declare(ParamDecl<DramParams>& d) {
    d.param("banks", &DramParams::banks, "", "banks per channel, each with one row buffer").range(1, 256);
    d.param("row_bytes", &DramParams::row_bytes, "bytes", "row buffer (page) size of the channel").range(128, 1 << 20);
    d.param("bus_bytes", &DramParams::bus_bytes, "bytes", "data bus width of the channel").range(1, 1024);
    d.param("data_rate", &DramParams::data_rate, "transfers/cycle", "data transfers per command clock (GDDR5: 4, HBM2: 2)")
        .range(1, 16);
    d.param("burst_length", &DramParams::burst_length, "transfers", "data transfers of one column command").range(1, 64);
    d.param("queue_size", &DramParams::queue_size, "requests", "FR-FCFS scheduler queue").range(1, 4096);
    d.param("controller_latency", &DramParams::controller_latency, "cycles",
            "controller and PHY pipeline added to every request's completion (no bandwidth cost)")
        .range(0, 100000);
    d.param("tRCD", &DramParams::tRCD, "cycles", "activate to column command").range(1, 1000);
    d.param("tRP", &DramParams::tRP, "cycles", "precharge to activate").range(1, 1000);
    d.param("tRAS", &DramParams::tRAS, "cycles", "activate to precharge").range(1, 1000);
    d.param("tCL", &DramParams::tCL, "cycles", "read command to first data (CAS latency)").range(1, 1000);
    d.param("tWL", &DramParams::tWL, "cycles", "write command to first data").range(0, 1000);
    d.param("tCCD", &DramParams::tCCD, "cycles", "column command to column command").range(1, 1000);
    d.param("tRRD", &DramParams::tRRD, "cycles", "activate to activate of another bank").range(1, 1000);
    d.param("tWR", &DramParams::tWR, "cycles", "end of write data to precharge").range(0, 1000);
    d.param("tREFI", &DramParams::tREFI, "cycles",
            "interval between all-bank refreshes (3.9 us in GDDR5 and HBM2); 0: refresh not modeled")
        .range(0, 1 << 24);
    d.param("tRFC", &DramParams::tRFC, "cycles", "all-bank refresh: every bank is unavailable this long")
        .range(0, 1 << 20);
    d.check([](const DramParams& p) -> std::string {
      if (p.burst_length % p.data_rate != 0) return "dram.burst_length must be a multiple of dram.data_rate";
      if (32 % p.atom_bytes() != 0 && p.atom_bytes() % 32 != 0)
        return "dram.bus_bytes * dram.burst_length must divide or be a multiple of the 32 B sector";
      if (p.atom_bytes() > 128) return "dram.bus_bytes * dram.burst_length must be at most one 128 B line";
      if (p.row_bytes % 128 != 0) return "dram.row_bytes must be a multiple of the 128 B line";
      if (p.tREFI && p.tRFC >= p.tREFI) return "dram.tRFC must be shorter than dram.tREFI";
      return "";
    });
  }
};

}  // namespace gpumux::mem
