package loader

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks is how many symbolic links one path may follow before it is
// taken to loop, as Linux counts them.
const maxLinks = 40

// linkError is a symbolic link that cannot be followed inside the tree a
// base is read from: it leads outside it, dangles or loops.
type linkError struct {
	link   string // the link's path in the tree, slash-separated
	target string // its target as stored
	reason string
	// outside says the link leads out of the tree, where no earlier
	// version of anything is kept.
	outside bool
}

func (e *linkError) Error() string {
	return fmt.Sprintf("symbolic link %s -> %s %s", e.link, e.target, e.reason)
}

// resolveIn is path, a path inside root, with its symbolic links followed
// as the system would, each target read relative to its link's folder (or
// as an absolute path), never leaving root. A link that leads outside root,
// dangles or loops is a *linkError; a path that does not exist otherwise
// gives os.Lstat's error.
func resolveIn(root, path string) (string, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || escapes(rel) {
		return "", fmt.Errorf("%s is not inside %s", path, root)
	}
	// part is one name still to resolve, with the link whose target it
	// comes from (nil for the names of path itself).
	type part struct {
		name string
		from *linkError
	}
	split := func(p string, from *linkError) []part {
		var parts []part
		for _, name := range strings.Split(filepath.ToSlash(p), "/") {
			parts = append(parts, part{name, from})
		}
		return parts
	}
	var done []string
	todo := split(rel, nil)
	for follows := 0; len(todo) > 0; {
		p := todo[0]
		todo = todo[1:]
		switch p.name {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				// Only a link's target climbs: rel is inside root.
				p.from.reason, p.from.outside = "leads outside the tree the base is read from", true
				return "", p.from
			}
			done = done[:len(done)-1]
			continue
		}
		at := filepath.Join(root, filepath.Join(done...), p.name)
		info, err := os.Lstat(at)
		if err != nil {
			if p.from != nil {
				p.from.reason = "dangles: " + filepath.ToSlash(filepath.Join(append(done, p.name)...)) + " does not exist"
				return "", p.from
			}
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			done = append(done, p.name)
			continue
		}
		target, err := os.Readlink(at)
		if err != nil {
			return "", err
		}
		link := &linkError{link: filepath.ToSlash(filepath.Join(append(done, p.name)...)), target: target}
		if follows++; follows > maxLinks {
			link.reason = fmt.Sprintf("loops: more than %d links followed", maxLinks)
			return "", link
		}
		if filepath.IsAbs(target) {
			abs, err := filepath.Abs(root)
			if err != nil {
				return "", err
			}
			if target, err = filepath.Rel(abs, target); err != nil || escapes(target) {
				link.reason, link.outside = "leads outside the tree the base is read from", true
				return "", link
			}
			done = nil
		}
		todo = append(split(target, link), todo...)
	}
	return filepath.Join(root, filepath.Join(done...)), nil
}

// escapes reports whether the relative path rel climbs out of its root.
func escapes(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
