// acp-trace.mjs checks a trace that `mcp-acpfs proxy --trace FILE` wrote:
// JSON lines {time, dir, msg}, dir one of from-editor, to-agent, from-agent
// and to-editor. It is shared by acp-client.mjs and can also be run alone:
//
//	node acp-trace.mjs TRACE
//
// prints the same JSON report and exits 1 on any failure.
//
// What the proxy wrote (to-agent: it speaks as the client; to-editor: it
// speaks as the agent) is validated against the official ACP v1 JSON schema
// that @agentclientprotocol/sdk ships (schema/v1/schema.json; a method only
// in schema.unstable.json is validated against that): the envelope against
// ClientRequest/ClientNotification/ClientResponse or their Agent*
// counterparts, and the params or result against the type the schema's
// x-method annotations give that method. A response is matched to its
// method through the request id it answers, on its own hop.
//
// The ids are checked too: the ids of the requests the proxy sends on a hop
// are unique among the requests pending there; every response it writes
// answers a request still pending on that hop; each request forwarded from
// one peer is answered to it exactly once, under its own id. And forwarding
// is checked to be faithful: a forwarded message equals the original but
// for its id, and (session/new, load, resume, fork) one MCP server appended
// to params.mcpServers.

import fs from "node:fs";
import { createRequire } from "node:module";
import { isDeepStrictEqual } from "node:util";
import { fileURLToPath } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);

// The methods whose requests get the proxy's MCP server.
export const sessionMethods = new Set(["session/new", "session/load", "session/resume", "session/fork"]);

// A Schema is one ACP JSON schema file of the SDK (of protocol version v1
// unless told), compiled, with its method map and its document.
export class Schema {
  constructor(file, version = "v1") {
    this.file = `${version}/${file}`;
    const doc = JSON.parse(fs.readFileSync(require.resolve(`@agentclientprotocol/sdk/schema/${version}/${file}`), "utf8"));
    this.doc = doc;
    this.ajv = new Ajv2020({ allErrors: true, strict: true, strictTuples: false, strictRequired: false });
    addFormats(this.ajv);
    const uint = (max) => ({ type: "number", validate: (n) => Number.isInteger(n) && n >= 0 && n <= max });
    this.ajv.addFormat("uint16", uint(0xffff));
    this.ajv.addFormat("uint32", uint(0xffffffff));
    this.ajv.addFormat("uint64", uint(Number.MAX_SAFE_INTEGER));
    // Annotations: the Rust generator's hints, and OpenAPI's discriminator
    // (the oneOf it annotates does the validating).
    const annotations = new Set();
    walk(doc, (k) => {
      if (k.startsWith("x-")) annotations.add(k);
    });
    for (const k of [...annotations, "discriminator"]) this.ajv.addKeyword({ keyword: k });
    this.ajv.addSchema(doc, "acp");

    // methods: method → {side, params, result}: side is who handles it
    // ("agent": the client calls it; "client": the agent calls it).
    this.methods = new Map();
    for (const [name, def] of Object.entries(doc.$defs)) {
      const method = def["x-method"];
      if (!method) continue;
      const m = this.methods.get(method) ?? { side: def["x-side"] };
      if (name.endsWith("Response")) m.result = name;
      else m.params = name;
      this.methods.set(method, m);
    }
    this.cache = new Map();
  }

  // validator returns the compiled validator of a $defs entry.
  validator(def) {
    let v = this.cache.get(def);
    if (!v) {
      v = this.ajv.getSchema(`acp#/$defs/${def}`);
      if (!v) throw new Error(`${this.file} has no definition ${def}`);
      this.cache.set(def, v);
    }
    return v;
  }

  // check validates value against def and returns the errors, or null.
  check(def, value) {
    const v = this.validator(def);
    if (v(value)) return null;
    return this.ajv.errorsText(v.errors, { dataVar: def, separator: "; " });
  }
}

function walk(o, visit) {
  if (Array.isArray(o)) return o.forEach((x) => walk(x, visit));
  if (o && typeof o === "object") {
    for (const [k, v] of Object.entries(o)) {
      // Keys of properties and $defs are names, not keywords.
      if (k !== "properties" && k !== "$defs") visit(k);
      if (k === "properties" || k === "$defs") Object.values(v).forEach((x) => walk(x, visit));
      else walk(v, visit);
    }
  }
}

