// acp-client.mjs is an ACP client (an "editor") built on the official
// TypeScript SDK (@agentclientprotocol/sdk: client() over ndJsonStream) that
// runs `mcp-acpfs proxy` with acp-agent.mjs behind it and checks the proxy
// end to end:
//
//	node acp-client.mjs --bin /path/to/mcp-acpfs --mode http|stdio [--keep]
//
// (or set MCP_ACPFS_BIN). In mode http the agent advertises
// mcpCapabilities.http, so the proxy gives it an http MCP server entry; in
// mode stdio it advertises nothing, so it gets a stdio entry that runs
// `mcp-acpfs relay`.
//
// The client advertises fs.readTextFile and fs.writeTextFile and serves them
// from a map of unsaved buffers that differ from the files on disk (line
// and limit as Zed does: 1-based line, whole lines with their terminators).
// It sends initialize, session/new (with an MCP server of its own, which
// must reach the agent first and unchanged) and a prompt that scripts the
// agent's MCP tool calls, and checks what the agent reports: it sees exactly
// the full toolset, every tool described and annotated; reads see the
// buffers, not the disk, and hash the buffer; the write lands in the buffer
// map and leaves the disk alone; a path outside the session's roots is
// refused without asking the editor; every fs request carries the
// session's id, and a ranged read is one whole-buffer request. Then it
// ends the proxy's stdin and waits for it to exit with status 0. Last, it
// checks the proxy's --trace with acp-trace.mjs: every message the proxy
// wrote on either hop must be valid under the official ACP v1 JSON schema,
// ids must be rewritten consistently, and forwarding must be faithful.
//
// It prints one JSON summary on stdout: ok, mode, the checks passed, the
// message counts per direction and method, the number validated, and the
// failures. It exits 1 on any failure.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

import * as acp from "@agentclientprotocol/sdk";

import { checkTrace, validateAs } from "./acp-trace.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const bin = flag("--bin") || process.env.MCP_ACPFS_BIN;
const mode = flag("--mode") || process.env.ACP_CLIENT_MODE || "http";
const keep = argv.includes("--keep");
if (!bin || !["http", "stdio"].includes(mode)) {
  console.error("usage: node acp-client.mjs --bin /path/to/mcp-acpfs --mode http|stdio [--keep]");
  process.exit(2);
}

// Deadlines: a healthy run takes well under a second.
const stepTimeout = 20_000; // one ACP request
const exitTimeout = 10_000; // the proxy's exit after stdin EOF

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

// The toolset the agent must see: exactly these tools; the read-only ones
// must say so in their annotations.
const readOnlyTools = ["directory_tree", "get_file_info", "glob", "grep", "list_directory", "read_media_file", "read_text_file"];
const mutatingTools = ["create_directory", "delete_file", "edit_text_file", "move_file", "write_text_file"];
const allTools = [...readOnlyTools, ...mutatingTools].sort();

const sha256 = (s) => crypto.createHash("sha256").update(s, "utf8").digest("hex");

// The tree: base/project is the session's cwd; base/outside is not a root.
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcp-acpfs-acp-")));
const cwd = path.join(base, "project");
const notes = path.join(cwd, "notes.txt");
const out = path.join(cwd, "sub", "out.txt");
const secret = path.join(base, "outside", "secret.txt");
const trace = path.join(base, "trace.jsonl");
const disk = {
  [notes]: "disk one\ndisk two\n",
  [out]: "on disk, untouched\n",
  [secret]: "outside secret\n",
};
// Saved an hour ago: a buffer that differs has unsaved changes, and no
// reload of the file is pending.
const saved = new Date(Date.now() - 3600e3);
for (const [p, content] of Object.entries(disk)) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
  fs.utimesSync(p, saved, saved);
}
// The editor's unsaved buffers: what fs/read_text_file must see.
const buffers = new Map([[notes, "one\ntwo\nthree\nfour\n"]]);
const written = "written through the proxy\nsecond line\n";

// The editor's side of fs/*, recorded for the checks.
const fsRequests = [];

