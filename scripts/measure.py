#!/usr/bin/env python3
"""Measures light-agent against scripts/fake_model.py on this machine.

Prints the figures that docs/PERFORMANCE.md records:
  - start → input prompt (TUI in a pty, time until the composer is drawn),
    new session and resuming a 100 000-event session
  - TUI: a 20 000-delta answer fully shown (Enter → last line on screen)
  - peak RSS of the TUI after one such prompt (VmHWM)
  - Esc → "interrupted" on screen during a hanging stream
  - headless `exec` vs curl reading the same 20 000-delta stream
  - 100 MB of command output (`!cmd` in the TUI): keystroke echo while it
    streams, and the agent's RSS growth (`--shell-only` runs just this)
  - TUI: answers of 10 000, 20 000 and 100 000 one-line deltas fully shown
  - keystroke echo while a 100 000-delta answer streams (median and max;
    `--only-echo --runs N` runs just this, over N answers)
  - TUI memory over a long session: `--turns N` runs N prompts (a markdown
    answer with a code block and a table each) in one TUI and prints VmRSS
    along the way and VmHWM at the end
  - an MCP server that takes 10 s to start: start → input prompt and
    Enter → answer shown, with and without it, and Esc → interrupted while a
    prompt waits out its grace (`--mcp-slow` runs just this)

    cargo build --release --bins --examples && python3 scripts/measure.py [--runs 10]
"""
import argparse
import fcntl
import os
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import re
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# CSI and OSC sequences, and the end of a CSI sequence.
ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>78]")
CSI_END = re.compile(rb"[@-~]")
BINARY = os.environ.get("LIGHT_AGENT_BINARY") or os.path.join(ROOT, "target", "release", "light-agent")


def fake_model(port, *extra):
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts", "fake_model.py"), "--port", str(port), *extra])
    time.sleep(0.4)
    return proc


class Pty:
    def __init__(self, args, cwd, env, cols=120, rows=40):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        self.master = master
        self.buffer = bytearray()
        self.pending = b""

    def wait_for(self, needle, timeout=20.0, since=0):
        """Time when `needle` was first seen after byte `since`; only new
        bytes are searched, so a 10 MB answer is read in linear time."""
        deadline = time.perf_counter() + timeout
        searched = since
        while time.perf_counter() < deadline:
            if self.buffer.find(needle, max(since, searched - len(needle))) >= 0:
                return time.perf_counter()
            searched = len(self.buffer)
            ready, _, _ = select.select([self.master], [], [], 0.002)
            if ready:
                try:
                    data = os.read(self.master, 1 << 20)
                except OSError:
                    break
                self.append(data)
        raise TimeoutError(f"{needle!r} not seen")

    def append(self, data):
        """Adds what the terminal was sent, without its escape sequences:
        the live area places cells with column moves (`ESC[11G`), so a word
        on screen is not contiguous in the bytes. An escape cut by the read
        waits for the rest."""
        data = self.pending + data
        cut = data.rfind(b"\x1b")
        if cut >= 0 and not CSI_END.search(data, cut + 1) and len(data) - cut < 32:
            data, self.pending = data[:cut], data[cut:]
        else:
            self.pending = b""
        self.buffer += ESCAPES.sub(b"", data)

    def send(self, data):
        os.write(self.master, data)

    def peak_rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def close(self):
        self.send(b"\x04")
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.master)


def env_for(home):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(LIGHT_AGENT_HOME=home, TERM="xterm-256color")
    return env


