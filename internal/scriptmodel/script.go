package scriptmodel

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Marker is the word every scripted answer holds, so that a test can find
// the model's answers in whatever an agent wrote.
const Marker = "quokka"

// Step is one scripted response: thinking, then text, then tool calls
// (several calls in one step are parallel calls).
type Step struct {
	Thinking string   // reasoning text ("" for none)
	Text     string   // answer text ("" for none)
	Shell    []string // shell commands, each a call of the shell tool the request offers
	// Delegate, when set, is the prompt of a call of the sub-agent tool
	// the request offers (after the shell calls).
	Delegate string
	// Finish ends a sub-agent: where the request offers complete_task
	// (Gemini CLI's sub-agents must call it to return), the step calls
	// it with Text as the result.
	Finish bool
}

// calls is the number of tool calls the step makes.
func (st Step) calls() int {
	n := len(st.Shell)
	if st.Delegate != "" {
		n++
	}
	return n
}

// Scenario is a named list of steps. A prompt holding the tag [[Name]]
// plays it: step i answers once the calls of the steps before it have
// their results.
type Scenario struct {
	Name  string
	Steps []Step
}

// Script is the set of scenarios a server plays. Default answers a prompt
// without a known tag.
type Script struct {
	Scenarios []Scenario
	Default   Step
}

// longText is the long answer of the "long" scenario: numbered lines with
// mixed scripts, about 6 KB.
func longText() string {
	var b strings.Builder
	b.WriteString("Here is a long answer, line by line.\n")
	for i := 1; i <= 80; i++ {
		fmt.Fprintf(&b, "Line %03d: the scripted model keeps talking — 行 %d — ✓\n", i, i)
	}
	b.WriteString("End of the long answer, " + Marker + ".")
	return b.String()
}

// DefaultScript is the script the agents' corpus is written with:
//
//	[[hello]]  thinking, then a unicode text
//	[[tools]]  thinking, text and two parallel calls (echo alpha, echo beta);
//	           then a failing call (ls of a missing path, exit 2); then a call
//	           with a long output (seq 1 1500); then thinking and a final text
//	[[parallel]] two parallel calls (echo one, echo two), then a text
//	[[long]]   a long text (~6 KB)
//	[[agent]]  a call of the sub-agent tool whose prompt holds [[sub]], then a text
//	[[sub]]    (the sub-agent) a shell call (echo sub), then a text, and a call
//	           of complete_task where the request offers it
//	[[recall]] a text that quotes the first prompt of the conversation and
//	           counts the prompts, so a resumed run shows what the model saw
//	anything else: a short text
func DefaultScript() Script {
	return Script{
		Scenarios: []Scenario{
			{Name: "hello", Steps: []Step{{
				Thinking: "**Greeting the user** The user says hello; I answer briefly.",
				Text:     "Hello! 你好，世界 🌏 — こんにちは 👋 The " + Marker + " says hi.",
			}}},
			{Name: "tools", Steps: []Step{
				{
					Thinking: "**Planning the commands** I will run two commands at once.",
					Text:     "Running two commands in parallel.",
					Shell:    []string{"echo alpha", "echo beta"},
				},
				{Text: "Now a command that fails.", Shell: []string{"ls /nonexistent-sessiondb-path"}},
				{Shell: []string{"seq 1 1500"}},
				{
					Thinking: "**Summarising** All four commands ran; one failed on purpose.",
					Text:     "Done: alpha, beta, a failure (exit 2) and 1500 lines. 完成 ✅ 🚀 " + Marker + ".",
				},
			}},
			{Name: "parallel", Steps: []Step{
				{Text: "Two commands at once.", Shell: []string{"echo one", "echo two"}},
				{Text: "Both ran: one, two. " + Marker + "."},
			}},
			{Name: "long", Steps: []Step{{Text: longText()}}},
			{Name: "agent", Steps: []Step{
				{Text: "Delegating to a sub-agent.", Delegate: "Run echo sub and report [[sub]]"},
				{Text: "The sub-agent ran echo sub. " + Marker + "."},
			}},
			{Name: "sub", Steps: []Step{
				{Text: "Running it.", Shell: []string{"echo sub"}},
				{Text: "Sub-agent finished: it printed sub.", Finish: true},
			}},
			{Name: "recall", Steps: []Step{{Text: "recall"}}}, // filled in by Play
		},
		Default: Step{Text: "Scripted answer, " + Marker + "."},
	}
}