// sliceLines cuts content as Zed does: line is 1-based (0 or absent is 1),
// limit absent is all; the text runs from the start of the first line to
// the start of the line after the last, so lines keep their terminators.
// A start beyond the last row is -32602.
function sliceLines(content, line, limit) {
  const rows = content.split("\n"); // Zed's rows: a final "\n" opens an empty one
  const start = Math.max((line ?? 0) - 1, 0);
  if (start >= rows.length) {
    throw acp.RequestError.invalidParams(`Attempting to read beyond the end of the file, line ${start + 1}:0`);
  }
  const end = limit == null ? rows.length : Math.min(start + limit, rows.length);
  const offset = (row) => rows.slice(0, row).reduce((n, r) => n + r.length + 1, 0);
  return content.slice(offset(start), Math.min(offset(end), content.length));
}

const updates = []; // session/update params

// until polls get() until done(value) holds, or for at most 5 s, and
// returns the last value.
async function until(get, done) {
  const deadline = Date.now() + 5000;
  let v = get();
  while (!done(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    v = get();
  }
  return v;
}
const app = acp
  .client({ name: "acp-client" })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    fsRequests.push({ method: "fs/read_text_file", params });
    let content = buffers.get(params.path);
    if (content === undefined) {
      if (!fs.existsSync(params.path)) throw acp.RequestError.resourceNotFound(params.path);
      content = fs.readFileSync(params.path, "utf8");
    }
    return { content: sliceLines(content, params.line, params.limit) };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    fsRequests.push({ method: "fs/write_text_file", params });
    buffers.set(params.path, params.content); // unsaved: the disk is not touched
    return {};
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    failures.push({ check: "no permission requests", failure: `unexpected: ${JSON.stringify(params)}` });
    return { outcome: { outcome: "cancelled" } };
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params);
  });

// Run the proxy with the agent behind it.
const agentArgs = [path.join(here, "acp-agent.mjs"), ...(mode === "http" ? ["--mcp-http"] : [])];
// The results a program reads (structured, whole files), and no read
// guard: the scenario overwrites a file it never read, to see the write
// land in the editor and not on disk (the guard has tests of its own).
const child = spawn(bin, ["proxy", "--structured-content", "--page-size", "0", "--no-read-guard", "--trace", trace, "--log-level", "debug", "--", process.execPath, ...agentArgs], {
  cwd: base,
  stdio: ["pipe", "pipe", "pipe"],
});
let stderr = "";
child.stderr.setEncoding("utf8");
child.stderr.on("data", (s) => (stderr += s));
const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
child.on("error", (err) => failures.push({ check: "start the proxy", failure: err.message }));

const conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
const agent = conn.agent;
const opts = () => ({ signal: AbortSignal.timeout(stepTimeout) });

const clientDummy = { name: "editor-own", command: "/bin/true", args: ["--flag"], env: [{ name: "EDITOR_OWN", value: "1" }] };
let sessionId;
let report; // what the agent said about its MCP calls
let toolCalls = [];