// The stable schema, and the unstable one, compiled only when a method is
// not in the stable one (it takes a second).
let schemas;
function loadSchemas() {
  if (!schemas) {
    let unstable;
    schemas = {
      stable: new Schema("schema.json"),
      get unstable() {
        unstable ??= new Schema("schema.unstable.json");
        return unstable;
      },
    };
  }
  return schemas;
}

// kind returns "request", "notification", "response" or "invalid".
function kind(msg) {
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return "invalid";
  if (typeof msg.method === "string") return "id" in msg ? "request" : "notification";
  if ("id" in msg && ("result" in msg || "error" in msg)) return "response";
  return "invalid";
}

const idKey = (id) => JSON.stringify(id);

// The two hops as the trace names them. The proxy speaks on each as the
// opposite of the peer: to the agent as a client, to the editor as an agent.
const hops = {
  agent: { to: "to-agent", from: "from-agent", speaker: "Client", other: "editor" },
  editor: { to: "to-editor", from: "from-editor", speaker: "Agent", other: "agent" },
};

// checkTrace reads and checks a trace file and returns a report: counts of
// the messages per direction and kind/method, the number validated against
// the schema, and the failures (each naming the trace line).
export function checkTrace(file) {
  const all = loadSchemas();
  const { stable } = all;
  const failures = [];
  const counts = { "from-editor": {}, "to-agent": {}, "from-agent": {}, "to-editor": {} };
  let validated = 0;
  const fail = (line, dir, what) => failures.push({ line, dir, failure: what });

  const entries = [];
  fs.readFileSync(file, "utf8")
    .split("\n")
    .forEach((text, i) => {
      if (text === "") return;
      let e;
      try {
        e = JSON.parse(text);
      } catch (err) {
        fail(i + 1, "?", `the trace line is not JSON: ${err.message}`);
        return;
      }
      if (!(e.dir in counts) || typeof e.time !== "string" || !("msg" in e)) {
        fail(i + 1, e.dir, `a trace line without time, dir and msg: ${text.slice(0, 200)}`);
        return;
      }
      entries.push({ line: i + 1, ...e });
    });

  // Per hop, the requests pending there: sent to the peer (by the proxy,
  // keyed by the proxy's id) and received from it (keyed by the peer's id).
  const state = {};
  for (const name of Object.keys(hops)) {
    state[name] = {
      sentPending: new Map(), // id → {method, msg, line, forwardedFrom}
      receivedPending: new Map(), // id → {method, msg, line, answered}
      // The trace line of the last message from the other peer that the
      // proxy forwarded here: forwarding must keep the order.
      lastSource: 0,
      // Requests from the other peer not yet seen forwarded here, in order.
      toForward: [],
      // Notifications from the other peer not yet seen forwarded here.
      notesToForward: [],
      // Responses from the other peer, to requests forwarded there, not yet
      // seen forwarded back here: key → the response.
      answersToForward: new Map(),
    };
  }

  // schemaFor picks the schema that defines method, stable first.
  const schemaFor = (method) => {
    if (stable.methods.has(method)) return stable;
    if (all.unstable.methods.has(method)) return all.unstable;
    return null;
  };

  // validate checks what the proxy wrote on a hop against the schema.
  const validate = (e, hopName, k, method) => {
    const hop = hops[hopName];
    const msg = e.msg;
    if (msg.jsonrpc !== "2.0") fail(e.line, e.dir, `jsonrpc is ${JSON.stringify(msg.jsonrpc)}, want "2.0"`);
    const schema = (method && schemaFor(method)) || stable;
    const envelope = `${hop.speaker}${k[0].toUpperCase()}${k.slice(1)}`; // e.g. ClientRequest
    const { jsonrpc, ...body } = msg;
    let err = schema.check(envelope, body);
    if (err) fail(e.line, e.dir, `${method ?? "?"} ${k}: not a valid ${envelope}: ${err}`);
    if (method === undefined) {
      validated++;
      return;
    }
    const m = schema.methods.get(method);
    if (!m) {
      if (!method.startsWith("_")) fail(e.line, e.dir, `${method}: not an ACP v1 method (stable or unstable)`);
      validated++;
      return;
    }
    // Who may send it: the client calls agent-side methods and vice versa;
    // $/cancel_request goes either way.
    const want = hop.speaker === "Client" ? "agent" : "client";
    if (k !== "response" && m.side !== "protocol" && m.side !== want) {
      fail(e.line, e.dir, `${method}: a ${m.side}-side method, but the proxy sent it as the ${hop.speaker.toLowerCase()}`);
    }
    if (k === "response" && m.side !== "protocol" && m.side === want) {
      fail(e.line, e.dir, `${method}: the proxy answered a method it should have been asked as the ${want}`);
    }
    if (k === "response") {
      if ("error" in msg) {
        err = schema.check("Error", msg.error);
        if (err) fail(e.line, e.dir, `${method} error response: ${err}`);
        if ("result" in msg) fail(e.line, e.dir, `${method} response has both result and error`);
      } else if (m.result) {
        err = schema.check(m.result, msg.result);
        if (err) fail(e.line, e.dir, `${method} result: ${err}`);
      }
    } else if (m.params) {
      err = schema.check(m.params, msg.params);
      if (err) fail(e.line, e.dir, `${method} params: ${err}`);
    }
    validated++;
  };

  // forwarded notes that the message at e was forwarded from the other
  // peer's message at trace line source, and checks the order.
  const forwarded = (e, st, source, what) => {
    if (source < st.lastSource) {
      fail(e.line, e.dir, `${what} was forwarded out of order: its source (line ${source}) came before line ${st.lastSource}, forwarded earlier`);
    }
    st.lastSource = Math.max(st.lastSource, source);
  };

  const count = (dir, label) => {
    counts[dir][label] = (counts[dir][label] ?? 0) + 1;
  };

  for (const e of entries) {
    const msg = e.msg;
    const k = kind(msg);
    const [way, hopName] = e.dir.split("-"); // "to"/"from", "agent"/"editor"
    const st = state[hopName];
    const otherName = hops[hopName].other;
    const other = state[otherName];
    if (k === "invalid") {
      count(e.dir, "invalid");
      fail(e.line, e.dir, `not a JSON-RPC request, notification or response: ${JSON.stringify(msg).slice(0, 200)}`);
      continue;
    }

    if (way === "from") {
      // What a peer sent: not validated (the test's own peers wrote it), but
      // tracked to know which method each response answers.
      if (k === "request") {
        count(e.dir, `request ${msg.method}`);
        if (st.receivedPending.has(idKey(msg.id))) {
          fail(e.line, e.dir, `the ${hopName} reused the pending id ${idKey(msg.id)}; the test's peer is broken`);
        }
        const r = { method: msg.method, msg, line: e.line, answered: 0 };
        st.receivedPending.set(idKey(msg.id), r);
        other.toForward.push(r);
      } else if (k === "notification") {
        count(e.dir, `notification ${msg.method}`);
        other.notesToForward.push({ msg, line: e.line });
      } else {
        const req = st.sentPending.get(idKey(msg.id));
        count(e.dir, `response ${req?.method ?? "?"}`);
        if (!req) {
          fail(e.line, e.dir, `a response to id ${idKey(msg.id)}, which the proxy never sent the ${hopName} (or it was answered)`);
          continue;
        }
        st.sentPending.delete(idKey(msg.id));
        if (req.forwardedFrom) {
          // The proxy must send this back to the other peer, under the
          // original id.
          other.answersToForward.set(idKey(req.forwardedFrom.msg.id), { msg, line: e.line, req });
        }
      }
      continue;
    }

    // What the proxy wrote.
    if (k === "request") {
      count(e.dir, `request ${msg.method}`);
      validate(e, hopName, k, msg.method);
      if (st.sentPending.has(idKey(msg.id))) {
        fail(e.line, e.dir, `request id ${idKey(msg.id)} is already pending on this hop`);
      }
      // Forwarded, or the proxy's own (fs/* of its file tools, to the
      // editor)? Forwarded requests keep their order.
      const i = st.toForward.findIndex((r) => r.method === msg.method);
      let forwardedFrom = null;
      if (i >= 0 && sameForwarded(st.toForward[i].msg, msg)) {
        forwardedFrom = st.toForward[i];
        forwarded(e, st, forwardedFrom.line, `the ${msg.method} request`);
        st.toForward.splice(i, 1);
      } else if (hopName === "agent") {
        fail(e.line, e.dir, `${msg.method} request to the agent does not match the next request from the editor`);
      } else if (msg.method !== "fs/read_text_file" && msg.method !== "fs/write_text_file") {
        fail(e.line, e.dir, `the proxy sent the editor a ${msg.method} request of its own`);
      }
      st.sentPending.set(idKey(msg.id), { method: msg.method, msg, line: e.line, forwardedFrom });
    } else if (k === "notification") {
      count(e.dir, `notification ${msg.method}`);
      validate(e, hopName, k, msg.method);
      const i = st.notesToForward.findIndex((n) => isDeepStrictEqual(n.msg, msg));
      if (i >= 0) {
        forwarded(e, st, st.notesToForward[i].line, `the ${msg.method} notification`);
        st.notesToForward.splice(i, 1);
      } else if (msg.method !== "$/cancel_request") {
        fail(e.line, e.dir, `${msg.method} notification matches none from the ${otherName}`);
      }
    } else {
      // A response the proxy wrote answers a request the peer sent on this
      // hop.
      const req = st.receivedPending.get(idKey(msg.id));
      count(e.dir, `response ${req?.method ?? "?"}`);
      if (!req) {
        fail(e.line, e.dir, `a response to id ${idKey(msg.id)}, which the ${hopName} never sent (or it was answered)`);
        validate(e, hopName, k, undefined);
        continue;
      }
      validate(e, hopName, k, req.method);
      st.receivedPending.delete(idKey(msg.id));
      const answer = st.answersToForward.get(idKey(msg.id));
      if (answer) {
        st.answersToForward.delete(idKey(msg.id));
        forwarded(e, st, answer.line, `the ${req.method} response`);
        const { id: _a, ...got } = msg;
        const { id: _b, ...want } = answer.msg;
        if (!isDeepStrictEqual(got, want)) {
          fail(e.line, e.dir, `the ${req.method} response differs from the ${otherName}'s (line ${answer.line}) beyond its id`);
        }
      } else if (!("error" in msg)) {
        fail(e.line, e.dir, `a ${req.method} result that the ${otherName} never gave`);
      }
    }
  }

  // At the end every request a peer sent must have been answered, and
  // everything forwarded.
  for (const [name, st] of Object.entries(state)) {
    for (const [id, r] of st.receivedPending) {
      fail(r.line, hops[name].from, `the ${r.method} request ${id} from the ${name} was never answered`);
    }
    for (const r of st.toForward) {
      fail(r.line, hops[hops[name].other].from, `the ${r.method} request was never forwarded to the ${name}`);
    }
    for (const n of st.notesToForward) {
      fail(n.line, hops[hops[name].other].from, `the ${n.msg.method} notification was never forwarded to the ${name}`);
    }
    for (const [, a] of st.answersToForward) {
      fail(a.line, hops[hops[name].other].from, `the ${a.req.method} response was never forwarded to the ${name}`);
    }
  }
  return { entries: entries.length, validated, counts, failures };
}

// sameForwarded reports whether a forwarded request equals the original
// but for its id and, for the session methods, one appended MCP server.
function sameForwarded(orig, fwd) {
  const { id: _a, ...o } = orig;
  const { id: _b, ...f } = fwd;
  if (sessionMethods.has(orig.method)) {
    const servers = f.params?.mcpServers;
    if (!Array.isArray(servers) || servers.length === 0) return false;
    const before = o.params?.mcpServers ?? [];
    f.params = { ...f.params, mcpServers: servers.slice(0, -1) };
    if (!isDeepStrictEqual(before, f.params.mcpServers)) return false;
    o.params = { ...o.params, mcpServers: before };
  }
  return isDeepStrictEqual(o, f);
}

// validateAs validates one value against a named definition of the stable
// schema; for the callers' own spot checks.
export function validateAs(def, value) {
  return loadSchemas().stable.check(def, value);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = checkTrace(process.argv[2]);
  console.log(JSON.stringify(report, null, 2));
  process.exit(report.failures.length ? 1 : 0);
}
