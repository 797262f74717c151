package foreigndb

// Reading SQLite's write-ahead log format (https://sqlite.org/fileformat2.html#walformat),
// to know which of its bytes hold committed transactions: the log does not
// only grow. After a checkpoint has moved every frame into the main file,
// the writer starts the log again at its start (new salts in the header)
// and writes its next transactions over the old frames in place; and
// within a transaction it may write a frame again, and the checksums of
// the frames after it, before the commit frame. So a copy is brought up to
// date from the end of its last commit frame, by the frames whose salts and
// checksum chain continue the copy's, up to the source's last commit frame.

import (
	"encoding/binary"
	"io"
)

const (
	walMagicLE      = 0x377f0682 // checksums over little-endian words
	walMagicBE      = 0x377f0683 // over big-endian words
	walFrameHdrSize = 24
)

// walHeader is what frames are checked against.
type walHeader struct {
	pageSize uint32
	bigEnd   bool
	salt     [2]uint32
	cksum    [2]uint32 // the header's checksum: the frames' chain starts here
}

// parseWALHeader reads a log's 32-byte header; ok is false when it is not
// a valid one (a log not yet written, or being written).
func parseWALHeader(b []byte) (walHeader, bool) {
	var h walHeader
	if len(b) < walHeaderSize {
		return h, false
	}
	magic := binary.BigEndian.Uint32(b[0:4])
	if magic != walMagicLE && magic != walMagicBE {
		return h, false
	}
	h.bigEnd = magic == walMagicBE
	h.pageSize = binary.BigEndian.Uint32(b[8:12])
	if h.pageSize == 1 {
		h.pageSize = 65536
	}
	if h.pageSize < 512 || h.pageSize > 65536 || h.pageSize&(h.pageSize-1) != 0 {
		return h, false
	}
	h.salt = [2]uint32{binary.BigEndian.Uint32(b[16:20]), binary.BigEndian.Uint32(b[20:24])}
	h.cksum = [2]uint32{binary.BigEndian.Uint32(b[24:28]), binary.BigEndian.Uint32(b[28:32])}
	if walChecksum(h.bigEnd, b[:24], [2]uint32{}) != h.cksum {
		return h, false
	}
	return h, true
}

// walChecksum continues SQLite's log checksum s over b (a multiple of 8
// bytes), reading 32-bit words in the log's byte order.
func walChecksum(bigEnd bool, b []byte, s [2]uint32) [2]uint32 {
	word := binary.LittleEndian.Uint32
	if bigEnd {
		word = binary.BigEndian.Uint32
	}
	for i := 0; i+8 <= len(b); i += 8 {
		s[0] += word(b[i:]) + s[1]
		s[1] += word(b[i+4:]) + s[0]
	}
	return s
}

// walCommitted scans the frames of the log r from offset off, whose
// checksum chain there is ck, and returns the end of the last commit
// frame it reaches (off when none) with the chain after it, and, when keep
// is set, the bytes of the committed frames it read (what a copy must
// append: read once, so that what is kept is what was checked). It stops
// at the first frame that is not whole, whose salts are not the header's,
// or whose checksum does not continue the chain: beyond is an uncommitted
// or torn transaction, or frames of the log before it was restarted.
func walCommitted(r io.ReaderAt, h walHeader, off int64, ck [2]uint32, keep bool) (int64, [2]uint32, []byte) {
	frame := make([]byte, walFrameHdrSize+int(h.pageSize))
	end, endCk := off, ck
	var read, kept []byte
	for pos := off; ; pos += int64(len(frame)) {
		if n, err := r.ReadAt(frame, pos); n < len(frame) || (err != nil && err != io.EOF) {
			return end, endCk, kept
		}
		pgno := binary.BigEndian.Uint32(frame[0:4])
		commit := binary.BigEndian.Uint32(frame[4:8])
		if pgno == 0 || binary.BigEndian.Uint32(frame[8:12]) != h.salt[0] || binary.BigEndian.Uint32(frame[12:16]) != h.salt[1] {
			return end, endCk, kept
		}
		ck = walChecksum(h.bigEnd, frame[:8], ck)
		ck = walChecksum(h.bigEnd, frame[walFrameHdrSize:], ck)
		if ck != [2]uint32{binary.BigEndian.Uint32(frame[16:20]), binary.BigEndian.Uint32(frame[20:24])} {
			return end, endCk, kept
		}
		if keep {
			read = append(read, frame...)
		}
		if commit != 0 {
			end, endCk = pos+int64(len(frame)), ck
			kept = read
		}
	}
}
