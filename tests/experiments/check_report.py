#!/usr/bin/env python3
"""Checks a study report (OUT/report.html) the way a reader sees it: in headless Chromium.

  check_report.py [--script S] [--fixture DIR]   copy the fixture study to a temporary
      folder, render it with scripts/experiment_report.py, check the script's error
      exits (missing and malformed inputs), then check the page
  check_report.py --out DIR                       check DIR/report.html as it is (no rendering)

The page checks:
  static   report.html is self-contained (no link or source outside the page except
           results.csv, which must exist), one inline <svg class="plot"> per figure it
           says it drew, one section per entry of figures.json
  DOM      chromium --dump-dom: body's data-figures-rendered (set by the page's script
           from the SVGs' bounding boxes) equals the number of inline figures, and every
           trend name of trends.json is in the page
  pixels   chromium --screenshot at 1280x2000: the PNG has that size, at least 1% of
           non-white pixels and at least 8 distinct colours
  console  with --enable-logging=stderr, Chromium logs each message a page writes to the
           console (console.log/warn/error, uncaught exceptions) as a line containing
           ":CONSOLE", whatever its level; the report writes none, so any such line, or
           any "Uncaught", fails. Failed resource loads are not logged there: the static
           check covers them (the page loads nothing)
The fixture run also checks what the fixture is known to contain (see check_fixture).

Exit status: 0 passed, 1 failed, 77 (CTest's SKIP_RETURN_CODE) when Chromium is missing.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEM_PYTHON = "/usr/bin/python3"

try:
    import matplotlib.image
    import numpy
except ImportError:
    # Debian's python3-matplotlib belongs to the system interpreter; a pyenv or
    # venv python3 earlier on PATH cannot see it.
    if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON):
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, *sys.argv])
    sys.exit("check_report: needs matplotlib (apt-get install python3-matplotlib)")

ROOT = Path(__file__).resolve().parents[2]
SKIP = 77
CHROMIUM_TIMEOUT_S = 120
WINDOW = (1280, 2000)
MIN_INK_FRACTION = 0.01
MIN_COLOURS = 8
# What the fixture holds (tests/experiments/fixtures/report-out): 5 figures, of
# which the last has no data and shows a placeholder instead of an SVG.
FIXTURE_PLOTTED = ["stp-by-policy", "stp-vs-sms", "ntt-cdf", "antt-vs-fairness"]
FIXTURE_EMPTY = ["l2-hit-rate"]
# The first colour of the report's palette: the screenshot's first figure is painted in it.
FIGURE_BLUE = (0x00, 0x72, 0xB2)


class Checks:
    def __init__(self):
        self.failures = 0

    def __call__(self, ok, what, detail=""):
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else ""))
        self.failures += not ok
        return ok


def html_text(s):
    # How a text node is serialized in report.html and in the dumped DOM.
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def run_script(script, out):
    return subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=120)


def check_error_exits(check, script, fixture, tmp):
    """A missing or malformed input exits 2 with one line on stderr naming the file."""
    cases = [("study.json", None, "missing study.json"), ("figures.json", "[{\"kind\": ", "malformed figures.json")]
    for name, content, what in cases:
        out = tmp / f"error-{name}"
        shutil.copytree(fixture, out)
        if content is None:
            (out / name).unlink()
        else:
            (out / name).write_text(content)
        r = run_script(script, out)
        err = r.stderr.strip()
        check(r.returncode == 2 and name in err and "\n" not in err and "Traceback" not in err,
              f"{what}: exit 2 with one line naming {name}", f"exit {r.returncode}, stderr {r.stderr!r}")


def check_static(check, out, html):
    figures = json.loads((out / "figures.json").read_text()) if (out / "figures.json").exists() else None
    outside = [v for v in re.findall(r'\s(?:xlink:)?(?:href|src)="([^"]*)"', html)
               if not (v.startswith("#") or v.startswith("data:") or v == "results.csv")]
    check(not outside and not re.search(r"<link\b|<script\s+src|@import|url\(\s*['\"]?(?:https?:|file:|//)", html),
          "report.html is self-contained", f"links outside the page: {outside[:5]}")
    check((out / "results.csv").is_file() or 'href="results.csv"' not in html, "the linked results.csv exists")
    svgs = len(re.findall(r'<svg class="plot"', html))
    m = re.search(r'data-figures-expected="(\d+)"', html)
    check(m is not None and int(m.group(1)) == svgs, f"{svgs} inline figures, as the page says",
          f"data-figures-expected {m.group(1) if m else 'absent'}")
    if figures is not None:
        sections = len(re.findall(r'<section id="fig-', html))
        check(sections == len(figures), f"one section per figure of figures.json ({len(figures)})",
              f"{sections} sections")
    return svgs


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def chromium(binary, tmp, page, extra):
    """Runs headless Chromium on the page; returns (stdout, stderr)."""
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           f"--user-data-dir={tmp / 'chromium-profile'}", "--no-first-run", "--disable-extensions",
           "--hide-scrollbars", "--enable-logging=stderr", "--v=0", *extra, page.resolve().as_uri()]
    # A HOME of its own keeps Chromium from writing into the user's, which may be read-only in CI.
    env = dict(os.environ, HOME=str(tmp / "home"))
    (tmp / "home").mkdir(exist_ok=True)
    # Its own session, so that a timeout ends Chromium's helper processes too.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=CHROMIUM_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise RuntimeError(f"chromium did not finish within {CHROMIUM_TIMEOUT_S} s: {' '.join(cmd)}")
    if p.returncode != 0:
        raise RuntimeError(f"chromium exited {p.returncode}: {err[-2000:]}")
    return out, err


def check_console(check, what, stderr):
    bad = [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
    check(not bad, f"{what}: no console messages", "\n  " + "\n  ".join(bad[:10]))


def check_dom(check, dom, svgs, out):
    m = re.search(r'<body[^>]*\bdata-figures-rendered="(\d+)"', dom)
    check(m is not None and int(m.group(1)) == svgs, f"DOM: {svgs} figures rendered with a non-zero size",
          f"data-figures-rendered {m.group(1) if m else 'absent (the page script did not run)'}")
    trends_file = out / "trends.json"
    names = [t.get("name", "") for t in json.loads(trends_file.read_text())] if trends_file.exists() else []
    missing = [n for n in names if html_text(n) not in dom]
    check(not missing, f"DOM: the {len(names)} trend names are in the page", f"missing {missing}")


def check_screenshot(check, png, fixture):
    image = matplotlib.image.imread(png)
    check(image.shape[:2] == (WINDOW[1], WINDOW[0]), f"screenshot is {WINDOW[0]}x{WINDOW[1]}",
          f"shape {image.shape}")
    rgb = numpy.round(image[..., :3] * 255).astype(numpy.uint8)
    ink = float((rgb.min(axis=2) < 230).mean())
    colours = len(numpy.unique(rgb.reshape(-1, 3), axis=0))
    check(ink >= MIN_INK_FRACTION, f"screenshot is not blank ({ink:.1%} non-white pixels)",
          f"need {MIN_INK_FRACTION:.0%}")
    check(colours >= MIN_COLOURS, f"screenshot has {colours} distinct colours", f"need {MIN_COLOURS}")
    if fixture:
        blue = int((numpy.abs(rgb.astype(int) - FIGURE_BLUE).max(axis=2) <= 8).sum())
        check(blue >= 500, f"screenshot shows the first figure ({blue} pixels of its blue)", "need 500")


def check_fixture(check, out, html, dom):
    """What the fixture is known to contain reaches the page, escaped."""
    svg_files = sorted(p.stem for p in (out / "figures").glob("*.svg"))
    check(svg_files == sorted(FIXTURE_PLOTTED), "figures/<name>.svg for each figure with data", f"{svg_files}")
    check(html.count("No data to plot.") == len(FIXTURE_EMPTY), "a placeholder for the figure without data")
    check("smk-even (paper)</th>" in html and ">1.52</td>" in html, "paper values beside measured ones")
    for verdict in (">yes<", ">NO<", ">known failure<", ">error<"):
        check(verdict in html, f"trend verdict {verdict[1:-1]!r} shown")
    check('href="results.csv"' in html and "16 rows" in html, "results.csv linked with its row count")
    check("&lt;script&gt;console.error(" in dom, "a failed run's error text is escaped, not run")


def check_page(check, binary, out, tmp, fixture):
    html_path = out / "report.html"
    if not check(html_path.is_file(), f"{html_path} exists", "run `gpumux experiment report OUT` first"):
        return
    html = html_path.read_text(encoding="utf-8")
    svgs = check_static(check, out, html)
    if binary is None:
        return
    t0 = time.monotonic()
    dom, err = chromium(binary, tmp, html_path, ["--dump-dom"])
    check_console(check, "--dump-dom", err)
    check_dom(check, dom, svgs, out)
    png = tmp / "report.png"
    _, err = chromium(binary, tmp, html_path, [f"--screenshot={png}", f"--window-size={WINDOW[0]},{WINDOW[1]}"])
    check_console(check, "--screenshot", err)
    if check(png.is_file(), "screenshot written"):
        check_screenshot(check, png, fixture)
    if fixture:
        check_fixture(check, out, html, dom)
    print(f"chromium runs took {time.monotonic() - t0:.1f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, help="check this study output's report.html instead of the fixture's")
    ap.add_argument("--script", type=Path, default=ROOT / "scripts" / "experiment_report.py")
    ap.add_argument("--fixture", type=Path, default=Path(__file__).resolve().parent / "fixtures" / "report-out")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (rendered fixture, screenshot)")
    args = ap.parse_args()

    check = Checks()
    binary = find_chromium()
    tmp = Path(tempfile.mkdtemp(prefix="check-report-"))
    try:
        if args.out is None:
            out = tmp / "out"
            shutil.copytree(args.fixture, out)
            # An SVG left by an earlier report of the folder, for the figure that has no
            # data now: the script must remove it (publish copies every SVG there).
            (out / "figures").mkdir(exist_ok=True)
            (out / "figures" / f"{FIXTURE_EMPTY[0]}.svg").write_text("<svg/>", encoding="utf-8")
            r = run_script(args.script, out)
            check(r.returncode == 0, "the report script renders the fixture", f"exit {r.returncode}: {r.stderr}")
            check_error_exits(check, args.script, args.fixture, tmp)
        else:
            out = args.out
        check_page(check, binary, out, tmp, fixture=args.out is None)
    except RuntimeError as e:
        check(False, "chromium", str(e))
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if check.failures:
        print(f"{check.failures} check(s) failed")
        return 1
    if binary is None:
        print("SKIPPED the browser checks: chromium is not installed (apt-get install chromium)")
        return SKIP
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
