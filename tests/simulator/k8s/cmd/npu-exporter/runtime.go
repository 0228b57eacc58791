// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"cubestudio.ascend/simk8s/internal/hwlog"
	"cubestudio.ascend/simk8s/internal/npu"
)

const criTimeout = 10 * time.Second

// container is a running container that asked for NPUs (ASCEND_VISIBLE_DEVICES).
type container struct {
	id, name, namespace, pod string
	npus                     []int // physical ids
}

type runtimeClient struct {
	cri runtimeapi.RuntimeServiceClient
}

func checkSocket(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if info.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s is not a socket", path)
	}
	return nil
}

// connectRuntime connects to the CRI endpoint (and checks the containerd socket in
// containerd mode); the container specs are read through the CRI, see the README.
func connectRuntime(mode, containerd, endpoint string) (*runtimeClient, error) {
	if mode == "containerd" {
		if err := checkSocket(containerd); err != nil {
			return nil, err
		}
	}
	if err := checkSocket(endpoint); err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient("unix://"+endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	client := runtimeapi.NewRuntimeServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), criTimeout)
	defer cancel()
	version, err := client.Version(ctx, &runtimeapi.VersionRequest{})
	if err != nil {
		return nil, err
	}
	hwlog.Infof("connected to container runtime %s %s (CRI %s)", version.RuntimeName, version.RuntimeVersion,
		version.RuntimeApiVersion)
	return &runtimeClient{cri: client}, nil
}

// specEnv is the process environment in the OCI spec of containerd's verbose status info.
func specEnv(info map[string]string) []string {
	var doc struct {
		RuntimeSpec struct {
			Process struct {
				Env []string `json:"env"`
			} `json:"process"`
		} `json:"runtimeSpec"`
	}
	if json.Unmarshal([]byte(info["info"]), &doc) != nil {
		return nil
	}
	return doc.RuntimeSpec.Process.Env
}

// containers lists the running containers with their NPUs.
func (r *runtimeClient) containers() ([]container, error) {
	ctx, cancel := context.WithTimeout(context.Background(), criTimeout)
	defer cancel()
	list, err := r.cri.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{
		State: &runtimeapi.ContainerStateValue{State: runtimeapi.ContainerState_CONTAINER_RUNNING},
	}})
	if err != nil {
		return nil, err
	}
	var out []container
	for _, c := range list.Containers {
		status, err := r.cri.ContainerStatus(ctx, &runtimeapi.ContainerStatusRequest{ContainerId: c.Id, Verbose: true})
		if err != nil {
			hwlog.Warnf("get status of container %s failed: %v", c.Id, err)
			continue
		}
		for _, env := range specEnv(status.Info) {
			value, found := strings.CutPrefix(env, "ASCEND_VISIBLE_DEVICES=")
			if !found {
				continue
			}
			ids, err := npu.ParseVisible(value)
			if err != nil || len(ids) == 0 {
				break
			}
			out = append(out, container{
				id:        c.Id,
				name:      c.Labels["io.kubernetes.container.name"],
				namespace: c.Labels["io.kubernetes.pod.namespace"],
				pod:       c.Labels["io.kubernetes.pod.name"],
				npus:      ids,
			})
			break
		}
	}
	return out, nil
}
