//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// onTerminal runs azk with a pseudo-terminal as standard input, as a user
// at a terminal does, typing answer when it asks: confirm's questions are
// asked only on a terminal. It skips where the system has no
// pseudo-terminals.
func onTerminal(t *testing.T, answer string, args ...string) (string, string, int) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to answer on: %v", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	defer tty.Close()
	// The answer waits in the terminal's input until confirm reads it.
	if _, err := master.WriteString(answer + "\n"); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := runAzkFrom(tty, &out, &errOut, args...)
	return out.String(), errOut.String(), code
}
