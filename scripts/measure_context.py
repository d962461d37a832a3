#!/usr/bin/env python3
"""Measures how light-agent keeps long sessions inside the model's window.

Prints the figures of docs/PERFORMANCE.md, "Context within the window":
  - scripted sessions of 130 model steps with 2-20 KB results at windows of
    4 000, 8 000 and 16 000 tokens (examples/context_budget.rs): requests over
    the window, results recalled byte for byte, characters sent vs a naive
    full-history client
  - a 100 000-event session (examples/big_session.rs) resumed by `exec` with a
    128 000-token window: size of the first request, start -> first request,
    peak RSS, and whether either of two turns summarised
  - `show` of that session (markdown and --json): peak RSS
Peak RSS is GNU time's %M (needs /usr/bin/time).

    cargo build --release --bins --examples && python3 scripts/measure_context.py [--runs 5]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, "target", "release")
BINARY = os.path.join(RELEASE, "light-agent")
WINDOW = 128000


class Recorder:
    """A fake OpenAI-compatible model that records when each request arrived and how big it was."""

    def __init__(self):
        self.requests = []  # (perf_counter at arrival, body bytes, streamed)
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                arrived = time.perf_counter()
                request = json.loads(raw or b"{}")
                streamed = bool(request.get("stream"))
                recorder.requests.append((arrived, len(raw), streamed))
                if not streamed:
                    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "<historyNote>n</historyNote>"}}],
                                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                chunks = [
                    {"choices": [{"index": 0, "delta": {"content": "resumed"}, "finish_reason": None}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                    {"choices": [], "usage": {"prompt_tokens": len(raw) // 4, "completion_tokens": 1,
                                              "total_tokens": len(raw) // 4 + 1}},
                ]
                body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def env_for(home):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(LIGHT_AGENT_HOME=home)
    return env


def run_measured(args, cwd, env):
    """Runs a child; returns (start perf_counter, peak RSS in MiB).

    The peak comes from GNU time (%M): a child forked from this Python process
    would report Python's own resident set as its peak, since Linux keeps the
    high-water mark across exec."""
    with tempfile.NamedTemporaryFile("r") as peak:
        started = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak.name, *args], cwd=cwd, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            raise RuntimeError(f"{args} failed: {proc.stderr.decode(errors='replace')}")
        return started, int(peak.read().split()[-1]) / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--events", type=int, default=100000)
    opts = parser.parse_args()

    print("## scripted sessions (examples/context_budget.rs)\n")
    subprocess.run([os.path.join(RELEASE, "examples", "context_budget"), "4000", "8000", "16000"], check=True)

    repo = tempfile.mkdtemp()
    home = tempfile.mkdtemp()
    try:
        written = subprocess.run([os.path.join(RELEASE, "examples", "big_session"), repo, str(opts.events)],
                                 env=env_for(home), check=True, capture_output=True, text=True).stdout.split()
        session = written[0]
        model = Recorder()
        exec_args = [BINARY, "exec", "--resume", session, "--base-url", f"http://127.0.0.1:{model.port}/v1",
                     "--model", "fake", "--context-window", str(WINDOW)]
        firsts, rsss, sizes = [], [], []
        summaries = 0
        for run in range(opts.runs):
            before = len(model.requests)
            started, rss = run_measured(exec_args + [f"where were we? ({run})"], repo, env_for(home))
            mine = model.requests[before:]
            firsts.append((mine[0][0] - started) * 1000)
            sizes.append(max(r[1] for r in mine if r[2]) / 4)
            summaries += sum(1 for r in mine if not r[2])
            rsss.append(rss)

        show_md, show_json = [], []
        for _ in range(opts.runs):
            show_md.append(run_measured([BINARY, "show", session], repo, env_for(home))[1])
            show_json.append(run_measured([BINARY, "show", session, "--json"], repo, env_for(home))[1])
    finally:
        shutil.rmtree(repo, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)

    def row(name, values, unit):
        print(f"{name:52s} median {statistics.median(values):9.1f} {unit}   min {min(values):9.1f}   max {max(values):9.1f}")

    print(f"\n## {opts.events}-event session, exec --resume with a {WINDOW}-token window ({opts.runs} turns)\n")
    row("largest request (tokens, body bytes / 4)", sizes, "tok")
    row("start -> first request", firsts, "ms")
    row("peak RSS (exec)", rsss, "MiB")
    print(f"{'summary requests over all turns':52s} {summaries}")
    row("peak RSS, show (markdown)", show_md, "MiB")
    row("peak RSS, show --json", show_json, "MiB")


if __name__ == "__main__":
    main()
