#!/usr/bin/env python3
"""Runs light-agent headless on the evaluation's small tasks and records how it did.

Each task is a folder under scripts/eval/tasks/: `prompt.txt`, the starting tree `tree/`,
and `check.sh` (run with bash in the tree after the agent; exit 0 = solved). A question
task's check reads the agent's final answer from `$ANSWER_FILE`. Each task also keeps a
reference solution (`solution.patch`, applied to the tree with `git apply`, and/or
`reference_answer.txt`) and, for questions, `wrong_answers.txt` (one plausible wrong answer a
line) for --selftest.

For every task and repetition the runner copies the tree to a temp dir, makes it a git repo
with one commit, and runs

    BINARY exec --json --permissions auto --base-url URL --model MODEL --cwd TREE PROMPT

with LIGHT_AGENT_HOME in a temp dir, no API keys or provider URLs in the environment, and a
timeout. From the JSON event lines on stdout it takes:
  steps          the number of `agent_trace` events (one per model request),
  tool_calls     the calls of the `tool_calls` events (and how many of each tool),
  prompt_tokens  the sum of `agent_trace.usage.input`: the prompt tokens the server reported
                 for each request (llama.cpp counts the whole prompt, cached part included;
                 `cached_tokens` sums `usage.cached` where the server reports it),
  answer         the text of the last `output` event (saved for the check),
  retries        the "retrying" notices on stderr (a failed request has no agent_trace, so
                 its prompt tokens are not in prompt_tokens).
Then it runs the check, and appends one JSON line per run to RESULTS/results.jsonl; the
events, stderr, answer, diff and check output of each run go to RESULTS/logs/.

    python3 scripts/eval/run.py --selftest
    python3 scripts/eval/run.py --base-url http://127.0.0.1:PORT/v1 --model qwen2.5-coder-1.5b \\
        --label after --reps 2 [--binary target/debug/light-agent] [--tasks a,b]
    python3 scripts/eval/report.py > table.md

Not run by CI: a real model takes hours over the whole set.
"""
import argparse
import datetime
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TASKS = HERE / "tasks"
REPO = HERE.parent.parent
DEFAULT_BINARY = REPO / "target" / "debug" / "light-agent"
DEFAULT_RESULTS = HERE / "results"
CHECK_TIMEOUT = 600  # a Rust check compiles a tiny crate; generous on a busy machine

# Environment variables never passed to the agent: keys, tokens, and the provider settings
# a user's shell may carry (the runner names the server itself).
SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")
PROVIDER_VARS = ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "DEEPSEEK_BASE_URL", "OLLAMA_BASE_URL",
                 "GOOGLE_GEMINI_BASE_URL", "OLLAMA_HOST")


def task_names():
    return sorted(p.name for p in TASKS.iterdir() if (p / "check.sh").is_file())


def load_task(name):
    d = TASKS / name
    for needed in ("prompt.txt", "tree", "check.sh"):
        if not (d / needed).exists():
            sys.exit(f"task {name}: {needed} is missing")
    return d


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items()
           if not any(m in k.upper() for m in SECRET_MARKERS)
           and k not in PROVIDER_VARS and not k.startswith("LIGHT_AGENT_")}
    env.update(extra or {})
    return env


