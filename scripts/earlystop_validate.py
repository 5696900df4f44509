#!/usr/bin/env python3
"""Early-stopped runs against full runs (docs/performance.md, "Runs that stop
when their answer is known").

For each pair and policy, runs the pair to completion ([run] until =
"completions", the studies' rule) and with until = "converged", then prints per
mix the STP and ANTT of both, the early run's error against the full run's and
its stated bound, and the simulated cycles saved.

  scripts/earlystop_validate.py build/gpumux --pairs cutcp+stencil,bfs+hotspot \\
      --policies smk-even --size medium --gpu gtx980 --tolerance 0.02 --windows 20
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def workload(gpu, policy, apps, size, run):
    lines = [f'gpu = "{gpu}"', "[policy]", f'name = "{policy}"', "[run]"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in run.items()]
    for i, a in enumerate(apps):
        # A study's mix: every app uses the run's seed (experiments/plan.cpp).
        lines += ["[[app]]", f'benchmark = "{a}"', f'name = "{a}{"-2" if a in apps[:i] else ""}"',
                  f'size = "{size}"', "seed = 1"]
    return "\n".join(lines) + "\n"


def run(gpumux, text, tmp, name):
    wl = os.path.join(tmp, name + ".toml")
    out = os.path.join(tmp, name + ".json")
    with open(wl, "w") as f:
        f.write(text)
    p = subprocess.run([gpumux, "run", wl, "--json", out], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{name}: gpumux run failed:\n{p.stderr}")
    with open(out) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gpumux")
    ap.add_argument("--pairs", required=True, help="comma-separated a+b")
    ap.add_argument("--policies", default="smk-even")
    ap.add_argument("--size", default="medium")
    ap.add_argument("--gpu", default="gtx980")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--windows", type=int, default=20)
    ap.add_argument("--ipc-window", type=int, default=10000)
    ap.add_argument("--max-cycles", type=int, default=100_000_000)
    a = ap.parse_args()
    converged = {"until": "converged", "tolerance": a.tolerance, "windows": a.windows,
                 "ipc_window": a.ipc_window, "max_cycles": a.max_cycles}
    full_rule = {"until": "completions", "completions": 1, "measure": "first"}
    print(f"| mix | policy | full cycles | stopped at | saved | STP full | STP early | STP err | STP bound "
          f"| ANTT full | ANTT early | ANTT err | ANTT bound | within bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for pair in a.pairs.split(","):
            apps = pair.split("+")
            for policy in a.policies.split(","):
                name = f"{pair}-{policy}".replace("+", "_")
                full = run(a.gpumux, workload(a.gpu, policy, apps, a.size, full_rule), tmp, name + "-full")
                early = run(a.gpumux, workload(a.gpu, policy, apps, a.size, converged), tmp, name + "-early")
                fm, em, c = full["metrics"], early["metrics"], early["convergence"]
                if not fm or not em:
                    print(f"| {pair} | {policy} | no metrics |")
                    continue
                at = c["at"] if c["converged"] else early["cycles"]
                stp_err = em["stp"] - fm["stp"]
                antt_err = em["antt"] - fm["antt"]
                ok = abs(stp_err) <= c["stp_bound"] and abs(antt_err) <= c["antt_bound"]
                print(f"| {pair} | {policy} | {full['cycles']} | {at}{'' if c['converged'] else ' (limit)'} "
                      f"| {100 * (1 - at / full['cycles']):.0f}% | {fm['stp']:.3f} | {em['stp']:.3f} "
                      f"| {100 * stp_err / fm['stp']:+.1f}% | +-{c['stp_bound']:.3f} | {fm['antt']:.3f} "
                      f"| {em['antt']:.3f} | {100 * antt_err / fm['antt']:+.1f}% | +-{c['antt_bound']:.3f} "
                      f"| {'yes' if ok else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
