// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// Package dcmi loads libdcmi.so the way MindCluster does (dlopen from the first
// LD_LIBRARY_PATH folder that has it, else from the ldconfig cache, after the root-owned
// check) and wraps the DCMI calls the stand-ins need.
package dcmi

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

struct chip_info { unsigned char type[32]; unsigned char name[32]; unsigned char ver[32]; unsigned int aicores; };
struct pcie_info { unsigned int vendor, subvendor, device, subdevice; int domain;
                   unsigned int bus, dev, function; unsigned char reserve[32]; };
struct board_info { unsigned int board_id, pcb_id, bom_id, slot_id; };
struct hbm_info { unsigned long long size; unsigned int freq; unsigned long long usage; int temp;
                  unsigned int bandwidth; };
struct memory_info { unsigned long long size, available; unsigned int freq; unsigned long hugepagesize,
                     hugepages_total, hugepages_free; unsigned int util; unsigned char reserve[60]; };
struct die_id { unsigned int soc_die[5]; };

static void *handle;
static void *fn(const char *name) { return handle == NULL ? NULL : dlsym(handle, name); }
#define MISSING (-99998)

static const char *open_lib(const char *path) {
    handle = dlopen(path, RTLD_LAZY | RTLD_GLOBAL);
    return handle == NULL ? dlerror() : NULL;
}
static int d_init(void) { int (*f)(void) = fn("dcmi_init"); return f ? f() : MISSING; }
static int d_driver(char *buf, unsigned int len) {
    int (*f)(char *, unsigned int) = fn("dcmi_get_driver_version"); return f ? f(buf, len) : MISSING; }
static int d_cards(int *num, int *list, int len) {
    int (*f)(int *, int *, int) = fn("dcmi_get_card_num_list"); return f ? f(num, list, len) : MISSING; }
static int d_devnum(int card, int *num) {
    int (*f)(int, int *) = fn("dcmi_get_device_num_in_card"); return f ? f(card, num) : MISSING; }
static int d_chip(int card, int dev, struct chip_info *out) {
    int (*f)(int, int, struct chip_info *) = fn("dcmi_get_device_chip_info"); return f ? f(card, dev, out) : MISSING; }
static int d_logic(int *out, int card, int dev) {
    int (*f)(int *, int, int) = fn("dcmi_get_device_logic_id"); return f ? f(out, card, dev) : MISSING; }
static int d_phy(unsigned int logic, unsigned int *out) {
    int (*f)(unsigned int, unsigned int *) = fn("dcmi_get_device_phyid_from_logicid"); return f ? f(logic, out) : MISSING; }
static int d_bylogic(int *card, int *dev, unsigned int logic) {
    int (*f)(int *, int *, unsigned int) = fn("dcmi_get_card_id_device_id_from_logicid"); return f ? f(card, dev, logic) : MISSING; }
static int d_board(int card, int dev, struct board_info *out) {
    int (*f)(int, int, struct board_info *) = fn("dcmi_get_device_board_info"); return f ? f(card, dev, out) : MISSING; }
static int d_pcie(int card, int dev, struct pcie_info *out) {
    int (*f)(int, int, struct pcie_info *) = fn("dcmi_get_device_pcie_info_v2"); return f ? f(card, dev, out) : MISSING; }
static int d_die(int card, int dev, int type, struct die_id *out) {
    int (*f)(int, int, int, struct die_id *) = fn("dcmi_get_device_die_v2"); return f ? f(card, dev, type, out) : MISSING; }
static int d_health(int card, int dev, unsigned int *out) {
    int (*f)(int, int, unsigned int *) = fn("dcmi_get_device_health"); return f ? f(card, dev, out) : MISSING; }
static int d_errors(int card, int dev, int *count, unsigned int *codes, unsigned int len) {
    int (*f)(int, int, int *, unsigned int *, unsigned int) = fn("dcmi_get_device_errorcode_v2");
    return f ? f(card, dev, count, codes, len) : MISSING; }
static int d_temp(int card, int dev, int *out) {
    int (*f)(int, int, int *) = fn("dcmi_get_device_temperature"); return f ? f(card, dev, out) : MISSING; }
static int d_power(int card, int dev, int *out) {
    int (*f)(int, int, int *) = fn("dcmi_get_device_power_info"); return f ? f(card, dev, out) : MISSING; }
static int d_util(int card, int dev, int type, unsigned int *out) {
    int (*f)(int, int, int, unsigned int *) = fn("dcmi_get_device_utilization_rate"); return f ? f(card, dev, type, out) : MISSING; }
static int d_hbm(int card, int dev, struct hbm_info *out) {
    int (*f)(int, int, struct hbm_info *) = fn("dcmi_get_device_hbm_info"); return f ? f(card, dev, out) : MISSING; }
