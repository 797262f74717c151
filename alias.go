package sessiondb

import "strings"

// IsPathKey reports whether key contains ':', '/' or '\'. Resolve treats
// such keys as routing names (picoclaw's "agent:main:main",
// "telegram:123"), for which an alias beats a session with that ID; for
// other keys the ID wins. See Store.Resolve.
func IsPathKey(key string) bool {
	return strings.ContainsAny(key, `:/\`)
}

// AliasOrderKey returns the key that orders the sessions listing one
// alias, first holder first: picoclaw's order, the name of the session's
// meta file — the ID with ':', '/' and '\' replaced by '_', followed by
// ".meta.json" — compared byte for byte (ties, which picoclaw cannot have,
// are broken by the ID, byte for byte). For picoclaw's sk_v1_ keys this is
// the order of the IDs.
func AliasOrderKey(id string) string {
	return strings.NewReplacer(":", "_", "/", "_", `\`, "_").Replace(id) + ".meta.json"
}
