// acp-agent.mjs is a scripted ACP agent built on the official TypeScript SDK
// (@agentclientprotocol/sdk: agent() over ndJsonStream on stdin/stdout), for
// acp-client.mjs to run behind `mcp-acpfs proxy`. It has no model: its
// "model" is the prompt, a JSON script of MCP tool calls.
//
//	node acp-agent.mjs [--mcp-http] [--server-name acpfs]
//
// With --mcp-http (or ACP_AGENT_MCP_HTTP=1) it advertises
// mcpCapabilities {http: true}, else {}: so the proxy gives it an http or a
// stdio MCP server entry. On session/new it records the mcpServers it is
// given. On session/prompt it connects to the entry named acpfs with the
// MCP SDK's Client (StreamableHTTPClientTransport with the entry's headers,
// or StdioClientTransport with its command, args and env), lists the tools,
// runs the script's calls, and sends the outcome to the client as one
// agent_message_chunk whose text is JSON:
//
//	{mcpServers, entry, tools, toolInfo: [{name, description, annotations}],
//	 calls: [{name, arguments, isError, text, structuredContent}]}
//
// then ends the turn with end_turn. Logs go to stderr.

import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const argv = process.argv.slice(2);
const mcpHTTP = argv.includes("--mcp-http") || process.env.ACP_AGENT_MCP_HTTP === "1";
const nameAt = argv.indexOf("--server-name");
const serverName = nameAt >= 0 ? argv[nameAt + 1] : "acpfs";

const log = (...a) => console.error("acp-agent:", ...a);

const sessions = new Map(); // sessionId → {cwd, mcpServers}
const clients = new Set(); // open MCP clients, closed at exit
let nextSession = 1;

// connectMCP connects to an ACP McpServer entry.
async function connectMCP(entry) {
  let transport;
  if (entry.type === "http") {
    const headers = Object.fromEntries(entry.headers.map((h) => [h.name, h.value]));
    transport = new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers } });
  } else if (entry.type === undefined) {
    const env = { ...process.env, ...Object.fromEntries(entry.env.map((e) => [e.name, e.value])) };
    transport = new StdioClientTransport({ command: entry.command, args: entry.args, env, stderr: "inherit" });
  } else {
    throw new Error(`an MCP server entry of type ${entry.type}, which this agent did not advertise`);
  }
  const client = new Client({ name: "acp-agent", version: "1.0.0" });
  await client.connect(transport);
  clients.add(client);
  return client;
}

// runScript runs the prompt's script against the session's acpfs server.
async function runScript(session, script) {
  const entry = session.mcpServers.find((s) => s.name === serverName);
  const out = {
    mcpServers: session.mcpServers.map((s) => ({ name: s.name, type: s.type ?? "stdio" })),
    entry: entry ?? null,
    tools: [],
    calls: [],
  };
  if (!entry) throw new Error(`no MCP server named ${serverName} among ${JSON.stringify(out.mcpServers)}`);
  const client = await connectMCP(entry);
  try {
    out.server = client.getServerVersion();
    const { tools } = await client.listTools();
    out.tools = tools.map((t) => t.name);
    out.toolInfo = tools.map((t) => ({ name: t.name, description: t.description, annotations: t.annotations }));
    for (const call of script.calls ?? []) {
      // The SDK checks structuredContent against the tool's outputSchema.
      const res = await client.callTool({ name: call.name, arguments: call.arguments });
      out.calls.push({
        name: call.name,
        arguments: call.arguments,
        isError: res.isError === true,
        // The first text is the result; a read whose text is not the
        // disk's has a note after it.
        text: res.content.find((c) => c.type === "text")?.text ?? "",
        notes: res.content.slice(1).filter((c) => c.type === "text").map((c) => c.text),
        structuredContent: res.structuredContent,
      });
    }
  } finally {
    clients.delete(client);
    await client.close();
  }
  return out;
}

const app = acp
  .agent({ name: "acp-agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    log("initialize from", JSON.stringify(params.clientInfo), "fs", JSON.stringify(params.clientCapabilities?.fs));
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: false,
        mcpCapabilities: mcpHTTP ? { http: true } : {},
      },
      agentInfo: { name: "acp-agent", version: "1.0.0" },
      authMethods: [],
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `sess_${process.pid}_${nextSession++}`;
    sessions.set(sessionId, { cwd: params.cwd, mcpServers: params.mcpServers });
    log("session/new", sessionId, "mcpServers", JSON.stringify(params.mcpServers.map((s) => s.name)));
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (!session) throw acp.RequestError.sessionNotFound(params.sessionId);
    const text = params.prompt.filter((b) => b.type === "text").map((b) => b.text).join("");
    let out;
    try {
      out = await runScript(session, JSON.parse(text));
    } catch (err) {
      log("the script failed:", err);
      out = { error: String(err?.stack ?? err) };
    }
    await client.notify(acp.methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(out) } },
    });
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

const conn = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await conn.closed;
log("the client closed the connection");
await Promise.allSettled([...clients].map((c) => c.close()));
process.exit(0);
