#!/usr/bin/env python3
"""Writes OUT/report.html, the readable summary of a study's output folder.

Usage: experiment_report.py OUT

Reads OUT/study.json, OUT/figures.json, OUT/trends.json and OUT/results.csv
(written by `gpumux experiment`; the contract is in docs/experiments.md),
renders each figure to OUT/figures/<name>.svg and writes one self-contained
OUT/report.html (figures inlined, no external resources). Exit status: 0 on
success, 2 with a one-line message naming the file when an input is missing
or malformed.
"""
import csv
import io
import json
import math
import os
import re
import statistics
import sys
from pathlib import Path

SYSTEM_PYTHON = "/usr/bin/python3"

try:
    import jinja2
    import markupsafe
    import matplotlib
except ImportError:
    # Debian's python3-matplotlib and python3-jinja2 belong to the system
    # interpreter; a pyenv or venv python3 earlier on PATH cannot see them.
    if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON):
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, *sys.argv])
    sys.exit("experiment_report: needs matplotlib and jinja2 (apt-get install python3-matplotlib python3-jinja2)")

matplotlib.use("svg")
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)
from matplotlib.lines import Line2D  # noqa: E402

KINDS = ("bars", "lines", "cdf", "scatter")
# Colour-blind-safe palette (Okabe-Ito), so series stay distinguishable on any screen.
COLOURS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
# Tables with more rows than this start folded so the figures stay close together.
OPEN_TABLE_ROWS = 15
# Scatter points are labelled only when there are few enough to stay legible.
MAX_SCATTER_LABELS = 40


class InputError(Exception):
    """An input file that is missing or does not follow the contract."""

    def __init__(self, path, msg):
        super().__init__(f"{path}: {msg}")


class Reader:
    """Typed access to one input file's fields; a wrong type names the file and the place."""

    def __init__(self, path):
        self.path = path

    def fail(self, where, msg):
        raise InputError(self.path, f"{where}: {msg}" if where else msg)

    def load(self, top_type):
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            self.fail("", "missing")
        except (OSError, UnicodeDecodeError) as e:
            self.fail("", f"cannot be read ({e})")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            self.fail("", f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}")
        if not isinstance(data, top_type):
            self.fail("", f"the top level must be a JSON {'object' if top_type is dict else 'array'}")
        return data

    def obj(self, value, where):
        if not isinstance(value, dict):
            self.fail(where, "must be a JSON object")
        return value

    def text(self, obj, key, where, default=""):
        value = obj.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            self.fail(where, f"'{key}' must be a string")
        return value

    def items(self, obj, key, where):
        value = obj.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(where, f"'{key}' must be a list")
        return value

    def num(self, obj, key, where):
        """A finite number, or None for a missing, null, NaN or infinite value."""
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(where, f"'{key}' must be a number or null")
        return float(value) if math.isfinite(value) else None

    def xval(self, obj, where):
        value = obj.get("x")
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return value
        self.fail(where, "'x' must be a string or a finite number")