try {
  await check("initialize", async () => {
    const res = await agent.request(
      acp.methods.agent.initialize,
      {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: "acp-client", version: "1.0.0" },
      },
      opts(),
    );
    assert.equal(res.protocolVersion, 1);
    assert.equal(res.agentInfo?.name, "acp-agent");
    assert.deepEqual(res.agentCapabilities.mcpCapabilities, mode === "http" ? { http: true } : {});
  });

  await check("session/new", async () => {
    const res = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [clientDummy] }, opts());
    assert.match(res.sessionId, /^sess_/);
    sessionId = res.sessionId;
  });

  const script = {
    calls: [
      { name: "read_text_file", arguments: { path: notes } },
      { name: "read_text_file", arguments: { path: notes, line: 2, limit: 2 } },
      { name: "read_text_file", arguments: { path: "notes.txt", line: 4 } },
      { name: "write_text_file", arguments: { path: out, content: written } },
      { name: "read_text_file", arguments: { path: out } },
      { name: "read_text_file", arguments: { path: secret } },
    ],
  };
  await check("session/prompt", async () => {
    assert.ok(sessionId, "no session");
    const res = await agent.request(
      acp.methods.agent.session.prompt,
      { sessionId, prompt: [{ type: "text", text: JSON.stringify(script) }] },
      opts(),
    );
    assert.equal(res.stopReason, "end_turn");
    // The agent sent its update before its answer, and the proxy keeps
    // that order (the trace check verifies it), but the SDK runs
    // notification handlers asynchronously: the answer can resolve first.
    const chunks = await until(
      () => updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === "agent_message_chunk"),
      (c) => c.length > 0,
    );
    assert.equal(chunks.length, 1, `agent_message_chunk updates: ${JSON.stringify(updates)}`);
    report = JSON.parse(chunks[0].update.content.text);
    assert.equal(report.error, undefined, `the agent's script failed: ${report.error}`);
    toolCalls = report.calls;
    assert.equal(toolCalls.length, script.calls.length);
  });

  await check("mcp server entry", async () => {
    assert.ok(report, "no report from the agent");
    assert.deepEqual(
      report.mcpServers,
      [
        { name: "editor-own", type: "stdio" },
        { name: "acpfs", type: mode },
      ],
      "the agent's mcpServers: the editor's own first, then acpfs",
    );
    const e = report.entry;
    assert.equal(validateAs("McpServer", e), null, "the entry is a valid McpServer");
    if (mode === "http") {
      assert.equal(e.type, "http");
      assert.match(e.url, /^http:\/\/127\.0\.0\.1:\d+\//);
      assert.equal(e.headers.length, 1);
      assert.equal(e.headers[0].name, "Authorization");
      assert.match(e.headers[0].value, /^Bearer \S{16,}$/);
    } else {
      assert.equal(e.type, undefined);
      assert.equal(fs.realpathSync(e.command), fs.realpathSync(bin));
      assert.deepEqual(e.args, ["relay"]);
      assert.deepEqual(
        e.env.map((v) => v.name),
        ["MCP_ACPFS_RELAY_SOCKET", "MCP_ACPFS_RELAY_SECRET"],
      );
      assert.ok(e.env.every((v) => v.value !== ""), "relay env values are set");
    }
    assert.equal(report.server?.name, "mcp-acpfs");
  });

  await check("tools/list", async () => {
    assert.ok(report, "no report from the agent");
    const names = [...report.tools].sort();
    assert.equal(new Set(names).size, names.length, `a tool is listed twice: ${names}`);
    assert.deepEqual(names, allTools);
    const byName = Object.fromEntries(report.toolInfo.map((t) => [t.name, t]));
    for (const name of allTools) {
      const t = byName[name];
      assert.ok(t, `no description or annotations of ${name} in the report`);
      assert.ok(t.description, `${name}: no description`);
      if (name === "read_text_file") assert.ok(t.description.includes(cwd), `${name}: description does not name the session's cwd`);
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
        assert.equal(typeof t.annotations?.[hint], "boolean", `${name}: annotations.${hint} is not set`);
      }
      if (readOnlyTools.includes(name)) {
        assert.equal(t.annotations.readOnlyHint, true, `${name}: a read-only tool with readOnlyHint false`);
        assert.equal(t.annotations.destructiveHint, false, `${name}: a read-only tool with destructiveHint true`);
      } else {
        assert.equal(t.annotations.readOnlyHint, false, `${name}: a mutating tool with readOnlyHint true`);
      }
    }
  });

  const call = (i) => {
    const c = toolCalls[i];
    assert.ok(c, `tool call ${i} missing`);
    assert.equal(c.isError, false, `${c.name} ${JSON.stringify(c.arguments)} is an error: ${c.text}`);
    return c.text;
  };
  await check("read sees the unsaved buffer", async () => {
    assert.equal(call(0), "one\ntwo\nthree\nfour\n");
    assert.notEqual(call(0), disk[notes]);
    // The structured result repeats the buffer, and hashes it, not the disk.
    const sc = toolCalls[0].structuredContent;
    assert.equal(sc?.content, call(0), "structuredContent.content is not the text");
    assert.equal(sc.sha256, sha256(call(0)), "structuredContent.sha256 is not the buffer's SHA-256");
    // And says it is the editor's, which differs from the disk, as a note
    // after the text says too.
    assert.equal(sc.source, "editor");
    assert.equal(sc.differsFromDisk, true);
    assert.equal(sc.diskDifference, "content");
    assert.equal(toolCalls[0].notes.length, 1, `want one note, got ${JSON.stringify(toolCalls[0].notes)}`);
    assert.match(toolCalls[0].notes[0], /from the editor, which has unsaved changes .*: the disk differs/);
  });
  await check("read range (line 2, limit 2)", async () => {
    assert.equal(call(1), "two\nthree\n");
    assert.equal(toolCalls[1].structuredContent?.sha256, sha256(call(0)), "a range's sha256 is not the whole buffer's");
  });
  await check("read relative (line 4)", async () => {
    assert.equal(call(2), "four\n");
  });
  await check("write lands in the editor", async () => {
    assert.match(call(3), /\d+ bytes/);
    assert.equal(buffers.get(out), written);
    assert.equal(fs.readFileSync(out, "utf8"), disk[out], "the file on disk must not change");
  });
  await check("read back the written buffer", async () => {
    assert.equal(call(4), written);
  });
  await check("outside the roots is refused", async () => {
    const c = toolCalls[5];
    assert.equal(c?.isError, true, `read of ${secret}: ${JSON.stringify(c)}`);
    assert.ok(!c.text.includes(disk[secret].trim()), "the refusal leaks the file");
    assert.ok(!fsRequests.some((r) => r.params.path === secret), "the editor was asked for a path outside the roots");
  });
  await check("fs requests", async () => {
    assert.deepEqual(
      fsRequests.map((r) => [r.method, r.params.path, r.params.line ?? null, r.params.limit ?? null]),
      [
        // A ranged read asks for the whole buffer, to hash it, and cuts
        // the range itself: one editor request per read.
        ["fs/read_text_file", notes, null, null],
        ["fs/read_text_file", notes, null, null],
        ["fs/read_text_file", notes, null, null],
        ["fs/write_text_file", out, null, null],
        ["fs/read_text_file", out, null, null],
      ],
    );
    for (const r of fsRequests) assert.equal(r.params.sessionId, sessionId, `${r.method} sessionId`);
  });
} finally {
  // End the proxy's stdin: the editor closes the stream.
  conn.close();
  child.stdin.end();
}
const eofAt = Date.now();

