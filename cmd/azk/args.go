package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// terraformArgs rewrites the single-dash long flags Terraform users type
// (-auto-approve, -no-color, -out FILE, -target=ADDR, -input=false, ...) to
// the double-dash form the flag parser reads; without it -no-color would be
// read as -n o-color (namespace "o-color"). A single dash followed by the
// name of one of the command's long flags is that flag; -json is Terraform's
// -o json. Single letters (-f, -R, -o) and combined shorthands (-ojson) are
// left alone, and so are flag values and everything after "--".
func terraformArgs(root *cobra.Command, args []string) []string {
	if len(args) > 1 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		// A completion request: the words before the one being completed,
		// as the command would read them (azk plan DIR -target <TAB>).
		last := len(args) - 1
		return append(append([]string{args[0]}, terraformArgs(root, args[1:last])...), args[last])
	}
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		cmd = root
	}
	lookup := func(name string) *pflag.Flag {
		if f := cmd.Flags().Lookup(name); f != nil {
			return f
		}
		return cmd.InheritedFlags().Lookup(name)
	}
	out := make([]string, 0, len(args))
	takesValue := false // the previous argument is a flag whose value follows
	for i, a := range args {
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case takesValue:
			takesValue = false
			out = append(out, a)
			continue
		case a == "-json":
			out = append(out, "--output=json")
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && len(name) > 1 && lookup(name) != nil:
			a = "-" + a
			takesValue = !hasValue && lookup(name).NoOptDefVal == ""
		case strings.HasPrefix(a, "--") && !hasValue:
			f := lookup(name)
			takesValue = f != nil && f.NoOptDefVal == ""
		case len(a) == 2 && a[0] == '-' && a[1] != '-':
			f := cmd.Flags().ShorthandLookup(a[1:])
			if f == nil {
				f = cmd.InheritedFlags().ShorthandLookup(a[1:])
			}
			takesValue = f != nil && f.NoOptDefVal == ""
		}
		out = append(out, a)
	}
	return out
}
