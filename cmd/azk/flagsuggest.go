package main

import (
	"errors"
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

// dryRunHints point kubectl's --dry-run, by command, to azk plan.
var dryRunHints = map[string]string{
	"apply":   " (azk plan is apply's dry run: it shows what apply would do and writes nothing)",
	"plan":    " (azk plan never writes: it is the dry run already)",
	"destroy": " (azk plan --destroy is destroy's dry run: it shows what destroy would do and deletes nothing)",
}

func init() { subcommands = append(subcommands, newDiffCommand) }

// newDiffCommand is kubectl diff, hidden: azk plan does its job.
func newDiffCommand(*globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:                "diff",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("azk has no diff: azk plan PATH... shows what applying would change, kubectl diff's job, and writes nothing")
		},
	}
}

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
	if word == "dry-run" {
		hint = dryRunHints[cmd.Name()]
	}
	return fmt.Errorf("%w%s: see %s --help for its flags", err, hint, cmd.CommandPath())
}
