// Copyright (c) 2026 cubestudio maintainers
// SPDX-License-Identifier: GPL-3.0-or-later

package main

import (
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"

	"cubestudio.ascend/simk8s/internal/buildinfo"
	"cubestudio.ascend/simk8s/internal/dcmi"
	"cubestudio.ascend/simk8s/internal/npu"
)

func chips(n int) []npu.Chip {
	out := make([]npu.Chip, n)
	for i := range out {
		out[i] = npu.Chip{Card: i, LogicID: i, PhyID: i, Info: dcmi.ChipInfo{Name: "910B3", AICores: 20}, ChipsInCard: 1}
	}
	return out
}

func TestNodeName(t *testing.T) {
	for value, want := range map[string]string{
		"":          "check node name failed: the env variable whose key is NODE_NAME must be set",
		"Bad_Name":  "check node name failed: node name Bad_Name is illegal",
		"ascend-01": "",
	} {
		t.Setenv("NODE_NAME", value)
		_, err := nodeName()
		if (err == nil && want != "") || (err != nil && err.Error() != want) {
			t.Errorf("NODE_NAME=%q: %v, want %q", value, err, want)
		}
	}
}

func TestFlagsAndParameterChecks(t *testing.T) {
	fs := flag.NewFlagSet("device-plugin", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	o := defineFlags(fs)
	if err := fs.Parse([]string{"-listWatchPeriod=2"}); err != nil {
		t.Fatal(err)
	}
	if err := o.check(); err == nil || err.Error() != "list and watch period 2 out of range" {
		t.Fatalf("period: %v", err)
	}
	if err := fs.Parse([]string{"-listWatchPeriod=5", "-presetVirtualDevice=false"}); err != nil {
		t.Fatal(err)
	}
	if err := o.check(); err == nil || !strings.Contains(err.Error(), "volcanoType should be true") {
		t.Fatalf("preset: %v", err)
	}
	if err := fs.Parse([]string{"-useAscendDocker=true"}); err == nil ||
		!strings.Contains(err.Error(), "flag provided but not defined: -useAscendDocker") {
		t.Fatalf("26.x has no -useAscendDocker: %v", err)
	}
}

func TestUseAscendDockerFollowsTheOwnEnvironment(t *testing.T) {
	saved := buildinfo.Version
	defer func() { buildinfo.Version = saved }()
	buildinfo.Version = "v6.0.0"
	fs := flag.NewFlagSet("device-plugin", flag.ContinueOnError)
	o := defineFlags(fs)
	t.Setenv("ASCEND_DOCKER_RUNTIME", "True")
	if !o.ascendDocker() {
		t.Error("env True, flag true: false")
	}
	_ = fs.Parse([]string{"-useAscendDocker=false"})
	if o.ascendDocker() {
		t.Error("flag false: true")
	}
	_ = fs.Parse([]string{"-useAscendDocker=true"})
	t.Setenv("ASCEND_DOCKER_RUNTIME", "true")
	if o.ascendDocker() {
		t.Error("only \"True\" counts")
	}
}

func TestAllocate(t *testing.T) {
	set := newDeviceSet(chips(8), "Ascend910")
	s := &pluginServer{devices: set, short: "Ascend910"}
	resp, err := s.allocate([]string{"Ascend910-3", "Ascend910-5"})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range resp.Devices {
		paths = append(paths, d.HostPath)
	}
	if strings.Join(paths, " ") != "/dev/davinci3 /dev/davinci5 /dev/davinci_manager /dev/devmm_svm /dev/hisi_hdc" ||
		len(resp.Envs) != 0 {
		t.Errorf("device mounts: %v %v", paths, resp.Envs)
	}
	s.useAscendDocker = true
	resp, _ = s.allocate([]string{"Ascend910-3", "Ascend910-5"})
	if resp.Envs["ASCEND_VISIBLE_DEVICES"] != "3,5" || len(resp.Devices) != 0 {
		t.Errorf("runtime env: %v %v", resp.Envs, resp.Devices)
	}
	if _, ok := resp.Envs["ASCEND_RUNTIME_OPTIONS"]; !ok {
		t.Error("no ASCEND_RUNTIME_OPTIONS")
	}
	if _, err := s.allocate([]string{"Ascend910-9"}); err == nil {
		t.Error("unknown device allocated")
	}
}

func TestKubeletSocketChecks(t *testing.T) {
	saved := socketDir
	defer func() { socketDir = saved }()
	socketDir = t.TempDir()
	path := filepath.Join(socketDir, "kubelet.sock")
	if err := checkKubeletSocket(); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing: %v", err)
	}
	if err := os.Symlink("/elsewhere", path); err != nil {
		t.Fatal(err)
	}
	if err := checkKubeletSocket(); err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Fatalf("symlink: %v", err)
	}
	_ = os.Remove(path)
	listener, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	err = checkKubeletSocket()
	if os.Getuid() == 0 && err != nil {
		t.Fatalf("root-owned socket: %v", err)
	}
	if os.Getuid() != 0 && (err == nil || !strings.Contains(err.Error(), "check uid or mode failed")) {
		t.Fatalf("socket of uid %d: %v", os.Getuid(), err)
	}
}

