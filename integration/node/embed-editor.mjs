// embed-editor.mjs is an ACP client (an "editor") built on the official
// TypeScript SDK (@agentclientprotocol/sdk) that drives examples/agent, a
// Go agent that embeds package bridge, and checks what docs/embedding.md
// promises:
//
//	node embed-editor.mjs --agent /path/to/agent --mode in-process|http|stdio
//
// The agent's "model" is a script: each prompt is a JSON list of MCP tool
// calls, answered with one agent_message_chunk of their results. The editor
// advertises fs and serves it from unsaved buffers that differ from the
// disk. It checks: reads see the buffers, writes land in them, the
// session's roots (cwd and additionalDirectories) hold, two sessions each
// see their own files and id, a read the editor never answers times out
// and the editor receives $/cancel_request for it, session/cancel ends the
// turn and cancels the editor's request too, session/close, an editor
// without fs gets the disk, and each agent exits 0 when its stdin ends.
//
// It prints one JSON summary on stdout (ok, mode, the checks passed, the
// failures, the agents' pids) and exits 1 on any failure.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk";

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const agentBin = flag("--agent");
const mode = flag("--mode") || "in-process";
if (!agentBin || !["in-process", "http", "stdio"].includes(mode)) {
  console.error("usage: node embed-editor.mjs --agent /path/to/agent --mode in-process|http|stdio");
  process.exit(2);
}

const stepTimeout = 20_000; // one ACP request
const exitTimeout = 10_000; // an agent's exit after stdin EOF
const editorTimeout = 3_000; // the agent's -editor-timeout, in ms

const passed = [];
const failures = [];
async function check(name, fn) {
  try {
    await fn();
    passed.push(name);
  } catch (err) {
    failures.push({ check: name, failure: err.message });
  }
}

// The tree: A and B are sessions' cwds, extra is A's additional
// directory, outside is no root.
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcp-acpfs-embed-")));
const dirA = path.join(base, "A");
const dirB = path.join(base, "B");
const extra = path.join(base, "extra");
const disk = {
  [path.join(dirA, "notes.txt")]: "A on disk\n",
  [path.join(dirA, "slow.txt")]: "slow\n",
  [path.join(dirA, "slow2.txt")]: "slow\n",
  [path.join(dirB, "notes.txt")]: "B on disk\n",
  [path.join(extra, "extra.txt")]: "extra on disk\n",
  [path.join(base, "outside", "secret.txt")]: "secret\n",
};
const saved = new Date(Date.now() - 3600e3);
for (const [p, content] of Object.entries(disk)) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
  fs.utimesSync(p, saved, saved);
}
const buffers = new Map([
  [path.join(dirA, "notes.txt"), "A unsaved\n"],
  [path.join(dirB, "notes.txt"), "B unsaved\n"],
]);

const fsRequests = []; // {conn, method, params, requestId}
const aborted = []; // {path, requestId, at}
const updates = []; // session/update params

// startAgent runs the agent and connects to it as an editor whose name is
// label; the editor serves fs only where it advertises it.
function startAgent(label) {
  const child = spawn(agentBin, ["-mcp", mode, "-editor-timeout", `${editorTimeout}ms`], { cwd: base, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (s) => (stderr += s));
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  child.on("error", (err) => failures.push({ check: `start the agent (${label})`, failure: err.message }));
  const app = acp
    .client({ name: "embed-editor" })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params, signal, requestId }) => {
      fsRequests.push({ conn: label, method: "fs/read_text_file", params, requestId });
      if (params.path.endsWith("slow.txt") || params.path.endsWith("slow2.txt")) {
        // Never answered: only $/cancel_request ends it.
        return new Promise((_, reject) =>
          signal.addEventListener(
            "abort",
            () => {
              aborted.push({ path: params.path, requestId, at: Date.now() });
              reject(signal.reason);
            },
            { once: true },
          ),
        );
      }
      let content = buffers.get(params.path);
      if (content === undefined) {
        if (!fs.existsSync(params.path)) throw acp.RequestError.resourceNotFound(params.path);
        content = fs.readFileSync(params.path, "utf8");
      }
      return { content };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params, requestId }) => {
      fsRequests.push({ conn: label, method: "fs/write_text_file", params, requestId });
      buffers.set(params.path, params.content);
      return {};
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    });
  const conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  return { label, child, conn, agent: conn.agent, exited, stderr: () => stderr };
}

