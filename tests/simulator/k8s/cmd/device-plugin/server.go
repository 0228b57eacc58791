// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"

	"cubestudio.ascend/simk8s/internal/hwlog"
)

var managementDevices = []string{"/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"}

// socketDir is where the kubelet's and the plugin's sockets are (a variable for the tests).
var socketDir = pluginapi.DevicePluginPath

// checkKubeletSocket: the kubelet socket must exist, be a socket owned by root and no symlink.
func checkKubeletSocket() error {
	path := filepath.Join(socketDir, "kubelet.sock")
	info, err := os.Lstat(path)
	switch {
	case err != nil:
		return fmt.Errorf("check kubelet socket file failed: %v", err)
	case info.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("check kubelet socket file failed: %s is a symlink", path)
	case info.Mode()&os.ModeSocket == 0:
		return fmt.Errorf("check kubelet socket file failed: %s is not a socket", path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Uid != 0 {
		return fmt.Errorf("check kubelet socket file failed: %s: %s", path, "check uid or mode failed")
	}
	return nil
}

type pluginServer struct {
	pluginapi.UnimplementedDevicePluginServer
	devices         *deviceSet
	resource, short string
	useAscendDocker bool
	grpc            *grpc.Server
}

func (s *pluginServer) socket() string {
	return filepath.Join(socketDir, s.short+".sock")
}

func (s *pluginServer) serveAndRegister() error {
	_ = os.Remove(s.socket())
	listener, err := net.Listen("unix", s.socket())
	if err != nil {
		return fmt.Errorf("listen on %s failed, err: %v", s.socket(), err)
	}
	s.grpc = grpc.NewServer()
	pluginapi.RegisterDevicePluginServer(s.grpc, s)
	go func() { _ = s.grpc.Serve(listener) }()
	conn, err := grpc.NewClient("unix://"+filepath.Join(socketDir, "kubelet.sock"),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("register to kubelet failed, err: %v", err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = pluginapi.NewRegistrationClient(conn).Register(ctx, &pluginapi.RegisterRequest{
		Version:      pluginapi.Version,
		Endpoint:     filepath.Base(s.socket()),
		ResourceName: s.resource,
	})
	if err != nil {
		s.grpc.Stop()
		return fmt.Errorf("register to kubelet failed, err: %v", err)
	}
	hwlog.Infof("register %s to kubelet success", s.resource)
	return nil
}

// run polls the health every period; it serves and registers again when the kubelet removed
// the plugin socket (a kubelet restart), and writes the device info on every change.
func (s *pluginServer) run(ctx context.Context, client *kube, period int) {
	for {
		time.Sleep(time.Duration(period) * time.Second)
		if s.devices.poll() {
			if err := client.writeDeviceInfo(ctx, s.devices); err != nil {
				hwlog.Errorf("%v", err)
			}
		}
		if _, err := os.Stat(s.socket()); err != nil {
			hwlog.Warnf("%s is gone (kubelet restarted?), registering again", s.socket())
			s.grpc.Stop()
			if err := s.serveAndRegister(); err != nil {
				hwlog.Errorf("%v", err)
			}
		}
	}
}

func (s *pluginServer) GetDevicePluginOptions(context.Context, *pluginapi.Empty) (*pluginapi.DevicePluginOptions, error) {
	return &pluginapi.DevicePluginOptions{}, nil
}

func (s *pluginServer) ListAndWatch(_ *pluginapi.Empty, stream grpc.ServerStreamingServer[pluginapi.ListAndWatchResponse]) error {
	for {
		devices, changed := s.devices.snapshot()
		resp := &pluginapi.ListAndWatchResponse{}
		for _, d := range devices {
			health := pluginapi.Healthy
			if !d.healthy {
				health = pluginapi.Unhealthy
			}
			resp.Devices = append(resp.Devices, &pluginapi.Device{ID: d.name, Health: health})
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
		select {
		case <-changed:
		case <-stream.Context().Done():
			return nil
		}
	}
}

func (s *pluginServer) GetPreferredAllocation(context.Context, *pluginapi.PreferredAllocationRequest) (*pluginapi.PreferredAllocationResponse, error) {
	return &pluginapi.PreferredAllocationResponse{}, nil
}

// allocate answers one container: env for the Ascend runtime, or the device nodes.
func (s *pluginServer) allocate(ids []string) (*pluginapi.ContainerAllocateResponse, error) {
	var phys []string
	resp := &pluginapi.ContainerAllocateResponse{}
	for _, id := range ids {
		d, ok := s.devices.byName(id)
		if !ok {
			return nil, fmt.Errorf("allocate failed, the device %s is not found", id)
		}
		phys = append(phys, strconv.Itoa(d.chip.PhyID))
		path := fmt.Sprintf("/dev/davinci%d", d.chip.PhyID)
		resp.Devices = append(resp.Devices, &pluginapi.DeviceSpec{ContainerPath: path, HostPath: path, Permissions: "rw"})
	}
	if s.useAscendDocker {
		resp.Devices = nil
		resp.Envs = map[string]string{
			"ASCEND_VISIBLE_DEVICES": strings.Join(phys, ","),
			"ASCEND_RUNTIME_OPTIONS": "",
		}
		return resp, nil
	}
	for _, path := range managementDevices {
		resp.Devices = append(resp.Devices, &pluginapi.DeviceSpec{ContainerPath: path, HostPath: path, Permissions: "rw"})
	}
	return resp, nil
}

func (s *pluginServer) Allocate(_ context.Context, req *pluginapi.AllocateRequest) (*pluginapi.AllocateResponse, error) {
	out := &pluginapi.AllocateResponse{}
	for _, creq := range req.ContainerRequests {
		resp, err := s.allocate(creq.DevicesIds)
		if err != nil {
			hwlog.Errorf("%v", err)
			return nil, err
		}
		hwlog.Infof("allocate %v: %v %v", creq.DevicesIds, resp.Envs, len(resp.Devices))
		out.ContainerResponses = append(out.ContainerResponses, resp)
	}
	return out, nil
}

func (s *pluginServer) PreStartContainer(context.Context, *pluginapi.PreStartContainerRequest) (*pluginapi.PreStartContainerResponse, error) {
	return &pluginapi.PreStartContainerResponse{}, nil
}