def git(tree, *args):
    subprocess.run(["git", "-c", "user.name=eval", "-c", "user.email=eval@localhost",
                    "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", *args],
                   cwd=tree, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_tree(task_dir, parent):
    """Copies the task's starting tree into parent/tree as a git repo with one commit."""
    tree = parent / "tree"
    shutil.copytree(task_dir / "tree", tree, symlinks=True)
    git(tree, "init", "-q", "-b", "main")
    git(tree, "config", "core.autocrlf", "false")
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", "starting tree")
    return tree


def run_check(task_dir, tree, answer_file):
    """Runs check.sh in the tree; returns (solved, output)."""
    extra = {"TASK_DIR": str(task_dir), "ANSWER_FILE": str(answer_file)}
    p = subprocess.Popen(["bash", str(task_dir / "check.sh")], cwd=tree, env=clean_env(extra),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=CHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # the check's whole group: cargo, node, the tests
        out, _ = p.communicate()
        return False, out.decode(errors="replace") + "\ncheck timed out"
    return p.returncode == 0, out.decode(errors="replace")


# ---------------------------------------------------------------- selftest

def selftest(names):
    """Every check must fail on the starting tree (and on each wrong answer) and pass on the
    reference solution. Needs no model."""
    failures = 0
    with tempfile.TemporaryDirectory(prefix="la-eval-selftest-") as tmp:
        tmp = Path(tmp)
        for name in names:
            d = load_task(name)
            if not (d / "solution.patch").is_file() and not (d / "reference_answer.txt").is_file():
                print(f"FAIL {name}: no reference solution (solution.patch or reference_answer.txt)")
                failures += 1
                continue
            cases = [("starting tree", None, "", False)]
            if (d / "wrong_answers.txt").is_file():
                for line in (d / "wrong_answers.txt").read_text().splitlines():
                    if line.strip():
                        cases.append((f"wrong answer {line!r}", None, line + "\n", False))
            ref_answer = (d / "reference_answer.txt").read_text() if (d / "reference_answer.txt").is_file() else ""
            cases.append(("reference solution", d / "solution.patch", ref_answer, True))
            for i, (what, solution, answer, expect) in enumerate(cases):
                work = tmp / f"{name}-{i}"
                work.mkdir()
                tree = make_tree(d, work)
                if solution is not None and solution.is_file():
                    git(tree, "apply", "--whitespace=nowarn", str(solution))
                answer_file = work / "answer.txt"
                answer_file.write_text(answer)
                solved, out = run_check(d, tree, answer_file)
                ok = solved == expect
                failures += not ok
                verdict = "passes" if solved else "fails"
                print(f"{'ok  ' if ok else 'FAIL'} {name}: check {verdict} on the {what}")
                if not ok:
                    print("     " + out.strip().replace("\n", "\n     "))
    print(f"selftest: {len(names)} tasks, {failures} failure(s)")
    return 1 if failures else 0


# ---------------------------------------------------------------- agent runs

def parse_events(stdout_text):
    """Reads the `exec --json` event lines; unknown lines are skipped."""
    steps = prompt_tokens = output_tokens = cached = 0
    tools = {}
    answer = ""
    stop = None
    for line in stdout_text.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if not isinstance(ev, dict):
            continue
        kind = ev.get("type")
        if kind == "agent_trace":
            steps += 1
            usage = ev.get("usage") or {}
            prompt_tokens += usage.get("input") or 0
            output_tokens += usage.get("output") or 0
            cached += usage.get("cached") or 0
        elif kind == "tool_calls":
            for call in ev.get("calls") or []:
                tools[call.get("name", "?")] = tools.get(call.get("name", "?"), 0) + 1
        elif kind == "output":
            answer = ev.get("text") or ""
        elif kind == "agent_stop":
            stop = {"cause": ev.get("cause"), "message": ev.get("message", "")}
    return {"steps": steps, "tool_calls": sum(tools.values()), "tools": tools,
            "prompt_tokens": prompt_tokens, "output_tokens": output_tokens,
            "cached_tokens": cached, "answer": answer, "stop": stop}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:12]


def run_one(args, name, rep, run_id, binary_sha, log_root):
    d = load_task(name)
    prompt = (d / "prompt.txt").read_text().strip()
    log_dir = log_root / f"{name}-{rep}"
    log_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"la-eval-{name}-"))
    try:
        tree = make_tree(d, work)
        # The agent's home (its session database, which its sandbox denies reading) and the
        # TMPDIR its commands write must not nest: a denied path under the temp dir leaves
        # only the temp dir's existing entries writable (no linker temp files for cargo).
        home = work / "home"
        home.mkdir()
        tmp = work / "tmp"
        tmp.mkdir()
        cmd = [str(args.binary), "exec", "--json", "--permissions", "auto",
               "--base-url", args.base_url, "--model", args.model, "--cwd", str(tree)]
        if args.context_window:
            cmd += ["--context-window", str(args.context_window)]
        cmd += args.agent_arg + [prompt]
        env = clean_env({"LIGHT_AGENT_HOME": str(home), "TMPDIR": str(tmp)})
        started = time.time()
        timed_out = False
        with open(log_dir / "events.jsonl", "wb") as out, open(log_dir / "stderr.txt", "wb") as err:
            proc = subprocess.Popen(cmd, cwd=tree, env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err, start_new_session=True)
            try:
                code = proc.wait(timeout=args.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    code = proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    code = proc.wait()
        wall = time.time() - started
        events = parse_events((log_dir / "events.jsonl").read_text(errors="replace"))
        # A request that failed and was retried leaves no agent_trace: count the notices.
        events["retries"] = (log_dir / "stderr.txt").read_text(errors="replace").count("retrying")
        answer_file = log_dir / "answer.txt"
        answer_file.write_text(events.pop("answer"))
        git(tree, "add", "-A")
        diff = subprocess.run(["git", "diff", "--cached"], cwd=tree, stdout=subprocess.PIPE)
        (log_dir / "diff.patch").write_bytes(diff.stdout)
        solved, check_out = run_check(d, tree, answer_file)
        (log_dir / "check.txt").write_text(check_out)
    finally:
        if args.keep:
            print(f"  kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return {"run_id": run_id, "label": args.label, "task": name, "rep": rep, "solved": solved,
            "wall_s": round(wall, 1), "exit_code": code, "timed_out": timed_out, **events,
            "model": args.model, "base_url": args.base_url, "binary": str(args.binary),
            "binary_sha256": binary_sha, "log_dir": str(log_dir)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--selftest", action="store_true",
                    help="without a model: every check fails on the starting tree and passes on the reference solution")
    ap.add_argument("--binary", type=Path, default=DEFAULT_BINARY, help=f"light-agent binary (default {DEFAULT_BINARY})")
    ap.add_argument("--base-url", help="the model server's OpenAI-compatible URL, e.g. http://127.0.0.1:PORT/v1")
    ap.add_argument("--model", help="model name the server answers to, e.g. qwen2.5-coder-1.5b")
    ap.add_argument("--context-window", type=int, default=16384,
                    help="passed as --context-window (real-model.sh serves 16384; 0 = not passed)")
    ap.add_argument("--label", default="after", help="names the column in the report, e.g. before or after")
    ap.add_argument("--reps", type=int, default=1, help="repetitions of each task")
    ap.add_argument("--tasks", help="comma-separated task names (default: all)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per run before the agent is stopped")
    ap.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help=f"results directory (default {DEFAULT_RESULTS})")
    ap.add_argument("--agent-arg", action="append", default=[], help="extra argument for `exec` (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep each run's temp tree")
    args = ap.parse_args()

    names = task_names()
    if args.tasks:
        wanted = [t.strip() for t in args.tasks.split(",") if t.strip()]
        unknown = [t for t in wanted if t not in names]
        if unknown:
            sys.exit(f"unknown task(s): {', '.join(unknown)}; known: {', '.join(names)}")
        names = wanted
    if args.selftest:
        return selftest(names)
    if not args.base_url or not args.model:
        sys.exit("--base-url and --model are needed (or --selftest)")
    args.binary = args.binary.resolve()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"not an executable: {args.binary}")
    binary_sha = sha256(args.binary)
    run_id = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    args.results.mkdir(parents=True, exist_ok=True)
    log_root = args.results / "logs" / f"{run_id}-{args.label}"
    results_file = args.results / "results.jsonl"
    for name in names:
        for rep in range(1, args.reps + 1):
            print(f"[{args.label}] {name} #{rep} ...", end=" ", flush=True, file=sys.stderr)
            record = run_one(args, name, rep, run_id, binary_sha, log_root)
            with open(results_file, "a") as f:
                f.write(json.dumps(record) + "\n")
            print(f"{'solved' if record['solved'] else 'not solved'}: {record['steps']} steps, "
                  f"{record['prompt_tokens']} prompt tokens, {record['wall_s']} s"
                  f"{' (timed out)' if record['timed_out'] else ''}", file=sys.stderr)
    print(f"results appended to {results_file}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
