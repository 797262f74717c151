package scriptmodel

import "testing"

// FuzzParse feeds any body to the four request readers and plays what
// they read: no body may make the server panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"x [[tools]]"}],"tools":[{"name":"Bash","input_schema":{"properties":{"command":{"type":"array"}},"required":["command","x"]}}]}`))
	f.Add([]byte(`{"input":[{"type":"function_call_output"},{"type":"message","role":"user","content":"[[recall]]"}],"tools":[{"name":"shell","parameters":{"type":["object"]}}],"text":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"a":{"enum":[1]}}}}}}`))
	f.Add([]byte(`{"messages":[{"role":"tool","content":[{"type":"text","text":"y"}]}],"response_format":{"type":"json_object"}}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{}},{"text":"t","thought":true}]}],"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT","properties":{"b":{"anyOf":[{"type":"ARRAY"}]}}}}}`))
	script := DefaultScript()
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, parse := range []func([]byte) (*Conversation, error){
			parseAnthropic, parseResponses, parseChat,
			func(b []byte) (*Conversation, error) { return parseGemini(b, "m", true) },
		} {
			c, err := parse(body)
			if err != nil {
				continue
			}
			r := script.Play(c)
			anthropicBlocks(r)
			responsesOutput(r)
			chatToolCalls(r)
		}
	})
}
