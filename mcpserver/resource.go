package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessiondb/sessiondb"
)

// SessionURIPrefix starts the URI of a session's resource,
// sessiondb://session/{id}.
const SessionURIPrefix = "sessiondb://session/"

// SessionURI returns the resource URI of session id: every byte of the ID
// but letters, digits and -._~ is percent-encoded, so that an ID or alias
// holding ':' or '/' (Claude Code sub-agents, picoclaw keys) still matches
// the template's single {id}.
func SessionURI(id string) string {
	var b strings.Builder
	b.WriteString(SessionURIPrefix)
	for i := 0; i < len(id); i++ {
		c := id[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "session",
		Title:       "A past session",
		URITemplate: SessionURIPrefix + "{id}",
		MIMEType:    "application/json",
		Description: "A session's effective transcript from its start, as read_transcript returns it (JSON, bounded to 24576 bytes; " +
			"next_cursor goes on with read_transcript). {id} is the session's ID or alias, percent-encoded.",
	}, s.readResource)
}

func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (res *mcp.ReadResourceResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("panic in resource", "uri", req.Params.URI, "panic", v)
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error reading the resource (please report it)"}
		}
	}()
	uri := req.Params.URI
	raw, ok := strings.CutPrefix(uri, SessionURIPrefix)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	id, perr := url.PathUnescape(raw)
	if perr != nil || id == "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	text, err := s.transcriptJSON(ctx, id)
	// An ID no session can have (a control character, too long) names no
	// resource either. Other failures are the server's: a plain error
	// would go out with code 0, which JSON-RPC does not define.
	if errors.Is(err, sessiondb.ErrNotFound) || errors.Is(err, sessiondb.ErrInvalid) || errors.Is(err, errInput) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: oneLine(toolError(err).Error())}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(text)}}}, nil
}
