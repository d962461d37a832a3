#!/usr/bin/env bash
# The evaluation's model server with one fix to the model's chat template; see docs/EVAL.md,
# "The server's template". Needs ../shared/tools/real-model.sh to have installed the runtime and
# the weights once (in --dir, default /tmp/realllm). Serves in the foreground until interrupted.
#   scripts/eval/serve-fixed-template.sh [--port N] [--threads N] [--dir DIR]
# qwen2.5-tool-args-fixed.jinja is Qwen2.5-Coder-Instruct's own template (Apache-2.0, from the
# GGUF's tokenizer.chat_template) with a past call's `arguments` written as they are when they
# are a string (OpenAI's wire form) instead of through `tojson`, which quotes and escapes them.
# This llama.cpp build aborts now and then ("Unexpected empty grammar stack after accepting
# piece", a tool-call grammar bug): the server is then started again; a run that met the gap
# fails with "cannot connect" on its stderr and must be run again.
set -uo pipefail
port=18555; threads=2; dir=/tmp/realllm
while [[ $# -gt 0 ]]; do case $1 in
  --port) port=$2;; --threads) threads=$2;; --dir) dir=$2;; *) echo "unknown argument: $1" >&2; exit 2;; esac; shift 2; done
here=$(cd "$(dirname "$0")" && pwd)
child=
trap '[[ -n $child ]] && kill -TERM "$child" 2>/dev/null; wait; exit 0' TERM INT
while true; do
"$dir/venv-xllamacpp-0.2.12/bin/python" - "$dir/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" "$port" "$threads" "$here/qwen2.5-tool-args-fixed.jinja" <<'PY' &
import signal, sys, threading, xllamacpp as xlc
model, port, threads, template = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
p = xlc.CommonParams()
p.model.path = model; p.model_alias = 'qwen2.5-coder-1.5b'; p.hostname = '127.0.0.1'; p.port = port
p.n_ctx = 16384; p.n_parallel = 1; p.cpuparams.n_threads = threads; p.cpuparams_batch.n_threads = threads
p.sampling.temp = 0.2; p.use_jinja = True; p.chat_template = open(template).read()
srv = xlc.Server(p); print('LISTENING', srv.listening_address, flush=True)
stop = threading.Event()
for s in (signal.SIGTERM, signal.SIGINT): signal.signal(s, lambda *_: stop.set())
stop.wait()
PY
child=$!
wait "$child"
code=$?
# A stop ends it cleanly with 0 (and a stop of this script stops it); an abort restarts it.
[[ $code -eq 0 ]] && exit 0
echo "serve-fixed-template: the server exited with $code; starting it again" >&2
sleep 2
done
