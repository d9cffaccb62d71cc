//go:build !unix

package manifestedit

import "os"

// mayWrite: outside Unix the file's read-only attribute (its mode's write
// bit, checked by the caller) is what refuses a write.
func mayWrite(string) bool { return true }

// keepOwner: outside Unix a file has no owner and group to keep.
func keepOwner(*os.File, os.FileInfo) {}
