// Package lift carries large strings of a tool call past mcp-go's
// decoding and encoding: a transport swaps them for placeholders, the
// handlers take the text back, and the transport splices results in.
//
// A [Table] holds one call's lifted strings and goes to the handlers in
// the call's context ([WithTable]). Arguments named in an [Arguments]
// table are lifted in ([Table.LiftArguments]) and put back by [Unlift];
// a handler hands large result texts to [Result], [Structured] or [JSON],
// and the transport splices them into the encoded response
// ([Table.SpliceResults]). Without a Table in the context nothing is
// lifted. DESIGN.md says why.
package lift