static int d_memory(int card, int dev, struct memory_info *out) {
    int (*f)(int, int, struct memory_info *) = fn("dcmi_get_device_memory_info_v3"); return f ? f(card, dev, out) : MISSING; }
*/
import "C"

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unsafe"

	"cubestudio.ascend/simk8s/internal/pathcheck"
)

// LibraryName is the file MindCluster looks for.
const LibraryName = "libdcmi.so"

// Utilization types of dcmi_get_device_utilization_rate.
const (
	UtilAICore  = 2
	UtilHBM     = 6
	UtilVector  = 12
	UtilOverall = 13
)

// NotSupported is the DCMI "not supported" code (the chip has no such thing).
const NotSupported = -8255

// Error is a failed DCMI call.
type Error struct {
	Call string
	Code int
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s failed, error code: %d", e.Call, e.Code)
}

func check(call string, rc C.int) error {
	if rc != 0 {
		return &Error{Call: call, Code: int(rc)}
	}
	return nil
}

// IsNotSupported tells a chip without the feature from a failure.
func IsNotSupported(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Code == NotSupported
}

// FindLibrary returns the first LD_LIBRARY_PATH folder's libdcmi.so, else the ldconfig cache's.
func FindLibrary() (string, error) {
	for _, dir := range strings.Split(os.Getenv("LD_LIBRARY_PATH"), ":") {
		if dir == "" {
			continue
		}
		candidate := filepath.Join(dir, LibraryName)
		if _, err := os.Stat(candidate); err == nil {
			return candidate, nil
		}
	}
	if path := fromLdconfig(); path != "" {
		return path, nil
	}
	return "", fmt.Errorf("can't find valid lib: %s is in no LD_LIBRARY_PATH folder (%s) and not in the ldconfig cache",
		LibraryName, os.Getenv("LD_LIBRARY_PATH"))
}

func fromLdconfig() string {
	if _, err := os.Stat("/sbin/ldconfig"); err != nil {
		return ""
	}
	out, err := exec.Command("/sbin/ldconfig", "--print-cache").Output()
	if err != nil {
		return ""
	}
	scanner := bufio.NewScanner(strings.NewReader(string(out)))
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if strings.HasPrefix(line, LibraryName+" ") {
			if i := strings.LastIndex(line, "=> "); i >= 0 {
				return strings.TrimSpace(line[i+3:])
			}
		}
	}
	return ""
}

// Open finds libdcmi.so, checks it is root-owned and loads it (not yet dcmi_init).
func Open(checker pathcheck.Checker) (string, error) {
	path, err := FindLibrary()
	if err != nil {
		return "", err
	}
	real, err := checker.Check(path)
	if err != nil {
		return "", err
	}
	cpath := C.CString(real)
	defer C.free(unsafe.Pointer(cpath))
	if msg := C.open_lib(cpath); msg != nil {
		return "", fmt.Errorf("dlopen %s failed: %s", real, C.GoString(msg))
	}
	return real, nil
}

// Init is dcmi_init.
func Init() error { return check("dcmi init", C.d_init()) }

// DriverVersion is dcmi_get_driver_version.
func DriverVersion() (string, error) {
	buf := make([]byte, 64)
	rc := C.d_driver((*C.char)(unsafe.Pointer(&buf[0])), C.uint(len(buf)))
	if err := check("dcmi_get_driver_version", rc); err != nil {
		return "", err
	}
	return C.GoString((*C.char)(unsafe.Pointer(&buf[0]))), nil
}

// Cards is dcmi_get_card_num_list.
func Cards() ([]int, error) {
	var num C.int
	list := make([]C.int, 64)
	if err := check("dcmi_get_card_num_list", C.d_cards(&num, &list[0], C.int(len(list)))); err != nil {
		return nil, err
	}
	out := make([]int, int(num))
	for i := range out {
		out[i] = int(list[i])
	}
	return out, nil
}

// DeviceNum is dcmi_get_device_num_in_card.
func DeviceNum(card int) (int, error) {
	var num C.int
	err := check("dcmi_get_device_num_in_card", C.d_devnum(C.int(card), &num))
	return int(num), err
}

// ChipInfo is what dcmi_get_device_chip_info returns.
type ChipInfo struct {
	Type, Name, Version string
	AICores             int
}

// Chip is dcmi_get_device_chip_info.
func Chip(card, dev int) (ChipInfo, error) {
	var info C.struct_chip_info
	if err := check("dcmi_get_device_chip_info", C.d_chip(C.int(card), C.int(dev), &info)); err != nil {
		return ChipInfo{}, err
	}
	return ChipInfo{
		Type:    C.GoString((*C.char)(unsafe.Pointer(&info._type[0]))),
		Name:    C.GoString((*C.char)(unsafe.Pointer(&info.name[0]))),
		Version: C.GoString((*C.char)(unsafe.Pointer(&info.ver[0]))),
		AICores: int(info.aicores),
	}, nil
}

