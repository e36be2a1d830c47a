// Package integration holds black-box tests of the built mcp-acpfs binary.
//
// TestMain builds cmd/mcp-acpfs and the test agent once into a temporary
// directory (with the race detector when the tests run with -race) and
// removes them afterwards.
// The tests then run the binary as a subprocess, exactly as an MCP client
// would:
//
//   - serve_test.go drives `mcp-acpfs serve` over stdio with mcp-go's client
//     in both protocol eras (the 2025-11-25 initialize handshake and the
//     2026-07-28 stateless core): the tool list, reads, writes, roots
//     confinement (symlinks, prefix siblings, client roots), the error
//     results, raw malformed input, the exit on stdin EOF, and that stdout
//     carries nothing but JSON-RPC; and the CLI's help, version and exit
//     codes.
//   - http_test.go checks `serve --http` with mcp-go's Streamable HTTP
//     client and raw requests: the bearer token (401 without it) and the
//     DNS-rebinding protection (403 for a foreign Host or Origin).
//   - interop_test.go runs node/mcp-client.mjs, a client built on the
//     official TypeScript SDK, against the binary.
//   - conformance_test.go runs the official MCP conformance suite
//     (@modelcontextprotocol/conformance) against `serve --http`.
//   - proxy_*_test.go run `mcp-acpfs proxy` in front of cmd/testagent, a
//     scripted ACP agent (package internal/testagent), with
//     internal/fakeeditor on the proxy's standard input and output, whose
//     unsaved buffers differ from the disk: routes and fallbacks, session
//     isolation and secrets, both injections (http and the stdio relay),
//     cancellation, crashes and disconnects with no process left behind,
//     malformed lines, request ids of every JSON type, JSON-equal
//     pass-through, and the trace file.
//   - acp_interop_test.go runs node/acp-client.mjs, an ACP client on the
//     official @agentclientprotocol/sdk, against the proxy in front of
//     node/acp-agent.mjs, an agent on the same SDK that calls the injected
//     tools through @modelcontextprotocol/sdk, and validates every message
//     the proxy wrote against the ACP v1 JSON schema.
//   - embed_test.go builds examples/agent, the Go agent that embeds package
//     bridge as docs/embedding.md shows, and drives it with
//     node/embed-editor.mjs, an editor on the official ACP SDK: buffers,
//     writes, roots, two sessions, $/cancel_request on a timeout and on
//     session/cancel, the disk without fs, and no process left behind.
//   - proxy_bench_test.go holds the proxy's benchmarks (BENCHMARKS.md).
//
// The Node tests need node/node_modules (`npm ci` in node/; it brings its
// own Node 22). Without it they skip, unless MCP_ACPFS_REQUIRE_NODE=1 is
// set, which makes them fail instead; CI sets it.
package integration
