// mcp-client.mjs drives `mcp-acpfs serve` over stdio with the official
// TypeScript SDK (@modelcontextprotocol/sdk): Client + StdioClientTransport.
//
//	node mcp-client.mjs /path/to/mcp-acpfs
//
// (or set MCP_ACPFS_BIN). It creates a temporary tree, serves its root
// directory, and checks the tool list (exactly the full toolset, each tool
// with a description, all four annotations and its schemas), reads, writes
// and read backs with their structuredContent (the text, and the hex
// SHA-256 of the whole file), and the isError results for a missing file and
// for paths outside the roots. The client declares the roots capability and
// answers roots/list with a directory inside the served root: a file outside
// that directory but inside the served root must then be refused (client
// roots only narrow).
//
// On success it prints one JSON object (ok: true, the checks passed, the
// negotiated protocol version, ...) on stdout and exits 0. On any mismatch it
// prints what went wrong on stderr, with the server's stderr, and exits 1.

import assert from "node:assert/strict";
import crypto from "node:crypto";
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

// The toolset: exactly these tools, sorted; --read-only leaves only the
// read-only ones.
const readOnlyTools = ["directory_tree", "get_file_info", "glob", "grep", "list_directory", "read_media_file", "read_text_file"];
const mutatingTools = ["create_directory", "delete_file", "edit_text_file", "move_file", "write_text_file"];
const allTools = [...readOnlyTools, ...mutatingTools].sort();

// The input properties of each tool, sorted, and which are required.
const schemas = {
  create_directory: { props: ["path"], required: ["path"] },
  delete_file: { props: ["path", "recursive"], required: ["path"] },
  directory_tree: { props: ["exclude", "maxDepth", "path"], required: ["path"] },
  edit_text_file: { props: ["dryRun", "edits", "expectedHash", "path"], required: ["edits", "path"] },
  get_file_info: { props: ["path"], required: ["path"] },
  glob: { props: ["path", "pattern"], required: ["pattern"] },
  grep: { props: ["ignoreCase", "include", "maxResults", "path", "pattern"], required: ["pattern"] },
  list_directory: { props: ["details", "path"], required: ["path"] },
  move_file: { props: ["destination", "overwrite", "source"], required: ["destination", "source"] },
  read_media_file: { props: ["path"], required: ["path"] },
  read_text_file: { props: ["limit", "line", "lineNumbers", "path"], required: ["path"] },
  write_text_file: { props: ["content", "expectedHash", "path"], required: ["content", "path"] },
};

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
  // The results a program reads: structured content and whole files.
  args: ["serve", "--structured-content", "--page-size", "0", "--root", root],
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

// textOf returns a result's text: its one text content, which a read may
// follow with its status line ("[lines 2–2 of 3; continue with line=3]").
function textOf(res) {
  assert.ok(Array.isArray(res.content), "result has no content array");
  const status = res.content.length === 2 && /^\[.*\]$/s.test(res.content[1].text ?? "");
  assert.equal(res.content.length, status ? 2 : 1, `want one content, got ${JSON.stringify(res.content)}`);
  assert.equal(res.content[0].type, "text");
  return res.content[0].text;
}

// The SDK validates a result's structuredContent against the tool's
// outputSchema (cached by listTools) and refuses a result that has an
// outputSchema but no structuredContent: a call that returns proves both.

async function readResult(args) {
  const res = await callTool("read_text_file", args);
  const text = textOf(res);
  assert.ok(!res.isError, `read ${JSON.stringify(args)} failed: ${text}`);
  assert.equal(typeof res.structuredContent, "object", `read ${JSON.stringify(args)}: no structuredContent`);
  assert.equal(res.structuredContent.content, text, "structuredContent.content is not the text");
  return res;
}

async function read(args) {
  return textOf(await readResult(args));
}

async function writeResult(args) {
  const res = await callTool("write_text_file", args);
  const text = textOf(res);
  assert.ok(!res.isError, `write ${JSON.stringify(args)} failed: ${text}`);
  assert.equal(typeof res.structuredContent, "object", `write ${JSON.stringify(args)}: no structuredContent`);
  return res;
}