let exit;
let exitMs;
await check("exits with status 0 on stdin EOF", async () => {
  exit = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), exitTimeout))]);
  if (exit === null) {
    child.kill("SIGKILL");
    exit = await exited;
    assert.fail(`the proxy did not exit within ${exitTimeout} ms of stdin EOF`);
  }
  exitMs = Date.now() - eofAt;
  assert.deepEqual(exit, { code: 0, signal: null });
});

let traceReport = { entries: 0, validated: 0, counts: {}, failures: [] };
await check("trace: schema-valid, ids consistent, forwarding faithful", async () => {
  traceReport = checkTrace(trace);
  assert.ok(traceReport.entries > 0, "the trace is empty");
  assert.ok(traceReport.counts["to-agent"]["request session/new"] === 1, "one session/new reached the agent");
  assert.ok(traceReport.counts["to-editor"]["request fs/read_text_file"] === 4, "four fs reads in the trace");
  assert.equal(traceReport.failures.length, 0, `${traceReport.failures.length} failure(s), listed in traceFailures`);
});

const ok = failures.length === 0;
const summary = {
  ok,
  mode,
  checks: passed,
  sessionId,
  entry: report?.entry ? { ...report.entry, headers: undefined, env: undefined } : null,
  proxyExit: exit,
  proxyExitMs: exitMs, // from stdin EOF
  traceEntries: traceReport.entries,
  validated: traceReport.validated,
  counts: traceReport.counts,
  failures,
  traceFailures: traceReport.failures,
};
console.log(JSON.stringify(summary, null, 2));
if (!ok) {
  console.error(`acp-client (${mode}): ${failures.length} failure(s)`);
  for (const f of failures) console.error(`- ${f.check}: ${f.failure}`);
  for (const f of traceReport.failures) console.error(`- trace line ${f.line} (${f.dir}): ${f.failure}`);
  console.error(`proxy stderr:\n${stderr}`);
  console.error(`trace: ${trace}`);
}
if (!keep && ok) fs.rmSync(base, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
