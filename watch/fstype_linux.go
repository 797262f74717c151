package watch

import "syscall"

// remoteFS names the file system under dir when it is one whose changes
// inotify may not see: a network file system (changes made by other
// machines send no event), or FUSE and 9p, whose servers may change files
// behind the kernel's back. "" when it is local, or cannot be told.
func remoteFS(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return ""
	}
	return remoteMagic(int64(st.Type))
}

// remoteMagic maps a statfs f_type to the name of a file system that gives
// no reliable events (see statfs(2) and linux/magic.h).
func remoteMagic(magic int64) string {
	switch uint32(magic) {
	case 0x6969:
		return "nfs"
	case 0x517b:
		return "smb"
	case 0xff534d42:
		return "cifs"
	case 0xfe534d42:
		return "smb2"
	case 0x65735546:
		return "fuse"
	case 0x01021997:
		return "9p"
	case 0x5346414f:
		return "afs"
	case 0x00c36400:
		return "ceph"
	case 0x0bd00bd0:
		return "lustre"
	case 0x47504653:
		return "gpfs"
	case 0x564c:
		return "ncp"
	case 0x6b414653:
		return "kafs"
	}
	return ""
}
