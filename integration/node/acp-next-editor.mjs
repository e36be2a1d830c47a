// acp-next-editor.mjs is an ACP editor on the official TypeScript SDK's
// client classes that runs `mcp-acpfs proxy` with acp-next-agent.mjs (or,
// as a control, acp-agent.mjs) behind it, and checks ACP's next transports
// end to end: MCP-over-ACP on unstable ACP v1, and the ACP v2 draft.
//
//	node acp-next-editor.mjs --bin /path/to/mcp-acpfs --scenario NAME [--mcp T] [--keep]
//
// Scenarios (ACP v1 with @agentclientprotocol/sdk/unstable unless said):
//
//   - buffers: the agent advertises only mcpCapabilities.acp. It must get
//     {type: "acp", name: "acpfs", serverId} after the editor's own acp
//     server, and reach it over mcp/message with MCP 2026-07-28
//     (server/discover first, then tools/list and tools/call): a read sees
//     the editor's unsaved buffer, a write lands in the editor (the disk
//     stays), and its calls to the editor's own server are forwarded to
//     the editor unchanged; nothing of ours reaches the editor.
//   - unknown: an mcp/message for a serverId nobody declared is forwarded
//     to the editor and its error comes back: -33001 from the SDK's
//     McpOverAcpProvider, or -32601 from an editor that serves no
//     mcp/message; no hang, and the connection keeps working.
//   - sessions: two sessions on one connection get distinct serverIds, and
//     neither serverId reaches the other session's files or buffers.
//   - sockets: the proxy holds no listening socket (TCP or unix) and starts
//     no relay for an acp session, on Linux (/proc); as controls, an agent
//     with mcpCapabilities.http makes it listen on TCP, and one with none
//     on a unix socket, so the inspection does see what it looks for.
//   - v2 (--mcp http|stdio|acp): a v2 editor and a v2 agent
//     (experimental/v2; experimental/v2/unstable for acp) run two sessions
//     through the proxy: initialize passes through, each session/new gets
//     an entry of v2's shape on the transport the agent advertised, the
//     tools work on the disk, each turn ends idle, and no fs/* (no request
//     of the proxy's own at all) reaches the editor.
//   - transport: --mcp-transport auto picks acp, then http, then stdio, by
//     what the agent advertised (v1 and v2); a forced transport wins, and
//     one the agent did not advertise fails initialize naming the flag.
//
// In every scenario both peers record their wire (acp-next-wire.mjs) and
// every message either one read or wrote is validated against the SDK's
// schema of the protocol spoken (v1/schema.unstable.json; v2/schema.json or,
// for acp, v2/schema.unstable.json), and on the agent's wire every
// mcp/message notification must come before the answer to its request;
// comparing the two wires, every message that is not the proxy's own
// business passed through JSON-equal and in order.
// The proxy must exit with status 0 when its stdin ends.
//
// It prints one JSON summary on stdout: ok, scenario, the checks passed,
// the failures, figures and the wire reports. It exits 1 on any failure.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { isDeepStrictEqual } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";

import * as v1 from "@agentclientprotocol/sdk/unstable";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import * as v2u from "@agentclientprotocol/sdk/experimental/v2/unstable";

import { descendants, listening } from "./acp-next-sockets.mjs";
import { Wire, checkWire, forwarding, kind, mcpOrder, readWire } from "./acp-next-wire.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const bin = flag("--bin") || process.env.MCP_ACPFS_BIN;
const scenario = flag("--scenario");
const transport = flag("--mcp") ?? "acp";
const keep = argv.includes("--keep");
const scenarios = ["buffers", "unknown", "sessions", "sockets", "v2", "transport"];
if (!bin || !scenarios.includes(scenario) || !["acp", "http", "stdio"].includes(transport)) {
  console.error(`usage: node acp-next-editor.mjs --bin /path/to/mcp-acpfs --scenario ${scenarios.join("|")} [--mcp acp|http|stdio] [--keep]`);
  process.exit(2);
}

// Deadlines: they only bound a hang; a healthy run takes about a second.
const stepTimeout = 20_000; // one ACP request
const exitTimeout = 10_000; // the proxy's exit after stdin EOF
const opts = () => ({ signal: AbortSignal.timeout(stepTimeout) });

const passed = [];
const failures = [];
async function check(name, fn) {
  try {
    await fn();
    passed.push(name);
  } catch (err) {
    // An ACP error says more in its code and data than in its message.
    const acpError = err?.code !== undefined && err?.code !== "ERR_ASSERTION" ? ` (code ${err.code}, data ${JSON.stringify(err.data)})` : "";
    failures.push({ check: name, failure: err.message + acpError });
  }
}

const allTools = [
  "create_directory",
  "delete_file",
  "directory_tree",
  "edit_text_file",
  "get_file_info",
  "glob",
  "grep",
  "list_directory",
  "move_file",
  "read_media_file",
  "read_text_file",
  "write_text_file",
];

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcp-acpfs-acp-next-")));
const figures = {};
const wires = {}; // run name → {editor, agent} wire reports
const runs = [];

