#!/usr/bin/env python3
"""The gpumux half of scripts/beside_accelsim.py on the two hand-written trace
folders (the raw layout and its post-processed, xz-compressed form): it exits 0,
prints one row per folder, and both rows have the same positive kernel cycles.
No Accel-Sim build exists here, so its columns must say "not run"."""
import argparse
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--script", required=True)
ap.add_argument("--gpumux", required=True)
ap.add_argument("--data", required=True)
a = ap.parse_args()
p = subprocess.run([sys.executable, a.script, f"{a.data}/raw-vecadd", f"{a.data}/xz-vecadd", "--preset", "gtx980",
                    "--gpumux", a.gpumux], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(p.stdout)
assert p.returncode == 0, f"exit {p.returncode}"
rows = {m.group(1): m for m in re.finditer(r"^\| (\S+) \| ([\d,]+) \| ([\d.]+) \| not run \|", p.stdout, re.M)}
assert set(rows) == {"raw-vecadd", "xz-vecadd"}, rows.keys()
cycles = {k: int(m.group(2).replace(",", "")) for k, m in rows.items()}
assert cycles["raw-vecadd"] == cycles["xz-vecadd"] > 0, cycles
print("ok", cycles)
