package httpguard

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:80": true, "127.0.0.1": true, "127.0.0.1:8377": true,
		"127.9.9.9": true, "[::1]:8377": true, "::1": true, "[::1]": true,
		"": false, ":8377": false, "0.0.0.0:1": false, "evil.example": false,
		"evil.example:8377": false, "localhost.evil.example": false, "10.0.0.1": false, "[::]:1": false,
	} {
		if got := LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestHandler(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	tok, err := NewToken()
	if err != nil || len(tok) != 48 {
		t.Fatalf("NewToken = %q, %v", tok, err)
	}
	for _, c := range []struct {
		name   string
		g      Guard
		host   string
		auth   string
		cookie string
		want   int
	}{
		{"loopback", Guard{}, "127.0.0.1:1", "", "", http.StatusTeapot},
		{"rebinding", Guard{}, "evil.example:1", "", "", http.StatusMisdirectedRequest},
		{"remote without token", Guard{Remote: true, Token: tok}, "evil.example", "", "", http.StatusUnauthorized},
		{"remote wrong token", Guard{Remote: true, Token: tok}, "evil.example", "Bearer x" + tok, "", http.StatusUnauthorized},
		{"remote bearer", Guard{Remote: true, Token: tok}, "evil.example", "Bearer " + tok, "", http.StatusTeapot},
		{"cookie not named", Guard{Remote: true, Token: tok}, "h", "", tok, http.StatusUnauthorized},
		{"cookie", Guard{Remote: true, Token: tok, Cookie: "c"}, "h", "", tok, http.StatusTeapot},
	} {
		req := httptest.NewRequest("POST", "/mcp", nil)
		req.Host = c.host
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		if c.cookie != "" {
			req.AddCookie(&http.Cookie{Name: "c", Value: c.cookie})
		}
		rec := httptest.NewRecorder()
		c.g.Handler("this server", ok).ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s: status %d, want %d", c.name, rec.Code, c.want)
		}
	}
}
