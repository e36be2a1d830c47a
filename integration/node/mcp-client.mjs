// mcp-client.mjs drives `mcp-acpfs serve` over stdio with the official
// TypeScript SDK (@modelcontextprotocol/sdk): Client + StdioClientTransport.
//
//	node mcp-client.mjs /path/to/mcp-acpfs
//
// (or set MCP_ACPFS_BIN). It creates a temporary tree, serves its root
// directory, and checks the tool list and annotations, reads, writes and read
// backs, and the isError results for a missing file and for paths outside
// the roots. The client declares the roots capability and answers roots/list
// with a directory inside the served root: a file outside that directory but
// inside the served root must then be refused (client roots only narrow).
//
// On success it prints one JSON object (ok: true, the checks passed, the
// negotiated protocol version, ...) on stdout and exits 0. On any mismatch it
// prints what went wrong on stderr, with the server's stderr, and exits 1.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const bin = process.argv[2] || process.env.MCP_ACPFS_BIN;
if (!bin) {
  console.error("usage: node mcp-client.mjs /path/to/mcp-acpfs (or set MCP_ACPFS_BIN)");
  process.exit(2);
}

const passed = [];
let serverStderr = "";

// check runs one named check; a failure names it.
async function check(name, fn) {
  try {
    await fn();
  } catch (err) {
    err.message = `check ${JSON.stringify(name)} failed: ${err.message}`;
    throw err;
  }
  passed.push(name);
}

// The tree: base/root is served; base/root/client is the client's root;
// base/outside and base/rootx (a prefix sibling) are outside.
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcp-acpfs-ts-")));
const root = path.join(base, "root");
const clientRoot = path.join(root, "client");
const outside = path.join(base, "outside");
const sibling = path.join(base, "rootx");
const files = {
  [path.join(clientRoot, "hello.txt")]: "alpha\nbeta\r\ngamma\n",
  [path.join(root, "served-only.txt")]: "inside the served root, outside the client's\n",
  [path.join(outside, "secret.txt")]: "outside secret\n",
  [path.join(sibling, "secret.txt")]: "sibling secret\n",
};
for (const [p, content] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

let rootsRequests = 0;
const client = new Client(
  { name: "mcp-acpfs-ts-interop", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true } } },
);
client.setRequestHandler(ListRootsRequestSchema, async () => {
  rootsRequests++;
  return { roots: [{ uri: pathToFileURL(clientRoot).href, name: "client" }] };
});

const transport = new StdioClientTransport({
  command: bin,
  args: ["serve", "--root", root],
  cwd: base,
  stderr: "pipe",
});
transport.stderr?.on("data", (chunk) => {
  serverStderr += chunk;
});

// The child's exit, seen through the transport's private _process: set once
// connected, if the SDK still has that field.
let exited = null;

async function callTool(name, args) {
  return client.callTool({ name, arguments: args });
}

function textOf(res) {
  assert.ok(Array.isArray(res.content), "result has no content array");
  assert.equal(res.content.length, 1, `want one content, got ${JSON.stringify(res.content)}`);
  assert.equal(res.content[0].type, "text");
  return res.content[0].text;
}

async function read(args) {
  const res = await callTool("read_text_file", args);
  const text = textOf(res);
  assert.ok(!res.isError, `read ${JSON.stringify(args)} failed: ${text}`);
  return text;
}

async function write(args) {
  const res = await callTool("write_text_file", args);
  const text = textOf(res);
  assert.ok(!res.isError, `write ${JSON.stringify(args)} failed: ${text}`);
  return text;
}

async function wantError(tool, args, ...want) {
  const res = await callTool(tool, args);
  const text = textOf(res);
  assert.equal(res.isError, true, `${tool} ${JSON.stringify(args)}: want isError, got ${JSON.stringify(text)}`);
  for (const w of want) {
    const alts = w.split("|");
    assert.ok(alts.some((a) => text.includes(a)), `${tool} ${JSON.stringify(args)}: error ${JSON.stringify(text)} does not contain ${JSON.stringify(w)}`);
  }
  assert.ok(!/(outside|sibling) secret/.test(text), `error leaks a file's content: ${text}`);
  return text;
}

