// acp-next-agent.mjs is a scripted ACP agent on the official TypeScript SDK
// for acp-next-editor.mjs to run behind `mcp-acpfs proxy`: ACP v1 with
// MCP-over-ACP (@agentclientprotocol/sdk/unstable), or the ACP v2 draft
// (@agentclientprotocol/sdk/experimental/v2, or its unstable entry point
// for MCP-over-ACP on v2). It has no model: its prompt is a JSON script.
//
//	node acp-next-agent.mjs --protocol 1|2 --mcp acp|http|stdio[,...] [--wire FILE]
//
// It advertises exactly the MCP transports of --mcp: on v1
// agentCapabilities.mcpCapabilities {acp: true, ...}, on v2
// capabilities.session.mcp {acp: {}, ...}. On session/new it refuses, with
// -32602, a server whose transport it did not advertise (v2: the SDK's
// assertSupportedMcpServers; v1: the same rule, but stdio, untyped, which
// v1 makes every agent's, passes) and records the servers. A prompt is
//
//	{steps: [{label, via: {session?, name?} | {serverId}, method, params}]}
//
// and each step is one MCP request (a step with listen is a long-lived
// one, see listen below): to the server named name (default
// acpfs) that session (default the prompt's) was given, or to a raw
// serverId. Over an acp entry it goes through the SDK's McpOverAcpCaller
// as mcp/message (server/discover, tools/call, any method); over http or
// stdio through the MCP SDK's Client (tools/list and tools/call); over a
// transport it did not advertise, not at all (the step fails). The
// outcome of every step goes back as one agent_message_chunk whose text is
// JSON: {protocol, advertised, sessions: {id: {cwd, mcpServers}}, steps:
// [{label, serverId, type, method, requestId, outcome, error,
// notifications}]}. On v1 the prompt then answers end_turn; on v2 the turn
// runs between a running and an idle state_update and the prompt answers
// its messageId; session/resume (v2) takes the session's new servers,
// checked as on session/new, and sends the idle state before its answer.
//
// --wire FILE records every line it reads and writes (acp-next-wire.mjs).
// Logs go to stderr.

import fs from "node:fs";
import { Readable, Writable } from "node:stream";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { Wire } from "./acp-next-wire.mjs";

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const protocol = Number(flag("--protocol") ?? "1");
const advertised = (flag("--mcp") ?? "acp").split(",").filter(Boolean);
const wire = new Wire(flag("--wire"));
const log = (...a) => console.error("acp-next-agent:", ...a);

const entryPoint =
  protocol === 1
    ? "@agentclientprotocol/sdk/unstable"
    : advertised.includes("acp")
      ? "@agentclientprotocol/sdk/experimental/v2/unstable"
      : "@agentclientprotocol/sdk/experimental/v2";
const acp = await import(entryPoint);

const stepTimeout = 20_000; // one MCP request; only bounds a hang
const info = { name: "acp-next-agent", version: "1.0.0" };
const mcp = acp.McpOverAcpCaller ? new acp.McpOverAcpCaller({ clientInfo: info }) : null;

// The advertised capabilities: v1 booleans, v2 objects.
const mcpCaps = Object.fromEntries(advertised.map((t) => [t, protocol === 1 ? true : {}]));

const sessions = new Map(); // sessionId → {cwd, mcpServers}
const clients = new Set(); // open MCP SDK clients, closed at exit
let nextId = 1;

// checkServers refuses a server entry whose transport was not advertised.
function checkServers(mcpServers) {
  if (protocol === 2) return acp.assertSupportedMcpServers(mcpServers, mcpCaps);
  for (const s of mcpServers ?? []) {
    const type = s.type ?? "stdio";
    if (type !== "stdio" && !mcpCaps[type]) {
      throw acp.RequestError.invalidParams({ type }, `Unsupported MCP server transport ${type}`);
    }
  }
}

// connectMCP connects the MCP SDK's Client to an http or stdio entry.
async function connectMCP(entry) {
  let transport;
  if (entry.type === "http") {
    const headers = Object.fromEntries((entry.headers ?? []).map((h) => [h.name, h.value]));
    transport = new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers } });
  } else {
    const env = { ...process.env, ...Object.fromEntries((entry.env ?? []).map((e) => [e.name, e.value])) };
    transport = new StdioClientTransport({ command: entry.command, args: entry.args ?? [], env, stderr: "inherit" });
  }
  const client = new Client(info);
  await client.connect(transport);
  clients.add(client);
  return client;
}

// errorOf turns a thrown error into {code, message, data}.
const errorOf = (err) => ({ code: err?.code ?? null, message: String(err?.message ?? err), data: err?.data });

// runStep runs one step of a script in session.
async function runStep(client, sessionId, step, sdkClients) {
  const via = step.via ?? {};
  const out = { label: step.label, method: step.method, notifications: [] };
  let entry;
  if (via.serverId !== undefined) {
    entry = { type: "acp", serverId: via.serverId };
  } else {
    const s = sessions.get(via.session ?? sessionId);
    entry = s?.mcpServers.find((e) => e.name === (via.name ?? "acpfs"));
    if (!entry) {
      out.error = { code: null, message: `no server ${via.name ?? "acpfs"} in session ${via.session ?? sessionId}` };
      return out;
    }
  }
  out.type = entry.type ?? "stdio";
  out.serverId = entry.serverId;
  if (!advertised.includes(out.type)) {
    // This agent speaks only what it advertised (v1 makes stdio a must, but
    // an agent of acp only is what the tests need).
    out.error = { code: null, message: `the entry ${via.name ?? "acpfs"} is of type ${out.type}, which this agent did not advertise` };
    return out;
  }
  try {
    if (out.type === "acp" && step.listen) {
      await listen(client, entry, step, out);
    } else if (out.type === "acp") {
      out.requestId = `req-${nextId++}`;
      out.outcome = await mcp.request(client, entry.serverId, step.method, step.params, {
        requestId: out.requestId,
        signal: AbortSignal.timeout(stepTimeout),
        onNotification: (n) => out.notifications.push(n),
      });
    } else {
      const key = JSON.stringify(entry);
      if (!sdkClients.has(key)) sdkClients.set(key, await connectMCP(entry));
      const c = sdkClients.get(key);
      if (step.method === "tools/list") out.outcome = { result: await c.listTools() };
      else if (step.method === "tools/call") out.outcome = { result: await c.callTool(step.params) };
      else throw new Error(`${step.method} is not scripted over ${out.type}`);
    }
  } catch (err) {
    out.error = errorOf(err);
  }
  return out;
}

