//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

const lockFile = "state.lock"

// lockDir takes an exclusive lock on the state folder, so that a second
// emulator on it (another azk emulator, or an apply --emulator) fails at once
// instead of interleaving its journal with this one's. The lock is an flock on
// state.lock, released by the kernel when the process dies; the file holds the
// holder's PID for the message.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := "another process"
			if data, rerr := os.ReadFile(path); rerr == nil {
				if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); perr == nil {
					holder = "process " + strconv.Itoa(pid)
				}
			}
			return nil, fmt.Errorf("emulator state folder %s is in use by %s (another azk emulator or --emulator run); stop it or choose another folder", dir, holder)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
