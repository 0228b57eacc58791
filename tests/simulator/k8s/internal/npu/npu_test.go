// Copyright (c) 2026 cubestudio maintainers
// SPDX-License-Identifier: GPL-3.0-or-later

package npu

import (
	"reflect"
	"testing"
)

func TestFamilyAndResource(t *testing.T) {
	for name, want := range map[string]string{
		"910B3": "Ascend910", "910_9391": "Ascend910", "910ProB": "Ascend910",
		"310P3": "Ascend310P", "310": "Ascend310", "310B1": "",
	} {
		if got := ResourceShortName(Family(name)); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if Family("910_9391") != FamilyA3 || Family("910B4") != Family910B || Family("910A") != Family910A {
		t.Error("families")
	}
}

func TestParseVisible(t *testing.T) {
	for value, want := range map[string][]int{
		"": nil, "void": nil, "0": {0}, "0-2,4": {0, 1, 2, 4}, "Ascend910-5,Ascend910-1": {1, 5},
		"npu-3": {3}, "2,2,1-2": {1, 2},
	} {
		got, err := ParseVisible(value)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v %v, want %v", value, got, err, want)
		}
	}
	for _, bad := range []string{"x", "3-1", "0,,1"} {
		if _, err := ParseVisible(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
