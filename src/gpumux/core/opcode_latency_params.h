// Per-opcode result latencies ([sm.opcode_latency]): the entries of
// GPGPU-Sim's -ptx_opcode_latency_{int,fp,dp} tables beyond the first (ADD),
// which [sm.latency] covers. 0 (the default) keeps the unit's latency, so a
// configuration without this table times every instruction as before.
#pragma once

#include <cstdint>

#include "gpumux/core/params.h"

namespace gpumux {

struct SmOpcodeLatencyParams {
  uint32_t int_max = 0, int_mul = 0, int_mad = 0, int_div = 0, shfl = 0;
  uint32_t fp32_max = 0, fp32_mul = 0, fp32_mad = 0, fp32_div = 0;
  uint32_t fp64_max = 0, fp64_mul = 0, fp64_mad = 0, fp64_div = 0;

  static void declare(ParamDecl<SmOpcodeLatencyParams>& d) {
    using P = SmOpcodeLatencyParams;
    auto lat = [&](const char* name, uint32_t P::*field, const char* what) {
      d.param(name, field, "cycles", what).range(0, 10000);
    };
    lat("int_max", &P::int_max, "integer min/max (0: sm.latency.int)");
    lat("int_mul", &P::int_mul, "integer mul, mul24 (0: sm.latency.int)");
    lat("int_mad", &P::int_mad, "integer mad, mad24, madc (0: sm.latency.int)");
    lat("int_div", &P::int_div, "integer div and rem (0: twice sm.latency.sfu)");
    lat("shfl", &P::shfl, "shfl, vote, match, redux (0: sm.latency.branch)");
    lat("fp32_max", &P::fp32_max, "single-precision min/max (0: sm.latency.fp32)");
    lat("fp32_mul", &P::fp32_mul, "single-precision mul (0: sm.latency.fp32)");
    lat("fp32_mad", &P::fp32_mad, "single-precision mad and fma (0: sm.latency.fp32)");
    lat("fp32_div", &P::fp32_div, "single-precision div (0: sm.latency.sfu)");
    lat("fp64_max", &P::fp64_max, "double-precision min/max (0: sm.latency.fp64)");
    lat("fp64_mul", &P::fp64_mul, "double-precision mul (0: sm.latency.fp64)");
    lat("fp64_mad", &P::fp64_mad, "double-precision mad and fma (0: sm.latency.fp64)");
    lat("fp64_div", &P::fp64_div, "double-precision div (0: four times sm.latency.fp64)");
  }
};

}  // namespace gpumux
