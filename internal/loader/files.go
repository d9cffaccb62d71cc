package loader

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ReadFile reads the regular file at path, at most limit bytes. Anything
// else is refused before it is read, with the reason: a device (/dev/zero
// never ends), a FIFO (blocks until someone writes), a socket, a directory,
// directly or through a symbolic link; and so is a file larger than limit.
func ReadFile(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := mustBeRegular(path, info, limit); err != nil {
		return nil, err
	}
	// O_NONBLOCK: a FIFO put in the file's place since Stat must not block
	// the open; it is refused below. Regular files ignore the flag.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := mustBeRegular(path, info, limit); err != nil {
		return nil, err
	}
	return readBounded(f, limit, info.Size())
}

// readBounded reads r to its end, refusing more than limit bytes. size is
// what r is expected to hold (0 when unknown): a file is read into one
// buffer of its size; a stream in pieces joined once, so that what reading
// takes stays within twice what is read, however long the stream.
func readBounded(r io.Reader, limit, size int64) ([]byte, error) {
	r = io.LimitReader(r, limit+1)
	var pieces [][]byte
	total := int64(0)
	for piece := max(min(size, limit)+1, bytes.MinRead); ; piece = min(2*piece, 1<<20) {
		buf := make([]byte, piece)
		n, err := io.ReadFull(r, buf)
		pieces, total = append(pieces, buf[:n]), total+int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if total > limit {
		return nil, &InputError{Reason: fmt.Sprintf("is more than the %d bytes azk reads from one file: refusing it", limit)}
	}
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	return bytes.Join(pieces, nil), nil
}

// InputError is an input azk refuses to read; Reason says why, after the
// file's name.
type InputError struct{ Reason string }

func (e *InputError) Error() string { return e.Reason }

// mustBeRegular refuses what info describes unless it is a regular file
// of at most limit bytes.
func mustBeRegular(path string, info fs.FileInfo, limit int64) error {
	if info.Mode().IsRegular() {
		if info.Size() > limit {
			return &InputError{Reason: fmt.Sprintf("is %d bytes, more than the %d azk reads from one file: refusing to read it", info.Size(), limit)}
		}
		return nil
	}
	what := fileKind(info.Mode())
	if link, err := os.Lstat(path); err == nil && link.Mode()&fs.ModeSymlink != 0 {
		if target, err := os.Readlink(path); err == nil {
			what = "a symbolic link to " + target + ", " + what
		}
	}
	return &InputError{Reason: "is " + what + ", not a regular file: refusing to read it"}
}

// fileKind names a file mode that is not a regular file's.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	}
	return "an irregular file"
}
