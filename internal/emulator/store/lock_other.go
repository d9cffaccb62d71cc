//go:build !unix

package store

import "os"

// lockDir does not lock on systems without flock; one emulator per state
// folder is then up to the user.
func lockDir(string) (*os.File, error) { return nil, nil }
