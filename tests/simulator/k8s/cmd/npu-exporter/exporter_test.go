// Copyright (c) 2026 cubestudio maintainers
// SPDX-License-Identifier: GPL-3.0-or-later

package main

import (
	"context"
	"flag"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"cubestudio.ascend/simk8s/internal/buildinfo"
	"cubestudio.ascend/simk8s/internal/dcmi"
	"cubestudio.ascend/simk8s/internal/npu"
)

type fakeCRI struct {
	runtimeapi.UnimplementedRuntimeServiceServer
}

func (fakeCRI) Version(context.Context, *runtimeapi.VersionRequest) (*runtimeapi.VersionResponse, error) {
	return &runtimeapi.VersionResponse{RuntimeName: "containerd", RuntimeVersion: "2.1.4", RuntimeApiVersion: "v1"}, nil
}

func (fakeCRI) ListContainers(context.Context, *runtimeapi.ListContainersRequest) (*runtimeapi.ListContainersResponse, error) {
	labels := map[string]string{
		"io.kubernetes.pod.namespace": "default", "io.kubernetes.pod.name": "train-0", "io.kubernetes.container.name": "main",
	}
	return &runtimeapi.ListContainersResponse{Containers: []*runtimeapi.Container{
		{Id: "c1", Labels: labels}, {Id: "c2", Labels: map[string]string{}},
	}}, nil
}

func (fakeCRI) ContainerStatus(_ context.Context, req *runtimeapi.ContainerStatusRequest) (*runtimeapi.ContainerStatusResponse, error) {
	env := `["PATH=/bin"]`
	if req.ContainerId == "c1" {
		env = `["PATH=/bin","ASCEND_VISIBLE_DEVICES=1,3"]`
	}
	return &runtimeapi.ContainerStatusResponse{
		Status: &runtimeapi.ContainerStatus{Id: req.ContainerId},
		Info:   map[string]string{"info": `{"runtimeSpec":{"process":{"env":` + env + `}}}`},
	}, nil
}

func serveFakeCRI(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "cri.sock")
	listener, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	runtimeapi.RegisterRuntimeServiceServer(server, fakeCRI{})
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	return path
}