// tree writes files (path → content) saved an hour ago, so a buffer that
// differs from one has unsaved changes and no reload is pending.
function tree(files) {
  const saved = new Date(Date.now() - 3600e3);
  for (const [p, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
    fs.utimesSync(p, saved, saved);
  }
}

// A Run is one proxy with its agent, and the editor's connection to it.
class Run {
  // agent is the agent's argv after node; app is the editor's client app
  // on sdk; flags go to the proxy.
  constructor(name, sdk, agent, app, flags = []) {
    this.name = name;
    this.dir = path.join(base, name);
    fs.mkdirSync(this.dir, { recursive: true });
    this.editorWire = path.join(this.dir, "editor-wire.jsonl");
    this.agentWire = path.join(this.dir, "agent-wire.jsonl");
    this.trace = path.join(this.dir, "trace.jsonl");
    // The results a program reads (structured, whole files), and no read
    // guard: the scenarios write files they never read (the guard has tests
    // of its own).
    this.child = spawn(bin, ["proxy", "--structured-content", "--page-size", "0", "--no-read-guard", "--trace", this.trace, "--log-level", "debug", ...flags, "--", process.execPath, ...agent], {
      cwd: this.dir,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.stderr = "";
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (s) => (this.stderr += s));
    this.exited = new Promise((resolve) => this.child.on("close", (code, signal) => resolve({ code, signal })));
    this.child.on("error", (err) => failures.push({ check: `${name}: start the proxy`, failure: err.message }));
    this.started = Date.now();
    this.wire = new Wire(this.editorWire);
    this.conn = app.connect(sdk.ndJsonStream(this.wire.output(Writable.toWeb(this.child.stdin)), this.wire.input(Readable.toWeb(this.child.stdout))));
    runs.push(this);
  }

  get pid() {
    return this.child.pid;
  }

  // stop ends the proxy's stdin and checks that it exits with status 0.
  async stop() {
    const eof = Date.now();
    this.conn.close();
    this.child.stdin.end();
    await check(`${this.name}: exits with status 0 on stdin EOF`, async () => {
      let exit = await Promise.race([this.exited, new Promise((r) => setTimeout(() => r(null), exitTimeout))]);
      figures[`${this.name} ms`] = { run: eof - this.started, exit: Date.now() - eof };
      if (exit === null) {
        this.child.kill("SIGKILL");
        exit = await this.exited;
        assert.fail(`the proxy did not exit within ${exitTimeout} ms of stdin EOF`);
      }
      assert.deepEqual(exit, { code: 0, signal: null });
    });
  }

  // records returns the editor's and the agent's wire records.
  records() {
    return { editor: this.wire.records, agent: readWire(this.agentWire) };
  }

  // checkWires validates both wires against the schema file of version.
  async checkWires(version, editorFile, agentFile, { order = false, faithful = true } = {}) {
    const { editor, agent } = this.records();
    const report = { editor: { records: editor.length }, agent: { records: agent.length } };
    await check(`${this.name}: wire: the editor's messages are valid under ${version}/${editorFile}`, async () => {
      Object.assign(report.editor, checkWire(editor, { role: "client", version, file: editorFile }));
      assert.ok(editor.length > 0, "the editor's wire is empty");
      assert.deepEqual(report.editor.failures, [], `${report.editor.failures.length} failure(s)`);
    });
    await check(`${this.name}: wire: the agent's messages are valid under ${version}/${agentFile}`, async () => {
      Object.assign(report.agent, checkWire(agent, { role: "agent", version, file: agentFile }));
      assert.ok(agent.length > 0, "the agent's wire is empty");
      assert.deepEqual(report.agent.failures, [], `${report.agent.failures.length} failure(s)`);
    });
    if (faithful) await check(`${this.name}: wire: all else passes through JSON-equal and in order`, async () => {
      // Ours: the serverIds of the entries the proxy appended.
      const ourServerIds = messages(agent, "in")
        .filter((m) => m.kind === "request" && Array.isArray(m.params?.mcpServers))
        .map((m) => m.params.mcpServers.at(-1))
        .filter((e) => e?.type === "acp" && e.name === "acpfs")
        .map((e) => e.serverId);
      report.forwarding = forwarding(editor, agent, { ourServerIds });
      assert.deepEqual(report.forwarding.failures, []);
    });
    if (order) {
      await check(`${this.name}: wire: mcp/message notifications come before their answer`, async () => {
        report.order = mcpOrder(agent);
        assert.ok(report.order.requests > 0, "the agent sent no mcp/message");
        assert.deepEqual(report.order.failures, []);
      });
    }
    wires[this.name] = report;
  }
}

// messages returns the messages of a wire record in dir, with their kind.
const messages = (records, dir) => records.filter((r) => r.dir === dir && r.msg).map((r) => ({ ...r.msg, kind: kind(r.msg), seq: r.seq }));

// answerOf returns the response in dir to the request with id.
const answerOf = (records, dir, id) => messages(records, dir).find((m) => m.kind === "response" && isDeepStrictEqual(m.id, id));

// passedThrough checks that the agent received the editor's initialize
// unchanged and the editor the agent's answer.
function passedThrough(run) {
  const { editor, agent } = run.records();
  const sent = messages(editor, "out").find((m) => m.method === "initialize");
  const got = messages(agent, "in").find((m) => m.method === "initialize");
  assert.ok(sent && got, "initialize is missing from a wire");
  assert.deepEqual(got.params, sent.params, "the agent's initialize params differ from the editor's");
  const answer = answerOf(agent, "out", got.id);
  const received = answerOf(editor, "in", sent.id);
  assert.ok(answer && received, "the initialize answer is missing from a wire");
  assert.deepEqual(received.result, answer.result, "the editor's initialize result differs from the agent's");
}

// toolText returns the first text of a step's tools/call result, failing
// if the step or the call failed.
function toolText(step) {
  assert.ok(step, "the step is missing from the agent's report");
  assert.equal(step.error, undefined, `${step.label}: ${JSON.stringify(step.error)}`);
  const res = step.outcome?.result;
  assert.ok(res, `${step.label}: no result: ${JSON.stringify(step.outcome)}`);
  assert.notEqual(res.isError, true, `${step.label} is an error result: ${JSON.stringify(res.content)}`);
  return res.content.find((c) => c.type === "text")?.text ?? "";
}

// refused checks that a step's tools/call is an error result that does not
// leak secret.
function refused(step, secret) {
  assert.ok(step, "the step is missing from the agent's report");
  assert.equal(step.error, undefined, `${step.label}: ${JSON.stringify(step.error)}`);
  const res = step.outcome?.result;
  assert.equal(res?.isError, true, `${step.label} is not refused: ${JSON.stringify(step.outcome)}`);
  assert.ok(!JSON.stringify(res).includes(secret), `${step.label}: the refusal leaks the file`);
}

const byLabel = (report) => Object.fromEntries((report?.steps ?? []).map((s) => [s.label, s]));

// listenStep is a step that opens subscriptions/listen on file, changes
// the file on disk once the stream is acknowledged, waits for the update
// and cancels the request.
const listenStep = (file) => ({
  label: "listen",
  method: "subscriptions/listen",
  params: { notifications: { resourceSubscriptions: [pathToFileURL(file).href] } },
  listen: {
    first: "notifications/subscriptions/acknowledged",
    then: "notifications/resources/updated",
    touch: { path: file, content: "changed on disk\n" },
  },
});

// checkListen checks a listen step on the agent's wire: its notifications
// (the acknowledgement first, then the file's update) came before the
// answer, and so did the agent's $/cancel_request; the answer is -32800 or
// a result. It returns figures.
function checkListen(run, step, file) {
  assert.ok(step, "the step is missing from the agent's report");
  assert.equal(step.error, undefined, `${step.label}: ${JSON.stringify(step.error)}`);
  const { agent } = run.records();
  const req = messages(agent, "out").find((m) => m.method === "mcp/message" && m.params.requestId === step.requestId);
  assert.ok(req, "the listen request is not on the agent's wire");
  const notes = messages(agent, "in").filter((m) => m.kind === "notification" && m.method === "mcp/message" && m.params.requestId === step.requestId);
  const cancel = messages(agent, "out").find((m) => m.method === "$/cancel_request" && isDeepStrictEqual(m.params.requestId, req.id));
  const answer = answerOf(agent, "in", req.id);
  assert.ok(answer, "no answer to the listen request");
  assert.ok(cancel, "the agent sent no $/cancel_request");
  assert.equal(notes[0]?.params.method, "notifications/subscriptions/acknowledged", `the notifications ${JSON.stringify(notes.map((n) => n.params.method))}`);
  const uri = pathToFileURL(file).href;
  assert.ok(notes.some((n) => n.params.method === "notifications/resources/updated" && n.params.params?.uri === uri), `no update of ${uri}`);
  for (const n of notes) assert.equal(n.params.serverId, req.params.serverId);
  assert.ok(cancel.seq < answer.seq, "the answer came before the cancel");
  assert.ok(notes.every((n) => n.seq < answer.seq), "a notification came after the answer");
  if (answer.error) assert.equal(answer.error.code, -32800, `the answer ${JSON.stringify(answer.error)}`);
  else assert.ok("result" in answer.result || "error" in answer.result, `the answer ${JSON.stringify(answer.result)}`);
  return {
    notifications: notes.map((n) => n.params.method),
    answer: answer.error ?? Object.keys(answer.result),
    deliveredBySDK: step.notifications.length,
  };
}

// --- ACP v1 editor ---------------------------------------------------------

// V1Editor is the v1 editor: fs/* served from unsaved buffers, and, unless
// noProvider, mcp/message served by the SDK's McpOverAcpProvider with one
// server of its own (editor-own, whose tool echo echoes).
class V1Editor {
  constructor({ buffers = new Map(), noProvider = false } = {}) {
    this.buffers = buffers;
    this.fsRequests = [];
    this.mcpRequests = []; // what the editor's own server was asked
    this.chunks = new Map(); // sessionId → resolve of the next agent_message_chunk
    this.texts = new Map(); // sessionId → agent_message_chunk texts
    this.provider = noProvider ? null : new v1.McpOverAcpProvider();
    let app = v1
      .client({ name: "acp-next-editor" })
      .onRequest(v1.methods.client.fs.readTextFile, ({ params }) => {
        this.fsRequests.push({ method: "fs/read_text_file", params });
        let content = this.buffers.get(params.path);
        if (content === undefined) {
          if (!fs.existsSync(params.path)) throw v1.RequestError.resourceNotFound(params.path);
          content = fs.readFileSync(params.path, "utf8");
        }
        return { content };
      })
      .onRequest(v1.methods.client.fs.writeTextFile, ({ params }) => {
        this.fsRequests.push({ method: "fs/write_text_file", params });
        this.buffers.set(params.path, params.content); // unsaved: the disk stays
        return {};
      })
      .onRequest(v1.methods.client.session.requestPermission, ({ params }) => {
        failures.push({ check: "no permission requests", failure: `unexpected: ${JSON.stringify(params)}` });
        return { outcome: { outcome: "cancelled" } };
      })
      .onNotification(v1.methods.client.session.update, ({ params }) => {
        if (params.update.sessionUpdate !== "agent_message_chunk") return;
        const list = this.texts.get(params.sessionId) ?? [];
        list.push(params.update.content.text);
        this.texts.set(params.sessionId, list);
        this.chunks.get(params.sessionId)?.();
      });
    if (this.provider) app = app.onRequest(v1.methods.client.mcp.message, this.provider.handleRequest);
    this.app = app;
  }

  // start runs the proxy, with flags, and agent behind it.
  start(name, agent, flags = []) {
    this.run = new Run(name, v1, agent, this.app, flags);
    if (this.provider) {
      this.own = this.provider.registerServer(this.run.conn.agent, {
        name: "editor-own",
        handler: ({ method, params, notify, signal }) => {
          this.mcpRequests.push({ method, params });
          if (method === "server/discover") {
            return { result: { supportedVersions: [v1.MCP_PROTOCOL_VERSION], capabilities: { tools: {} }, serverInfo: { name: "editor-own", version: "1" } } };
          }
          if (method === "tools/call" && params?.name === "echo") {
            return { result: { content: [{ type: "text", text: `editor-own: ${params.arguments?.text}` }] } };
          }
          if (method === "tools/call" && params?.name === "wait") {
            // Progress, then wait for the caller's cancel: the provider
            // answers -32800.
            return notify("notifications/progress", { progressToken: "wait", progress: 1 }).then(
              () => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
            );
          }
          throw new v1.McpProtocolError(-32601, `editor-own has no ${method}`);
        },
      });
    }
    return this.run;
  }

  async initialize() {
    const res = await this.run.conn.agent.request(
      v1.methods.agent.initialize,
      {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: "acp-next-editor", version: "1.0.0" },
      },
      opts(),
    );
    assert.equal(res.protocolVersion, 1);
    return res;
  }

  async newSession(cwd, mcpServers = []) {
    const res = await this.run.conn.agent.request(v1.methods.agent.session.new, { cwd, mcpServers }, opts());
    return res.sessionId;
  }

  // prompt sends script and returns the agent's report.
  async prompt(sessionId, script) {
    const chunk = new Promise((resolve) => this.chunks.set(sessionId, resolve));
    const res = await this.run.conn.agent.request(
      v1.methods.agent.session.prompt,
      { sessionId, prompt: [{ type: "text", text: JSON.stringify(script) }] },
      opts(),
    );
    assert.equal(res.stopReason, "end_turn");
    // The agent sends its report before its answer, but the SDK runs
    // notification handlers asynchronously: the answer can resolve first.
    await Promise.race([chunk, new Promise((_, reject) => setTimeout(() => reject(new Error("no report from the agent")), stepTimeout))]);
    const texts = this.texts.get(sessionId);
    this.texts.delete(sessionId);
    assert.equal(texts.length, 1, `agent_message_chunk updates: ${texts.length}`);
    const report = JSON.parse(texts[0]);
    assert.equal(report.error, undefined, `the agent's script failed: ${report.error}`);
    return report;
  }
}

// agentArgs returns the argv of acp-next-agent.mjs for run.
const agentArgs = (dir, protocol, mcp) => [path.join(here, "acp-next-agent.mjs"), "--protocol", String(protocol), "--mcp", mcp, "--wire", path.join(base, dir, "agent-wire.jsonl")];

// acpEntryOf checks a session's servers: the editor's first, unchanged,
// then exactly {type: "acp", name: "acpfs", serverId}; it returns the
// serverId.
function acpEntryOf(report, sessionId, editorOwn) {
  const servers = report.sessions[sessionId]?.mcpServers;
  assert.ok(servers, `the agent knows no session ${sessionId}`);
  assert.deepEqual(servers.slice(0, editorOwn.length), editorOwn, "the editor's own servers did not come first and unchanged");
  assert.equal(servers.length, editorOwn.length + 1, `want one server added, got ${JSON.stringify(servers)}`);
  const e = servers.at(-1);
  assert.deepEqual(Object.keys(e).sort(), ["name", "serverId", "type"], `the entry ${JSON.stringify(e)}`);
  assert.equal(e.type, "acp");
  assert.equal(e.name, "acpfs");
  assert.equal(typeof e.serverId, "string");
  assert.ok(e.serverId.length > 0, "an empty serverId");
  assert.ok(!editorOwn.some((o) => o.serverId === e.serverId), "the proxy reused the editor's serverId");
  return e.serverId;
}

// --- scenarios --------------------------------------------------------------

async function buffersScenario() {
  const cwd = path.join(base, "project");
  const notes = path.join(cwd, "notes.txt");
  const out = path.join(cwd, "sub", "out.txt");
  const watched = path.join(cwd, "watched.txt");
  const disk = { [notes]: "disk one\ndisk two\n", [out]: "on disk, untouched\n", [watched]: "watched\n" };
  tree(disk);
  const buffer = "one\ntwo\nthree\n";
  const written = "written over mcp/message\n";
  const ed = new V1Editor({ buffers: new Map([[notes, buffer]]) });
  const run = ed.start("buffers", agentArgs("buffers", 1, "acp"));
  let sessionId;
  let serverId;
  let report;
  let steps = {};
  try {
    await check("initialize passes through", async () => {
      const res = await ed.initialize();
      assert.deepEqual(res.agentCapabilities.mcpCapabilities, { acp: true });
      passedThrough(run);
    });
    await check("session/new gets an acp entry after the editor's own", async () => {
      sessionId = await ed.newSession(cwd, [ed.own.declaration]);
      report = await ed.prompt(sessionId, {
        steps: [
          { label: "discover", method: "server/discover", params: {} },
          { label: "list", method: "tools/list", params: {} },
          { label: "read", method: "tools/call", params: { name: "read_text_file", arguments: { path: notes } } },
          { label: "write", method: "tools/call", params: { name: "write_text_file", arguments: { path: out, content: written } } },
          { label: "read back", method: "tools/call", params: { name: "read_text_file", arguments: { path: "sub/out.txt" } } },
          { label: "editor-own", via: { name: "editor-own" }, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } },
          listenStep(watched),
          {
            label: "editor-own wait",
            via: { name: "editor-own" },
            method: "tools/call",
            params: { name: "wait", arguments: {} },
            listen: { first: "notifications/progress" },
          },
        ],
      });
      steps = byLabel(report);
      serverId = acpEntryOf(report, sessionId, [ed.own.declaration]);
      figures.serverId = serverId;
    });
    await check("server/discover first, MCP 2026-07-28", async () => {
      const { agent } = run.records();
      const first = messages(agent, "out").find((m) => m.method === "mcp/message" && m.params.serverId === serverId);
      assert.ok(first, "the agent sent no mcp/message to the proxy's server");
      assert.equal(first.params.method, "server/discover");
      assert.equal(first.params.params._meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
      const res = steps.discover?.outcome?.result;
      assert.ok(res, `server/discover: ${JSON.stringify(steps.discover)}`);
      assert.ok(res.supportedVersions?.includes("2026-07-28"), `supportedVersions ${JSON.stringify(res.supportedVersions)}`);
      assert.ok(res.capabilities?.tools, "server/discover does not offer tools");
    });
    await check("tools/list", async () => {
      const tools = steps.list?.outcome?.result?.tools;
      assert.ok(tools, `tools/list: ${JSON.stringify(steps.list)}`);
      assert.deepEqual(tools.map((t) => t.name).sort(), allTools);
    });
    await check("read sees the unsaved buffer", async () => {
      assert.equal(toolText(steps.read), buffer);
      const sc = steps.read.outcome.result.structuredContent;
      assert.equal(sc?.source, "editor");
      assert.equal(sc?.differsFromDisk, true);
    });
    await check("write lands in the editor", async () => {
      assert.match(toolText(steps.write), /\d+ bytes/);
      assert.equal(ed.buffers.get(out), written);
      assert.equal(fs.readFileSync(out, "utf8"), disk[out], "the file on disk changed");
    });
    await check("read back the written buffer", async () => {
      assert.equal(toolText(steps["read back"]), written);
    });
    await check("subscriptions/listen: notifications first, $/cancel_request ends it", async () => {
      figures.listen = checkListen(run, steps.listen, watched);
    });
    await check("fs requests carry the session", async () => {
      assert.deepEqual(
        ed.fsRequests.map((r) => [r.method, r.params.path]),
        [
          ["fs/read_text_file", notes],
          ["fs/write_text_file", out],
          ["fs/read_text_file", out],
        ],
      );
      for (const r of ed.fsRequests) assert.equal(r.params.sessionId, sessionId, `${r.method} sessionId`);
      figures.fsRequests = ed.fsRequests.length;
    });
    await check("the editor's own acp server is forwarded unchanged", async () => {
      assert.equal(toolText(steps["editor-own"]), "editor-own: hi");
      assert.deepEqual(ed.mcpRequests.map((r) => r.params?.name), ["echo", "wait"]);
      const { editor, agent } = run.records();
      const sent = messages(agent, "out").filter((m) => m.method === "mcp/message" && m.params.serverId === ed.own.serverId);
      const got = messages(editor, "in").filter((m) => m.method === "mcp/message");
      assert.equal(sent.length, 2);
      assert.equal(got.length, 2, "the editor got other mcp/message requests than its own server's");
      assert.deepEqual(got[0].params, sent[0].params, "the forwarded params differ");
      const answer = answerOf(editor, "out", got[0].id);
      const received = answerOf(agent, "in", sent[0].id);
      assert.deepEqual(received?.result, answer?.result, "the forwarded answer differs");
    });
    await check("the editor's own server: progress first, $/cancel_request forwarded, -32800 back", async () => {
      const step = steps["editor-own wait"];
      assert.ok(step, "the step is missing from the agent's report");
      assert.equal(step.error?.code, -32800, `the wait ended with ${JSON.stringify(step.error ?? step.outcome)}`);
      const { editor, agent } = run.records();
      const sent = messages(agent, "out").find((m) => m.method === "mcp/message" && m.params.requestId === step.requestId);
      const got = messages(editor, "in").find((m) => m.method === "mcp/message" && m.params.requestId === step.requestId);
      assert.ok(sent && got, "the wait is missing from a wire");
      // The editor's progress reached the agent before the answer.
      const notes = messages(agent, "in").filter((m) => m.kind === "notification" && m.method === "mcp/message" && m.params.requestId === step.requestId);
      const answer = answerOf(agent, "in", sent.id);
      assert.deepEqual(notes.map((n) => n.params.method), ["notifications/progress"]);
      assert.ok(answer && notes[0].seq < answer.seq, "the progress came after the answer");
      // The agent's cancel reached the editor, for the editor's id.
      const cancel = messages(editor, "in").find((m) => m.method === "$/cancel_request");
      assert.ok(cancel, "no $/cancel_request reached the editor");
      assert.deepEqual(cancel.params, { requestId: got.id });
      const edAnswer = answerOf(editor, "out", got.id);
      assert.equal(edAnswer?.error?.code, -32800);
      assert.deepEqual(answer.error, edAnswer.error, "the -32800 differs on its way back");
    });
    await check("nothing of ours reaches the editor", async () => {
      const { editor } = run.records();
      const requests = messages(editor, "in").filter((m) => m.kind === "request");
      const methods = [...new Set(requests.map((m) => m.method))].sort();
      assert.deepEqual(methods, ["fs/read_text_file", "fs/write_text_file", "mcp/message"]);
      const notes = [...new Set(messages(editor, "in").filter((m) => m.kind === "notification").map((m) => m.method))].sort();
      assert.deepEqual(notes, ["$/cancel_request", "session/update"]);
      for (const m of requests.filter((m) => m.method === "mcp/message")) {
        assert.equal(m.params.serverId, ed.own.serverId, `the editor was sent an mcp/message for ${m.params.serverId}`);
      }
    });
  } finally {
    await run.stop();
  }
  await run.checkWires("v1", "schema.unstable.json", "schema.unstable.json", { order: true });
}

async function unknownScenario() {
  const cwd = path.join(base, "project");
  tree({ [path.join(cwd, "notes.txt")]: "disk\n" });
  for (const [name, noProvider, code] of [
    ["provider", false, v1.McpBindingErrorCode.serverUnavailable],
    ["no-handler", true, -32601],
  ]) {
    const ed = new V1Editor({ noProvider });
    const run = ed.start(`unknown-${name}`, agentArgs(`unknown-${name}`, 1, "acp"));
    try {
      let steps = {};
      await check(`${name}: an unknown serverId gets ${code}`, async () => {
        await ed.initialize();
        const sessionId = await ed.newSession(cwd, ed.own ? [ed.own.declaration] : []);
        const report = await ed.prompt(sessionId, {
          steps: [
            { label: "unknown", via: { serverId: "no-such-server" }, method: "server/discover", params: {} },
            { label: "after", method: "tools/call", params: { name: "read_text_file", arguments: { path: "notes.txt" } } },
          ],
        });
        steps = byLabel(report);
        assert.equal(steps.unknown?.outcome, undefined, `the unknown serverId got an answer: ${JSON.stringify(steps.unknown)}`);
        assert.equal(steps.unknown?.error?.code, code, `the error ${JSON.stringify(steps.unknown?.error)}`);
        figures[`unknown-${name}`] = steps.unknown.error;
      });
      await check(`${name}: the editor answered it, unchanged on the way back`, async () => {
        const { editor, agent } = run.records();
        const sent = messages(agent, "out").find((m) => m.method === "mcp/message" && m.params.serverId === "no-such-server");
        const got = messages(editor, "in").find((m) => m.method === "mcp/message");
        assert.ok(got, "the editor was not asked");
        assert.deepEqual(got.params, sent.params, "the forwarded params differ");
        const answer = answerOf(editor, "out", got.id);
        const received = answerOf(agent, "in", sent.id);
        assert.equal(answer?.error?.code, code, `the editor's answer ${JSON.stringify(answer)}`);
        assert.deepEqual(received?.error, answer.error, "the error differs on its way back");
      });
      await check(`${name}: the connection keeps working`, async () => {
        assert.equal(toolText(steps.after), "disk\n");
      });
    } finally {
      await run.stop();
    }
    await run.checkWires("v1", "schema.unstable.json", "schema.unstable.json", { order: true });
  }
}

async function sessionsScenario() {
  const cwdA = path.join(base, "a");
  const cwdB = path.join(base, "b");
  const notesA = path.join(cwdA, "notes.txt");
  const notesB = path.join(cwdB, "notes.txt");
  tree({ [notesA]: "disk A\n", [notesB]: "disk B\n" });
  const ed = new V1Editor({
    buffers: new Map([
      [notesA, "buffer A\n"],
      [notesB, "buffer B\n"],
    ]),
  });
  const run = ed.start("sessions", agentArgs("sessions", 1, "acp"));
  try {
    let idA, idB, sidA, sidB, reportA, reportB;
    await check("two sessions get distinct serverIds", async () => {
      await ed.initialize();
      idA = await ed.newSession(cwdA);
      idB = await ed.newSession(cwdB);
      const steps = (self, other, otherNotes) => [
        { label: "discover", method: "server/discover", params: {} },
        { label: "own", method: "tools/call", params: { name: "read_text_file", arguments: { path: "notes.txt" } } },
        { label: "other's file", method: "tools/call", params: { name: "read_text_file", arguments: { path: otherNotes } } },
        { label: "other's dir", method: "tools/call", params: { name: "list_directory", arguments: { path: path.dirname(otherNotes) } } },
        { label: "write own", method: "tools/call", params: { name: "write_text_file", arguments: { path: "w.txt", content: `from ${self}\n` } } },
        { label: "write other's", method: "tools/call", params: { name: "write_text_file", arguments: { path: path.join(path.dirname(otherNotes), "w.txt"), content: `${self} into ${other}\n` } } },
      ];
      reportA = await ed.prompt(idA, { steps: steps("A", "B", notesB) });
      reportB = await ed.prompt(idB, { steps: steps("B", "A", notesA) });
      sidA = acpEntryOf(reportB, idA, []);
      sidB = acpEntryOf(reportB, idB, []);
      assert.notEqual(sidA, sidB);
      figures.serverIds = [sidA, sidB];
    });
    const a = byLabel(reportA);
    const b = byLabel(reportB);
    await check("each serverId reaches its own session's buffers", async () => {
      assert.equal(a.own?.serverId, sidA);
      assert.equal(b.own?.serverId, sidB);
      assert.equal(toolText(a.own), "buffer A\n");
      assert.equal(toolText(b.own), "buffer B\n");
      assert.equal(toolText(a["write own"]).length > 0, true);
      assert.equal(toolText(b["write own"]).length > 0, true);
      assert.equal(ed.buffers.get(path.join(cwdA, "w.txt")), "from A\n");
      assert.equal(ed.buffers.get(path.join(cwdB, "w.txt")), "from B\n");
    });
    await check("neither serverId reaches the other session's files", async () => {
      refused(a["other's file"], "buffer B");
      refused(b["other's file"], "buffer A");
      refused(a["other's dir"], "notes.txt");
      refused(b["other's dir"], "notes.txt");
      refused(a["write other's"], "A into B");
      refused(b["write other's"], "B into A");
      assert.ok(!fs.existsSync(path.join(cwdB, "w.txt")) && !fs.existsSync(path.join(cwdA, "w.txt")), "a write reached the disk");
    });
    await check("the editor is asked for each session's own paths, under its id", async () => {
      for (const r of ed.fsRequests) {
        const [id, cwd] = r.params.path.startsWith(cwdA + path.sep) ? [idA, cwdA] : [idB, cwdB];
        assert.ok(r.params.path.startsWith(cwd + path.sep), `${r.method} ${r.params.path}`);
        assert.equal(r.params.sessionId, id, `${r.method} ${r.params.path} came with session ${r.params.sessionId}`);
      }
      assert.deepEqual(ed.fsRequests.map((r) => [r.method, r.params.path]), [
        ["fs/read_text_file", notesA],
        ["fs/write_text_file", path.join(cwdA, "w.txt")],
        ["fs/read_text_file", notesB],
        ["fs/write_text_file", path.join(cwdB, "w.txt")],
      ]);
    });
  } finally {
    await run.stop();
  }
  await run.checkWires("v1", "schema.unstable.json", "schema.unstable.json", { order: true });
}

// inspect returns the proxy's listening sockets and descendants.
function inspect(run) {
  return { ...listening(run.pid), descendants: descendants(run.pid).map((d) => d.cmdline) };
}

async function socketsScenario() {
  const cwd = path.join(base, "project");
  tree({ [path.join(cwd, "notes.txt")]: "disk\n" });
  if (process.platform !== "linux") {
    figures.skipped = listening(process.pid).skipped;
    return;
  }
  const ed = new V1Editor();
  const run = ed.start("sockets", agentArgs("sockets", 1, "acp"));
  try {
    let snaps = [];
    await check("acp: no listening socket", async () => {
      await ed.initialize();
      const sessionId = await ed.newSession(cwd);
      const atNew = inspect(run);
      // The calls must have gone over mcp/message, or the point is moot.
      const report = await ed.prompt(sessionId, {
        steps: [
          { label: "discover", method: "server/discover", params: {} },
          { label: "read", method: "tools/call", params: { name: "read_text_file", arguments: { path: "notes.txt" } } },
        ],
      });
      const afterCalls = inspect(run);
      snaps = [atNew, afterCalls];
      figures.acp = { atNew, afterCalls };
      for (const snap of snaps) {
        assert.ok(snap.fds > 0, `the inspection saw no fd: ${JSON.stringify(snap)}`);
        assert.deepEqual(snap.listening, [], "the proxy listens");
      }
      acpEntryOf(report, sessionId, []);
      assert.equal(toolText(byLabel(report).read), "disk\n");
    });
    await check("acp: the proxy's only descendant is the agent", async () => {
      assert.equal(snaps.length, 2, "no inspection");
      for (const snap of snaps) {
        assert.equal(snap.descendants.length, 1, `the proxy's descendants: ${JSON.stringify(snap.descendants)}`);
        assert.match(snap.descendants[0], /acp-next-agent\.mjs/);
      }
    });
  } finally {
    await run.stop();
  }
  await run.checkWires("v1", "schema.unstable.json", "schema.unstable.json", { order: true });

  // Controls: the inspection sees the listeners of the other transports.
  for (const [mode, proto, args] of [
    ["http", "tcp", ["--mcp-http"]],
    ["stdio", "unix", []],
  ]) {
    const ctl = new V1Editor({ noProvider: true });
    const r = ctl.start(`control-${mode}`, [path.join(here, "acp-agent.mjs"), ...args]);
    try {
      await check(`control ${mode}: the inspection sees a ${proto} listener`, async () => {
        await ctl.initialize();
        await ctl.newSession(cwd);
        const snap = inspect(r);
        figures[`control-${mode}`] = snap;
        assert.ok(snap.listening.some((l) => l.proto.startsWith(proto)), `no ${proto} listener in ${JSON.stringify(snap.listening)}`);
      });
    } finally {
      await r.stop();
    }
  }
}

// The transport the proxy picks, by what the agent advertised and by
// --mcp-transport: [name, protocol, advertised, flag, the entry's type or
// null for a refusal].
const transportCases = [
  ["auto-v1", 1, "acp,http", null, "acp"],
  ["auto-v1-http", 1, "http", null, "http"],
  ["auto-v2", 2, "stdio,http", null, "http"],
  ["auto-v2-acp", 2, "stdio,http,acp", null, "acp"],
  ["forced-http", 1, "acp,http", "http", "http"],
  ["forced-stdio-v1", 1, "acp", "stdio", "stdio"],
  ["forced-acp-v2", 2, "stdio,acp", "acp", "acp"],
  ["forced-acp-refused", 1, "http", "acp", null],
  ["forced-http-refused-v2", 2, "stdio", "http", null],
];

// transportScenario checks which entry the agent gets (in the agent's
// session/new, on its wire), and that a forced transport the agent did
// not advertise fails initialize with an error naming the flag.
async function transportScenario() {
  const cwd = path.join(base, "project");
  tree({ [path.join(cwd, "notes.txt")]: "disk\n" });
  for (const [name, protocol, advertised, forced, want] of transportCases) {
    const flags = forced ? ["--mcp-transport", forced] : [];
    const sdk = protocol === 1 ? v1 : v2u;
    const run = new Run(name, sdk, agentArgs(name, protocol, advertised), sdk.client({ name: "acp-next-editor" }), flags);
    const init =
      protocol === 1
        ? { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } }, clientInfo: { name: "acp-next-editor", version: "1.0.0" } }
        : { protocolVersion: 2, info: { name: "acp-next-editor", version: "1.0.0" }, capabilities: {} };
    try {
      await check(`${name}: ${want ? `the agent gets the ${want} entry` : `initialize fails naming --mcp-transport ${forced}`}`, async () => {
        if (!want) {
          await assert.rejects(run.conn.agent.request(sdk.methods.agent.initialize, init, opts()), (err) => {
            assert.ok(err.message.includes(`--mcp-transport ${forced}`), `the error ${err.message} ${JSON.stringify(err.data)}`);
            figures[name] = { code: err.code, message: err.message };
            return true;
          });
          return;
        }
        await run.conn.agent.request(sdk.methods.agent.initialize, init, opts());
        await run.conn.agent.request(sdk.methods.agent.session.new, { cwd, mcpServers: [] }, opts());
        const got = messages(run.records().agent, "in").find((m) => m.method === "session/new");
        const e = got?.params.mcpServers?.at(-1);
        assert.equal(e?.name, "acpfs", `the agent's servers ${JSON.stringify(got?.params.mcpServers)}`);
        assert.equal(e.type ?? "stdio", want);
        if (protocol === 2) assert.equal(e.type, want, "a v2 entry without its type");
      });
    } finally {
      await run.stop();
    }
    // A refusal replaces the agent's initialize answer.
    await run.checkWires(protocol === 1 ? "v1" : "v2", "schema.unstable.json", "schema.unstable.json", { faithful: want !== null });
  }
}