// Usage is a response's token counts. Each protocol reports them in its
// own fields (see the package doc).
type Usage struct {
	Input      int // input tokens not read from the cache
	CacheRead  int // input tokens read from the cache
	CacheWrite int // input tokens written to the cache (Anthropic only)
	Output     int // output tokens, thinking included
	Reasoning  int // of Output, the thinking
}

// Reply is what the server answers one request with.
type Reply struct {
	Scenario string // the scenario played ("default", "side" or a name)
	Turn     int    // prompts in the conversation, the answered one included
	Step     int
	Thinking string
	Text     string
	Calls    []Call
	Usage    Usage
	JSON     bool // Text is a JSON document (structured output was asked for)
}

// Call is a resolved tool call: the tool the request offers and its
// arguments as a JSON object.
type Call struct {
	ID   string
	Name string
	Args []byte
}

var tagRE = regexp.MustCompile(`\[\[(\w+)\]\]`)

// Play picks the reply to a conversation: the scenario named by a tag in
// its latest prompt, the step given by the tool results since that prompt.
// A conversation that offers no tools (a title, a summary, a structured
// side question) is a side request.
func (s Script) Play(c *Conversation) Reply {
	prompt, at, turn := c.lastPrompt()
	r := Reply{Turn: turn}
	if c.JSONSchema != nil || c.JSONMode {
		r.Scenario = "side"
		r.JSON = true
		r.Text = string(fillSchema(c.JSONSchema))
		r.Usage = usageFor(r)
		return r
	}
	if len(c.Tools) == 0 {
		r.Scenario = "side"
		r.Text = "Scripted session title"
		r.Usage = usageFor(r)
		return r
	}
	results := 0
	if at >= 0 {
		for _, m := range c.Messages[at+1:] {
			results += m.Results
		}
	}
	step, name := s.Default, "default"
	if m := tagRE.FindStringSubmatch(prompt); m != nil {
		for _, sc := range s.Scenarios {
			if sc.Name != m[1] {
				continue
			}
			seen := 0
			for i, st := range sc.Steps {
				if seen == results {
					step, name, r.Step = st, sc.Name, i
					break
				}
				seen += st.calls()
			}
			if name == "default" { // every step played: close the turn
				name, r.Step = sc.Name, len(sc.Steps)
				step = Step{Text: "All steps done, " + Marker + "."}
			}
		}
	}
	r.Scenario = name
	r.Thinking, r.Text = step.Thinking, step.Text
	if name == "recall" {
		first, n := c.firstPrompt()
		r.Text = fmt.Sprintf("I have seen %d prompts; the first was «%s». %s remembers.", n, first, Marker)
	}
	// Call ids are the turn, the step and the call's number; a
	// sub-agent's start with "sub", so that they differ from its
	// parent's.
	prefix := ""
	if name == "sub" {
		prefix = "sub"
	}
	id := func() string { return fmt.Sprintf("%s%02d%02d%02d", prefix, turn, r.Step, len(r.Calls)+1) }
	tool := c.shellTool()
	for _, cmd := range step.Shell {
		if tool == nil {
			r.Text += fmt.Sprintf(" (no shell tool offered for: %s)", cmd)
			continue
		}
		r.Calls = append(r.Calls, Call{ID: id(), Name: tool.Name, Args: shellArgs(tool, cmd)})
	}
	if step.Delegate != "" {
		if t := c.tool(agentNames); t != nil {
			r.Calls = append(r.Calls, Call{ID: id(), Name: t.Name, Args: agentArgs(t, step.Delegate)})
		} else {
			r.Text += " (no sub-agent tool offered)"
		}
	}
	if step.Finish {
		if t := c.tool([]string{"complete_task"}); t != nil {
			r.Calls = append(r.Calls, Call{ID: id(), Name: t.Name, Args: textArgs(t, r.Text)})
		}
	}
	r.Usage = usageFor(r)
	return r
}

// usageFor gives a reply's token counts: a function of the turn, the step
// and what the reply holds, never of the request's bytes (which hold
// temporary paths), so that two runs of a script report the same figures.
func usageFor(r Reply) Usage {
	think := (utf8.RuneCountInString(r.Thinking) + 3) / 4
	out := 3 + (utf8.RuneCountInString(r.Text)+3)/4 + think + 12*len(r.Calls)
	if r.Scenario == "side" {
		return Usage{Input: 40, Output: out}
	}
	u := Usage{
		Input:     300 + 37*r.Turn + 11*r.Step,
		CacheRead: 128 * (r.Turn - 1),
		Output:    out,
		Reasoning: think,
	}
	if u.CacheRead < 0 {
		u.CacheRead = 0
	}
	if r.Step == 0 {
		u.CacheWrite = 64
	}
	return u
}
