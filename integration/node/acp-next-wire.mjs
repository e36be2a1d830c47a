// acp-next-wire.mjs records the wire of one ACP peer of the acp-next-*.mjs
// tests, and checks such a record against the SDK's JSON schemas.
//
// A Wire taps the byte streams a peer reads and writes, before its SDK
// parses them: each line is recorded as it crosses the pipe, with the
// number of the read that brought it in, so order on the wire is known
// exactly (and so are notifications that arrive in the same read as a
// response, which the SDK's McpOverAcpCaller drops). A record can go to a
// file, line by line as it happens, so a peer that is killed leaves it.
//
// checkWire validates every message of a record, in both directions,
// against one schema file of @agentclientprotocol/sdk (v1/schema.unstable.json,
// v2/schema.json or v2/schema.unstable.json): the envelope against
// ClientRequest, AgentNotification, ... as the sender speaks, and params,
// result or error against the definition the schema gives that method for
// that sender and kind (mcp/message is a request of the agent and a
// notification of the client, with different definitions; $/cancel_request
// goes either way). Ids are checked
// too: a request id is not reused while pending, and every response answers
// a pending request of the other side.

import fs from "node:fs";
import { isDeepStrictEqual } from "node:util";

import { Schema } from "./acp-trace.mjs";

// A Wire is the record of one peer: {seq, dir: "in"|"out", read, msg} per
// line, read being the number of the read ("in") or write ("out").
export class Wire {
  constructor(file) {
    this.fd = file ? fs.openSync(file, "a", 0o600) : null;
    this.records = [];
    this.reads = 0;
    this.writes = 0;
  }

  #add(dir, line, read) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = undefined;
    }
    const r = { seq: this.records.length + 1, dir, read, ...(msg === undefined ? { raw: line } : { msg }) };
    this.records.push(r);
    if (this.fd !== null) fs.writeSync(this.fd, JSON.stringify(r) + "\n");
  }

  // tap returns a TransformStream of bytes that records each whole line
  // that passes, as dir, before passing the bytes on unchanged.
  #tap(dir) {
    const decoder = new TextDecoder();
    let buf = "";
    return new TransformStream({
      transform: (chunk, controller) => {
        const n = dir === "in" ? ++this.reads : ++this.writes;
        buf += decoder.decode(chunk, { stream: true });
        for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim() !== "") this.#add(dir, line, n);
        }
        controller.enqueue(chunk);
      },
    });
  }

  // input wraps the byte stream the peer reads.
  input(readable) {
    return readable.pipeThrough(this.#tap("in"));
  }

  // output wraps the byte stream the peer writes.
  output(writable) {
    const tap = this.#tap("out");
    tap.readable.pipeTo(writable).catch(() => {});
    return tap.writable;
  }
}

