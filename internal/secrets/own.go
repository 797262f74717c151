package secrets

import "regexp"

// ownRules are sessiondb's rules for what gitleaks' set leaves to its one
// generic rule or does not see: passwords in URLs and connection strings,
// password assignments whose value has little entropy, bearer and basic
// authorization headers, AWS secret access keys, Azure storage account
// keys, Google API keys in URLs and Google OAuth tokens. Their test vectors are in own_test.go.
var ownRules = []ruleSpec{
	{
		// scheme://user:password@host, any scheme (postgres, mysql,
		// mongodb+srv, redis with an empty user, amqp, https, ftp, …).
		// The user part stops at ':', so host:port@ is never read as a
		// password unless it is one.
		ID:       "url-password",
		Regex:    `\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/?#@"'<>\\\[\]{}]{0,256}:([^\s/?#@"'<>\\]{1,256})@[A-Za-z0-9\[._-]`,
		Keywords: []string{"://"},
		Allow:    []allowSpec{{Regexes: []string{placeholder, `^[0-9]{1,5}$`}}},
	},
	{
		// Server=…;User Id=…;Password=…; (ADO.NET, ODBC, JDBC
		// properties) and libpq's key=value strings: inside a
		// connection string every value of password is one.
		ID:       "connection-string-password",
		Regex:    `(?i)\b(?:server|host|hostname|data source|database|dbname|user id|uid|user|username|addr|address)[ \t]*=[^;\n"'\x60]{0,200}[; \t][^"'\x60\n]{0,300}?\b(?:password|pwd)[ \t]*=[ \t]*([^;\s"'\x60\\]{1,128})`,
		Keywords: []string{"password", "pwd"},
		Allow:    []allowSpec{{Regexes: []string{placeholder}}},
	},
	{
		// PASSWORD=…, "db_password": "…", password: … — any value
		// with a digit or a symbol (a value of letters alone is a name
		// in code: password: string, pwd = self.pwd).
		ID:       "password-assignment",
		Regex:    `(?i)[\w.-]{0,30}?(?:passw(?:or)?d|\bpwd|passphrase)[\w.-]{0,20}?["']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}["'\x60]?([^\s"'\x60;,\\(){}\[\]<>$%]{6,128})(?:[\s"'\x60;,\\]|$)`,
		Keywords: []string{"passwd", "password", "pwd", "passphrase"},
		Assign:   true,
		Allow:    []allowSpec{{Regexes: []string{`^[a-zA-Z_.-]+$`, placeholder}}},
	},
	{
		// Authorization: Bearer …, curl -H, fetch headers, OAuth
		// access tokens in logs.
		ID:       "bearer-token",
		Regex:    `(?i)\bbearer[ \t]+([A-Za-z0-9\-._~+/]{20,}=*)(?:[^A-Za-z0-9\-._~+/=]|$)`,
		Keywords: []string{"bearer"},
		Entropy:  3,
		Allow:    []allowSpec{{Regexes: []string{`^[a-zA-Z_.-]+$`, placeholder}}},
	},
	{
		ID:       "basic-auth-header",
		Regex:    `(?i)\bauthorization["']?[ \t]*[:=][ \t]*["']?basic[ \t]+([A-Za-z0-9+/]{12,}={0,2})`,
		Keywords: []string{"basic"},
	},
	{
		// aws_secret_access_key = …, AWS_SECRET_ACCESS_KEY=…,
		// "SecretAccessKey": "…" next to an AWS name: 40 characters of
		// base64.
		ID:       "aws-secret-access-key",
		Regex:    `(?i)[\w.-]{0,30}?(?:aws|amazon|secretaccesskey)[\w.-]{0,30}?["']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}["'\x60]?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
		Assign:   true,
		Keywords: []string{"aws", "amazon", "secretaccesskey"},
		Entropy:  3.5,
		Allow:    []allowSpec{{Regexes: []string{`EXAMPLE`}}},
	},
	{
		// DefaultEndpointsProtocol=https;AccountName=…;AccountKey=…==
		ID:       "azure-storage-account-key",
		Regex:    `(?i)\bAccountKey[ \t]*=[ \t]*([A-Za-z0-9+/]{86}==)`,
		Keywords: []string{"accountkey"},
	},
	{
		// gitleaks' gcp-api-key wants a quote, a space or ; after the
		// key; in a URL's query (?key=AIza…&q=) it is followed by &.
		ID:       "google-api-key",
		Regex:    `\b(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)`,
		Keywords: []string{"aiza"},
		Entropy:  4,
	},
	{
		ID:       "google-oauth-access-token",
		Regex:    `\b(ya29\.[0-9A-Za-z_-]{20,})`,
		Keywords: []string{"ya29."},
		Entropy:  3,
	},
	{
		ID:       "google-oauth-refresh-token",
		Regex:    `\b(1//0[0-9A-Za-z_-]{40,})`,
		Keywords: []string{"1//0"},
		Entropy:  3,
	},
}

// genericOwn are own rules about the shape of an assignment (see
// rule.generic).
var genericOwn = []string{"password-assignment"}

// placeholder matches values that stand for a secret without being one:
// stars, x's, <angle brackets>, [brackets], $VAR and ${VAR}, %VAR%,
// {{templates}}, the word password and a few others people write.
const placeholder = `(?i)^(?:\*+|x+|\.+|<[^>]*>|\[[^\]]*\]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z0-9_]+%|\{\{.*\}\}|(?:your|my)?[_-]?(?:password|passwd|pass|pwd|secret|token)|changeme|example|redacted.*|none|null|nil|undefined)$`

// notSecretVersion names the rule below, so that a change to it changes
// the rule set's version.
const notSecretVersion = "not-secret/1: uuid, hex40, hex64, sha-prefixed; strong keys secret|credential|creds|token|passw|api key|access key|private key"

// strongKey matches the name part of a generic match (what precedes the
// value) that says the value is a secret whatever it looks like.
var strongKey = regexp.MustCompile(`(?i)secret|credential|creds|token|passw|api[_.-]?key|access[_.-]?key|private[_.-]?key`)

// hashLike matches what a generic rule does not take for a secret unless
// its name says it is one (strongKey): a UUID, a git object name or SHA-1
// (40 hex digits), a SHA-256 (64), and an integrity string (sha256-…,
// sha512:…). So "key": "<sha256 of a file>", id_key = <uuid> and a
// commit's SHA are not secrets, while client_secret = <64 hex digits>
// and api_token = <uuid> (two of gitleaks' own test vectors) are.
// Provider rules keep them all: a Heroku API key is a UUID, and they
// name their provider.
var hashLike = regexp.MustCompile(`^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64}|(?i:sha(?:1|224|256|384|512))[-:=].*)$`)
