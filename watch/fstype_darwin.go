package watch

import "syscall"

// remoteFS names the file system under dir when it is one whose changes
// FSEvents/kqueue may not see (network and FUSE file systems), or "".
func remoteFS(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return ""
	}
	var b []byte
	for _, c := range st.Fstypename {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	switch name := string(b); name {
	case "nfs", "smbfs", "afpfs", "webdav", "cifs", "osxfuse", "macfuse", "fusefs":
		return name
	}
	return ""
}
