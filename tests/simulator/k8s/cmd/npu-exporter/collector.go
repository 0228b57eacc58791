// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

package main

import (
	"sync"
	"time"

	"cubestudio.ascend/simk8s/internal/dcmi"
	"cubestudio.ascend/simk8s/internal/hwlog"
	"cubestudio.ascend/simk8s/internal/npu"
)

// sample is one chip as read in one collection.
type sample struct {
	chip                    npu.Chip
	health                  int // 1 OK, 0 not OK, -1 unknown
	errors                  []uint32
	temp, power             *float64
	aicore, overall, vector *float64
	hbm, ddr                *dcmi.Memory
	namespace, pod, ctrName string
}

// chipMetric is a per-chip family: the first version that serves it, the chip families it
// exists for (none: all) and its value (false: no series).
type chipMetric struct {
	name, help, since string
	families          []string
	value             func(s *sample) (float64, bool)
}

func ptr(v *float64) (float64, bool) {
	if v == nil {
		return 0, false
	}
	return *v, true
}

func memory(m *dcmi.Memory, used bool) (float64, bool) {
	if m == nil {
		return 0, false
	}
	if used {
		return float64(m.UsedMB), true
	}
	return float64(m.TotalMB), true
}

var chipMetrics = []chipMetric{
	{"npu_chip_info_name", "the Ascend npu name with value '1'", "", nil,
		func(*sample) (float64, bool) { return 1, true }},
	{"npu_chip_info_health_status", "whether the npu chip is healthy, 1 healthy, 0 unhealthy", "", nil,
		func(s *sample) (float64, bool) { return float64(s.health), true }},
	{"npu_chip_info_error_code", "the npu chip error code", "", nil,
		func(s *sample) (float64, bool) {
			if s.health < 0 {
				return 0, false
			}
			if len(s.errors) == 0 {
				return 0, true
			}
			return float64(s.errors[0]), true
		}},
	{"npu_chip_info_temperature", "the npu chip temperature", "", nil, func(s *sample) (float64, bool) { return ptr(s.temp) }},
	{"npu_chip_info_power", "the npu chip power", "", nil, func(s *sample) (float64, bool) { return ptr(s.power) }},
	{"npu_chip_info_utilization", "the ai core utilization", "", nil, func(s *sample) (float64, bool) { return ptr(s.aicore) }},
	{"npu_chip_info_overall_utilization", "the overall utilization of npu", "6.0.0",
		[]string{npu.Family910B, npu.FamilyA3}, func(s *sample) (float64, bool) { return ptr(s.overall) }},
	{"npu_chip_info_vector_utilization", "the vector core utilization", "", []string{npu.Family910B, npu.FamilyA3, npu.Family310P},
		func(s *sample) (float64, bool) { return ptr(s.vector) }},
	{"npu_chip_info_hbm_used_memory", "the npu chip hbm used memory (MB)", "", nil,
		func(s *sample) (float64, bool) { return memory(s.hbm, true) }},
	{"npu_chip_info_hbm_total_memory", "the npu chip hbm total memory (MB)", "", nil,
		func(s *sample) (float64, bool) { return memory(s.hbm, false) }},
	{"npu_chip_info_hbm_utilization", "the npu chip hbm utilization", "7.0.RC1", nil,
		func(s *sample) (float64, bool) {
			if s.hbm == nil || s.hbm.TotalMB == 0 {
				return 0, false
			}
			return float64(s.hbm.UsedMB * 100 / s.hbm.TotalMB), true
		}},
	{"npu_chip_info_used_memory", "the npu chip used memory (MB)", "", nil,
		func(s *sample) (float64, bool) { return memory(s.ddr, true) }},
	{"npu_chip_info_total_memory", "the npu chip total memory (MB)", "", nil,
		func(s *sample) (float64, bool) { return memory(s.ddr, false) }},
}

type collector struct {
	runtime *runtimeClient
	mu      sync.Mutex
	samples []*sample
	stamp   time.Time
	driver  string
	// containers of the last collection, for npu_container_info
	containers []container
}

func optional(value float64, err error, call string, chip npu.Chip) *float64 {
	if err != nil {
		if !dcmi.IsNotSupported(err) {
			hwlog.Debugf("%s of chip %d: %v", call, chip.LogicID, err)
		}
		return nil
	}
	return &value
}

func read(chip npu.Chip) *sample {
	s := &sample{chip: chip, health: -1}
	card, dev := chip.Card, chip.Device
	if health, err := dcmi.Health(card, dev); err == nil {
		s.health = map[bool]int{true: 1, false: 0}[health == 0]
	}
	s.errors, _ = dcmi.ErrorCodes(card, dev)
	temp, err := dcmi.Temperature(card, dev)
	s.temp = optional(float64(temp), err, "temperature", chip)
	power, err := dcmi.Power(card, dev)
	s.power = optional(power, err, "power", chip)
	for kind, out := range map[int]**float64{dcmi.UtilAICore: &s.aicore, dcmi.UtilOverall: &s.overall, dcmi.UtilVector: &s.vector} {
		rate, err := dcmi.Utilization(card, dev, kind)
		*out = optional(float64(rate), err, "utilization", chip)
	}
	if mem, err := dcmi.HBM(card, dev); err == nil {
		s.hbm = &mem
	}
	if mem, err := dcmi.DDR(card, dev); err == nil {
		s.ddr = &mem
	}
	return s
}

func (c *collector) collect() {
	chips, err := npu.Discover()
	if err != nil {
		hwlog.Errorf("get npu chip list failed, err: %v", err)
	}
	var samples []*sample
	byPhy := map[int]*sample{}
	for _, chip := range chips {
		s := read(chip)
		samples = append(samples, s)
		byPhy[chip.PhyID] = s
	}
	containers, err := c.runtime.containers()
	if err != nil {
		hwlog.Errorf("get container list failed, err: %v", err)
	}
	for _, ctr := range containers {
		for _, id := range ctr.npus {
			if s, ok := byPhy[id]; ok {
				s.namespace, s.pod, s.ctrName = ctr.namespace, ctr.pod, ctr.name
			}
		}
	}
	driver, _ := dcmi.DriverVersion()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.samples, c.stamp, c.driver = samples, time.Now(), driver
	c.containers = containers
}
