// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// Package pathcheck is the file check MindCluster does before it loads a library or trusts a
// file: the file and every folder above it must be owned by root and writable by nobody else.
package pathcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

const maxDepth = 20

// ErrUIDOrMode is the text of the ownership/permission failure ("check uid or mode failed").
const ErrUIDOrMode = "check uid or mode failed"

// Checker checks against an owner uid; the real stand-ins use Root.
type Checker struct {
	UID  uint32
	Stop string // the last folder checked; "/" for the real thing
}

// Root is the check of the real binaries.
var Root = Checker{UID: 0, Stop: "/"}

func (c Checker) owned(path string, info os.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Uid != c.UID || info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s: %s", path, ErrUIDOrMode)
	}
	return nil
}

// Check verifies path (following a root-owned symlink) and its parent folders.
func (c Checker) Check(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	link, err := os.Lstat(abs)
	if err != nil {
		return "", err
	}
	if link.Mode()&os.ModeSymlink != 0 {
		if st, ok := link.Sys().(*syscall.Stat_t); !ok || st.Uid != c.UID {
			return "", fmt.Errorf("%s: symlinks owner may not root", abs)
		}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	dir := real
	for depth := 0; depth <= maxDepth; depth++ {
		info, err := os.Stat(dir)
		if err != nil {
			return "", err
		}
		if err := c.owned(dir, info); err != nil {
			if dir == real {
				return "", err
			}
			return "", fmt.Errorf("%s: %w", real, err)
		}
		if dir == c.Stop || dir == "/" {
			return real, nil
		}
		dir = filepath.Dir(dir)
	}
	return "", fmt.Errorf("%s: path is too deep", real)
}
