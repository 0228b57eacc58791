// Copyright (c) 2026 cubestudio maintainers
// SPDX-License-Identifier: GPL-3.0-or-later

package pathcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func setup(t *testing.T) (Checker, string, string) {
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "driver", "lib64")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libdcmi.so")
	if err := os.WriteFile(lib, []byte("x"), 0o444); err != nil {
		t.Fatal(err)
	}
	return Checker{UID: uint32(os.Getuid()), Stop: base}, base, lib
}

func TestGoodPath(t *testing.T) {
	c, _, lib := setup(t)
	got, err := c.Check(lib)
	if err != nil || got != lib {
		t.Fatalf("Check = %q, %v", got, err)
	}
}

func TestWritableFileOrFolderFails(t *testing.T) {
	c, _, lib := setup(t)
	if err := os.Chmod(lib, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Check(lib); err == nil || err.Error() != lib+": check uid or mode failed" {
		t.Fatalf("file o+w: %v", err)
	}
	_ = os.Chmod(lib, 0o444)
	if err := os.Chmod(filepath.Dir(lib), 0o775); err != nil {
		t.Fatal(err)
	}
	_, err := c.Check(lib)
	if err == nil || !strings.HasSuffix(err.Error(), "lib64: check uid or mode failed") {
		t.Fatalf("folder g+w: %v", err)
	}
}

func TestOtherOwnerFails(t *testing.T) {
	c, _, lib := setup(t)
	c.UID++
	if _, err := c.Check(lib); err == nil || !strings.Contains(err.Error(), ErrUIDOrMode) {
		t.Fatalf("owner: %v", err)
	}
}

func TestSymlinkAndMissing(t *testing.T) {
	c, base, lib := setup(t)
	link := filepath.Join(base, "link.so")
	if err := os.Symlink(lib, link); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Check(link); err != nil || got != lib {
		t.Fatalf("root-owned link: %q %v", got, err)
	}
	c.UID++
	if _, err := c.Check(link); err == nil || !strings.Contains(err.Error(), "symlinks owner may not root") {
		t.Fatalf("foreign link: %v", err)
	}
	if _, err := Root.Check(filepath.Join(base, "nope")); !os.IsNotExist(err) {
		t.Fatalf("missing: %v", err)
	}
}
