package secrets

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// fake returns n characters from alphabet, the same for one seed: test
// secrets are made, not written out, so that none is a real one.
func fake(seed uint64, n int, alphabet string) string {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	alnum       = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64         = alnum + "+/"
	hexDigits   = "0123456789abcdef"
	urlSafe     = alnum + "-_"
)

// Planted secrets, one per kind the issue lists.
var (
	awsKeyID     = "AKIA" + fake(1, 16, upperDigits)
	awsSecret    = fake(2, 40, b64)
	pgPassword   = "pw-" + fake(3, 14, alnum)
	pgURL        = "postgres://app:" + pgPassword + "@db.internal:5432/prod"
	openAIKey    = "sk-proj-" + fake(4, 74, urlSafe) + "T3BlbkFJ" + fake(5, 74, urlSafe)
	anthropicKey = "sk-ant-api03-" + fake(6, 93, urlSafe) + "AA"
	googleKey    = "AIza" + fake(7, 35, urlSafe)
	githubPAT    = "ghp_" + fake(8, 36, alnum)
	gitlabPAT    = "glpat-" + fake(9, 20, urlSafe)
	slackBot     = "xoxb-" + fake(10, 12, "0123456789") + "-" + fake(11, 13, "0123456789") + "-" + fake(12, 24, alnum)
	stripeKey    = "sk_live_" + fake(13, 24, alnum)
	twilioKey    = "SK" + fake(14, 32, hexDigits)
	azureKey     = fake(15, 86, b64) + "=="
	jwtToken     = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ." + fake(16, 43, urlSafe)
	bearer       = fake(17, 48, urlSafe)
	pem          = "-----BEGIN RSA PRIVATE KEY-----\n" + fake(18, 64, b64) + "\n" + fake(19, 64, b64) + "\n" + fake(20, 40, b64) + "\n-----END RSA PRIVATE KEY-----"
	highEntropy  = fake(21, 32, alnum)
)

// TestFindsWhatTheIssueLists: each kind of secret is found, and what is
// found is the secret itself (not its name, nor the URL around it).
func TestFindsWhatTheIssueLists(t *testing.T) {
	cases := []struct {
		name, text, secret string
	}{
		{"aws access key id", "export AWS_ACCESS_KEY_ID=" + awsKeyID, awsKeyID},
		{"aws secret access key", "aws_secret_access_key = " + awsSecret, awsSecret},
		{"aws secret in json", `{"AccessKeyId": "` + awsKeyID + `", "SecretAccessKey": "` + awsSecret + `"}`, awsSecret},
		{"postgres url", "DATABASE_URL=" + pgURL, pgPassword},
		{"mongodb+srv url", "mongodb+srv://admin:" + pgPassword + "@cluster0.abcde.mongodb.net/test", pgPassword},
		{"redis url without user", "redis://:" + pgPassword + "@cache:6379/0", pgPassword},
		{"https with token", "git clone https://oauth2:" + gitlabPAT + "@gitlab.com/x/y.git", gitlabPAT},
		{"ado.net connection string", "Server=db;Database=app;User Id=sa;Password=Tr0ub4dor&3;", "Tr0ub4dor&3"},
		{"libpq connection string", "host=db port=5432 user=app password=Tr0ub4dor3 dbname=app", "Tr0ub4dor3"},
		{"openai", "OPENAI_API_KEY=" + openAIKey, openAIKey},
		{"anthropic", `client = Anthropic(api_key="` + anthropicKey + `")`, anthropicKey},
		{"google api key", "key=" + googleKey + "&q=x", googleKey},
		{"github pat", "token " + githubPAT, githubPAT},
		{"gitlab pat", "PRIVATE-TOKEN: " + gitlabPAT, gitlabPAT},
		{"slack bot", "SLACK_BOT_TOKEN=" + slackBot, slackBot},
		{"stripe", "stripe.api_key = '" + stripeKey + "'", stripeKey},
		{"twilio api key", "TWILIO_API_KEY=" + twilioKey, twilioKey},
		{"azure storage key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + azureKey + ";EndpointSuffix=core.windows.net", azureKey},
		{"jwt", "Cookie: session=" + jwtToken + ";", jwtToken},
		{"bearer header", "curl -H 'Authorization: Bearer " + bearer + "' https://api.example.com", bearer},
		{"pem private key", "key.pem:\n" + pem + "\n", pem},
		{"password assignment", "PASSWORD=hunter2-Zx9", "hunter2-Zx9"},
		{"password in yaml", "db:\n  password: s3cr3t-P4ss\n", "s3cr3t-P4ss"},
		{"api_key json", `{"api_key": "` + highEntropy + `"}`, highEntropy},
		{"generic token assignment", "ACCESS_TOKEN=" + highEntropy, highEntropy},
		{"google oauth", "access_token: ya29." + fake(22, 60, urlSafe), "ya29."},
	}
	d := Default()
	for _, c := range cases {
		fs := d.Find(c.text)
		ok := false
		for _, f := range fs {
			got := c.text[f.Start:f.End]
			ok = ok || got == c.secret || (strings.HasPrefix(got, c.secret) && c.name == "google oauth")
		}
		if !ok {
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s %q", f.Rule, c.text[f.Start:f.End]))
			}
			t.Errorf("%s: want %q found, got %v", c.name, c.secret, got)
		}
	}
}

