// Copyright (c) 2026 cubestudio maintainers
// SPDX-License-Identifier: GPL-3.0-or-later

package hwlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitWritesToTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mindx-dl", "devicePlugin", "devicePlugin.log")
	if err := Init(path, 0); err != nil {
		t.Fatal(err)
	}
	Debugf("hidden")
	Infof("device plugin starting and the version is %s", "v7.3.0")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "[INFO    ]") || !strings.Contains(string(data), "version is v7.3.0") ||
		strings.Contains(string(data), "hidden") {
		t.Fatalf("log: %q", data)
	}
}

func TestInitFailures(t *testing.T) {
	base := t.TempDir()
	blocker := filepath.Join(base, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Init(filepath.Join(blocker, "x", "a.log"), 0); err == nil ||
		!strings.HasPrefix(err.Error(), "create log dir failed") {
		t.Fatalf("folder: %v", err)
	}
	link := filepath.Join(base, "a.log")
	if err := os.Symlink(blocker, link); err != nil {
		t.Fatal(err)
	}
	if err := Init(link, 0); err == nil || !strings.HasPrefix(err.Error(), "check log file failed") {
		t.Fatalf("symlink: %v", err)
	}
	if err := Init(filepath.Join(base, "b.log"), 4); err == nil {
		t.Fatal("log level 4 accepted")
	}
}
