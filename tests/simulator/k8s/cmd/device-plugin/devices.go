// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"cubestudio.ascend/simk8s/internal/dcmi"
	"cubestudio.ascend/simk8s/internal/hwlog"
	"cubestudio.ascend/simk8s/internal/npu"
)

type device struct {
	chip    npu.Chip
	name    string
	healthy bool
}

// deviceSet is the chips with their last health; changed is closed (and replaced) on a change.
type deviceSet struct {
	mu      sync.Mutex
	devices []device
	changed chan struct{}
}

func newDeviceSet(chips []npu.Chip, short string) *deviceSet {
	set := &deviceSet{changed: make(chan struct{})}
	for _, chip := range chips {
		set.devices = append(set.devices, device{chip: chip, name: npu.DeviceName(short, chip.PhyID), healthy: true})
	}
	return set
}

// healthy asks DCMI where the chip is now and how it is: gone or failing is unhealthy.
func healthy(chip npu.Chip) bool {
	card, dev, err := dcmi.CardDevice(chip.LogicID)
	if err != nil {
		return false
	}
	health, err := dcmi.Health(card, dev)
	return err == nil && health == 0
}

// poll reads the health of every chip; true when something changed.
func (s *deviceSet) poll() bool {
	states := make([]bool, len(s.devices))
	for i, d := range s.devices {
		states[i] = healthy(d.chip)
	}
	return s.update(states)
}

// update sets the health of every device (in order); true when something changed.
func (s *deviceSet) update(states []bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := false
	for i := range s.devices {
		if s.devices[i].healthy != states[i] {
			hwlog.Infof("device %s health changes to %v", s.devices[i].name, map[bool]string{true: "Healthy", false: "Unhealthy"}[states[i]])
			s.devices[i].healthy = states[i]
			changed = true
		}
	}
	if changed {
		close(s.changed)
		s.changed = make(chan struct{})
	}
	return changed
}

func (s *deviceSet) snapshot() ([]device, chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]device(nil), s.devices...), s.changed
}

func (s *deviceSet) byName(name string) (device, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.devices {
		if d.name == name {
			return d, true
		}
	}
	return device{}, false
}

// lists is the healthy and unhealthy device names, comma-joined.
func (s *deviceSet) lists() (string, string) {
	devices, _ := s.snapshot()
	var good, bad []string
	for _, d := range devices {
		if d.healthy {
			good = append(good, d.name)
		} else {
			bad = append(bad, d.name)
		}
	}
	return strings.Join(good, ","), strings.Join(bad, ",")
}

// nodeWrites is what the plugin writes on its Node: labels (some only where absent) and
// annotations.
type nodeWrites struct {
	labels, labelsIfAbsent, annotations map[string]string
}

func memoryGB(chip npu.Chip) int {
	card, dev := chip.Card, chip.Device
	if mem, err := dcmi.HBM(card, dev); err == nil {
		return int(mem.TotalMB / 1024)
	}
	if mem, err := dcmi.DDR(card, dev); err == nil {
		return int(mem.TotalMB / 1024)
	}
	return 0
}

func nodeInfo(chips []npu.Chip, family, short, driver string) nodeWrites {
	first := chips[0]
	typeName := map[string]string{
		npu.Family910A: "Ascend910", npu.Family910B: "Ascend910B", npu.FamilyA3: "Ascend910A3",
		npu.Family310P: "Ascend310P", npu.Family310: "Ascend310", npu.FamilyA5: "Ascend950",
	}[family]
	serverType := fmt.Sprintf("%s-%d", typeName, first.Info.AICores)
	w := nodeWrites{
		labels: map[string]string{
			"node.kubernetes.io/npu.chip.name": first.Info.Name,
			"huawei.com/driver.version":        driver,
			"mind-cluster/npu-chip-memory":     fmt.Sprintf("%dG", memoryGB(first)),
		},
		labelsIfAbsent: map[string]string{
			"servertype":  serverType,
			"accelerator": "huawei-" + short,
		},
		annotations: map[string]string{"serverType": serverType},
	}
	if family == npu.Family310P && first.ChipsInCard == 2 {
		w.labels["infer-card-type"] = "card-300i-duo"
	}
	if family == npu.FamilyA3 {
		w.annotations["superPodID"] = "0"
		w.annotations["serverIndex"] = "0"
	}
	base := map[string]map[string]interface{}{}
	for _, chip := range chips {
		base[npu.DeviceName(short, chip.PhyID)] = map[string]interface{}{"IP": "", "SuperDeviceID": 0}
	}
	raw, _ := json.Marshal(base)
	w.annotations["baseDeviceInfos"] = string(raw)
	return w
}
