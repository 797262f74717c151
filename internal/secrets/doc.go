// Package secrets finds secrets in stored text — API keys, tokens,
// private keys, passwords in URLs and connection strings, cloud
// credentials, high-entropy values in assignments — and redacts them.
// The stores run it in the background where they index text and keep
// what it finds as spans (sessiondb's "Secrets" doc); reads only apply
// them (Redact). Nothing here touches a database.
//
// # Which detector, and why
//
// Three candidates were weighed (issue 36), measured on the real corpus
// (testdata/corpus, 22 MB of Claude Code and Codex lines):
//
//	                   gitleaks v8.30.1         DefangLabs/secret-detector   gitleaks' rules as data (chosen)
//	rules              222, each with its own   17 detectors (detect-secrets' 217 of gitleaks' (the 5 that need
//	                   true/false positives     plugins): no OpenAI, Anthropic, file paths left out) + 10 own,
//	                   (6,396 / 374)            Google, GitLab, GCP            gitleaks' vectors kept as tests
//	pulled into the    its config package       golang-jwt, yaml.v3, ini.v1   none (standard library)
//	library            alone: 71 packages
//	                   outside the standard
//	                   library (viper, zerolog,
//	                   afero, hcl, …); detect
//	                   adds archives, wazero
//	license            MIT                      Apache-2.0                     MIT (gitleaks' LICENSE beside the data)
//
// gitleaks' rule set is the most maintained and carries test vectors,
// but the program is a tool, not a library: its config package alone
// imports viper and zerolog, and its detector reads files, archives and
// git history; TestLibraryImportGraph keeps the library small.
// secret-detector pulls less but knows far fewer formats. So the rules
// are gitleaks', as data, and the detector is ours: gitleaks.json holds
// every rule of gitleaks' generator (cmd/generate/config) but the five
// that only match file paths (pkcs12-file, kubernetes-secret-yaml,
// nuget-config-password, hashicorp-tf-password, freemius-secret-key),
// with their expressions, secret groups, entropy thresholds, keywords
// and allowlists, and the global allowlist; testdata/gitleaks-vectors.json
// holds the true and false positives each rule's generator validates it
// with, taken by running that generator with its Validate recording its
// arguments. TestGitleaksVectors runs each rule alone over its vectors as
// gitleaks does; all pass. The data is MIT-licensed (LICENSE.gitleaks).
// To update: take the new release's generator the same way and rerun the
// tests.
//
// own.go adds what gitleaks leaves to its one generic rule, which wants
// an entropy above 3.5, or does not see: url-password (any
// scheme://user:pw@host, postgres, mongodb+srv, redis://:pw@),
// connection-string-password (Server=…;Password=…; and libpq's
// password=…), password-assignment (PASSWORD=…, "db_password": "…" with a
// value of six characters or more that is not letters alone),
// bearer-token and basic-auth-header, aws-secret-access-key (40 base64
// characters after an AWS name: gitleaks has only the key id),
// azure-storage-account-key, google-api-key (in a URL's query) and
// Google OAuth access and refresh tokens. A GCP service-account key file
// is found by its private key (private-key), read from JSON.
//
// # How text is read
//
// gitleaks' algorithm, on text rather than files: an Aho-Corasick pass
// finds which rules' keywords occur (case-insensitively), and only those
// rules' expressions run; the secret is the rule's secret group (else its
// first non-empty group, else the match); it is dropped when its Shannon
// entropy is at or below the rule's threshold, or an allowlist (the
// global one, the rule's) lets it go. Where findings overlap, a
// provider's rule wins over a generic one. Three departures:
//
//   - A generic rule (generic-api-key, password-assignment) does not take
//     a UUID, 40 or 64 hex digits (git SHAs, SHA-1, SHA-256) or an
//     integrity string for a secret unless the name before it says it is
//     one (secret, token, credential, password, api key, access key,
//     private key): "key": "<sha256 of a file>" is not a secret,
//     client_secret = <64 hex digits> is (one of gitleaks' vectors).
//   - Speed: gitleaks runs each expression over the whole text. Here an
//     expression that starts with a lazy run of name characters (the
//     generic rule and gitleaks' ~90 "semi-generic" ones) reads only
//     where an assignment operator follows one of its keywords, checked
//     by hand (nearAssignment; for the generic rule a value's first ten
//     characters too: its keywords "key", "token" end the names of the
//     numbers in every Claude Code line); a rule reads only texts that hold the
//     literals every match of it holds (jwt's ".ey"); and in texts longer
//     than 8 KiB a rule reads 4 KiB around its keywords. Together these
//     took the corpus from 0.9 MB/s to the figures below, with every
//     vector still found (TestGitleaksVectorsInLongText finds them inside
//     long texts, where the windows apply).
//   - Bodies are JSON. FindJSON reads a body with its strings decoded in
//     place (an escaped newline before a key would otherwise glue an "n"
//     to it, and a PEM block is \n-separated), and maps what it finds back
//     to the stored bytes, one span per JSON string, never cutting an
//     escape: replacing a span with Placeholder keeps the body valid JSON
//     (FuzzRedactJSON), so every reader of a redacted body (the
//     understanding of formats, the viewer, exports) works unchanged.
//
// # Speed
//
// BenchmarkFindJSONCorpus, the corpus's 37,745 lines scanned as stored
// bodies, on the shared 2-core machine under other jobs' load (load
// average 20): 115-124 MB/s per second of CPU (cpu-MB/s), 20-32 MB/s of
// wall clock. The first version, reading every text with every rule whose
// keyword occurs, ran at 0.9 MB/s; the windows and required literals
// took it to about 75 MB/s of CPU, and then the hand-written assignment
// check, a keyword automaton that reads a byte with one add and one load,
// and bodies without escapes scanned as they are brought it here. The
// added cost to indexing is sqlstore's BenchmarkIndexingWithSecretScan
// (see sqlstore's doc, "Secrets").
//
// # False positives
//
// TestCorpusHasNoFindings: no finding in the corpus, whose ids, UUIDs,
// SHAs, thinking signatures and usage figures are the originals';
// TestNotSecrets: hashes, UUIDs, code that names a password without
// holding one, placeholders ($TOKEN, <password>, YOUR_ACCESS_TOKEN),
// AWS's documented example key.
package secrets