def vm_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def measure_shell_output(repo, runs):
    """100 MB through a `!cmd` pane: echo latency of keys typed meanwhile
    (each a '§', found by counting them in what the UI writes) and the
    growth of the agent's RSS (VmHWM after minus VmRSS before)."""
    command = b"!head -c 100000000 /dev/zero | tr '\\0' x | fold -w 99\r"
    key = "\u00a7".encode()
    echoes, growth = [], []
    for _ in range(runs):
        home = tempfile.mkdtemp()
        pty = Pty([BINARY, "--new", "--base-url", "http://127.0.0.1:9/v1", "--model", "fake"], repo, env_for(home))
        pty.wait_for(b"Ask anything")
        time.sleep(0.3)
        before = vm_kib(pty.proc.pid, "VmRSS")
        mark = len(pty.buffer)
        pty.send(command)
        pty.wait_for(b"xxxxxxxx", since=mark)
        typed = 0
        while True:
            seen = pty.buffer.count(key)
            pressed = time.perf_counter()
            pty.send(key)
            typed += 1
            deadline = pressed + 5
            while pty.buffer.count(key) <= seen and time.perf_counter() < deadline:
                ready, _, _ = select.select([pty.master], [], [], 0.001)
                if ready:
                    data = os.read(pty.master, 1 << 16)
                    for _ in range(data.count(b"\x1b[6n")):
                        os.write(pty.master, b"\x1b[1;1R")
                    pty.buffer += data
            echoes.append((time.perf_counter() - pressed) * 1000)
            if b"exit 0 after" in pty.buffer[mark:] or typed >= 400:
                break
            time.sleep(0.02)
        growth.append((vm_kib(pty.proc.pid, "VmHWM") - before) / 1024)
        pty.close()
        shutil.rmtree(home, ignore_errors=True)
    return echoes, growth


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--deltas", type=int, default=20000)
    parser.add_argument("--shell-only", action="store_true")
    parser.add_argument("--only-long", action="store_true", help="only the long-answer and echo cases")
    parser.add_argument("--only-echo", action="store_true", help="only the echo case, --runs answers")
    parser.add_argument("--turns", type=int, default=0, help="only the long-session memory case, with this many turns")
    parser.add_argument("--mcp-slow", action="store_true", help="only the slow MCP server case")
    opts = parser.parse_args()
    if opts.mcp_slow:
        mcp_slow(opts.runs)
        return
    if opts.turns:
        long_session(opts.turns)
        return
    if opts.shell_only:
        repo = tempfile.mkdtemp()
        echoes, growth = measure_shell_output(repo, opts.runs)
        print(f"{'100 MB !cmd: keystroke echo':40s} median {statistics.median(echoes):8.1f} ms   p99 "
              f"{sorted(echoes)[int(len(echoes) * 0.99) - 1]:8.1f}   max {max(echoes):8.1f}   ({len(echoes)} keys)")
        print(f"{'100 MB !cmd: RSS growth':40s} median {statistics.median(growth):8.1f} MiB   max {max(growth):8.1f}")
        return
    repo = tempfile.mkdtemp()
    os.makedirs(os.path.join(repo, "src"))
    with open(os.path.join(repo, "src", "main.rs"), "w") as f:
        f.write("fn main() {}\n")
    subprocess.run(["git", "init", "-q", repo], check=True)

    if opts.only_echo:
        try:
            stream_echo(repo, opts.runs)
        finally:
            shutil.rmtree(repo, ignore_errors=True)
        return
    if opts.only_long:
        try:
            long_answers(repo, opts)
        finally:
            shutil.rmtree(repo, ignore_errors=True)
        return
    model = fake_model(8766, "--deltas", str(opts.deltas))
    hang = fake_model(8767, "--deltas", "50", "--hang")
    try:
        args = [BINARY, "--new", "--base-url", "http://127.0.0.1:8766/v1", "--model", "fake"]
        starts, shows, rss = [], [], []
        for _ in range(opts.runs):
            home = tempfile.mkdtemp()
            pty = Pty(args, repo, env_for(home))
            ready = pty.wait_for(b"Ask anything")
            starts.append((ready - pty.started) * 1000)
            mark = len(pty.buffer)
            pty.send(b"go\r")
            sent = time.perf_counter()
            shown = pty.wait_for(b"END-OF-ANSWER", since=mark)
            shows.append((shown - sent) * 1000)
            pty.wait_for(b"idle", since=mark)
            rss.append(pty.peak_rss_kib() / 1024)
            pty.close()
            shutil.rmtree(home, ignore_errors=True)

        big_home = tempfile.mkdtemp()
        subprocess.run([os.path.join(ROOT, "target", "release", "examples", "big_session"), repo, "100000"],
                       env=env_for(big_home), stdout=subprocess.DEVNULL, check=True)
        resumes = []
        resume_args = [BINARY, "--base-url", "http://127.0.0.1:8766/v1", "--model", "fake"]
        for _ in range(opts.runs):
            pty = Pty(resume_args, repo, env_for(big_home))
            ready = pty.wait_for(b"Ask anything")
            resumes.append((ready - pty.started) * 1000)
            pty.close()
        shutil.rmtree(big_home, ignore_errors=True)

        escs = []
        hang_args = [BINARY, "--new", "--base-url", "http://127.0.0.1:8767/v1", "--model", "fake"]
        for _ in range(opts.runs):
            home = tempfile.mkdtemp()
            pty = Pty(hang_args, repo, env_for(home))
            pty.wait_for(b"Ask anything")
            mark = len(pty.buffer)
            pty.send(b"go\r")
            pty.wait_for(b"w9", since=mark)
            time.sleep(0.2)
            mark = len(pty.buffer)
            pressed = time.perf_counter()
            pty.send(b"\x1b")
            seen = pty.wait_for(b"interrupted", since=mark)
            escs.append((seen - pressed) * 1000)
            pty.close()
            shutil.rmtree(home, ignore_errors=True)

        body = '{"model":"fake","stream":true,"messages":[{"role":"user","content":"go"}]}'
        curl, headless = [], []
        for _ in range(opts.runs):
            t = time.perf_counter()
            subprocess.run(["curl", "-sN", "-o", "/dev/null", "-H", "content-type: application/json", "-d", body,
                            "http://127.0.0.1:8766/v1/chat/completions"], check=True)
            curl.append((time.perf_counter() - t) * 1000)
            home = tempfile.mkdtemp()
            t = time.perf_counter()
            subprocess.run([BINARY, "exec", "--base-url", "http://127.0.0.1:8766/v1", "--model", "fake", "go"],
                           cwd=repo, env=env_for(home), stdout=subprocess.DEVNULL, check=True)
            headless.append((time.perf_counter() - t) * 1000)
            shutil.rmtree(home, ignore_errors=True)
    finally:
        model.send_signal(signal.SIGTERM)
        hang.send_signal(signal.SIGTERM)

    row("start -> input prompt", starts, "ms")
    row("start -> prompt, resuming 100k events", resumes, "ms")
    row(f"TUI: {opts.deltas}-delta answer fully shown", shows, "ms")
    row("peak RSS, one prompt (TUI)", rss, "MiB")
    row("Esc -> interrupted on screen", escs, "ms")
    row(f"curl reading the {opts.deltas}-delta stream", curl, "ms")
    row(f"exec headless, same stream (incl. start)", headless, "ms")
    print(f"{'headless / curl':40s} {statistics.median(headless) / statistics.median(curl):.2f}x")
    long_answers(repo, opts)