const opts = () => ({ signal: AbortSignal.timeout(stepTimeout) });

// prompt runs a script of tool calls in a session and returns the stop
// reason and the results the agent reported.
async function prompt(agent, sessionId, calls) {
  const before = updates.filter((u) => u.sessionId === sessionId).length;
  const res = await agent.request(
    acp.methods.agent.session.prompt,
    { sessionId, prompt: [{ type: "text", text: JSON.stringify(calls) }] },
    opts(),
  );
  if (res.stopReason !== "end_turn") return { stopReason: res.stopReason, results: [] };
  // The update comes before the answer, but the SDK runs notification
  // handlers asynchronously.
  const deadline = Date.now() + 5000;
  let mine = updates.filter((u) => u.sessionId === sessionId);
  while (mine.length <= before && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    mine = updates.filter((u) => u.sessionId === sessionId);
  }
  assert.ok(mine.length > before, "the agent sent no results");
  return { stopReason: res.stopReason, results: JSON.parse(mine[before].update.content.text) };
}
const read = (p) => ({ name: "read_text_file", arguments: { path: p } });

async function stop(a) {
  a.child.stdin.end();
  let exit = await Promise.race([a.exited, new Promise((r) => setTimeout(() => r(null), exitTimeout))]);
  if (exit === null) {
    a.child.kill("SIGKILL");
    await a.exited;
    throw new Error(`the agent (${a.label}) did not exit within ${exitTimeout} ms of stdin EOF`);
  }
  assert.deepEqual(exit, { code: 0, signal: null }, `agent (${a.label}) exit; stderr:\n${a.stderr()}`);
}

