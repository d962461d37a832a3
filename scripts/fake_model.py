#!/usr/bin/env python3
"""A local fake OpenAI-compatible model for manual runs and measurements.

Streams `--deltas` small output deltas per request (reasoning first when
`--reasoning N` is given); with `--tool-first`, the first request of every
turn asks for a grep call. `--hang` keeps the stream open after the deltas.
Only for 127.0.0.1; never used by `cargo test` (the tests have their own
mock in tests/support).

    python3 scripts/fake_model.py --port 8765 --deltas 20000
    light-agent --base-url http://127.0.0.1:8765/v1 --model fake
"""
import argparse
import json
import socketserver
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


MARKDOWN = """## Where `main` lives

The entry point is **`src/main.rs`**; it only *prints* a greeting:

```rust
fn main() {
    println!("hi");
}
```

- one binary target
- no library code yet

| file | lines |
|---|---|
| src/main.rs | 1 |

"""


def chunk(delta, finish=None):
    body = {"id": "fake", "object": "chat.completion.chunk", "model": "fake",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return ("data: " + json.dumps(body) + "\n\n").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        request = json.loads(self.rfile.read(length) or b"{}")
        if not request.get("stream"):
            body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "<historyNote>fake</historyNote>"}}],
                               "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        last = request["messages"][-1]
        wants_tool = self.server.opts.tool_first and last.get("role") == "user"
        out = []
        for i in range(self.server.opts.reasoning):
            out.append(chunk({"reasoning_content": f"r{i % 10} "}))
        if wants_tool:
            args = json.dumps({"search_strs": ["fn main"], "_intent": "find the entry point"})
            out.append(chunk({"tool_calls": [{"index": 0, "id": f"call_{time.time_ns()}", "type": "function",
                                              "function": {"name": "grep", "arguments": args}}]}))
            out.append(chunk({}, "tool_calls"))
        else:
            if self.server.opts.markdown:
                for i in range(0, len(MARKDOWN), 3):
                    out.append(chunk({"content": MARKDOWN[i:i + 3]}))
            if self.server.opts.lines:
                # One delta per short line: the cost per line, not per byte.
                for i in range(self.server.opts.lines):
                    out.append(chunk({"content": f"line {i} of the answer\n"}))
            for i in range(self.server.opts.deltas):
                # Each line starts with its number: an answer that repeats
                # one line is a loop the agent stops (agent/repetition.rs).
                text = "\n" if i % 20 == 19 else f"L{i // 20} " if i % 20 == 0 else f"w{i % 10} "
                out.append(chunk({"content": text}))
            if not self.server.opts.hang:
                out.append(chunk({"content": "\nEND-OF-ANSWER\n"}))
            out.append(chunk({}, "stop"))
        usage = {"id": "fake", "object": "chat.completion.chunk", "choices": [],
                 "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}}
        out.append(("data: " + json.dumps(usage) + "\n\n").encode())
        try:
            self.wfile.write(b"".join(out))
            self.wfile.flush()
            if self.server.opts.hang:
                while True:
                    time.sleep(0.05)
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--deltas", type=int, default=200)
    parser.add_argument("--reasoning", type=int, default=0)
    parser.add_argument("--lines", type=int, default=0, help="stream this many one-line deltas first")
    parser.add_argument("--tool-first", action="store_true")
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--markdown", action="store_true", help="answer with a markdown sample first")
    opts = parser.parse_args()
    server = Server(("127.0.0.1", opts.port), Handler)
    server.opts = opts
    server.serve_forever()


if __name__ == "__main__":
    main()
