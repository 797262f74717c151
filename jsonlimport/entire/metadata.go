package entire

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
)

// CheckpointMeta is a checkpoint's metadata.json (<id[:2]>/<id[2:]>/
// metadata.json), the members this package reads; Raw keeps the file as
// it was.
type CheckpointMeta struct {
	CheckpointID string          `json:"checkpoint_id"`
	Strategy     string          `json:"strategy"`
	Branch       string          `json:"branch"`
	FilesTouched []string        `json:"files_touched"`
	TokenUsage   json.RawMessage `json:"token_usage"`
	Raw          json.RawMessage `json:"-"`
}

// SessionMeta is the metadata.json of one session of a checkpoint
// (<id[:2]>/<id[2:]>/<n>/metadata.json), the members this package reads;
// Raw keeps the file as it was.
type SessionMeta struct {
	CheckpointID string          `json:"checkpoint_id"`
	SessionID    string          `json:"session_id"`
	Agent        string          `json:"agent"`
	Model        string          `json:"model"`
	Strategy     string          `json:"strategy"`
	Branch       string          `json:"branch"`
	CreatedAt    time.Time       `json:"-"`
	FilesTouched []string        `json:"files_touched"`
	TokenUsage   json.RawMessage `json:"token_usage"`
	Raw          json.RawMessage `json:"-"`
}

// checkpointIDRE is the shape of a checkpoint id: 12 lowercase hex
// characters.
var checkpointIDRE = regexp.MustCompile(`^[0-9a-f]{12}$`)

// ValidCheckpointID reports whether id has the shape of a checkpoint id.
func ValidCheckpointID(id string) bool { return checkpointIDRE.MatchString(id) }

// ParseCheckpointMeta reads a checkpoint's metadata.json. An error wraps
// sessiondb.ErrInvalid: the file is no JSON object, or a member this
// package reads has another type.
func ParseCheckpointMeta(data []byte) (CheckpointMeta, error) {
	var m CheckpointMeta
	if err := decodeObject(data, &m); err != nil {
		return CheckpointMeta{}, err
	}
	m.TokenUsage = objectOrNil(m.TokenUsage)
	m.FilesTouched = cleanStrings(m.FilesTouched)
	m.Raw = json.RawMessage(append([]byte(nil), data...))
	return m, nil
}

// ParseSessionMeta reads the metadata.json of a session of a checkpoint.
// An error wraps sessiondb.ErrInvalid, as ParseCheckpointMeta's. A
// created_at that is no RFC 3339 time leaves CreatedAt zero.
func ParseSessionMeta(data []byte) (SessionMeta, error) {
	var m SessionMeta
	if err := decodeObject(data, &m); err != nil {
		return SessionMeta{}, err
	}
	var extra struct {
		CreatedAt any `json:"created_at"`
	}
	_ = json.Unmarshal(data, &extra)
	if s, ok := extra.CreatedAt.(string); ok {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			m.CreatedAt = t.UTC()
		}
	}
	m.TokenUsage = objectOrNil(m.TokenUsage)
	m.FilesTouched = cleanStrings(m.FilesTouched)
	m.Raw = json.RawMessage(append([]byte(nil), data...))
	return m, nil
}

// decodeObject unmarshals data, which must be one JSON object, into v.
func decodeObject(data []byte, v any) error {
	trimmed := strings.TrimSpace(string(data))
	if !strings.HasPrefix(trimmed, "{") || !json.Valid([]byte(trimmed)) {
		return fmt.Errorf("metadata.json is not a JSON object: %w", sessiondb.ErrInvalid)
	}
	if err := json.Unmarshal([]byte(trimmed), v); err != nil {
		return fmt.Errorf("metadata.json: %v: %w", err, sessiondb.ErrInvalid)
	}
	return nil
}

// objectOrNil keeps raw only when it is a JSON object.
func objectOrNil(raw json.RawMessage) json.RawMessage {
	s := strings.TrimSpace(string(raw))
	if !strings.HasPrefix(s, "{") {
		return nil
	}
	return json.RawMessage(s)
}

// cleanStrings drops empty strings.
func cleanStrings(list []string) []string {
	var out []string
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
