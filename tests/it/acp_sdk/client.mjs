// An editor in miniature: the official ACP TypeScript SDK's client drives
// `light-agent acp` through one scenario and prints what it saw as one JSON
// object on stdout. Usage:
//   node client.mjs SDK_DIR SCENARIO CWD AGENT [AGENT_ARGS...]
// SCENARIO: prompt | edit-allow | edit-reject | cancel | load:SESSION_ID | fs
// `fs` offers the client's files: src/main.rs has an unsaved buffer that
// differs from the disk, reads are served from the buffers, writes update
// the buffer and save it (as Zed does); every fs call is recorded. After
// the prompt it sends `/undo`.
// The SDK is imported from SDK_DIR, its package folder (installed, pinned,
// by the Rust test).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const [sdkDir, scenario, cwd, agent, ...agentArgs] = process.argv.slice(2);
const entry = path.join(sdkDir, "dist/v1/stable/acp.js");
const acp = await import(pathToFileURL(entry).href);

const child = spawn(agent, agentArgs, { cwd, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
// `times[i]`: when `updates[i]` arrived (ms), for figures the tests print.
const seen = { updates: [], times: [], permissions: [], fsCalls: [] };
const buffers = new Map([
  [path.join(fs.realpathSync(cwd), "src/main.rs"), 'fn main() {\n    println!("unsaved");\n}\n'],
]);
let onChunk = () => {};

const app = acp
  .client({ name: "light-agent-conformance" })
  .onNotification("session/update", (ctx) => {
    seen.updates.push(ctx.params.update);
    seen.times.push(performance.now());
    if (ctx.params.update.sessionUpdate === "agent_message_chunk") onChunk();
  })
  .onRequest("session/request_permission", (ctx) => {
    seen.permissions.push(ctx.params);
    const allow = scenario === "edit-allow" || scenario === "fs";
    const optionId = allow ? "allow_once" : "reject_once";
    return { outcome: { outcome: "selected", optionId } };
  })
  .onRequest("fs/read_text_file", (ctx) => {
    seen.fsCalls.push({ method: "read", path: ctx.params.path });
    const text = buffers.get(ctx.params.path) ?? fs.readFileSync(ctx.params.path, "utf8");
    return { content: text };
  })
  .onRequest("fs/write_text_file", (ctx) => {
    seen.fsCalls.push({ method: "write", path: ctx.params.path, content: ctx.params.content });
    buffers.set(ctx.params.path, ctx.params.content);
    fs.writeFileSync(ctx.params.path, ctx.params.content);
    return {};
  });

await app.connectWith(stream, async (ctx) => {
  const clientCapabilities =
    scenario === "fs" ? { fs: { readTextFile: true, writeTextFile: true } } : {};
  seen.init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities });
  if (scenario.startsWith("load:")) {
    const sessionId = scenario.slice("load:".length);
    seen.load = await ctx.request("session/load", { sessionId, cwd, mcpServers: [] });
    return;
  }
  const session = await ctx.request("session/new", { cwd, mcpServers: [] });
  seen.session = session;
  const text = scenario === "prompt" ? "say hello" : "go";
  const prompt = ctx.request("session/prompt", {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text }],
  });
  if (scenario === "cancel") {
    await new Promise((resolve) => { onChunk = resolve; });
    const cancelledAt = performance.now();
    await ctx.notify("session/cancel", { sessionId: session.sessionId });
    seen.answer = await prompt;
    seen.cancelMs = performance.now() - cancelledAt;
  } else {
    seen.answer = await prompt;
  }
  if (scenario === "fs") {
    seen.undoFrom = seen.updates.length;
    seen.undo = await ctx.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "/undo" }],
    });
  }
});
child.stdin.end();
await new Promise((resolve) => child.on("exit", (code) => { seen.exit = code; resolve(); }));
process.stdout.write(JSON.stringify(seen) + "\n");