def long_session(turns):
    """One TUI, `turns` prompts one after another; VmRSS after some of them
    and VmHWM at the end (the scrollback lives in the terminal, so what
    grows in the process is the session's own state)."""
    repo = tempfile.mkdtemp()
    home = tempfile.mkdtemp()
    model = fake_model(8768, "--markdown", "--deltas", "200")
    try:
        pty = Pty([BINARY, "--new", "--base-url", "http://127.0.0.1:8768/v1", "--model", "fake"], repo, env_for(home))
        pty.wait_for(b"Ask anything")
        checkpoints = {1, 10, 100, 250, 500, 750, turns}
        started = time.perf_counter()
        for turn in range(1, turns + 1):
            mark = len(pty.buffer)
            pty.send(f"question {turn}\r".encode())
            pty.wait_for(b"END-OF-ANSWER", since=mark)
            pty.wait_for(b"idle", since=mark)
            if len(pty.buffer) > 1 << 20:
                del pty.buffer[:-4096]
            if turn in checkpoints:
                print(f"after {turn:5d} turns: VmRSS {vm_kib(pty.proc.pid, 'VmRSS') / 1024:6.1f} MiB   "
                      f"VmHWM {vm_kib(pty.proc.pid, 'VmHWM') / 1024:6.1f} MiB", flush=True)
        print(f"{turns} turns in {time.perf_counter() - started:.1f} s; "
              f"peak RSS (VmHWM) {pty.peak_rss_kib() / 1024:.1f} MiB")
        pty.close()
    finally:
        model.send_signal(signal.SIGTERM)
        shutil.rmtree(repo, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


def mcp_slow(runs):
    """Start → input prompt and Enter → a one-delta answer on screen, without
    MCP servers and with one that takes 10 s before it speaks (`sleep 10`
    ahead of a server that never answers: it stays `starting` throughout),
    the prompt sent at once or 3 s after the first frame."""
    repo = tempfile.mkdtemp()
    subprocess.run(["git", "init", "-q", repo], check=True)
    model = fake_model(8773, "--deltas", "1")
    slow = '[mcp_servers.slow]\ncommand = "sh"\nargs = ["-c", "sleep 10; exec cat > /dev/null"]\n'
    try:
        args = [BINARY, "--new", "--base-url", "http://127.0.0.1:8773/v1", "--model", "fake"]
        cases = (("no MCP server", "", 0), ("a 10 s MCP server", slow, 0),
                 ("10 s server, prompt after 3 s", slow, 3))
        for name, config, typing in cases:
            starts, answers = [], []
            for _ in range(runs):
                home = tempfile.mkdtemp()
                with open(os.path.join(home, "config.toml"), "w") as f:
                    f.write(config)
                pty = Pty(args, repo, env_for(home))
                ready = pty.wait_for(b"Ask anything")
                starts.append((ready - pty.started) * 1000)
                time.sleep(typing)  # a user typing the first prompt
                mark = len(pty.buffer)
                pty.send(b"go\r")
                sent = time.perf_counter()
                shown = pty.wait_for(b"END-OF-ANSWER", since=mark)
                answers.append((shown - sent) * 1000)
                pty.close()
                shutil.rmtree(home, ignore_errors=True)
            row(f"start -> input prompt, {name}", starts, "ms")
            row(f"Enter -> answer shown, {name}", answers, "ms")
        # Esc while the prompt waits out the grace for the starting server:
        # the host ends the wait at once instead of after the grace.
        escs = []
        for _ in range(runs):
            home = tempfile.mkdtemp()
            with open(os.path.join(home, "config.toml"), "w") as f:
                f.write(slow)
            pty = Pty(args, repo, env_for(home))
            pty.wait_for(b"Ask anything")
            mark = len(pty.buffer)
            pty.send(b"go\r")
            time.sleep(0.3)  # inside the 2 s grace
            pressed = time.perf_counter()
            pty.send(b"\x1b")
            seen = pty.wait_for(b"interrupted", since=mark)
            escs.append((seen - pressed) * 1000)
            pty.close()
            shutil.rmtree(home, ignore_errors=True)
        row("Esc -> interrupted, during the MCP grace", escs, "ms")
    finally:
        model.send_signal(signal.SIGTERM)
        shutil.rmtree(repo, ignore_errors=True)


def row(name, values, unit):
    print(f"{name:40s} median {statistics.median(values):8.1f} {unit}   min {min(values):8.1f}   max {max(values):8.1f}")


def long_answers(repo, opts):
    """Answers of many short lines (one delta each), and keystroke echo while
    a 100 000-delta answer streams."""
    for port, lines, runs in ((8770, 10000, opts.runs), (8771, 20000, opts.runs), (8772, 100000, max(1, opts.runs // 3))):
        model = fake_model(port, "--lines", str(lines), "--deltas", "0")
        try:
            args = [BINARY, "--new", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "fake"]
            shows = []
            for _ in range(runs):
                home = tempfile.mkdtemp()
                pty = Pty(args, repo, env_for(home))
                pty.wait_for(b"Ask anything")
                mark = len(pty.buffer)
                pty.send(b"go\r")
                sent = time.perf_counter()
                shown = pty.wait_for(b"END-OF-ANSWER", timeout=120, since=mark)
                shows.append((shown - sent) * 1000)
                pty.close()
                shutil.rmtree(home, ignore_errors=True)
            row(f"TUI: {lines}-line answer fully shown", shows, "ms")
            body = '{"model":"fake","stream":true,"messages":[{"role":"user","content":"go"}]}'
            curl = []
            for _ in range(runs):
                t = time.perf_counter()
                subprocess.run(["curl", "-sN", "-o", "/dev/null", "-H", "content-type: application/json", "-d", body,
                                f"http://127.0.0.1:{port}/v1/chat/completions"], check=True)
                curl.append((time.perf_counter() - t) * 1000)
            row(f"curl reading the {lines}-line stream", curl, "ms")
        finally:
            model.send_signal(signal.SIGTERM)

    stream_echo(repo, max(1, opts.runs // 3))


def stream_echo(repo, runs):
    """Keystroke echo while a 100 000-delta answer streams: `Q` after `Q`,
    each timed from the write to the pty until the composer shows it."""
    model = fake_model(8773, "--deltas", "100000")
    try:
        args = [BINARY, "--new", "--base-url", "http://127.0.0.1:8773/v1", "--model", "fake"]
        echoes = []
        for _ in range(runs):
            home = tempfile.mkdtemp()
            pty = Pty(args, repo, env_for(home))
            pty.wait_for(b"Ask anything")
            mark = len(pty.buffer)
            pty.send(b"go\r")
            pty.wait_for(b"w9", since=mark)
            typed = 0
            while pty.buffer.find(b"END-OF-ANSWER", mark) < 0 and typed < 60:
                typed += 1
                mark_key = len(pty.buffer)
                pressed = time.perf_counter()
                pty.send(b"Q")
                seen = pty.wait_for(b"Q" * typed, since=mark_key)
                echoes.append((seen - pressed) * 1000)
                time.sleep(0.01)
            pty.close()
            shutil.rmtree(home, ignore_errors=True)
        row(f"keystroke echo, 100000-delta stream ({len(echoes)})", echoes, "ms")
        print(f"{'':40s} p90 {sorted(echoes)[int(len(echoes) * 0.9)]:8.1f} ms   keys over 100 ms: "
              f"{sum(e > 100 for e in echoes)}")
    finally:
        model.send_signal(signal.SIGTERM)


if __name__ == "__main__":
    main()