// TestGCPServiceAccountKey: a service-account key file is found by its
// private key, read from JSON where its lines are \n escapes.
func TestGCPServiceAccountKey(t *testing.T) {
	pk := strings.ReplaceAll("-----BEGIN PRIVATE KEY-----\n"+fake(30, 64, b64)+"\n"+fake(31, 64, b64)+"\n-----END PRIVATE KEY-----\n", "\n", `\n`)
	body := `{"type":"tool_result","content":"{\n  \"type\": \"service_account\",\n  \"project_id\": \"p\",\n  \"private_key_id\": \"` +
		fake(32, 40, hexDigits) + `\",\n  \"private_key\": \"` + strings.ReplaceAll(pk, `\n`, `\\n`) + `\"\n}"}`
	spans := Default().FindJSON([]byte(body))
	found := false
	for _, s := range spans {
		found = found || s.Rule == "private-key"
	}
	if !found {
		t.Fatalf("private key of a service-account file not found: %v", spans)
	}
	red := Redact([]byte(body), spans)
	if strings.Contains(string(red), "BEGIN PRIVATE KEY") {
		t.Fatalf("redacted body still holds the key: %s", red)
	}
}

// TestNotSecrets: hashes, ids and code that names secrets without holding
// one are not findings.
func TestNotSecrets(t *testing.T) {
	texts := []string{
		"commit 3f1efb9b7705cc1cae9ebeafa8eaf95ab79d6bea",
		`{"sha": "3f1efb9b7705cc1cae9ebeafa8eaf95ab79d6bea", "key": "3f1efb9b7705cc1cae9ebeafa8eaf95ab79d6bea"}`,
		"sha256sum: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  file.tar.gz",
		`cache_key = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`,
		`"integrity": "sha512-9vSLnHhT6LnT2S+KSTzJBnCUYzuE1lMX6+7jpHpQJlfDhdD0tbk0NyXbS0l0AZzpQ4ch0rhqlUPfbB2dqfWprg=="`,
		"request_id: 550e8400-e29b-41d4-a716-446655440000",
		`{"session_key": "550e8400-e29b-41d4-a716-446655440000", "tool_use_id": "toolu_01XyZabcdefghijklmnopqrs"}`,
		`"input_tokens": 1234, "cache_read_input_tokens": 98765, "output_tokens": 12`,
		"func login(user, password string) error {",
		"password: string;",
		"const password = process.env.DB_PASSWORD;",
		"PASSWORD=${DB_PASSWORD}",
		"postgres://user:password@localhost:5432/db",
		"postgres://user:<password>@host/db",
		"redis://localhost:6379",
		"https://example.com:8080/path",
		"Authorization: Bearer $TOKEN",
		"Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
		"api_key = os.environ['OPENAI_API_KEY']",
		"the keyboard shortcut for the api token page",
		"AKIAIOSFODNN7EXAMPLE",
	}
	d := Default()
	for _, text := range texts {
		if fs := d.Find(text); len(fs) > 0 {
			t.Errorf("%q: found %s %q", text, fs[0].Rule, text[fs[0].Start:fs[0].End])
		}
	}
}
