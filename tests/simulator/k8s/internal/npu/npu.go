// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// Package npu is what both stand-ins know about the chips: discovery through DCMI, the chip
// family by name, the Kubernetes resource names and the device ids in ASCEND_VISIBLE_DEVICES.
package npu

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"cubestudio.ascend/simk8s/internal/dcmi"
)

// Families, as MindCluster tells them apart.
const (
	Family910A  = "910"
	Family910B  = "910B"
	FamilyA3    = "A3"
	Family310P  = "310P"
	Family310   = "310"
	FamilyA5    = "A5"
	ResPrefix   = "huawei.com/"
	Unsupported = ""
)

// Chip is one NPU chip (one /dev/davinci<logic>).
type Chip struct {
	Card, Device, LogicID, PhyID int
	Info                         dcmi.ChipInfo
	BoardID                      int
	PCIe                         string // "" when the chip has no PCIe bus (SoC)
	VDie                         string
	ChipsInCard                  int
}

// Family of a chip name: 910B<n> -> 910B, 910_93xx -> A3, 910... -> 910, 310P... -> 310P.
func Family(name string) string {
	switch {
	case strings.HasPrefix(name, "910B"):
		return Family910B
	case strings.HasPrefix(name, "910_93"):
		return FamilyA3
	case strings.HasPrefix(name, "910"):
		return Family910A
	case strings.HasPrefix(name, "310P"):
		return Family310P
	case strings.HasPrefix(name, "310B"):
		return Unsupported
	case strings.HasPrefix(name, "310"):
		return Family310
	case strings.HasPrefix(name, "950"):
		return FamilyA5
	}
	return Unsupported
}

// ResourceShortName is the resource of a family without the huawei.com/ prefix ("Ascend910").
func ResourceShortName(family string) string {
	switch family {
	case Family910A, Family910B, FamilyA3:
		return "Ascend910"
	case Family310P:
		return "Ascend310P"
	case Family310:
		return "Ascend310"
	case FamilyA5:
		return "npu"
	}
	return ""
}

// DeviceName is the device id the plugin reports for a chip ("Ascend910-3": physical id).
func DeviceName(short string, phy int) string {
	return fmt.Sprintf("%s-%d", short, phy)
}

// Discover lists the chips DCMI shows (after dcmi_init).
func Discover() ([]Chip, error) {
	cards, err := dcmi.Cards()
	if err != nil {
		return nil, err
	}
	var chips []Chip
	for _, card := range cards {
		count, err := dcmi.DeviceNum(card)
		if err != nil {
			return nil, err
		}
		for dev := 0; dev < count; dev++ {
			chip := Chip{Card: card, Device: dev, ChipsInCard: count}
			if chip.Info, err = dcmi.Chip(card, dev); err != nil {
				return nil, err
			}
			if chip.LogicID, err = dcmi.LogicID(card, dev); err != nil {
				return nil, err
			}
			if chip.PhyID, err = dcmi.PhyID(chip.LogicID); err != nil {
				return nil, err
			}
			if chip.BoardID, err = dcmi.BoardID(card, dev); err != nil {
				return nil, err
			}
			if chip.PCIe, err = dcmi.PCIeBusInfo(card, dev); err != nil && !dcmi.IsNotSupported(err) {
				return nil, err
			}
			if chip.VDie, err = dcmi.VDieID(card, dev); err != nil {
				return nil, err
			}
			chips = append(chips, chip)
		}
	}
	sort.Slice(chips, func(i, j int) bool { return chips[i].PhyID < chips[j].PhyID })
	return chips, nil
}

var nameID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*-(\d+)$`)

// ParseVisible reads ASCEND_VISIBLE_DEVICES ("0-2,4", "Ascend910-1,Ascend910-3"; "" and
// "void" mean none) into physical ids.
func ParseVisible(value string) ([]int, error) {
	value = strings.TrimSpace(value)
	if value == "" || value == "void" {
		return nil, nil
	}
	seen := map[int]bool{}
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		if m := nameID.FindStringSubmatch(item); m != nil {
			id, _ := strconv.Atoi(m[1])
			seen[id] = true
			continue
		}
		low, high, found := strings.Cut(item, "-")
		lo, err := strconv.Atoi(low)
		if err != nil {
			return nil, fmt.Errorf("invalid device %q in %q", item, value)
		}
		hi := lo
		if found {
			if hi, err = strconv.Atoi(high); err != nil || hi < lo {
				return nil, fmt.Errorf("invalid range %q in %q", item, value)
			}
		}
		for id := lo; id <= hi; id++ {
			seen[id] = true
		}
	}
	out := make([]int, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Ints(out)
	return out, nil
}
