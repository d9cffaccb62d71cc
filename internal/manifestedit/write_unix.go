//go:build unix

package manifestedit

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// mayWrite reports whether this process may write the file: the rename
// that replaces it needs only the folder's permission, so the file's own is
// checked first.
func mayWrite(path string) bool { return unix.Access(path, unix.W_OK) == nil }

// keepOwner gives the new file the old one's owner and group where this
// process may (root); otherwise it is the writer's, as any editor's save makes it.
func keepOwner(f *os.File, old os.FileInfo) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != os.Getuid() || int(st.Gid) != os.Getgid()) {
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
}