async function main() {
  await client.connect(transport);
  const proc = transport._process;
  if (proc) {
    exited = new Promise((resolve) => proc.once("exit", (code, signal) => resolve({ code, signal })));
  }
  const summary = {};

  await check("server info", () => {
    const info = client.getServerVersion();
    assert.equal(info?.name, "mcp-acpfs");
    summary.server = info;
    assert.ok(client.getServerCapabilities()?.tools, "no tools capability");
  });

  await check("tools/list", async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    summary.tools = tools.map((t) => t.name).sort();
    assert.deepEqual(summary.tools, ["read_text_file", "write_text_file"]);
    const hints = {
      read_text_file: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      write_text_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    };
    for (const [name, want] of Object.entries(hints)) {
      const t = byName[name];
      assert.ok(t.description && t.description.includes(root), `${name}: description does not name the working directory`);
      for (const [hint, value] of Object.entries(want)) {
        assert.equal(t.annotations?.[hint], value, `${name}: annotations.${hint}`);
      }
      assert.equal(t.inputSchema?.type, "object", `${name}: inputSchema.type`);
      assert.ok(t.inputSchema?.required?.includes("path"), `${name}: path is not required`);
    }
    assert.deepEqual(Object.keys(byName.read_text_file.inputSchema.properties).sort(), ["limit", "line", "path"]);
    assert.deepEqual(Object.keys(byName.write_text_file.inputSchema.properties).sort(), ["content", "path"]);
  });

  const hello = path.join(clientRoot, "hello.txt");
  await check("read whole", async () => {
    assert.equal(await read({ path: hello }), files[hello]);
  });
  await check("read range", async () => {
    assert.equal(await read({ path: hello, line: 2, limit: 1 }), "beta\r\n");
    assert.equal(await read({ path: hello, line: 3 }), "gamma\n");
  });
  await check("read relative", async () => {
    assert.equal(await read({ path: "client/hello.txt", limit: 1 }), "alpha\n");
  });

  const written = path.join(clientRoot, "new", "dir", "written.txt");
  const content = "written by the TypeScript SDK\r\n✓ ünïcode\nno final newline";
  await check("write", async () => {
    const text = await write({ path: written, content });
    assert.ok(text.includes(written), `write result ${JSON.stringify(text)} does not name ${written}`);
    assert.equal(fs.readFileSync(written, "utf8"), content, "content on disk");
  });
  await check("read back", async () => {
    assert.equal(await read({ path: written }), content);
    assert.equal(await read({ path: "client/new/dir/written.txt", line: 3 }), "no final newline");
  });

  await check("missing file is an error result", async () => {
    const missing = path.join(clientRoot, "missing.txt");
    await wantError("read_text_file", { path: missing }, `read ${missing}:`, "file does not exist|no such file or directory");
  });
  await check("outside the served root is an error result", async () => {
    await wantError("read_text_file", { path: path.join(outside, "secret.txt") }, path.join(outside, "secret.txt"), "outside the allowed roots");
    await wantError("read_text_file", { path: path.join(sibling, "secret.txt") }, "outside the allowed roots");
    await wantError("write_text_file", { path: path.join(outside, "new.txt"), content: "x" }, "outside the allowed roots");
    assert.ok(!fs.existsSync(path.join(outside, "new.txt")), "a file was created outside the roots");
  });
  await check("client roots narrow the served root", async () => {
    assert.ok(rootsRequests >= 1, "the server never asked for the client's roots");
    const servedOnly = path.join(root, "served-only.txt");
    await wantError("read_text_file", { path: servedOnly }, servedOnly, "outside the allowed roots");
    await wantError("read_text_file", { path: "served-only.txt" }, "outside the allowed roots");
    await wantError("write_text_file", { path: path.join(root, "narrowed.txt"), content: "x" }, "outside the allowed roots");
    assert.ok(!fs.existsSync(path.join(root, "narrowed.txt")), "a file was created outside the client's roots");
  });
  await check("invalid arguments are refused", async () => {
    let refused = false;
    try {
      const res = await callTool("read_text_file", { path: hello, line: -1 });
      refused = res.isError === true;
    } catch (err) {
      refused = true; // a JSON-RPC error (invalid params) is fine too
    }
    assert.ok(refused, "line -1 was accepted");
  });
  await check("ping", async () => {
    await client.ping();
  });

  summary.rootsRequests = rootsRequests;
  await client.close();
  if (exited) {
    await check("exits with status 0 on stdin EOF", async () => {
      const { code, signal } = await exited;
      assert.equal(signal, null, `the server needed ${signal} to exit after stdin closed`);
      assert.equal(code, 0, "exit status");
    });
  }
  return summary;
}

try {
  const summary = await main();
  console.log(JSON.stringify({ ok: true, checks: passed, ...summary }));
} catch (err) {
  console.error(`mcp-client.mjs: ${err.stack || err}`);
  console.error(`passed before the failure: ${JSON.stringify(passed)}`);
  console.error(`server stderr:\n${serverStderr}`);
  await client.close().catch(() => {});
  process.exitCode = 1;
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