// LogicID is dcmi_get_device_logic_id.
func LogicID(card, dev int) (int, error) {
	var id C.int
	err := check("dcmi_get_device_logic_id", C.d_logic(&id, C.int(card), C.int(dev)))
	return int(id), err
}

// PhyID is dcmi_get_device_phyid_from_logicid.
func PhyID(logic int) (int, error) {
	var id C.uint
	err := check("dcmi_get_device_phyid_from_logicid", C.d_phy(C.uint(logic), &id))
	return int(id), err
}

// CardDevice is dcmi_get_card_id_device_id_from_logicid: where a chip is now.
func CardDevice(logic int) (int, int, error) {
	var card, dev C.int
	err := check("dcmi_get_card_id_device_id_from_logicid", C.d_bylogic(&card, &dev, C.uint(logic)))
	return int(card), int(dev), err
}

// BoardID is the board id of dcmi_get_device_board_info.
func BoardID(card, dev int) (int, error) {
	var info C.struct_board_info
	err := check("dcmi_get_device_board_info", C.d_board(C.int(card), C.int(dev), &info))
	return int(info.board_id), err
}

// PCIeBusInfo is dcmi_get_device_pcie_info_v2 as npu-smi prints it ("0000:C1:00.0").
func PCIeBusInfo(card, dev int) (string, error) {
	var info C.struct_pcie_info
	if err := check("dcmi_get_device_pcie_info_v2", C.d_pcie(C.int(card), C.int(dev), &info)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%04X:%02X:%02X.%X", int(info.domain), uint(info.bus), uint(info.dev), uint(info.function)), nil
}

// VDieID is the VDIE id of dcmi_get_device_die_v2: five hex words, run together.
func VDieID(card, dev int) (string, error) {
	var die C.struct_die_id
	if err := check("dcmi_get_device_die_v2", C.d_die(C.int(card), C.int(dev), 1, &die)); err != nil {
		return "", err
	}
	words := make([]string, 0, 5)
	for _, w := range die.soc_die {
		words = append(words, fmt.Sprintf("%08X", uint32(w)))
	}
	return strings.Join(words, ""), nil
}

// Health is dcmi_get_device_health: 0 OK, 1 warning, 2 alarm, 3 critical.
func Health(card, dev int) (int, error) {
	var health C.uint
	err := check("dcmi_get_device_health", C.d_health(C.int(card), C.int(dev), &health))
	return int(health), err
}

// ErrorCodes is dcmi_get_device_errorcode_v2.
func ErrorCodes(card, dev int) ([]uint32, error) {
	var count C.int
	codes := make([]C.uint, 128)
	rc := C.d_errors(C.int(card), C.int(dev), &count, &codes[0], C.uint(len(codes)))
	if err := check("dcmi_get_device_errorcode_v2", rc); err != nil {
		return nil, err
	}
	out := make([]uint32, 0, int(count))
	for i := 0; i < int(count) && i < len(codes); i++ {
		out = append(out, uint32(codes[i]))
	}
	return out, nil
}

// Temperature is dcmi_get_device_temperature (Celsius).
func Temperature(card, dev int) (int, error) {
	var t C.int
	err := check("dcmi_get_device_temperature", C.d_temp(C.int(card), C.int(dev), &t))
	return int(t), err
}

// Power is dcmi_get_device_power_info in watts.
func Power(card, dev int) (float64, error) {
	var p C.int
	err := check("dcmi_get_device_power_info", C.d_power(C.int(card), C.int(dev), &p))
	return float64(p) / 10, err
}

// Utilization is dcmi_get_device_utilization_rate (percent).
func Utilization(card, dev, kind int) (int, error) {
	var u C.uint
	err := check("dcmi_get_device_utilization_rate", C.d_util(C.int(card), C.int(dev), C.int(kind), &u))
	return int(u), err
}

// Memory is used and total MB (HBM or DDR).
type Memory struct{ UsedMB, TotalMB uint64 }

// HBM is dcmi_get_device_hbm_info.
func HBM(card, dev int) (Memory, error) {
	var info C.struct_hbm_info
	err := check("dcmi_get_device_hbm_info", C.d_hbm(C.int(card), C.int(dev), &info))
	return Memory{UsedMB: uint64(info.usage), TotalMB: uint64(info.size)}, err
}

// DDR is dcmi_get_device_memory_info_v3.
func DDR(card, dev int) (Memory, error) {
	var info C.struct_memory_info
	err := check("dcmi_get_device_memory_info_v3", C.d_memory(C.int(card), C.int(dev), &info))
	return Memory{UsedMB: uint64(info.size - info.available), TotalMB: uint64(info.size)}, err
}
