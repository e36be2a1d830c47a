// Package capabilities decodes what the two ACP peers of mcp-acpfs advertise
// in initialize, and decides where each file operation goes.
//
// The client (the editor) advertises fs.readTextFile, fs.writeTextFile and
// terminal in the initialize params; [ParseInitializeRequest] reads them into
// a [Client]. The agent advertises loadSession, mcpCapabilities and
// sessionCapabilities in the initialize result; [ParseInitializeResponse]
// reads them into an [Agent].
//
// Decoding is lenient, as the ACP schema's x-deserialize-default-on-error
// asks: a capability that is missing, null or malformed ("readTextFile":"yes",
// "fs":42, "mcpCapabilities":"x") is not advertised, and is never an error.
// Member names match exactly, as they do in ACP's own SDKs. Every decoded
// capability keeps the JSON it was decoded from in a Raw field, unknown
// members and _meta included, so a proxy can inspect it or forward it
// unchanged.
//
// Version 2 of ACP, a draft, has no fs, names the peers in info, and puts the
// agent's MCP transports under capabilities.session.mcp; [InitializeResponse.Transports]
// reads them in the shape of the negotiated version, and [Transports.Choose]
// picks one (see [Transport]).
//
// [Decide] maps a [Policy], an [Operation] and the client's capabilities to a
// [Route]. It never routes to the editor a method the editor did not
// advertise.
//
// The package does no I/O and imports only the standard library.
package capabilities
