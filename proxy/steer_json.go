package proxy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// editJSON returns obj, a JSON object (nil or null for none), with the
// value at path replaced by what edit returns for the value there (nil when
// absent). Objects missing along the path are created; a member on the path
// that is not an object is an error naming it. When edit returns nil, obj
// is returned as it was. Everything else stays JSON-equal.
func editJSON(obj json.RawMessage, path []string, edit func(old json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	return editAt(obj, path, 0, edit)
}

func editAt(obj json.RawMessage, path []string, i int, edit func(json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(obj) > 0 && string(obj) != "null" {
		if err := json.Unmarshal(obj, &m); err != nil || m == nil {
			return nil, fmt.Errorf("%s is not an object", jsonPathName(path[:i]))
		}
	}
	var v json.RawMessage
	var err error
	if i == len(path)-1 {
		v, err = edit(m[path[i]])
	} else {
		v, err = editAt(m[path[i]], path, i+1, edit)
	}
	if err != nil || v == nil {
		return nil, err
	}
	m[path[i]] = v
	return json.Marshal(m)
}

// jsonPathName names a member for errors: params._meta.claudeCode.
func jsonPathName(path []string) string {
	return strings.Join(append([]string{"params"}, path...), ".")
}

// addToList returns the JSON list of strings old (nil or null for none)
// with the names it lacks added after its own, or nil if it lacks none.
// Anything but a list of strings is an error.
func addToList(old json.RawMessage, names []string) (json.RawMessage, error) {
	var list []string
	if len(old) > 0 && string(old) != "null" {
		if err := json.Unmarshal(old, &list); err != nil {
			return nil, fmt.Errorf("is not a list of names: %s", old)
		}
	}
	n := len(list)
	for _, name := range names {
		if !contains(list, name) {
			list = append(list, name)
		}
	}
	if len(list) == n {
		return nil, nil
	}
	return json.Marshal(list)
}

// appendPrompt returns a claude-agent-acp _meta.systemPrompt (nil or null
// for none) with text added: a string, which replaces the agent's own
// prompt, gets text after it; an object gets text after its append string,
// or an append string of text. Anything else is an error.
func appendPrompt(old json.RawMessage, text string) (json.RawMessage, error) {
	if len(old) == 0 || string(old) == "null" {
		return json.Marshal(map[string]string{"append": text})
	}
	var s string
	if json.Unmarshal(old, &s) == nil {
		return json.Marshal(joinText(s, text))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(old, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("is neither a string nor an object: %s", old)
	}
	var prev string
	if a, ok := obj["append"]; ok && string(a) != "null" {
		if err := json.Unmarshal(a, &prev); err != nil {
			return nil, fmt.Errorf("has an append that is not a string: %s", a)
		}
	}
	a, err := json.Marshal(joinText(prev, text))
	if err != nil {
		return nil, err
	}
	obj["append"] = a
	return json.Marshal(obj)
}

// appendSystemPrompt returns the standard (unstable) systemPrompt of a
// session request (nil or null for none) with a text block of text: a new
// one in append mode, or the editor's own, in append or override mode,
// with the block after its content. An unknown mode is an error: the
// proxy cannot tell what adding to it would mean.
func appendSystemPrompt(old json.RawMessage, text string) (json.RawMessage, error) {
	block := map[string]string{"type": "text", "text": text}
	if len(old) == 0 || string(old) == "null" {
		return json.Marshal(map[string]any{"mode": "append", "content": []any{block}})
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(old, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("is not an object: %s", old)
	}
	var mode string
	json.Unmarshal(obj["mode"], &mode)
	if mode != "append" && mode != "override" {
		return nil, fmt.Errorf("has mode %s, which the proxy does not add to", obj["mode"])
	}
	var content []json.RawMessage
	if err := json.Unmarshal(obj["content"], &content); err != nil {
		return nil, fmt.Errorf("has content that is not a list: %s", obj["content"])
	}
	b, err := json.Marshal(block)
	if err != nil {
		return nil, err
	}
	if obj["content"], err = json.Marshal(append(content, b)); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// joinText puts b after a, a blank line between them.
func joinText(a, b string) string {
	if strings.TrimSpace(a) == "" {
		return b
	}
	return strings.TrimRight(a, "\n") + "\n\n" + b
}
