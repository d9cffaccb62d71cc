package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/azkcli/azk/internal/suggest"
)

// The flag parser's errors for a flag the command does not have: a long
// one (--emulater), or a single-dash word read as shorthands (-emulater,
// Terraform's form, fails on its first letter).
var (
	unknownLongFlag  = regexp.MustCompile(`^unknown flag: --([^\s=]+)`)
	unknownShorthand = regexp.MustCompile(`^unknown shorthand flag: '.' in -([^\s=]+)`)
)

// suggestFlag adds to an unknown flag's error the nearest flag of the
// command ("did you mean --emulator?") and where to see them all, as cobra
// does for a misspelt command.
func suggestFlag(cmd *cobra.Command, err error) error {
	var word string
	switch long, short := unknownLongFlag.FindStringSubmatch(err.Error()), unknownShorthand.FindStringSubmatch(err.Error()); {
	case long != nil:
		word = long[1]
	case short != nil && len(short[1]) > 1:
		word = short[1]
		err = fmt.Errorf("unknown flag: -%s", word)
	case short == nil:
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			names = append(names, f.Name)
		}
	})
	hint := ""
	if s := suggest.Nearest(strings.TrimLeft(word, "-"), names); s != "" && word != "" {
		hint = fmt.Sprintf(" (did you mean --%s?)", s)
	}
	return fmt.Errorf("%w%s: see %s --help for its flags", err, hint, cmd.CommandPath())
}