// listen runs a step with listen: {first, then?, touch?: {path, content}},
// a long-lived request such as subscriptions/listen. Once a notification of
// method first has come, it writes touch's file on the disk, waits for a
// notification of method then, and cancels the request ($/cancel_request),
// whose answer or error it records. The waits end at the notifications; the
// timeout only bounds a hang.
async function listen(client, entry, step, out) {
  const waiters = [];
  const seen = (method) =>
    new Promise((resolve, reject) => {
      if (out.notifications.some((n) => n.method === method)) return resolve();
      const timer = setTimeout(() => reject(new Error(`no ${method} within ${stepTimeout} ms`)), stepTimeout);
      waiters.push({ method, resolve: () => (clearTimeout(timer), resolve()) });
    });
  const cancel = new AbortController();
  out.requestId = `req-${nextId++}`;
  const pending = mcp.request(client, entry.serverId, step.method, step.params, {
    requestId: out.requestId,
    signal: cancel.signal,
    onNotification: (n) => {
      out.notifications.push(n);
      for (const w of waiters.filter((w) => w.method === n.method)) w.resolve();
    },
  });
  pending.catch(() => {}); // settled below
  try {
    await Promise.race([seen(step.listen.first), pending.then(() => Promise.reject(new Error("the request ended before its first notification")))]);
    if (step.listen.touch) fs.writeFileSync(step.listen.touch.path, step.listen.touch.content);
    if (step.listen.then) await seen(step.listen.then);
  } finally {
    cancel.abort();
    out.cancelled = true;
  }
  try {
    out.outcome = await pending;
  } catch (err) {
    out.error = errorOf(err);
  }
}

// runScript runs a prompt's script and returns the report.
async function runScript(client, sessionId, text) {
  const report = {
    protocol,
    advertised,
    sessions: Object.fromEntries(sessions),
    steps: [],
  };
  const sdkClients = new Map();
  try {
    const script = JSON.parse(text);
    for (const step of script.steps ?? []) report.steps.push(await runStep(client, sessionId, step, sdkClients));
  } catch (err) {
    log("the script failed:", err);
    report.error = String(err?.stack ?? err);
  } finally {
    for (const c of sdkClients.values()) {
      clients.delete(c);
      await c.close();
    }
  }
  return report;
}

const promptText = (params) =>
  params.prompt
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");

let app = acp.agent({ name: "acp-next-agent" });
if (mcp) app = app.onNotification(acp.methods.agent.mcp.message, mcp.handleNotification);
app = app
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    checkServers(params.mcpServers);
    const sessionId = `sess_${process.pid}_${nextId++}`;
    sessions.set(sessionId, { cwd: params.cwd, mcpServers: params.mcpServers ?? [] });
    log("session/new", sessionId, JSON.stringify((params.mcpServers ?? []).map((s) => [s.type, s.name])));
    return { sessionId };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

if (protocol === 1) {
  app = app
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: 1,
      agentCapabilities: { loadSession: false, mcpCapabilities: mcpCaps },
      agentInfo: info,
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      if (!sessions.has(params.sessionId)) throw acp.RequestError.resourceNotFound(params.sessionId);
      const report = await runScript(client, params.sessionId, promptText(params));
      await client.notify(acp.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(report) } },
      });
      return { stopReason: "end_turn" };
    });
} else {
  app = app
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: 2,
      info,
      capabilities: { session: { mcp: mcpCaps } },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      if (!sessions.has(params.sessionId)) throw acp.RequestError.resourceNotFound(params.sessionId);
      const update = (u) => client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: u });
      const messageId = `user_${nextId++}`;
      await update({ sessionUpdate: "state_update", state: "running" });
      const report = await runScript(client, params.sessionId, promptText(params));
      await update({
        sessionUpdate: "agent_message_chunk",
        messageId: `agent_${nextId++}`,
        content: { type: "text", text: JSON.stringify(report) },
      });
      await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
      return { messageId };
    })
    .onRequest(acp.methods.agent.session.resume, async ({ params, client }) => {
      if (!sessions.has(params.sessionId)) throw acp.RequestError.resourceNotFound(params.sessionId);
      checkServers(params.mcpServers);
      sessions.set(params.sessionId, { cwd: params.cwd, mcpServers: params.mcpServers ?? [] });
      log("session/resume", params.sessionId, JSON.stringify((params.mcpServers ?? []).map((s) => [s.type, s.name])));
      // No replay; the current state, before the answer.
      await client.notify(acp.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "state_update", state: "idle" },
      });
      return {};
    });
}

const conn = app.connect(acp.ndJsonStream(wire.output(Writable.toWeb(process.stdout)), wire.input(Readable.toWeb(process.stdin))));
await conn.closed;
log("the client closed the connection");
await Promise.allSettled([...clients].map((c) => c.close()));
process.exit(0);
