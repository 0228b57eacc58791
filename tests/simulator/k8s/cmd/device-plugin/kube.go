// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"cubestudio.ascend/simk8s/internal/hwlog"
)

const (
	configMapPrefix = "mindx-dl-deviceinfo-"
	configMapNS     = "kube-system"
	apiTimeout      = 20 * time.Second
)

type kube struct {
	cs       kubernetes.Interface
	node     string
	resource string // huawei.com/Ascend910
}

// newKube builds the in-cluster client (BuildConfigFromFlags("", ""), as the real one).
func newKube(node, resource string) (*kube, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", "")
	if err != nil {
		return nil, fmt.Errorf("build client config err: %v", err)
	}
	cfg.Timeout = apiTimeout
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("get client set err: %v", err)
	}
	return &kube{cs: cs, node: node, resource: resource}, nil
}

// start does the API calls of the real start-up, each a verb of the ClusterRole: get and
// patch the Node, get/create and update the ConfigMap, list and watch the pods of the node.
func (k *kube) start(ctx context.Context, w nodeWrites, devices *deviceSet) error {
	node, err := k.cs.CoreV1().Nodes().Get(ctx, k.node, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get node failed, err is %v", err)
	}
	labels := map[string]string{}
	for key, value := range w.labelsIfAbsent {
		if _, ok := node.Labels[key]; !ok {
			labels[key] = value
		}
	}
	for key, value := range w.labels {
		labels[key] = value
	}
	if err := k.patchNode(ctx, labels, w.annotations); err != nil {
		return err
	}
	name := configMapPrefix + k.node
	_, err = k.cs.CoreV1().ConfigMaps(configMapNS).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: configMapNS}}
		if _, err = k.cs.CoreV1().ConfigMaps(configMapNS).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create configmap failed, err is %v", err)
		}
	} else if err != nil {
		return fmt.Errorf("get configmap failed, err is %v", err)
	}
	if err := k.writeDeviceInfo(ctx, devices); err != nil {
		return err
	}
	selector := "spec.nodeName=" + k.node
	if _, err := k.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: selector}); err != nil {
		return fmt.Errorf("get pod list failed, err: %v", err)
	}
	watcher, err := k.cs.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		return fmt.Errorf("watch pod failed, err: %v", err)
	}
	go k.watchPods(ctx, selector, watcher.ResultChan())
	return nil
}

func (k *kube) patchNode(ctx context.Context, labels, annotations map[string]string) error {
	meta := map[string]interface{}{}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	patch, _ := json.Marshal(map[string]interface{}{"metadata": meta})
	_, err := k.cs.CoreV1().Nodes().Patch(ctx, k.node, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("patch node annotation failed, err is %v", err)
	}
	return nil
}

// deviceInfo is the DeviceInfoCfg document of the ConfigMap (a reconstruction of its shape).
func deviceInfo(resource string, devices *deviceSet) string {
	good, bad := devices.lists()
	info := map[string]interface{}{
		"DeviceList": map[string]string{
			resource:                       good,
			resource + "-Unhealthy":        bad,
			resource + "-NetworkUnhealthy": "",
		},
		"UpdateTime": time.Now().Unix(),
	}
	raw, _ := json.Marshal(info)
	sum := sha256.Sum256(raw)
	doc, _ := json.Marshal(map[string]interface{}{"DeviceInfo": info, "CheckCode": hex.EncodeToString(sum[:])})
	return string(doc)
}

func (k *kube) writeDeviceInfo(ctx context.Context, devices *deviceSet) error {
	resource := k.resource
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: configMapPrefix + k.node, Namespace: configMapNS},
		Data:       map[string]string{"DeviceInfoCfg": deviceInfo(resource, devices)},
	}
	if _, err := k.cs.CoreV1().ConfigMaps(configMapNS).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update configmap failed, err is %v", err)
	}
	_, bad := devices.lists()
	return k.patchNode(ctx, nil, map[string]string{resource + "-Unhealthy": bad})
}

func (k *kube) watchPods(ctx context.Context, selector string, events <-chan watch.Event) {
	for {
		for event := range events {
			if pod, ok := event.Object.(*corev1.Pod); ok {
				hwlog.Debugf("pod %s/%s %s", pod.Namespace, pod.Name, event.Type)
			}
		}
		time.Sleep(time.Second)
		watcher, err := k.cs.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			hwlog.Errorf("watch pod failed, err: %v", err)
			continue
		}
		events = watcher.ResultChan()
	}
}
