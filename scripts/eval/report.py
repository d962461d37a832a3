#!/usr/bin/env python3
"""Renders the evaluation's results (run.py's JSON lines) as the markdown table of docs/EVAL.md.

One row per task, and for each label (e.g. before, after) four columns: solved runs out of
runs, and the mean steps (model requests), prompt tokens and wall time of a run. The totals
row sums the per-task means (one pass over the task set); below the table, prompt tokens
per solved task = all prompt tokens of a label / its solved runs.

    python3 scripts/eval/report.py [--labels before,after] [--run-ids ID,..] [results.jsonl ...]
"""
import argparse
import json
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent / "results" / "results.jsonl"


def load(paths, labels, run_ids):
    records = []
    for path in paths:
        for line in Path(path).read_text().splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            if run_ids and r.get("run_id") not in run_ids:
                continue
            if labels and r.get("label") not in labels:
                continue
            records.append(r)
    return records


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def fmt_int(x):
    return f"{x:,.0f}".replace(",", " ")


def render(records, labels):
    tasks = sorted({r["task"] for r in records})
    by = {}
    for r in records:
        by.setdefault((r["label"], r["task"]), []).append(r)
    head = ["task"]
    for label in labels:
        head += [f"{label}: solved", f"{label}: steps", f"{label}: prompt tokens", f"{label}: wall s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * (len(head) - 1)]
    totals = {label: {"solved": 0, "runs": 0, "steps": 0.0, "tokens": 0.0, "wall": 0.0,
                      "all_tokens": 0, "timeouts": 0} for label in labels}
    for task in tasks:
        row = [task]
        for label in labels:
            runs = by.get((label, task), [])
            if not runs:
                row += ["–"] * 4
                continue
            solved = sum(1 for r in runs if r["solved"])
            steps, tokens, wall = (mean([r[k] for r in runs]) for k in ("steps", "prompt_tokens", "wall_s"))
            t = totals[label]
            t["solved"] += solved
            t["runs"] += len(runs)
            t["steps"] += steps
            t["tokens"] += tokens
            t["wall"] += wall
            t["all_tokens"] += sum(r["prompt_tokens"] for r in runs)
            t["timeouts"] += sum(1 for r in runs if r.get("timed_out"))
            row += [f"{solved}/{len(runs)}", f"{steps:.1f}", fmt_int(tokens), f"{wall:.0f}"]
        lines.append("| " + " | ".join(row) + " |")
    row = ["**total**"]
    for label in labels:
        t = totals[label]
        row += [f"**{t['solved']}/{t['runs']}**", f"{t['steps']:.1f}", fmt_int(t["tokens"]), f"{t['wall']:.0f}"]
    lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    for label in labels:
        t = totals[label]
        per_solved = fmt_int(t["all_tokens"] / t["solved"]) if t["solved"] else "– (nothing solved)"
        runs = [r for r in records if r["label"] == label]
        tools = {}
        for r in runs:
            for name, n in (r.get("tools") or {}).items():
                tools[name] = tools.get(name, 0) + n
        called = ", ".join(f"{name} {n}" for name, n in sorted(tools.items(), key=lambda kv: -kv[1])) or "none"
        retries = sum(r.get("retries", 0) for r in runs)
        lines.append(f"- {label}: {t['solved']} of {t['runs']} runs solved; prompt tokens per solved task "
                     f"{per_solved}; {t['timeouts']} run(s) stopped by the timeout; {retries} retried "
                     f"request(s); tool calls: {called}.")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="*", type=Path, default=[DEFAULT], help=f"JSON-lines files (default {DEFAULT})")
    ap.add_argument("--labels", help="comma-separated labels, in column order (default: all, in order of appearance)")
    ap.add_argument("--run-ids", help="comma-separated run ids to keep (default: every run)")
    args = ap.parse_args()
    labels = [x for x in (args.labels or "").split(",") if x]
    run_ids = {x for x in (args.run_ids or "").split(",") if x}
    records = load(args.results, set(labels), run_ids)
    if not records:
        sys.exit("no results")
    if not labels:
        labels = list(dict.fromkeys(r["label"] for r in records))
    sys.stdout.write(render(records, labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
