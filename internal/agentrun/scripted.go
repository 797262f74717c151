package agentrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/sessiondb/sessiondb/internal/scriptmodel"
)

// Turn is one run of an agent against a scripted server: what it did,
// the session it wrote to and the requests it sent.
type Turn struct {
	*Result
	Session  string
	Requests []scriptmodel.Request
}

// New runs a new session with prompt against srv. For agents that take
// the id up front, a fresh UUID is used.
func (in *Installed) New(ctx context.Context, h *Home, srv *scriptmodel.Server, timeout time.Duration, prompt string) (*Turn, error) {
	id := ""
	if in.TakesID() {
		id = uuid.NewString()
	}
	return in.turn(ctx, h, srv, timeout, in.NewArgs(id, prompt), id)
}

// Resume resumes session id with prompt against srv.
func (in *Installed) Resume(ctx context.Context, h *Home, srv *scriptmodel.Server, timeout time.Duration, id, prompt string) (*Turn, error) {
	return in.turn(ctx, h, srv, timeout, in.ResumeArgs(id, prompt), id)
}

func (in *Installed) turn(ctx context.Context, h *Home, srv *scriptmodel.Server, timeout time.Duration, args []string, id string) (*Turn, error) {
	mark := srv.Len()
	r, err := in.Run(ctx, h, srv.URL(), timeout, args)
	t := &Turn{Result: r, Session: id}
	if r != nil {
		t.Requests = srv.Requests()[mark:]
	}
	if err != nil {
		return t, err
	}
	if r.ExitCode != 0 {
		return t, fmt.Errorf("%s exited %d: %s", in.Name, r.ExitCode, tail(r.Stderr))
	}
	if t.Session == "" {
		if t.Session, err = in.SessionID(h, r.Stdout); err != nil {
			return t, err
		}
	}
	return t, nil
}

// Main returns the requests of a turn that the script answered as part
// of the conversation (not side requests such as titles).
func (t *Turn) Main() []scriptmodel.Request {
	var out []scriptmodel.Request
	for _, r := range t.Requests {
		if r.Scenario != "" && r.Scenario != "side" {
			out = append(out, r)
		}
	}
	return out
}

// Sent reports whether the first main request of the turn holds text
// (as JSON string contents: what the agent sent its model), that is,
// whether the agent sent it back from its store.
func (t *Turn) Sent(text string) bool {
	main := t.Main()
	if len(main) == 0 {
		return false
	}
	return bytes.Contains(main[0].Body, jsonString(text)) || bytes.Contains(main[0].Body, jsonStringHTML(text))
}

// jsonStringHTML is s escaped as Go's encoder escapes it by default
// (the server logs bodies as sent, but a caller may have re-encoded one).
func jsonStringHTML(s string) []byte {
	b, _ := json.Marshal(s)
	return b[1 : len(b)-1]
}
