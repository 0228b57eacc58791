// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// Command device-plugin stands in for Huawei's Ascend device plugin (MindCluster) in the tests
// of cubestudio.ascend: the same flags, start order, checks and messages, the kubelet
// device-plugin protocol, and the NPUs of the simulated libdcmi.so. See
// tests/simulator/README.md ("Kubernetes stand-ins").
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"

	"cubestudio.ascend/simk8s/internal/buildinfo"
	"cubestudio.ascend/simk8s/internal/dcmi"
	"cubestudio.ascend/simk8s/internal/hwlog"
	"cubestudio.ascend/simk8s/internal/npu"
	"cubestudio.ascend/simk8s/internal/pathcheck"
)

type options struct {
	version, volcanoType, presetVirtualDevice, useAscendDocker *bool
	logFile                                                    *string
	logLevel, listWatchPeriod                                  *int
	enableHealthz                                              *bool
	healthzAddress                                             *string
}

// defineFlags declares the flags of the version built (mind-cluster main.go); the ones the
// stand-in does not act on are accepted and ignored, as an unknown flag would stop it.
func defineFlags(fs *flag.FlagSet) *options {
	o := &options{
		version:             fs.Bool("version", false, "Output version information"),
		volcanoType:         fs.Bool("volcanoType", false, "Specifies whether to use volcano for scheduling"),
		presetVirtualDevice: fs.Bool("presetVirtualDevice", true, "Open the static of computing power splitting function"),
		logFile: fs.String("logFile", "/var/log/mindx-dl/devicePlugin/devicePlugin.log",
			"The log file path, if the file size exceeds 20MB, will be rotate"),
		logLevel:        fs.Int("logLevel", 0, "Log level, -1-debug, 0-info, 1-warning, 2-error, 3-critical(default 0)"),
		listWatchPeriod: fs.Int("listWatchPeriod", 5, "Listen and watch device state's period time in seconds, range [3, 1800]"),
	}
	fs.Bool("fdFlag", false, "Whether to use fd system to manage device (default false)")
	fs.String("edgeLogFile", "/var/alog/AtlasEdge_log/devicePlugin.log", "Edge log file path")
	fs.Bool("autoStowing", true, "Whether to automatically stow the fixed device")
	fs.Int("maxAge", 7, "Maximum number of days for backup run log files")
	fs.Int("maxBackups", 30, "Maximum number of backup log files")
	fs.Bool("use310PMixedInsert", false, "Whether to use mixed insert 310P cards")
	fs.Int("hotReset", -1, "Reset the device when it is faulty: -1 off, 0 inference, 1 online training, 2 offline training")
	fs.Uint("shareDevCount", 1, "Share device function, the count of sharing one device, range [1, 100]")
	fs.Int64("linkdownTimeout", 30, "Timeout of a link down of the NPU network, range [1, 30]")
	fs.Bool("dealWatchHandler", false, "Whether to rebuild the informer of pods on a watch error")
	fs.Bool("checkCachedPods", true, "Whether to check the cached pods periodically")
	fs.Bool("enableSlowNode", false, "Whether to enable slow node detection")
	if buildinfo.Compare(buildinfo.Version, "7.0.0") < 0 {
		o.useAscendDocker = fs.Bool("useAscendDocker", true, "Whether to use ascend docker, will be deprecated")
	}
	if buildinfo.AtLeast("26.0.0") {
		fs.Int("thirdPartyScanDelay", 300, "Delay of the third-party fault scan in seconds")
		fs.Int("deviceResetTimeout", 60, "Timeout of a device reset in seconds")
		fs.String("softShareDevConfigDir", "", "Folder of the soft-share device configuration")
		fs.Int("softShareCoreScaling", 0, "Core scaling of soft sharing")
		fs.Bool("useSingleDieMode", false, "Whether to report A3 dies as single devices")
		fs.Bool("getPodFromKubelet", false, "Whether to read pods from the kubelet instead of the API server")
		o.enableHealthz = fs.Bool("enable-healthz", false, "Whether to serve the health check endpoint")
		o.healthzAddress = fs.String("healthz-address", "11251", "Port of the health check endpoint")
	}
	return o
}

func (o *options) check() error {
	if *o.listWatchPeriod < 3 || *o.listWatchPeriod > 1800 {
		return fmt.Errorf("list and watch period %d out of range", *o.listWatchPeriod)
	}
	if !*o.presetVirtualDevice && !*o.volcanoType {
		return fmt.Errorf("presetVirtualDevice is false, volcanoType should be true")
	}
	return nil
}

var nodeNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)

// nodeName is NODE_NAME from the downward API, checked like the real one does.
func nodeName() (string, error) {
	name := os.Getenv("NODE_NAME")
	if name == "" {
		return "", fmt.Errorf("check node name failed: the env variable whose key is NODE_NAME must be set")
	}
	if len(name) > 253 || !nodeNamePattern.MatchString(name) {
		return "", fmt.Errorf("check node name failed: node name %s is illegal", name)
	}
	return name, nil
}

// useAscendDocker: only ASCEND_DOCKER_RUNTIME=True in its own environment (its pod was made by
// the Ascend runtime) makes it answer Allocate with ASCEND_VISIBLE_DEVICES.
func (o *options) ascendDocker() bool {
	enabled := os.Getenv("ASCEND_DOCKER_RUNTIME") == "True"
	if o.useAscendDocker != nil {
		enabled = enabled && *o.useAscendDocker
	}
	return enabled
}

func serveHealthz(port string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	go func() {
		if err := http.ListenAndServe(":"+port, mux); err != nil {
			hwlog.Errorf("healthz server failed, err: %v", err)
		}
	}()
}

// initDevices loads libdcmi.so (root-owned check), runs dcmi_init and lists the chips.
func initDevices() ([]npu.Chip, string, error) {
	if _, err := dcmi.Open(pathcheck.Root); err != nil {
		return nil, "", err
	}
	if err := dcmi.Init(); err != nil {
		return nil, "", err
	}
	chips, err := npu.Discover()
	if err != nil {
		return nil, "", err
	}
	if len(chips) == 0 {
		return nil, "", fmt.Errorf("no npu device found")
	}
	version, err := dcmi.DriverVersion()
	return chips, version, err
}

func main() {
	opts := defineFlags(flag.CommandLine)
	flag.Parse()
	if *opts.version {
		fmt.Println(buildinfo.VersionLine())
		return
	}
	// On every start-up error main() returns (exit status 0), as the real one does; the
	// kubelet restarts the container and the pod ends in CrashLoopBackOff.
	if err := hwlog.Init(*opts.logFile, *opts.logLevel); err != nil {
		fmt.Printf("hwlog init failed, error is %v\n", err)
		return
	}
	if opts.enableHealthz != nil && *opts.enableHealthz {
		serveHealthz(*opts.healthzAddress)
	}
	if err := opts.check(); err != nil {
		hwlog.Errorf("%v", err)
		return
	}
	hwlog.Infof("device plugin starting and the version is %s", buildinfo.Version)
	chips, driver, err := initDevices()
	if err != nil {
		hwlog.Errorf("deviceManager init failed, prepare dcmi failed, err: %v", err)
		return
	}
	family := npu.Family(chips[0].Info.Name)
	short := npu.ResourceShortName(family)
	if short == "" || (family == npu.FamilyA5 && !buildinfo.AtLeast("26.0.0")) {
		hwlog.Errorf("deviceManager init failed, the chip %s is not supported", chips[0].Info.Name)
		return
	}
	hwlog.Infof("found %d %s chips (%s), driver version %s", len(chips), chips[0].Info.Name, family, driver)
	useDocker := opts.ascendDocker()
	hwlog.Infof("device-plugin set npu docker as: %v", useDocker)

	name, err := nodeName()
	if err != nil {
		hwlog.Errorf("%v", err)
		return
	}
	client, err := newKube(name, npu.ResPrefix+short)
	if err != nil {
		hwlog.Errorf("%v", err)
		return
	}
	devices := newDeviceSet(chips, short)
	devices.poll()
	ctx := context.Background()
	if err := client.start(ctx, nodeInfo(chips, family, short, driver), devices); err != nil {
		hwlog.Errorf("%v", err)
		return
	}
	if err := checkKubeletSocket(); err != nil {
		hwlog.Errorf("%v", err)
		return
	}
	server := &pluginServer{devices: devices, resource: npu.ResPrefix + short, short: short, useAscendDocker: useDocker}
	if err := server.serveAndRegister(); err != nil {
		hwlog.Errorf("%v", err)
		return
	}
	hwlog.Infof("device plugin started.")
	server.run(ctx, client, *opts.listWatchPeriod)
}
