package scriptmodel

import (
	"encoding/json"
	"strings"
)

// Conversation is a request reduced to what the script looks at, the same
// for every protocol.
type Conversation struct {
	Model    string
	Stream   bool
	Messages []Message
	Tools    []Tool
	// JSONSchema is the schema of a structured answer the request asks
	// for (nil for none); JSONMode asks for JSON without a schema.
	JSONSchema json.RawMessage
	JSONMode   bool
}

// Message is one message of a conversation: its role (user, assistant,
// tool or system), its texts, and how many tool calls and tool results it
// holds.
type Message struct {
	Role    string
	Texts   []string
	Calls   int
	Results int
}

// Tool is a tool the request offers: its name and the JSON schema of its
// arguments.
type Tool struct {
	Name   string
	Schema json.RawMessage
}

// isPromptText tells a user's own text from what agents add as user
// text: system reminders, environment context and instructions in
// angle-bracket tags.
func isPromptText(t string) bool {
	t = strings.TrimSpace(stripDatetime(t))
	return t != "" && !strings.HasPrefix(t, "<")
}

// stripDatetime drops the <current_datetime>…</current_datetime> block
// that GitHub Copilot CLI puts before the user's own text in the same
// message (its transformedContent), so that the prompt after it is still
// seen as the user's.
func stripDatetime(t string) string {
	const open, end = "<current_datetime>", "</current_datetime>"
	s := strings.TrimSpace(t)
	if !strings.HasPrefix(s, open) {
		return t
	}
	i := strings.Index(s, end)
	if i < 0 {
		return t
	}
	return strings.TrimSpace(s[i+len(end):])
}

// isPrompt reports whether m is a prompt: a user message with a text of
// the user's and no tool results (agents append reminders to results).
func (m Message) isPrompt() (string, bool) {
	if m.Role != "user" || m.Results > 0 {
		return "", false
	}
	var texts []string
	for _, t := range m.Texts {
		if isPromptText(t) {
			texts = append(texts, stripDatetime(t))
		}
	}
	if len(texts) == 0 {
		return "", false
	}
	return strings.Join(texts, "\n"), true
}

// lastPrompt returns the latest prompt, its index in Messages (-1 when
// there is none) and the number of prompts up to it.
func (c *Conversation) lastPrompt() (text string, at, n int) {
	at = -1
	for i, m := range c.Messages {
		if t, ok := m.isPrompt(); ok {
			text, at = t, i
			n++
		}
	}
	return text, at, n
}

// firstPrompt returns the first prompt holding a scenario tag (the first
// prompt when none does) and the number of tagged prompts.
func (c *Conversation) firstPrompt() (string, int) {
	first, tagged, n := "", "", 0
	for _, m := range c.Messages {
		t, ok := m.isPrompt()
		if !ok {
			continue
		}
		if first == "" {
			first = t
		}
		if tagRE.MatchString(t) {
			if tagged == "" {
				tagged = t
			}
			n++
		}
	}
	if tagged != "" {
		return tagged, n
	}
	return first, n
}

// shellNames are the shell tools of the agents, in order of preference.
var shellNames = []string{"Bash", "bash", "run_shell_command", "shell_command", "exec_command", "shell", "run_commands"}

// agentNames are the sub-agent tools of the agents, in order of
// preference: Claude Code's Agent (Task before it), opencode's task,
// Qwen Code's agent, Gemini CLI's invoke_agent.
var agentNames = []string{"Agent", "Task", "task", "agent", "invoke_agent"}

// shellTool returns the shell tool the request offers, or nil.
func (c *Conversation) shellTool() *Tool { return c.tool(shellNames) }

// tool returns the first tool of names the request offers, or nil.
func (c *Conversation) tool(names []string) *Tool {
	for _, name := range names {
		for i := range c.Tools {
			if c.Tools[i].Name == name {
				return &c.Tools[i]
			}
		}
	}
	return nil
}

// agentTypes are the general-purpose sub-agents of the agents: Claude
// Code's and Qwen Code's, Gemini CLI's, opencode's.
var agentTypes = []string{"general-purpose", "generalist", "general"}

// agentArgs builds the arguments of a sub-agent call with prompt: the
// prompt, a description, the agent type (from the schema's enum, or by
// the tool's name), in the foreground, and other required properties
// filled from the schema.
func agentArgs(tool *Tool, prompt string) []byte {
	var sc schema
	_ = json.Unmarshal(tool.Schema, &sc)
	args := map[string]any{}
	for _, k := range []string{"prompt", "query", "task", "objective"} {
		if _, ok := sc.Properties[k]; ok {
			args[k] = prompt
			break
		}
	}
	if len(args) == 0 {
		args["prompt"] = prompt
	}
	if _, ok := sc.Properties["description"]; ok {
		args["description"] = "Run a sub-agent"
	}
	for _, k := range []string{"subagent_type", "agent_name", "agent_type", "agent"} {
		p, ok := sc.Properties[k]
		if !ok {
			continue
		}
		typ := map[string]string{"invoke_agent": "generalist", "task": "general"}[tool.Name]
		if typ == "" {
			typ = "general-purpose"
		}
		for _, e := range p.Enum {
			for _, want := range agentTypes {
				if string(e) == `"`+want+`"` {
					typ = want
				}
			}
		}
		args[k] = typ
		break
	}
	if _, ok := sc.Properties["run_in_background"]; ok {
		args["run_in_background"] = false
	}
	for _, name := range sc.Required {
		if _, ok := args[name]; !ok {
			args[name] = sc.Properties[name].value(name)
		}
	}
	b, _ := json.Marshal(args)
	return b
}

// textArgs builds the arguments of a call that returns text: every
// string property of the schema, in nested objects too, set to text,
// other required properties filled from the schema.
func textArgs(tool *Tool, text string) []byte {
	var sc schema
	_ = json.Unmarshal(tool.Schema, &sc)
	b, _ := json.Marshal(sc.textValue("", text))
	return b
}

// shellArgs builds the arguments of a call of tool that runs cmd: the
// command in the property named command or cmd (an argv array if the
// schema says array), a description where the tool has one, and every
// other required property filled from its schema.
func shellArgs(tool *Tool, cmd string) []byte {
	var sc schema
	_ = json.Unmarshal(tool.Schema, &sc)
	args := map[string]any{}
	key := "command"
	if _, ok := sc.Properties["cmd"]; ok {
		key = "cmd"
	}
	_, hasKey := sc.Properties[key]
	if p, ok := sc.Properties["commands"]; ok && !hasKey && p.typeIs("array") {
		// The Cline SDK's run_commands: a list of whole command lines.
		args["commands"] = []string{cmd}
	} else if p, ok := sc.Properties[key]; ok && p.typeIs("array") {
		args[key] = []string{"bash", "-lc", cmd}
	} else {
		args[key] = cmd
	}
	if _, ok := sc.Properties["description"]; ok {
		args["description"] = "Run " + cmd
	}
	for _, name := range sc.Required {
		if _, ok := args[name]; !ok {
			args[name] = sc.Properties[name].value(name)
		}
	}
	b, _ := json.Marshal(args)
	return b
}