def fmt(value):
    """A number as a table shows it: '-' when missing, integers whole, others to 4 digits."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):d}"
    return f"{value:.4g}"


def xkey(x):
    # 16 and 16.0 are the same x; a string never equals a number.
    return ("n", float(x)) if isinstance(x, (int, float)) else ("s", x)


# ---------------------------------------------------------------- inputs

def read_study(out):
    r = Reader(out / "study.json")
    d = r.load(dict)
    runs = r.obj(d.get("runs") or {}, "'runs'")
    study = {key: r.text(d, key, "") for key in
             ("name", "title", "description", "paper", "scale", "gpu", "config_dump",
              "gpumux_version", "build_id", "commit", "created")}
    sample = d.get("sample")
    # A sample of the scale's mixes (gpumux experiment run --sample): said in the header.
    study["sample"] = r.text(r.obj(sample, "'sample'"), "text", "'sample'") if sample is not None else ""
    study["runs"] = {key: r.num(runs, key, "'runs'") for key in ("total", "ok", "failed")}
    study["paragraphs"] = [p.strip() for p in re.split(r"\n\s*\n", study["description"]) if p.strip()]
    study["failed_runs"] = [
        {key: r.text(r.obj(f, w), key, w) for key in ("key", "label", "error")}
        for i, f in enumerate(r.items(d, "failed_runs", "")) for w in [f"failed_runs[{i}]"]]
    study["classes"] = [
        {"benchmark": r.text(r.obj(c, w), "benchmark", w), "class": r.text(c, "class", w),
         "speedup": r.num(c, "speedup", w)}
        for i, c in enumerate(r.items(d, "classes", "")) for w in [f"classes[{i}]"]]
    study["paper_values"] = [
        {key: r.text(r.obj(p, w), key, w) for key in ("what", "paper", "measured")}
        for i, p in enumerate(r.items(d, "paper_values", "")) for w in [f"paper_values[{i}]"]]
    return study


def read_figures(out):
    r = Reader(out / "figures.json")
    figures = []
    for i, f in enumerate(r.load(list)):
        w = f"figure {i}"
        r.obj(f, w)
        fig = {key: r.text(f, key, w) for key in ("name", "title", "kind", "x_label", "y_label", "caption")}
        w = f"figure {i} ('{fig['name']}')"
        if fig["kind"] not in KINDS:
            r.fail(w, f"'kind' must be one of {', '.join(KINDS)}")
        fig["series"] = []
        for j, s in enumerate(r.items(f, "series", w)):
            ws = f"{w} series {j}"
            r.obj(s, ws)
            series = {"name": r.text(s, "name", ws), "points": [], "values": []}
            if fig["kind"] == "cdf":
                for v in r.items(s, "values", ws):
                    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                        r.fail(ws, "'values' must hold numbers")
                    if v is not None and math.isfinite(v):
                        series["values"].append(float(v))
            else:
                for k, p in enumerate(r.items(s, "points", ws)):
                    wp = f"{ws} point {k}"
                    r.obj(p, wp)
                    series["points"].append((r.xval(p, wp), r.num(p, "y", wp), r.text(p, "label", wp)))
            fig["series"].append(series)
        fig["paper"] = []
        for k, p in enumerate(r.items(f, "paper", w)):
            wp = f"{w} paper {k}"
            r.obj(p, wp)
            fig["paper"].append((r.text(p, "series", wp), r.xval(p, wp), r.num(p, "y", wp)))
        figures.append(fig)
    return figures


def interval_text(r, t, where):
    """The 95% bootstrap interval of lhs - rhs, as the report shows it."""
    low, high = r.num(t, "ci_low", where), r.num(t, "ci_high", where)
    if low is None or high is None:
        return "-"
    units = t.get("units")
    if not isinstance(units, int) or isinstance(units, bool):
        r.fail(where, "'units' must be an integer")
    if units <= 1:
        return f"{low:.4g} (point: {units} unit)"
    return f"[{low:.4g}, {high:.4g}] ({units} units)"


def read_trends(out):
    r = Reader(out / "trends.json")
    trends = []
    for i, t in enumerate(r.load(list)):
        w = f"trend {i}"
        r.obj(t, w)
        holds = t.get("holds")
        if holds is not None and not isinstance(holds, bool):
            r.fail(w, "'holds' must be true or false")
        trend = {key: r.text(t, key, w) for key in ("name", "expr", "paper")}
        trend.update(lhs=r.num(t, "lhs", w), rhs=r.num(t, "rhs", w),
                     known_failure=r.text(t, "known_failure", w, None), error=r.text(t, "error", w, None))
        trend["interval"] = interval_text(r, t, w)
        point_holds = t.get("point_holds") is True
        if trend["error"]:
            trend["status"], trend["verdict"] = "error", "error"
        elif holds and trend["known_failure"]:
            trend["status"], trend["verdict"] = "unexpected", "STALE: holds, though declared to fail"
        elif holds:
            trend["status"], trend["verdict"] = "ok", "yes"
        elif trend["known_failure"]:
            trend["status"], trend["verdict"] = "known", "known failure"
        elif point_holds:
            trend["status"], trend["verdict"] = "bad", "not beyond noise"
        else:
            trend["status"], trend["verdict"] = "bad", "NO"
        trends.append(trend)
    return trends


def read_results(out):
    path = out / "results.csv"
    try:
        with path.open(newline="", encoding="utf-8") as f:
            rows = [row for row in csv.reader(f, strict=True) if row]
    except FileNotFoundError:
        raise InputError(path, "missing") from None
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(path, f"cannot be read ({e})") from None
    return {"columns": rows[0] if rows else [], "rows": max(len(rows) - 1, 0)}


# ---------------------------------------------------------------- figures

def plottable(fig):
    """Whether the figure has anything to draw (measured or paper)."""
    if any(y is not None for _, _, y in fig["paper"]):
        return True
    return any(s["values"] or any(y is not None for _, y, _ in s["points"]) for s in fig["series"])


def categories(fig):
    """The x values of a categorical figure, in order of first appearance."""
    seen = {}
    for s in fig["series"]:
        for x, _, _ in s["points"]:
            seen.setdefault(xkey(x), x)
    for _, x, _ in fig["paper"]:
        seen.setdefault(xkey(x), x)
    return list(seen.values())


def numeric_x(fig):
    xs = [x for s in fig["series"] for x, _, _ in s["points"]] + [x for _, x, _ in fig["paper"]]
    return all(isinstance(x, (int, float)) for x in xs)


def series_names(fig):
    """Measured series, then series that only the paper has, each once."""
    names = list(dict.fromkeys(s["name"] for s in fig["series"]))
    return names + [n for n in dict.fromkeys(n for n, _, _ in fig["paper"]) if n not in names]


def legend_label(name):
    # matplotlib leaves labels starting with "_" out of the legend; a zero-width space keeps them in.
    return "\u200b" + name if name.startswith("_") else name


def draw_paper(ax, xs, ys, colour):
    # Hollow diamonds: visible over a bar or a line of any colour.
    ax.scatter(xs, ys, marker="D", s=42, facecolors="white", edgecolors=colour, linewidths=1.6, zorder=4)


def draw_paper_by_series(ax, fig, colour_of, where):
    """Draws the paper's values in their series' colours; tells whether any could be placed."""
    drawn = False
    for n in series_names(fig):
        pts = [(where(x), y) for m, x, y in fig["paper"] if m == n and y is not None]
        pts = [(x, y) for x, y in pts if not math.isnan(x)]
        if pts:
            draw_paper(ax, [x for x, _ in pts], [y for _, y in pts], colour_of(n))
            drawn = True
    return drawn


def plot_bars(ax, fig, colour_of):
    cats = categories(fig)
    pos = {xkey(x): i for i, x in enumerate(cats)}
    names = series_names(fig)
    width = 0.8 / max(len(names), 1)
    offset = {n: (i - (len(names) - 1) / 2) * width for i, n in enumerate(names)}
    for s in fig["series"]:
        pts = [(pos[xkey(x)] + offset[s["name"]], y) for x, y, _ in s["points"] if y is not None]
        ax.bar([p for p, _ in pts], [y for _, y in pts], width * 0.95, color=colour_of(s["name"]), label=legend_label(s["name"]))
    paper = [(pos[xkey(x)] + offset[n], y) for n, x, y in fig["paper"] if y is not None]
    if paper:
        draw_paper(ax, [p for p, _ in paper], [y for _, y in paper], "black")
    ax.set_xticks(range(len(cats)), [fmt(x) for x in cats])
    if sum(len(fmt(x)) for x in cats) > 60:
        ax.tick_params(axis="x", labelrotation=40)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
    ax.set_xlim(-0.6, len(cats) - 0.4)
    return bool(paper)


def plot_lines(ax, fig, colour_of):
    numeric = numeric_x(fig)
    pos = None if numeric else {xkey(x): i for i, x in enumerate(categories(fig))}
    where = (lambda x: x) if numeric else (lambda x: pos[xkey(x)])
    for s in fig["series"]:
        pts = [(where(x), math.nan if y is None else y) for x, y, _ in s["points"]]
        if numeric:
            pts.sort()
        # NaN breaks the line, so a missing point shows as a gap.
        ax.plot([p for p, _ in pts], [y for _, y in pts], marker="o", markersize=4,
                color=colour_of(s["name"]), label=legend_label(s["name"]))
    drawn = draw_paper_by_series(ax, fig, colour_of, where)
    if not numeric:
        cats = categories(fig)
        ax.set_xticks(range(len(cats)), [fmt(x) for x in cats])
    return drawn


def plot_cdf(ax, fig, colour_of):
    for s in fig["series"]:
        values = sorted(s["values"])
        if values:
            n = len(values)
            ax.step([values[0]] + values, [0] + [(i + 1) / n for i in range(n)], where="post",
                    color=colour_of(s["name"]), label=legend_label(s["name"]))
    ax.set_ylim(0, 1.02)
    return draw_paper_by_series(ax, fig, colour_of, numeric_only)


def plot_scatter(ax, fig, colour_of):
    count = sum(len(s["points"]) for s in fig["series"])
    for s in fig["series"]:
        pts = [(x, y, label) for x, y, label in s["points"] if y is not None and not isinstance(x, str)]
        ax.scatter([x for x, _, _ in pts], [y for _, y, _ in pts], s=22, color=colour_of(s["name"]),
                   label=legend_label(s["name"]), zorder=3)
        if count <= MAX_SCATTER_LABELS:
            for x, y, label in pts:
                ax.annotate(label, (x, y), xytext=(4, 3), textcoords="offset points", fontsize=8, color="#444")
    return draw_paper_by_series(ax, fig, colour_of, numeric_only)


def numeric_only(x):
    # A categorical x has no place on a numeric axis: NaN leaves the point out of the
    # plot (the figure's table still lists it).
    return math.nan if isinstance(x, str) else x


PLOTTERS = {"bars": plot_bars, "lines": plot_lines, "cdf": plot_cdf, "scatter": plot_scatter}


def render_svg(fig, salt):
    """The figure as SVG text, or None when it has nothing to draw."""
    if not plottable(fig):
        return None
    names = series_names(fig)
    colour_of = lambda n: COLOURS[names.index(n) % len(COLOURS)]  # noqa: E731
    # Text stays text (selectable, smaller files); the salt keeps element ids
    # distinct between the figures inlined in one page; names and labels are
    # plain text, never TeX ("$" is common in them and may not parse).
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt, "text.parse_math": False,
                                "font.family": ["DejaVu Sans", "sans-serif"], "font.size": 10}):
        figure = Figure(figsize=(10, 4.2))
        ax = figure.add_subplot()
        paper_drawn = PLOTTERS[fig["kind"]](ax, fig, colour_of)
        ax.set_xlabel(fig["x_label"])
        ax.set_ylabel(fig["y_label"] or ("fraction ≤ x" if fig["kind"] == "cdf" else ""))
        ax.grid(axis="y", color="#ddd", linewidth=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        handles, _ = ax.get_legend_handles_labels()
        if paper_drawn:
            handles.append(Line2D([], [], linestyle="none", marker="D", markersize=6, markerfacecolor="white",
                                  markeredgecolor="black", markeredgewidth=1.4, label="paper"))
        if handles:
            ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0, 1.01), ncol=min(len(handles), 6),
                      frameon=False, fontsize=9, borderaxespad=0)
        buf = io.StringIO()
        figure.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buf.getvalue()


def inline_svg(svg, title):
    """The SVG without its XML prolog, marked as a report figure for the render check."""
    body = svg[svg.index("<svg"):]
    return markupsafe.Markup(body.replace("<svg ", f'<svg class="plot" role="img" aria-label="{markupsafe.escape(title)}" ', 1))


# ---------------------------------------------------------------- tables

def cell(text, cls=""):
    return {"text": text, "cls": cls}


def quantile(v, f):
    """The f-quantile of sorted values, interpolated between neighbours."""
    return v[0] if len(v) == 1 else statistics.quantiles(v, n=100, method="inclusive")[round(f * 100) - 1]


def values_table(fig):
    """What the figure plots, with the paper's values beside the measured ones."""
    paper = {(n, xkey(x)): y for n, x, y in fig["paper"]}
    paper_series = {n for n, _, _ in fig["paper"]}
    if fig["kind"] in ("bars", "lines"):
        cats = categories(fig)
        if fig["kind"] == "lines" and numeric_x(fig):
            cats.sort()
        measured = {(s["name"], xkey(x)): y for s in fig["series"] for x, y, _ in s["points"]}
        names = series_names(fig)
        measured_names = {s["name"] for s in fig["series"]}
        head = [fig["x_label"] or "x"]
        for n in names:
            head += [n] if n in measured_names else []
            head += [f"{n} (paper)"] if n in paper_series else []
        rows = []
        for x in cats:
            row = [cell(fmt(x))]
            for n in names:
                if n in measured_names:
                    row.append(cell(fmt(measured.get((n, xkey(x)))), "num"))
                if n in paper_series:
                    row.append(cell(fmt(paper.get((n, xkey(x)))), "num paper"))
            rows.append(row)
        return {"head": head, "rows": rows}
    if fig["kind"] == "cdf":
        head = ["series", "n", "min", "median", "p90", "max", "mean"]
        rows = []
        for s in fig["series"]:
            v = sorted(s["values"])
            stats = [v[0], statistics.median(v), quantile(v, 0.9), v[-1], statistics.fmean(v)] if v else [None] * 5
            rows.append([cell(s["name"]), cell(str(len(v)), "num")] + [cell(fmt(x), "num") for x in stats])
        return {"head": head, "rows": rows}
    head = ["series", "label", fig["x_label"] or "x", fig["y_label"] or "y"]
    rows = [[cell(s["name"]), cell(label), cell(fmt(x), "num"), cell(fmt(y), "num")]
            for s in fig["series"] for x, y, label in s["points"]]
    return {"head": head, "rows": rows}