func TestContainersFromTheCRI(t *testing.T) {
	path := serveFakeCRI(t)
	client, err := connectRuntime("containerd", path, path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := client.containers()
	if err != nil || len(list) != 1 {
		t.Fatalf("containers: %v %v", list, err)
	}
	c := list[0]
	if c.id != "c1" || c.namespace != "default" || c.pod != "train-0" || c.name != "main" || len(c.npus) != 2 || c.npus[1] != 3 {
		t.Errorf("container: %+v", c)
	}
}

func TestMissingRuntimeSocket(t *testing.T) {
	path := serveFakeCRI(t)
	if _, err := connectRuntime("containerd", "/nonexistent/containerd.sock", path); err == nil ||
		!strings.Contains(err.Error(), "no such file") {
		t.Errorf("containerd socket: %v", err)
	}
	if _, err := connectRuntime("docker", "", filepath.Join(t.TempDir(), "dockershim.sock")); err == nil {
		t.Error("missing CRI endpoint accepted")
	}
}

func TestFlagChecksAndModeDefaults(t *testing.T) {
	// Each case parses into flags of its own: parsed values stay in a FlagSet, and a map's order
	// is random, so a shared one let one case's -port=80 reach the next.
	parse := func(args ...string) *options {
		fs := flag.NewFlagSet("npu-exporter", flag.ContinueOnError)
		o := defineFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return o
	}
	for _, c := range []struct{ args, want string }{
		{"-ip=0.0.0.0 -port=80", "the port is invalid"},
		{"-port=8082", "the listen ip is invalid"},
		{"-ip=0.0.0.0 -updateTime=61", "the updateTime is invalid"},
		{"-ip=::1 -updateTime=5 -containerMode=podman", "containerMode only support docker, containerd or isula"},
	} {
		if err := parse(strings.Fields(c.args)...).check(); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
	o := parse("-ip=0.0.0.0", "-containerMode=containerd")
	if err := o.check(); err != nil || *o.endpoint != "/run/containerd/containerd.sock" || *o.containerd != *o.endpoint {
		t.Errorf("containerd defaults: %v %s %s", err, *o.endpoint, *o.containerd)
	}
}

func f(v float64) *float64 { return &v }

func testCollector() *collector {
	chip910b := npu.Chip{LogicID: 0, PhyID: 0, Info: dcmi.ChipInfo{Type: "Ascend", Name: "910B3", Version: "V1"},
		PCIe: "0000:C1:00.0", VDie: "42C711D4"}
	chip310p := npu.Chip{Card: 1, LogicID: 1, PhyID: 1, Info: dcmi.ChipInfo{Type: "Ascend", Name: "310P3", Version: "V1"}}
	return &collector{
		stamp:  time.UnixMilli(1767225600000),
		driver: "24.1.0",
		samples: []*sample{
			{chip: chip910b, health: 0, errors: []uint32{0xA4025021, 0x8C03A000}, temp: f(85), power: f(96.4),
				aicore: f(0), overall: f(0), vector: f(0), hbm: &dcmi.Memory{UsedMB: 3353, TotalMB: 65536},
				namespace: "default", pod: "train-0", ctrName: "main"},
			{chip: chip310p, health: 1, temp: f(51), aicore: f(0), vector: f(0), ddr: &dcmi.Memory{UsedMB: 3841, TotalMB: 21527}},
		},
		containers: []container{{id: "c1", name: "main", namespace: "default", pod: "train-0", npus: []int{0}}},
	}
}

func TestMetricsPerVersion(t *testing.T) {
	saved := buildinfo.Version
	defer func() { buildinfo.Version = saved }()
	for version, present := range map[string]map[string]bool{
		"v6.0.0":  {"npu_chip_info_hbm_utilization": false, "machine_card_nums": false, "npu_chip_info_error_code_1": true},
		"v7.3.0":  {"npu_chip_info_hbm_utilization": true, "machine_card_nums": false, "node_base_info": false},
		"v26.1.0": {"npu_chip_info_hbm_utilization": true, "machine_card_nums": true, "node_base_info": true},
	} {
		buildinfo.Version = version
		text := string(testCollector().render())
		for name, want := range present {
			if got := strings.Contains(text, "\n"+name+"{") || strings.Contains(text, "\n"+name+" "); got != want {
				t.Errorf("%s: %s present=%v, want %v", version, name, got, want)
			}
		}
		if strings.Count(text, "# TYPE") != strings.Count(text, " gauge\n") {
			t.Errorf("%s: a family is not a gauge", version)
		}
	}
	// The loop left the version of whichever map entry came last (map order is random).
	buildinfo.Version = "v26.1.0"
	text := string(testCollector().render())
	for _, line := range []string{
		`npu_chip_info_temperature{container_name="main",id="0",model_name="910B3-Ascend-V1",namespace="default",` +
			`pcie_bus_info="0000:C1:00.0",pod_name="train-0",vdie_id="42C711D4"} 85 1767225600000`,
		`npu_chip_info_health_status{container_name="",id="1",model_name="310P3-Ascend-V1",namespace="",` +
			`pcie_bus_info="",pod_name="",vdie_id=""} 1 1767225600000`,
		`npu_chip_info_name{container_name="main",id="0",name="910B3-Ascend-V1",`,
		`npu_chip_info_error_code{container_name="main",id="0",model_name="910B3-Ascend-V1",`,
		"machine_npu_nums 2\n",
		`npu_exporter_version_info{exporterVersion="v26.1.0"} 1` + "\n",
		`npu_container_info{containerID="c1",containerName="default_train-0_main",npuID="0"} 1`,
		`npu_chip_info_total_memory{container_name="",id="1",`,
	} {
		if !strings.Contains(text, line) {
			t.Errorf("missing %q", line)
		}
	}
	for _, absent := range []string{
		`npu_chip_info_overall_utilization{container_name="",id="1"`, // not on 310P
		`npu_chip_info_hbm_used_memory{container_name="",id="1"`,     // no HBM on 310P
		`npu_chip_info_power{container_name="",id="1"`,               // power NA
		`npu_chip_info_error_code_1{container_name="",id="1"`,
	} {
		if strings.Contains(text, absent) {
			t.Errorf("unexpected %q", absent)
		}
	}
}
