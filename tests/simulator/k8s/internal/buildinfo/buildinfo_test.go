// Copyright (c) 2026 cubestudio maintainers
// SPDX-License-Identifier: GPL-3.0-or-later

package buildinfo

import "testing"

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"v6.0.0", "6.0.RC3", 1},
		{"7.0.RC1", "v7.0.0", -1},
		{"v26.1.0", "7.3.0", 1},
		{"v7.3.0", "7.3.0", 0},
		{"6.0.0", "6.0.0.1", -1},
	} {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
