// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// Package buildinfo holds the MindCluster version a stand-in is built as (set with -ldflags
// "-X cubestudio.ascend/simk8s/internal/buildinfo.Version=v7.3.0") and compares versions.
package buildinfo

import (
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

// Version is the MindCluster release the binary stands in for, e.g. "v26.1.0".
var Version = "v26.1.0"

// Commit and Branch are printed by -version like the real binaries do.
var (
	Commit = "ascend-sim"
	Branch = "ascend-sim"
)

// VersionLine is what -version prints.
func VersionLine() string {
	return fmt.Sprintf("version=%s commit=%s branch=%s os=%s arch=%s goVersion=%s",
		Version, Commit, Branch, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

var token = regexp.MustCompile(`^(rc)?(\d+)$`)

// key orders Ascend versions: 7.0.RC1 < 7.0.0 < 7.0.1; v prefix and case ignored.
func key(version string) []int {
	out := []int{}
	for _, part := range strings.Split(strings.TrimPrefix(strings.ToLower(version), "v"), ".") {
		m := token.FindStringSubmatch(part)
		if m == nil {
			out = append(out, 0, 0)
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if m[1] == "rc" {
			out = append(out, -1, n) // an RC comes before the final release
		} else {
			out = append(out, n, 0)
		}
	}
	return out
}

// Compare returns -1, 0 or 1 as a is older than, equal to or newer than b.
func Compare(a, b string) int {
	ka, kb := key(a), key(b)
	for i := 0; i < len(ka) || i < len(kb); i++ {
		x, y := 0, 0
		if i < len(ka) {
			x = ka[i]
		}
		if i < len(kb) {
			y = kb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// AtLeast tells whether the built version is minimum or newer.
func AtLeast(minimum string) bool {
	return Compare(Version, minimum) >= 0
}
