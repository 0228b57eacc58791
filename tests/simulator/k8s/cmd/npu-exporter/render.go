// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

package main

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cubestudio.ascend/simk8s/internal/buildinfo"
	"cubestudio.ascend/simk8s/internal/npu"
)

// series is one line of a family: labels, value and an optional timestamp (ms, 0: none).
type series struct {
	labels map[string]string
	value  float64
	stamp  int64
}

type family struct {
	name, help string
	series     []series
}

func escape(value string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(value)
}

func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// write renders families in the Prometheus text format: sorted by name, labels sorted, every
// family a gauge (the real exporter declares all of them gauges).
func write(families []family) []byte {
	var b bytes.Buffer
	sort.Slice(families, func(i, j int) bool { return families[i].name < families[j].name })
	for _, f := range families {
		if len(f.series) == 0 {
			continue
		}
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", f.name, f.help, f.name)
		for _, s := range f.series {
			keys := make([]string, 0, len(s.labels))
			for k := range s.labels {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			pairs := make([]string, 0, len(keys))
			for _, k := range keys {
				pairs = append(pairs, fmt.Sprintf(`%s="%s"`, k, escape(s.labels[k])))
			}
			b.WriteString(f.name)
			if len(pairs) > 0 {
				b.WriteString("{" + strings.Join(pairs, ",") + "}")
			}
			b.WriteString(" " + formatValue(s.value))
			if s.stamp != 0 {
				b.WriteString(" " + strconv.FormatInt(s.stamp, 10))
			}
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

func modelName(s *sample) string {
	info := s.chip.Info
	return fmt.Sprintf("%s-%s-%s", info.Name, info.Type, info.Version)
}

// chipLabels is the label set of per-chip families (v6.0.RC3 and later).
func chipLabels(s *sample, nameKey string) map[string]string {
	return map[string]string{
		"id":             strconv.Itoa(s.chip.LogicID),
		nameKey:          modelName(s),
		"vdie_id":        s.chip.VDie,
		"pcie_bus_info":  s.chip.PCIe,
		"namespace":      s.namespace,
		"pod_name":       s.pod,
		"container_name": s.ctrName,
	}
}

func hasFamily(list []string, family string) bool {
	if list == nil {
		return true
	}
	for _, f := range list {
		if f == family {
			return true
		}
	}
	return false
}

func (c *collector) render() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	stamp := c.stamp.UnixMilli()
	version := buildinfo.Version
	cards := map[int]bool{}
	for _, s := range c.samples {
		cards[s.chip.Card] = true
	}
	families := []family{
		{"machine_npu_nums", "Amount of npu installed on the machine.",
			[]series{{value: float64(len(c.samples))}}},
		{"npu_exporter_version_info", "exporter version with value '1'",
			[]series{{labels: map[string]string{"exporterVersion": version}, value: 1}}},
	}
	if buildinfo.AtLeast("26.1.0") {
		families = append(families,
			family{"machine_card_nums", "Amount of npu card installed on the machine.",
				[]series{{value: float64(len(cards))}}},
			family{"node_base_info", "the node base info with value '1'",
				[]series{{labels: map[string]string{"exporterVersion": version, "driverVersion": c.driver}, value: 1}}})
	}
	for _, m := range chipMetrics {
		if m.since != "" && !buildinfo.AtLeast(m.since) {
			continue
		}
		f := family{name: m.name, help: m.help}
		for _, s := range c.samples {
			if !hasFamily(m.families, npu.Family(s.chip.Info.Name)) {
				continue
			}
			nameKey := "model_name"
			if m.name == "npu_chip_info_name" {
				nameKey = "name"
			}
			if value, ok := m.value(s); ok {
				f.series = append(f.series, series{chipLabels(s, nameKey), value, stamp})
			}
		}
		families = append(families, f)
	}
	if buildinfo.AtLeast("6.0.0") {
		for n := 1; n <= 9; n++ {
			f := family{name: fmt.Sprintf("npu_chip_info_error_code_%d", n), help: fmt.Sprintf("the npu chip error code %d", n)}
			for _, s := range c.samples {
				if len(s.errors) > n {
					f.series = append(f.series, series{chipLabels(s, "model_name"), float64(s.errors[n]), stamp})
				}
			}
			families = append(families, f)
		}
	}
	info := family{name: "npu_container_info", help: "the container name and deviceID relationship"}
	for _, ctr := range c.containers {
		for _, id := range ctr.npus {
			info.series = append(info.series, series{map[string]string{
				"containerID":   ctr.id,
				"containerName": strings.Join([]string{ctr.namespace, ctr.pod, ctr.name}, "_"),
				"npuID":         strconv.Itoa(id),
			}, 1, stamp})
		}
	}
	return write(append(families, info))
}