// readWire reads a record that a Wire wrote to file.
export function readWire(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

// kind returns "request", "notification", "response" or "invalid".
export function kind(msg) {
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return "invalid";
  if (typeof msg.method === "string") return "id" in msg ? "request" : "notification";
  if ("id" in msg && ("result" in msg || "error" in msg)) return "response";
  return "invalid";
}

const compiled = new Map();

// schemaOf compiles a schema file once per process, with the definitions
// each sender may use per kind and method.
function schemaOf(version, file) {
  const key = `${version}/${file}`;
  let s = compiled.get(key);
  if (s) return s;
  const schema = new Schema(file, version);
  const defs = schema.doc.$defs;
  // byEnvelope: "ClientRequest" → Map(method → definition name), from the
  // definitions the envelope's params (or result) refer to.
  const byEnvelope = new Map();
  for (const speaker of ["Client", "Agent"]) {
    for (const k of ["Request", "Notification", "Response"]) {
      const env = `${speaker}${k}`;
      const names = new Set();
      collectRefs(defs[env], names);
      const m = new Map();
      for (const name of names) {
        const method = defs[name]?.["x-method"];
        if (method) m.set(method, name);
      }
      byEnvelope.set(env, m);
    }
  }
  // The protocol's own methods ($/cancel_request) go either way; no
  // envelope names them.
  for (const [name, def] of Object.entries(defs)) {
    if (def["x-side"] !== "protocol" || !def["x-method"]) continue;
    for (const env of ["ClientNotification", "AgentNotification"]) byEnvelope.get(env).set(def["x-method"], name);
  }
  s = { schema, byEnvelope, file: key };
  compiled.set(key, s);
  return s;
}

function collectRefs(o, names) {
  if (Array.isArray(o)) return o.forEach((x) => collectRefs(x, names));
  if (!o || typeof o !== "object") return;
  for (const [k, v] of Object.entries(o)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")) names.add(v.slice("#/$defs/".length));
    else collectRefs(v, names);
  }
}

const idKey = (id) => JSON.stringify(id);

// checkWire validates a peer's record. role is the peer's: "client" (the
// editor) or "agent". It returns {validated, counts, failures}: counts by
// direction and "kind method", failures naming the record's seq.
export function checkWire(records, { role, version, file }) {
  const { schema, byEnvelope, file: schemaFile } = schemaOf(version, file);
  const me = role === "client" ? "Client" : "Agent";
  const peer = role === "client" ? "Agent" : "Client";
  const counts = { in: {}, out: {} };
  const failures = [];
  let validated = 0;
  const pending = { in: new Map(), out: new Map() }; // requests by the dir they came
  const fail = (r, what) => failures.push({ seq: r.seq, dir: r.dir, failure: what });

  for (const r of records) {
    if (r.raw !== undefined) {
      fail(r, `a line that is not JSON: ${r.raw.slice(0, 200)}`);
      continue;
    }
    const msg = r.msg;
    const k = kind(msg);
    const speaker = r.dir === "out" ? me : peer;
    if (k === "invalid") {
      fail(r, `not a JSON-RPC request, notification or response: ${JSON.stringify(msg).slice(0, 200)}`);
      continue;
    }
    if (msg.jsonrpc !== "2.0") fail(r, `jsonrpc is ${JSON.stringify(msg.jsonrpc)}, want "2.0"`);
    const Kind = k[0].toUpperCase() + k.slice(1);
    const envelope = `${speaker}${Kind}`;
    const { jsonrpc: _, ...body } = msg;
    let method = msg.method;
    if (k === "response") {
      const other = r.dir === "out" ? "in" : "out";
      const req = pending[other].get(idKey(msg.id));
      if (!req) {
        fail(r, `a response to id ${idKey(msg.id)}, which no pending request of the other side has`);
      } else {
        pending[other].delete(idKey(msg.id));
        method = req.method;
      }
    }
    const label = `${k} ${method ?? "?"}`;
    counts[r.dir][label] = (counts[r.dir][label] ?? 0) + 1;

    let err = schema.check(envelope, body);
    if (err) fail(r, `${label}: not a valid ${envelope} of ${schemaFile}: ${err}`);
    if (k === "request") {
      if (pending[r.dir].has(idKey(msg.id))) fail(r, `request id ${idKey(msg.id)} is reused while pending`);
      pending[r.dir].set(idKey(msg.id), { method: msg.method, seq: r.seq });
    }
    if (method !== undefined) {
      const def = byEnvelope.get(envelope).get(method);
      if (k === "response" && "error" in msg) {
        err = schema.check("Error", msg.error);
        if (err) fail(r, `${label} error: ${err}`);
        if ("result" in msg) fail(r, `${label} has both result and error`);
      } else if (def) {
        err = schema.check(def, k === "response" ? msg.result : msg.params);
        if (err) fail(r, `${label}: not a valid ${def}: ${err}`);
      } else if (!method.startsWith("_")) {
        fail(r, `${label}: ${schemaFile} has no ${envelope} of that method`);
      }
    }
    validated++;
  }
  for (const [dir, m] of Object.entries(pending)) {
    for (const [id, req] of m) {
      failures.push({ seq: req.seq, dir, failure: `the ${req.method} request ${id} was never answered` });
    }
  }
  return { validated, counts, failures };
}

// mcpOrder checks, on an agent's record, that every mcp/message
// notification for an inner request arrived after the agent sent that
// request and before the answer to it. It returns {requests,
// notifications, sameRead, failures}: sameRead counts notifications that
// came in the same read as the answer to their request.
export function mcpOrder(records) {
  const out = new Map(); // outer id → {serverId, requestId, seq, answered}
  const byInner = new Map(); // [serverId, requestId] → the same
  const failures = [];
  let requests = 0;
  let notifications = 0;
  let sameRead = 0;
  const notes = [];
  for (const r of records) {
    const msg = r.msg;
    if (!msg) continue;
    const k = kind(msg);
    if (r.dir === "out" && k === "request" && msg.method === "mcp/message") {
      const q = { serverId: msg.params?.serverId, requestId: msg.params?.requestId, seq: r.seq, answer: null, notes: [] };
      out.set(idKey(msg.id), q);
      byInner.set(JSON.stringify([q.serverId, q.requestId]), q);
      requests++;
    } else if (r.dir === "in" && k === "response" && out.has(idKey(msg.id))) {
      out.get(idKey(msg.id)).answer = r;
    } else if (r.dir === "in" && k === "notification" && msg.method === "mcp/message") {
      notifications++;
      notes.push(r);
      const q = byInner.get(JSON.stringify([msg.params?.serverId, msg.params?.requestId]));
      if (!q) {
        failures.push({ seq: r.seq, failure: `an mcp/message notification for ${msg.params?.serverId}/${msg.params?.requestId}, which the agent never asked` });
      } else if (q.answer) {
        failures.push({ seq: r.seq, failure: `the ${msg.params?.method} notification of ${q.requestId} came after the answer (seq ${q.answer.seq})` });
      } else {
        q.notes.push(r);
      }
    }
  }
  for (const q of out.values()) {
    if (q.answer) sameRead += q.notes.filter((n) => n.read === q.answer.read).length;
  }
  return { requests, notifications, sameRead, failures };
}

// The methods whose requests get the proxy's MCP server in mcpServers.
const sessionMethods = new Set(["session/new", "session/load", "session/resume", "session/fork"]);

// forwarding checks, on the editor's and the agent's records of one run,
// that the proxy passed every message through JSON-equal and in order, in
// both directions, but for the request ids (renumbered), one MCP server
// appended to each session request's mcpServers, and what is the proxy's
// own: on the agent's side the mcp/message traffic of ourServerIds (the
// proxy answers it), on the editor's its fs/* requests and their answers.
// Responses are compared by the request they answer, paired across the
// proxy in order. It returns {toAgent, toEditor, failures}: the numbers of
// messages compared each way.
export function forwarding(editorRecords, agentRecords, { ourServerIds }) {
  const ours = new Set(ourServerIds);
  const msgs = (records, dir) => records.filter((r) => r.dir === dir && r.msg).map((r) => r.msg);
  const eOut = msgs(editorRecords, "out");
  const eIn = msgs(editorRecords, "in");
  const aOut = msgs(agentRecords, "out");
  const aIn = msgs(agentRecords, "in");

  // The agent's requests that are the proxy's to answer, and the editor's
  // requests that are the proxy's own.
  const ourRequest = (m) => kind(m) === "request" && m.method === "mcp/message" && ours.has(m.params?.serverId);
  const ourIds = new Set(aOut.filter(ourRequest).map((m) => idKey(m.id)));
  const ownRequest = (m) => kind(m) === "request" && m.method.startsWith("fs/");
  const ownIds = new Set(eIn.filter(ownRequest).map((m) => idKey(m.id)));

  // Requests paired across the proxy, in order: the editor's to the agent,
  // the agent's (not ours) to the editor (not its own).
  const reqs = (list, skip) => list.filter((m) => kind(m) === "request" && !skip(m)).map((m) => idKey(m.id));
  const editorReqs = reqs(eOut, () => false); // index → the editor's id
  const agentGot = reqs(aIn, () => false); // index → the proxy's id to the agent
  const agentReqs = reqs(aOut, ourRequest);
  const editorGot = reqs(eIn, ownRequest);

  // cancelled: for the pairing a message's responses use, the one its
  // $/cancel_request uses (the requests it sent on its hop).
  const cancelled = new Map([
    [editorGot, editorReqs],
    [agentReqs, agentGot],
    [agentGot, agentReqs],
    [editorReqs, editorGot],
  ]);

  // normal renders a message without what may differ: a response as the
  // index of the request it answers in its pairing, a $/cancel_request as
  // the index of the request it cancels.
  const normal = (m, answered, trim) => {
    const k = kind(m);
    if (k === "response") {
      const { id, jsonrpc: _, ...rest } = m;
      return { answers: answered.indexOf(idKey(id)), ...rest };
    }
    const { id: _i, jsonrpc: _j, ...rest } = m;
    if (m.method === "$/cancel_request") {
      // It names a request of the other side, by the id on its own hop.
      return { ...rest, kind: k, params: { ...m.params, requestId: cancelled.get(answered).indexOf(idKey(m.params?.requestId)) } };
    }
    if (trim && sessionMethods.has(m.method) && Array.isArray(m.params?.mcpServers)) {
      // The agent got one server more, last.
      return { ...rest, kind: k, params: { ...m.params, mcpServers: m.params.mcpServers.slice(0, -1) } };
    }
    return { ...rest, kind: k };
  };
  const failures = [];
  const compare = (way, src, dst) => {
    for (let i = 0; i < Math.max(src.length, dst.length); i++) {
      if (!isDeepStrictEqual(src[i], dst[i])) {
        failures.push({ way, index: i, sent: src[i], got: dst[i] });
        return;
      }
    }
  };
  const toAgentSrc = eOut.filter((m) => !(kind(m) === "response" && ownIds.has(idKey(m.id)))).map((m) => normal(m, editorGot, false));
  const toAgentDst = aIn
    .filter((m) => !(kind(m) === "response" && ourIds.has(idKey(m.id))))
    .filter((m) => !(kind(m) === "notification" && m.method === "mcp/message" && ours.has(m.params?.serverId)))
    .map((m) => normal(m, agentReqs, true));
  compare("to the agent", toAgentSrc, toAgentDst);

  const toEditorSrc = aOut
    .filter((m) => !ourRequest(m))
    .filter((m) => !(kind(m) === "notification" && m.method === "$/cancel_request" && ourIds.has(idKey(m.params?.requestId))))
    .map((m) => normal(m, agentGot, false));
  const toEditorDst = eIn.filter((m) => !ownRequest(m)).map((m) => normal(m, editorReqs, false));
  compare("to the editor", toEditorSrc, toEditorDst);
  return { toAgent: toAgentSrc.length, toEditor: toEditorSrc.length, failures };
}
