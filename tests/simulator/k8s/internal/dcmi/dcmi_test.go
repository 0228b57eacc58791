// Copyright (c) 2026 cubestudio maintainers
// SPDX-License-Identifier: GPL-3.0-or-later

package dcmi

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cubestudio.ascend/simk8s/internal/pathcheck"
)

// The simulated library itself (tests/simulator/dcmi), built here, with a hand-written view:
// the cgo structures must match the C ones.
const view = `init 0
driver 24.1.0
dev DEV
chip card=0 dev=0 logic=0 phy=0 slot=0 name=910B3 aicores=20 health=0 temp=44 power=944 aicore=0 hbm=3353/65536 ddr=0/0 board=0x33 pcie=0000:c1:00.0 vendor=0x19e5 device=0xd802 subvendor=0x19e5 subdevice=0x3000 vdie=42C711D4,1,2,3,4 errors=-
chip card=1 dev=0 logic=1 phy=1 slot=1 name=910B3 aicores=20 health=2 temp=85 power=-1 aicore=7 hbm=- ddr=3841/21527 board=0x33 pcie=- vendor=0x19e5 device=0xd802 subvendor=0x19e5 subdevice=0x3000 vdie=- errors=A4025021,8C03A000
chip card=2 dev=0 logic=2 phy=2 slot=2 name=910B3 aicores=20 health=0 temp=44 power=944 board=0x33
`

func TestAgainstTheSimulatedLibrary(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	base := t.TempDir()
	_ = os.Chmod(base, 0o755)
	lib := filepath.Join(base, "driver", "lib64", "driver")
	dev := filepath.Join(base, "dev")
	for _, dir := range []string{lib, dev} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, _ := filepath.Abs("../../../dcmi/libdcmi.c")
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-O2", "-o", filepath.Join(lib, LibraryName), src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v %s", err, out)
	}
	text := strings.Replace(view, "DEV", dev, 1)
	if err := os.WriteFile(filepath.Join(lib, "ascend-sim-dcmi.view"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"davinci0", "davinci1"} { // davinci2 is missing: chip 2 is not shown
		if err := os.WriteFile(filepath.Join(dev, node), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("LD_LIBRARY_PATH", "/nonexistent:"+lib)
	if _, err := Open(pathcheck.Checker{UID: uint32(os.Getuid()), Stop: "/"}); err == nil {
		t.Fatal("a library below a world-writable temporary folder passed the check")
	}
	path, err := Open(pathcheck.Checker{UID: uint32(os.Getuid()), Stop: base})
	if err != nil || path != filepath.Join(lib, LibraryName) {
		t.Fatalf("Open: %q %v", path, err)
	}
	if err := Init(); err != nil {
		t.Fatal(err)
	}
	cards, err := Cards()
	if err != nil || len(cards) != 2 {
		t.Fatalf("cards %v %v", cards, err)
	}
	info, _ := Chip(0, 0)
	pcie, _ := PCIeBusInfo(0, 0)
	vdie, _ := VDieID(0, 0)
	hbm, _ := HBM(0, 0)
	power, _ := Power(0, 0)
	version, _ := DriverVersion()
	if info != (ChipInfo{"Ascend", "910B3", "V1", 20}) || pcie != "0000:C1:00.0" || vdie != "42C711D400000001000000020000000300000004" ||
		hbm != (Memory{3353, 65536}) || power != 94.4 || version != "24.1.0" {
		t.Errorf("chip 0: %+v %s %s %+v %v %s", info, pcie, vdie, hbm, power, version)
	}
	health, _ := Health(1, 0)
	codes, _ := ErrorCodes(1, 0)
	ddr, _ := DDR(1, 0)
	util, _ := Utilization(1, 0, UtilAICore)
	if health != 2 || len(codes) != 2 || codes[0] != 0xA4025021 || ddr != (Memory{3841, 21527}) || util != 7 {
		t.Errorf("chip 1: %d %x %+v %d", health, codes, ddr, util)
	}
	if _, err := Power(1, 0); !IsNotSupported(err) {
		t.Errorf("power NA: %v", err)
	}
	if _, err := HBM(1, 0); !IsNotSupported(err) {
		t.Errorf("no HBM: %v", err)
	}
	if card, dev, err := CardDevice(1); err != nil || card != 1 || dev != 0 {
		t.Errorf("CardDevice: %d %d %v", card, dev, err)
	}
	if _, err := Health(2, 0); err == nil || err.Error() != "dcmi_get_device_health failed, error code: -8008" {
		t.Errorf("missing davinci2: %v", err)
	}
	text = strings.Replace(text, "init 0", "init -8005", 1)
	if err := os.WriteFile(filepath.Join(lib, "ascend-sim-dcmi.view"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Init(); err == nil || err.Error() != "dcmi init failed, error code: -8005" {
		t.Errorf("device not started: %v", err)
	}
}