const withFS = startAgent("fs");
const noFS = startAgent("no-fs");
const pids = [withFS.child.pid, noFS.child.pid];
let idA, idB;
try {
  await check("initialize", async () => {
    const res = await withFS.agent.request(
      acp.methods.agent.initialize,
      {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
        clientInfo: { name: "embed-editor", version: "1.0.0" },
      },
      opts(),
    );
    assert.equal(res.protocolVersion, 1);
    assert.equal(res.agentCapabilities.mcpCapabilities.http, mode === "http");
    assert.ok(res.agentCapabilities.sessionCapabilities?.close, "session/close is advertised");
  });

  await check("two sessions", async () => {
    idA = (await withFS.agent.request(acp.methods.agent.session.new, { cwd: dirA, additionalDirectories: [extra], mcpServers: [] }, opts())).sessionId;
    idB = (await withFS.agent.request(acp.methods.agent.session.new, { cwd: dirB, mcpServers: [] }, opts())).sessionId;
    assert.ok(idA && idB && idA !== idB, `ids ${idA} and ${idB}`);
  });

  await check("reads see the unsaved buffer, writes land in the editor", async () => {
    const out = path.join(dirA, "out.txt");
    const { results } = await prompt(withFS.agent, idA, [
      read("notes.txt"),
      { name: "write_text_file", arguments: { path: "out.txt", content: "written\n" } },
      read(out),
    ]);
    assert.ok(results[0].text.startsWith("A unsaved\n"), `read: ${JSON.stringify(results[0])}`);
    assert.equal(results[1].isError, false, `write: ${JSON.stringify(results[1])}`);
    assert.equal(buffers.get(out), "written\n");
    assert.ok(!fs.existsSync(out), "the write reached the disk");
    assert.ok(results[2].text.startsWith("written\n"), `read back: ${JSON.stringify(results[2])}`);
  });

  await check("roots", async () => {
    const secret = path.join(base, "outside", "secret.txt");
    const { results } = await prompt(withFS.agent, idA, [read(secret), read(path.join(dirB, "notes.txt")), read(path.join(extra, "extra.txt"))]);
    for (const r of results.slice(0, 2)) {
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.match(r.text, /outside the allowed roots/);
    }
    assert.ok(results[2].text.startsWith("extra on disk\n"), `additional directory: ${JSON.stringify(results[2])}`);
    assert.ok(!fsRequests.some((r) => r.params.path === secret || r.params.path === path.join(dirB, "notes.txt")), "the editor was asked for a path outside the roots");
  });

  await check("the second session sees its own files", async () => {
    const { results } = await prompt(withFS.agent, idB, [read("notes.txt")]);
    assert.ok(results[0].text.startsWith("B unsaved\n"), JSON.stringify(results[0]));
    for (const r of fsRequests) {
      const want = r.params.path.startsWith(dirB + path.sep) ? idB : idA;
      assert.equal(r.params.sessionId, want, `${r.method} ${r.params.path}`);
    }
  });

  await check("a timeout sends $/cancel_request", async () => {
    const start = Date.now();
    const { results } = await prompt(withFS.agent, idA, [read("slow.txt")]);
    assert.equal(results[0].isError, true, JSON.stringify(results[0]));
    assert.match(results[0].text, /did not answer fs\/read_text_file within 3s/);
    const deadline = Date.now() + 5000;
    while (!aborted.some((a) => a.path.endsWith("slow.txt")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const a = aborted.find((a) => a.path.endsWith("slow.txt"));
    assert.ok(a, "the editor got no $/cancel_request for the read");
    assert.ok(a.at - start >= editorTimeout - 100, `cancelled after ${a.at - start} ms, before the timeout`);
    assert.match(String(a.requestId), /^acpfs-/);
  });

  await check("session/cancel sends $/cancel_request", async () => {
    const turn = withFS.agent.request(acp.methods.agent.session.prompt, { sessionId: idA, prompt: [{ type: "text", text: JSON.stringify([read("slow2.txt")]) }] }, opts());
    const deadline = Date.now() + 5000;
    while (!fsRequests.some((r) => r.params.path.endsWith("slow2.txt")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const cancelAt = Date.now();
    await withFS.agent.notify(acp.methods.agent.session.cancel, { sessionId: idA });
    const res = await turn;
    assert.equal(res.stopReason, "cancelled");
    while (!aborted.some((a) => a.path.endsWith("slow2.txt")) && Date.now() < cancelAt + 5000) await new Promise((r) => setTimeout(r, 5));
    const a = aborted.find((a) => a.path.endsWith("slow2.txt"));
    assert.ok(a, "the editor got no $/cancel_request after session/cancel");
    assert.ok(a.at - cancelAt < editorTimeout / 2, `cancelled ${a.at - cancelAt} ms after session/cancel: the timeout, not the cancel`);
  });

  await check("session/close", async () => {
    assert.deepEqual(await withFS.agent.request(acp.methods.agent.session.close, { sessionId: idB }, opts()), {});
    await assert.rejects(withFS.agent.request(acp.methods.agent.session.prompt, { sessionId: idB, prompt: [{ type: "text", text: "[]" }] }, opts()));
  });

  await check("an editor without fs gets the disk", async () => {
    await noFS.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} }, opts());
    const id = (await noFS.agent.request(acp.methods.agent.session.new, { cwd: dirA, mcpServers: [] }, opts())).sessionId;
    const out = path.join(dirA, "disk-out.txt");
    const { results } = await prompt(noFS.agent, id, [read("notes.txt"), { name: "write_text_file", arguments: { path: out, content: "on disk\n" } }]);
    assert.ok(results[0].text.startsWith("A on disk\n"), JSON.stringify(results[0]));
    assert.equal(fs.readFileSync(out, "utf8"), "on disk\n");
    assert.ok(!buffers.has(out));
    assert.ok(!fsRequests.some((r) => r.conn === "no-fs"), "the editor without fs was sent fs requests");
  });
} finally {
  await check("the agents exit with status 0 on stdin EOF", async () => {
    const errs = [];
    for (const a of [withFS, noFS]) {
      try {
        await stop(a);
      } catch (err) {
        errs.push(err.message);
      }
    }
    assert.deepEqual(errs, []);
  });
}

const ok = failures.length === 0;
console.log(JSON.stringify({ ok, mode, checks: passed, failures, pids }, null, 2));
if (!ok) {
  for (const f of failures) console.error(`- ${f.check}: ${f.failure}`);
  console.error(`agent stderr (fs):\n${withFS.stderr()}\nagent stderr (no fs):\n${noFS.stderr()}`);
}
fs.rmSync(base, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