func testWrites() nodeWrites {
	return nodeWrites{
		labels:         map[string]string{"node.kubernetes.io/npu.chip.name": "910B3"},
		labelsIfAbsent: map[string]string{"servertype": "Ascend910B-20", "accelerator": "huawei-Ascend910"},
		annotations:    map[string]string{"serverType": "Ascend910B-20"},
	}
}

func newFakeKube(node *corev1.Node) (*kube, *fake.Clientset) {
	cs := fake.NewClientset(node)
	return &kube{cs: cs, node: node.Name, resource: "huawei.com/Ascend910"}, cs
}

func TestStartWritesNodeAndConfigMap(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ascend-01", Labels: map[string]string{"servertype": "mine"}}}
	k, cs := newFakeKube(node)
	set := newDeviceSet(chips(2), "Ascend910")
	set.devices[1].healthy = false
	if err := k.start(context.Background(), testWrites(), set); err != nil {
		t.Fatal(err)
	}
	got, _ := cs.CoreV1().Nodes().Get(context.Background(), "ascend-01", metav1.GetOptions{})
	if got.Labels["servertype"] != "mine" || got.Labels["accelerator"] != "huawei-Ascend910" ||
		got.Labels["node.kubernetes.io/npu.chip.name"] != "910B3" {
		t.Errorf("labels: %v", got.Labels)
	}
	if got.Annotations["huawei.com/Ascend910-Unhealthy"] != "Ascend910-1" || got.Annotations["serverType"] == "" {
		t.Errorf("annotations: %v", got.Annotations)
	}
	cm, err := cs.CoreV1().ConfigMaps("kube-system").Get(context.Background(), "mindx-dl-deviceinfo-ascend-01", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		DeviceInfo struct{ DeviceList map[string]string }
		CheckCode  string
	}
	if err := json.Unmarshal([]byte(cm.Data["DeviceInfoCfg"]), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.DeviceInfo.DeviceList["huawei.com/Ascend910"] != "Ascend910-0" ||
		doc.DeviceInfo.DeviceList["huawei.com/Ascend910-Unhealthy"] != "Ascend910-1" || len(doc.CheckCode) != 64 {
		t.Errorf("device info: %+v", doc)
	}
}

// Every verb of the ClusterRole is used at start: without it the stand-in stops, naming the call.
func TestStartStopsOnEachMissingVerb(t *testing.T) {
	for _, c := range []struct{ verb, resource, want string }{
		{"get", "nodes", "get node failed, err is"},
		{"patch", "nodes", "patch node annotation failed, err is"},
		{"get", "configmaps", "get configmap failed, err is"},
		{"create", "configmaps", "create configmap failed, err is"},
		{"update", "configmaps", "update configmap failed, err is"},
		{"list", "pods", "get pod list failed, err:"},
		{"watch", "pods", "watch pod failed, err:"},
	} {
		k, cs := newFakeKube(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ascend-01"}})
		forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: c.resource}, "x",
			errString(`User "system:serviceaccount:kube-system:ascend-device-plugin-sa" cannot `+c.verb))
		if c.verb == "watch" {
			cs.PrependWatchReactor(c.resource, func(k8stesting.Action) (bool, watch.Interface, error) {
				return true, nil, forbidden
			})
		} else {
			cs.PrependReactor(c.verb, c.resource, func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, forbidden
			})
		}
		err := k.start(context.Background(), testWrites(), newDeviceSet(chips(1), "Ascend910"))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("%s %s: %v", c.verb, c.resource, err)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

type fakeKubelet struct {
	pluginapi.UnimplementedRegistrationServer
	requests chan *pluginapi.RegisterRequest
}

func (k *fakeKubelet) Register(_ context.Context, req *pluginapi.RegisterRequest) (*pluginapi.Empty, error) {
	k.requests <- req
	return &pluginapi.Empty{}, nil
}

// The device-plugin protocol against a fake kubelet: registration, ListAndWatch, a chip
// turning Unhealthy, Allocate over gRPC.
func TestRegisterListAndWatchAllocate(t *testing.T) {
	saved := socketDir
	defer func() { socketDir = saved }()
	socketDir = t.TempDir()
	listener, err := net.Listen("unix", filepath.Join(socketDir, "kubelet.sock"))
	if err != nil {
		t.Fatal(err)
	}
	kubelet := &fakeKubelet{requests: make(chan *pluginapi.RegisterRequest, 1)}
	server := grpc.NewServer()
	pluginapi.RegisterRegistrationServer(server, kubelet)
	go func() { _ = server.Serve(listener) }()
	defer server.Stop()

	set := newDeviceSet(chips(8), "Ascend910")
	plugin := &pluginServer{devices: set, resource: "huawei.com/Ascend910", short: "Ascend910", useAscendDocker: true}
	if err := plugin.serveAndRegister(); err != nil {
		t.Fatal(err)
	}
	defer plugin.grpc.Stop()
	req := <-kubelet.requests
	if req.ResourceName != "huawei.com/Ascend910" || req.Endpoint != "Ascend910.sock" || req.Version != "v1beta1" {
		t.Fatalf("register: %+v", req)
	}
	conn, err := grpc.NewClient("unix://"+filepath.Join(socketDir, req.Endpoint),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := pluginapi.NewDevicePluginClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := client.ListAndWatch(ctx, &pluginapi.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	healthy := func(resp *pluginapi.ListAndWatchResponse) int {
		n := 0
		for _, d := range resp.Devices {
			if d.Health == pluginapi.Healthy {
				n++
			}
		}
		return n
	}
	first, err := stream.Recv()
	if err != nil || len(first.Devices) != 8 || healthy(first) != 8 {
		t.Fatalf("first list: %v %v", first, err)
	}
	states := []bool{true, true, false, true, true, true, true, true}
	if !set.update(states) || set.update(states) {
		t.Fatal("update reports changes wrongly")
	}
	second, err := stream.Recv()
	if err != nil || healthy(second) != 7 || second.Devices[2].Health != pluginapi.Unhealthy {
		t.Fatalf("after the alarm: %v %v", second, err)
	}
	resp, err := client.Allocate(ctx, &pluginapi.AllocateRequest{ContainerRequests: []*pluginapi.ContainerAllocateRequest{
		{DevicesIds: []string{"Ascend910-4"}},
	}})
	if err != nil || resp.ContainerResponses[0].Envs["ASCEND_VISIBLE_DEVICES"] != "4" {
		t.Fatalf("allocate: %v %v", resp, err)
	}
}