const sha256 = (s) => crypto.createHash("sha256").update(s, "utf8").digest("hex");

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
    assert.equal(new Set(summary.tools).size, tools.length, `a tool is listed twice: ${summary.tools}`);
    assert.deepEqual(summary.tools, allTools);
    for (const name of allTools) {
      const t = byName[name];
      assert.ok(t.description, `${name}: no description`);
      if (name === "read_text_file") assert.ok(t.description.includes(root), `${name}: description does not name the working directory`);
      assert.ok(t.title || t.annotations?.title, `${name}: no title`);
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
        assert.equal(typeof t.annotations?.[hint], "boolean", `${name}: annotations.${hint} is not set`);
      }
      if (readOnlyTools.includes(name)) {
        assert.equal(t.annotations.readOnlyHint, true, `${name}: a read-only tool with readOnlyHint false`);
        assert.equal(t.annotations.destructiveHint, false, `${name}: a read-only tool with destructiveHint true`);
      } else {
        assert.equal(t.annotations.readOnlyHint, false, `${name}: a mutating tool with readOnlyHint true`);
      }
      assert.equal(t.annotations.openWorldHint, false, `${name}: annotations.openWorldHint`);
      assert.equal(t.inputSchema?.type, "object", `${name}: inputSchema.type`);
      assert.equal(t.outputSchema?.type, "object", `${name}: outputSchema.type`);
      assert.deepEqual(Object.keys(t.inputSchema.properties ?? {}).sort(), schemas[name].props, `${name}: input properties`);
      assert.deepEqual([...(t.inputSchema.required ?? [])].sort(), schemas[name].required, `${name}: required`);
    }
    const hints = {
      read_text_file: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      write_text_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    };
    for (const [name, want] of Object.entries(hints)) {
      for (const [hint, value] of Object.entries(want)) {
        assert.equal(byName[name].annotations?.[hint], value, `${name}: annotations.${hint}`);
      }
    }
  });

  const hello = path.join(clientRoot, "hello.txt");
  await check("read whole", async () => {
    const res = await readResult({ path: hello });
    assert.equal(textOf(res), files[hello]);
    assert.deepEqual(res.structuredContent, {
      path: hello,
      content: files[hello],
      line: 1,
      lineCount: 3,
      totalLines: 3,
      sha256: sha256(files[hello]),
      source: "disk",
      differsFromDisk: false,
    });
    assert.match(res.structuredContent.sha256, /^[0-9a-f]{64}$/);
  });
  await check("read range", async () => {
    const res = await readResult({ path: hello, line: 2, limit: 1 });
    assert.equal(textOf(res), "beta\r\n");
    assert.equal(res.structuredContent.line, 2);
    assert.equal(res.structuredContent.lineCount, 1);
    assert.equal(res.structuredContent.sha256, sha256(files[hello]), "a range's sha256 is the whole file's");
    assert.equal(await read({ path: hello, line: 3 }), "gamma\n");
  });
  await check("read relative", async () => {
    assert.equal(await read({ path: "client/hello.txt", limit: 1 }), "alpha\n");
  });

  const written = path.join(clientRoot, "new", "dir", "written.txt");
  const content = "written by the TypeScript SDK\r\n✓ ünïcode\nno final newline";
  let writtenHash;
  await check("write", async () => {
    const res = await writeResult({ path: written, content });
    const text = textOf(res);
    assert.ok(text.includes(written), `write result ${JSON.stringify(text)} does not name ${written}`);
    assert.deepEqual(res.structuredContent, {
      path: written,
      bytesWritten: Buffer.byteLength(content, "utf8"),
      sha256: sha256(content),
    });
    writtenHash = res.structuredContent.sha256;
    assert.equal(fs.readFileSync(written, "utf8"), content, "content on disk");
  });
  await check("read back", async () => {
    const res = await readResult({ path: written });
    assert.equal(textOf(res), content);
    assert.equal(res.structuredContent.sha256, writtenHash, "the read's sha256 is not the write's");
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