def paper_table(fig):
    """The paper's values of a cdf or scatter figure (bars and lines show them in the values table)."""
    if fig["kind"] in ("bars", "lines") or not fig["paper"]:
        return None
    head = ["series", fig["x_label"] or "x", fig["y_label"] or "y"]
    return {"head": head, "rows": [[cell(n), cell(fmt(x), "num paper"), cell(fmt(y), "num paper")]
                                   for n, x, y in fig["paper"]]}


def safe_name(name, used):
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "figure"
    stem, k = base, 2
    while stem in used:
        stem, k = f"{base}-{k}", k + 1
    used.add(stem)
    return stem


# ---------------------------------------------------------------- main

def build(out):
    study = read_study(out)
    figures = read_figures(out)
    trends = read_trends(out)
    results = read_results(out)
    (out / "figures").mkdir(exist_ok=True)
    # A figure with nothing to draw now may have had an SVG from an earlier
    # report of this folder: it must not be published with the new one.
    for stale in (out / "figures").glob("*.svg"):
        stale.unlink()
    used = set()
    for fig in figures:
        fig["file"] = safe_name(fig["name"], used)
        svg = render_svg(fig, fig["file"])
        if svg is not None:
            (out / "figures" / f"{fig['file']}.svg").write_text(svg, encoding="utf-8")
        fig["svg"] = inline_svg(svg, fig["title"] or fig["name"]) if svg is not None else None
        fig["table"] = values_table(fig)
        fig["paper_table"] = paper_table(fig)
    tally = {status: sum(t["status"] == status for t in trends)
             for status in ("ok", "known", "bad", "error", "unexpected")}
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = fmt
    html = env.get_template("experiment_report.html.j2").render(
        study=study, figures=figures, trends=trends, tally=tally, results=results,
        rendered=sum(f["svg"] is not None for f in figures), open_rows=OPEN_TABLE_ROWS)
    (out / "report.html").write_text(html, encoding="utf-8")


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) != 2 or argv[1].startswith("-"):
        print("usage: experiment_report.py OUT", file=sys.stderr)
        return 2
    out = Path(argv[1])
    if not out.is_dir():
        print(f"experiment_report: {out}: not a directory", file=sys.stderr)
        return 2
    try:
        build(out)
    except InputError as e:
        print(f"experiment_report: {e}", file=sys.stderr)
        return 2
    print(out / "report.html")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
