package cline

// The tool use of Cline before native tool calls (and of Cline and Roo
// Code with models that do not call tools): the model writes a call as
// XML in its text (<read_file><path>a.go</path></read_file>), and Cline
// answers in the next user message with a text block that opens with the
// call's description, "[read_file for 'a.go'] Result:", followed by the
// result's blocks. The description is what pairs a result with its call:
// the reader gives the call that description as its ID.

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// xmlToolParam names, for each XML tool of Cline, the parameter its
// description quotes ("" for tools described by their name alone), as
// the tools' handlers write it (getDescription).
var xmlToolParam = map[string]string{
	"execute_command": "command", "read_file": "path", "write_to_file": "path", "replace_in_file": "path",
	"list_files": "path", "list_code_definition_names": "path", "search_files": "regex",
	"browser_action": "action", "use_mcp_tool": "server_name", "access_mcp_resource": "server_name",
	"ask_followup_question": "question", "web_fetch": "url", "web_search": "query", "new_rule": "path",
	"attempt_completion": "", "plan_mode_respond": "", "act_mode_respond": "", "new_task": "", "condense": "",
	"summarize_task": "", "report_bug": "", "load_mcp_documentation": "",
	// Roo Code's
	"apply_diff": "path", "insert_content": "path", "search_and_replace": "path", "switch_mode": "",
	"fetch_instructions": "", "codebase_search": "query", "update_todo_list": "",
}

// xmlTagRE matches an opening tag at the start of a line.
var xmlTagRE = regexp.MustCompile(`(?m)^<([a-z_]+)>`)

// paramRE matches one parameter of a call.
var paramRE = regexp.MustCompile(`(?s)<([a-z_]+)>\n?(.*?)\n?</([a-z_]+)>`)

// xmlCalls returns the XML tool calls in an assistant's text.
func xmlCalls(text string) []jsonl.ToolCall {
	var out []jsonl.ToolCall
	for _, loc := range xmlTagRE.FindAllStringSubmatchIndex(text, -1) {
		name := text[loc[2]:loc[3]]
		param, ok := xmlToolParam[name]
		if !ok {
			continue
		}
		end := strings.Index(text[loc[1]:], "</"+name+">")
		if end < 0 {
			continue // a call cut short: Cline did not run it either
		}
		body := text[loc[1] : loc[1]+end]
		params := map[string]string{}
		for _, m := range paramRE.FindAllStringSubmatch(body, -1) {
			if m[1] == m[3] {
				params[m[1]] = m[2]
			}
		}
		args, _ := json.Marshal(params)
		out = append(out, jsonl.ToolCall{ID: xmlDescription(name, param, params), Name: name, Arguments: string(args)})
	}
	return out
}

// xmlDescription is the description Cline gives a call's result.
func xmlDescription(name, param string, params map[string]string) string {
	if param == "" {
		return "[" + name + "]"
	}
	d := "[" + name + " for '" + params[param] + "'"
	if name == "search_files" && params["file_pattern"] != "" {
		d += " in '" + params["file_pattern"] + "'"
	}
	return d + "]"
}

// resultHeadRE matches the text block that opens an XML tool's result.
var resultHeadRE = regexp.MustCompile(`(?s)^(\[[a-z_]+(?: for '.*?'(?: in '.*?')?)?\]) Result:\s*(.*)$`)

// xmlResults returns the XML tool results in a user message's content
// blocks: a block opening with a description, and the text blocks after
// it up to the next description or Cline's environment details.
func xmlResults(content any) []jsonl.ToolResult {
	blocks, ok := content.([]any)
	if !ok {
		if s, ok := content.(string); ok {
			blocks = []any{map[string]any{"type": "text", "text": s}}
		}
	}
	var out []jsonl.ToolResult
	open := -1
	for _, b := range blocks {
		blk, _ := b.(map[string]any)
		if blk == nil || jsonl.Str(blk, "type") != "text" {
			continue
		}
		text := jsonl.Str(blk, "text")
		if m := resultHeadRE.FindStringSubmatch(text); m != nil {
			out = append(out, jsonl.ToolResult{CallID: m[1], Text: m[2]})
			open = len(out) - 1
			continue
		}
		if open < 0 || strings.HasPrefix(strings.TrimSpace(text), "<environment_details>") {
			open = -1
			continue
		}
		if out[open].Text != "" {
			out[open].Text += "\n\n"
		}
		out[open].Text += text
	}
	return out
}
