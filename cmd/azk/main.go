// Command azk plans and applies Azure Service Operator v2 manifests against
// Azure Resource Manager without a Kubernetes cluster.
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	cmd := newRootCommand(os.Stdin, os.Stdout, os.Stderr)
	cmd.SetArgs(terraformArgs(cmd, os.Args[1:]))
	os.Exit(exitCode(cmd.Execute(), os.Stderr))
}

// exitError carries a specific process exit code (for example plan's
// --detailed-exitcode 2) through cobra.
type exitError struct {
	code int
	err  error // printed when non-nil
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func exitCode(err error, stderr *os.File) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "Error:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "Error:", err)
	return 1
}
