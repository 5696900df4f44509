#!/usr/bin/env python3
"""Runs Accel-Sim trace folders in gpumux and, where an Accel-Sim build is given,
in Accel-Sim's trace-driven mode, and prints a Markdown table of both cycle
counts and host times (docs/accelsim-trace.md, "Beside Accel-Sim").

  scripts/beside_accelsim.py TRACE_DIR... [--preset titanv] [--gpumux build/gpumux]
      [--accelsim ACCEL_SIM_OUT --accelsim-config GPGPUSIM_CONFIG --accelsim-config TRACE_CONFIG]

gpumux's figure is the kernel cycles of the trace application's run alone
(`first_run_kernel_cycles`: cycles in which its kernels had TBs on the GPU);
Accel-Sim's is the last `gpu_tot_sim_cycle` it prints (every kernel of the
list, copies take no cycles there). Host time is the CPU time (user + system)
of each simulator process. The same preset on both sides is the caller's
choice: pass Accel-Sim the config of the GPU gpumux's --preset models (for
titanv, Accel-Sim's SM7_TITANV gpgpusim.config and trace.config).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def cpu_seconds_of(cmd):
    """Runs cmd and returns (stdout+stderr, CPU seconds, return code)."""
    before = os.times()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return p.stdout, cpu, p.returncode


def run_gpumux(gpumux, preset, trace_dir, work):
    workload = os.path.join(work, "w.toml")
    with open(workload, "w") as f:
        f.write(f'gpu = "{preset}"\n[[app]]\ntrace = {json.dumps(os.path.abspath(trace_dir))}\n')
    result = os.path.join(work, "result.json")
    out, cpu, rc = cpu_seconds_of([gpumux, "run", workload, "--no-baselines", "--json", result])
    if rc != 0:
        return None, cpu, out.strip().splitlines()[-1] if out.strip() else f"exit {rc}"
    with open(result) as f:
        app = json.load(f)["apps"][0]
    return app["first_run_kernel_cycles"], cpu, None


def run_accelsim(binary, configs, trace_dir):
    kernels = os.path.join(trace_dir, "kernelslist.g")
    if not os.path.exists(kernels):
        return None, 0.0, "no kernelslist.g (Accel-Sim reads post-processed folders only)"
    cmd = [binary, "-trace", kernels]
    for c in configs:
        cmd += ["-config", c]
    out, cpu, rc = cpu_seconds_of(cmd)
    cycles = re.findall(r"gpu_tot_sim_cycle\s*=\s*(\d+)", out)
    if rc != 0 or not cycles:
        return None, cpu, f"exit {rc}, no gpu_tot_sim_cycle in its output"
    return int(cycles[-1]), cpu, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="+", help="Accel-Sim trace folders (kernelslist.g or kernelslist)")
    ap.add_argument("--preset", default="titanv", help="gpumux GPU preset (default titanv)")
    ap.add_argument("--gpumux", default="build/gpumux", help="gpumux binary (default build/gpumux)")
    ap.add_argument("--accelsim", help="Accel-Sim's accel-sim.out; without it only gpumux runs")
    ap.add_argument("--accelsim-config", action="append", default=[],
                    help="a config file passed to Accel-Sim with -config (repeat: gpgpusim.config, trace.config)")
    args = ap.parse_args()
    if args.accelsim and not args.accelsim_config:
        ap.error("--accelsim needs its --accelsim-config files (gpgpusim.config and trace.config)")

    print(f"gpumux preset {args.preset}" + (f"; Accel-Sim {args.accelsim} {' '.join(args.accelsim_config)}"
                                             if args.accelsim else "; no Accel-Sim build given"))
    print("| trace | gpumux kernel cycles | gpumux host s | Accel-Sim cycles | Accel-Sim host s | cycles gpumux/Accel-Sim"
          " | host time Accel-Sim/gpumux |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    failed = False
    with tempfile.TemporaryDirectory() as work:
        for t in args.traces:
            g_cycles, g_cpu, g_err = run_gpumux(args.gpumux, args.preset, t, work)
            a_cycles, a_cpu, a_err = (run_accelsim(args.accelsim, args.accelsim_config, t) if args.accelsim
                                      else (None, 0.0, "not run"))
            failed |= g_err is not None or (args.accelsim is not None and a_err is not None)
            g = (f"{g_cycles:,} | {g_cpu:.2f}" if g_err is None else f"failed: {g_err} | ")
            a = (f"{a_cycles:,} | {a_cpu:.2f}" if a_err is None else f"{a_err} | ")
            ratio = f"{g_cycles / a_cycles:.3f}" if g_err is None and a_err is None else "-"
            speed = f"{a_cpu / g_cpu:.1f}x" if g_err is None and a_err is None and g_cpu > 0 else "-"
            print(f"| {os.path.basename(os.path.normpath(t))} | {g} | {a} | {ratio} | {speed} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