// promptV2 sends a v2 prompt of steps and returns its answer and the
// agent's report, read from the session's updates until idle.
async function promptV2(session, steps) {
  const [res, text] = await Promise.all([session.prompt(JSON.stringify({ steps }), opts()), session.readTextUntilIdle(AbortSignal.timeout(stepTimeout))]);
  const report = JSON.parse(text);
  assert.equal(report.error, undefined, `the agent's script failed: ${report.error}`);
  return [res, report];
}

// v2EntryOf checks a v2 session's servers: the editor's first, unchanged,
// then one entry of v2's shape on the advertised transport, which it
// returns.
function v2EntryOf(report, sessionId, own) {
  const servers = report.sessions[sessionId]?.mcpServers;
  assert.ok(servers, `the agent knows no session ${sessionId}`);
  assert.deepEqual(servers.slice(0, own.length), own, "the editor's own servers did not come first and unchanged");
  assert.equal(servers.length, own.length + 1, `want one server added, got ${JSON.stringify(servers)}`);
  const e = servers.at(-1);
  assert.equal(e.type, transport);
  assert.equal(e.name, "acpfs");
  if (transport === "http") {
    assert.match(e.url, /^http:\/\/127\.0\.0\.1:\d+\//);
    assert.deepEqual(e.headers.map((h) => h.name), ["Authorization"]);
  } else if (transport === "stdio") {
    assert.equal(fs.realpathSync(e.command), fs.realpathSync(bin));
    assert.deepEqual(e.args, ["relay"]);
  } else {
    assert.deepEqual(Object.keys(e).sort(), ["name", "serverId", "type"]);
  }
  return e;
}

async function v2Scenario() {
  // Both speak stable v2, or for acp (in v2's unstable schema only) the
  // unstable entry point: a stable v2 client drops capabilities.session.mcp.acp.
  const sdk = transport === "acp" ? v2u : v2;
  const schemaFile = transport === "acp" ? "schema.unstable.json" : "schema.json";
  const cwds = [path.join(base, "a"), path.join(base, "b")];
  const disk = {};
  for (const cwd of cwds) {
    disk[path.join(cwd, "notes.txt")] = `disk ${path.basename(cwd)}\n`;
    disk[path.join(cwd, "watched.txt")] = "watched\n";
  }
  tree(disk);
  // The editor's own server, on the advertised transport (none for acp,
  // which an editor on stable v2 cannot serve).
  const own = {
    http: [{ type: "http", name: "editor-own", url: "http://127.0.0.1:9/mcp", headers: [] }],
    stdio: [{ type: "stdio", name: "editor-own", command: "/bin/true", args: ["--flag"], env: [{ name: "EDITOR_OWN", value: "1" }] }],
    acp: [],
  }[transport];
  const app = sdk.client({ name: "acp-next-editor" });
  const run = new Run(`v2-${transport}`, sdk, agentArgs(`v2-${transport}`, 2, transport), app);
  const agent = run.conn.agent;
  const entries = [];
  try {
    await check("initialize passes through (protocol 2)", async () => {
      const res = await agent.request(sdk.methods.agent.initialize, { protocolVersion: 2, info: { name: "acp-next-editor", version: "1.0.0" }, capabilities: {} }, opts());
      assert.equal(res.protocolVersion, 2);
      assert.deepEqual(res.capabilities?.session?.mcp, { [transport]: {} });
      passedThrough(run);
    });
    for (const cwd of cwds) {
      const tag = path.basename(cwd);
      let report;
      let messageId;
      let session;
      await check(`session ${tag}: a v2 ${transport} entry after the editor's own`, async () => {
        const steps = [
          ...(transport === "acp" ? [{ label: "discover", method: "server/discover", params: {} }] : []),
          { label: "list", method: "tools/list", params: {} },
          { label: "read", method: "tools/call", params: { name: "read_text_file", arguments: { path: "notes.txt" } } },
          { label: "write", method: "tools/call", params: { name: "write_text_file", arguments: { path: "out.txt", content: `written in ${tag}\n` } } },
          { label: "read back", method: "tools/call", params: { name: "read_text_file", arguments: { path: path.join(cwd, "out.txt") } } },
          ...(transport === "acp" ? [listenStep(path.join(cwd, "watched.txt"))] : []),
        ];
        session = await agent.buildSession({ cwd, mcpServers: own }).start(opts());
        let res;
        [res, report] = await promptV2(session, steps);
        messageId = res.messageId;
        entries.push(v2EntryOf(report, session.sessionId, own));
      });
      await check(`session ${tag}: the prompt answers a messageId and the turn ends idle`, async () => {
        assert.ok(report, "the session did not run");
        assert.equal(typeof messageId, "string");
        const { editor } = run.records();
        const idle = messages(editor, "in").filter((m) => m.method === "session/update" && m.params.update.sessionUpdate === "state_update" && m.params.update.state === "idle");
        assert.ok(idle.length >= 1, "no idle state_update reached the editor");
      });
      await check(`session ${tag}: the tools work on the disk`, async () => {
        assert.ok(report, "the session did not run");
        const steps = byLabel(report);
        assert.deepEqual(steps.list?.outcome?.result?.tools?.map((t) => t.name).sort(), allTools);
        assert.equal(toolText(steps.read), disk[path.join(cwd, "notes.txt")]);
        assert.equal(steps.read.outcome.result.structuredContent?.source, "disk");
        assert.match(toolText(steps.write), /\d+ bytes/);
        assert.equal(fs.readFileSync(path.join(cwd, "out.txt"), "utf8"), `written in ${tag}\n`);
        assert.equal(toolText(steps["read back"]), `written in ${tag}\n`);
      });
      if (transport === "acp") {
        await check(`session ${tag}: subscriptions/listen: notifications first, $/cancel_request ends it`, async () => {
          assert.ok(report, "the session did not run");
          figures[`listen ${tag}`] = checkListen(run, byLabel(report).listen, path.join(cwd, "watched.txt"));
        });
      }
      if (tag === "a") {
        // session/resume carries mcpServers too.
        await check(`session ${tag}: session/resume gets a v2 ${transport} entry, which works`, async () => {
          assert.ok(session, "the session did not start");
          await agent.request(sdk.methods.agent.session.resume, { sessionId: session.sessionId, cwd, mcpServers: own }, opts());
          // The resume's state snapshot came before its answer.
          for (let m = await session.nextUpdate(AbortSignal.timeout(stepTimeout)); m.kind !== "stop"; m = await session.nextUpdate(AbortSignal.timeout(stepTimeout)));
          const [, again] = await promptV2(session, [
            { label: "read after resume", method: "tools/call", params: { name: "read_text_file", arguments: { path: "notes.txt" } } },
          ]);
          const e = v2EntryOf(again, session.sessionId, own);
          figures.resumed = { ...e, headers: undefined, env: undefined };
          assert.equal(toolText(byLabel(again)["read after resume"]), disk[path.join(cwd, "notes.txt")]);
        });
      }
      session?.dispose();
    }
    await check("each session has its own entry", async () => {
      assert.equal(entries.length, 2);
      assert.notDeepEqual(entries[0], entries[1]);
      figures.entries = entries.map((e) => ({ ...e, headers: undefined, env: e.env?.map((v) => v.name) }));
    });
    await check("no fs/* and no request of the proxy's own reach the editor", async () => {
      const { editor } = run.records();
      const requests = messages(editor, "in").filter((m) => m.kind === "request");
      assert.deepEqual(requests.map((m) => m.method), [], "the editor was sent requests");
    });
  } finally {
    await run.stop();
  }
  await run.checkWires("v2", schemaFile, schemaFile, { order: transport === "acp" });
}

const scenarioFns = {
  buffers: buffersScenario,
  unknown: unknownScenario,
  sessions: sessionsScenario,
  sockets: socketsScenario,
  v2: v2Scenario,
  transport: transportScenario,
};
try {
  await scenarioFns[scenario]();
} catch (err) {
  failures.push({ check: "the scenario ran", failure: String(err?.stack ?? err) });
}

const ok = failures.length === 0;
const summary = {
  ok,
  scenario,
  mcp: scenario === "v2" ? transport : "acp",
  checks: passed,
  failures,
  figures,
  wires: Object.fromEntries(
    Object.entries(wires).map(([name, w]) => [
      name,
      {
        editor: { records: w.editor.records, validated: w.editor.validated, counts: w.editor.counts, failures: w.editor.failures?.slice(0, 20) },
        agent: { records: w.agent.records, validated: w.agent.validated, counts: w.agent.counts, failures: w.agent.failures?.slice(0, 20) },
        forwarding: w.forwarding && { toAgent: w.forwarding.toAgent, toEditor: w.forwarding.toEditor },
        order: w.order && { requests: w.order.requests, notifications: w.order.notifications, sameRead: w.order.sameRead, failures: w.order.failures },
      },
    ]),
  ),
};
console.log(JSON.stringify(summary, null, 2));
if (!ok) {
  console.error(`acp-next-editor (${scenario}): ${failures.length} failure(s)`);
  for (const f of failures) console.error(`- ${f.check}: ${f.failure}`);
  for (const r of runs) console.error(`proxy ${r.name} stderr:\n${r.stderr}`);
  console.error(`files kept in ${base}`);
}
if (!keep && ok) fs.rmSync(base, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
