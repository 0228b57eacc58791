// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// Command npu-exporter stands in for Huawei's NPU exporter (MindCluster) in the tests of
// cubestudio.ascend: the real flags, the metric names, types and labels of the version it is
// built as, read from the simulated libdcmi.so, and the container labels from the CRI. See
// tests/simulator/README.md ("Kubernetes stand-ins").
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"cubestudio.ascend/simk8s/internal/buildinfo"
	"cubestudio.ascend/simk8s/internal/dcmi"
	"cubestudio.ascend/simk8s/internal/hwlog"
	"cubestudio.ascend/simk8s/internal/pathcheck"
)

type options struct {
	port, updateTime, logLevel              *int
	ip, containerMode, containerd, endpoint *string
	logFile, platform                       *string
	version                                 *bool
	enableHealthz                           *bool
	healthzAddress                          *string
}

// Default sockets of each -containerMode (-containerd, -endpoint).
var modeSockets = map[string][2]string{
	"docker":     {"/run/docker/containerd/docker-containerd.sock", "/var/run/dockershim.sock"},
	"containerd": {"/run/containerd/containerd.sock", "/run/containerd/containerd.sock"},
	"isula":      {"/run/isulad.sock", "/run/isulad.sock"},
}

func defineFlags(fs *flag.FlagSet) *options {
	o := &options{
		port:       fs.Int("port", 8082, "The server port of the http service,range[1025-40000]"),
		ip:         fs.String("ip", "", "The listen ip of the service,0.0.0.0 is not recommended when install on Multi-NIC host"),
		updateTime: fs.Int("updateTime", 5, "Interval (seconds) to update the npu metrics cache,range[1-60]"),
		version:    fs.Bool("version", false, "If true,query the version of the program (default false)"),
		containerMode: fs.String("containerMode", "docker",
			"Set 'docker' for monitoring docker containers or 'containerd' for CRI & containerd containers, 'isula' for isula"),
		containerd: fs.String("containerd", "", "The socket path of containerd (default: by -containerMode)"),
		endpoint:   fs.String("endpoint", "", "The endpoint of the CRI server to which will be connected (default: by -containerMode)"),
		logLevel:   fs.Int("logLevel", 0, "Log level, -1-debug, 0-info, 1-warning, 2-error, 3-critical(default 0)"),
		logFile: fs.String("logFile", "/var/log/mindx-dl/npu-exporter/npu-exporter.log",
			"The log file path, if the file size exceeds 20MB, will be rotate"),
		platform: fs.String("platform", "Prometheus", "Collect the data to Prometheus or Telegraf"),
	}
	fs.Int("concurrency", 5, "The max concurrency of the http server, range is [1-512]")
	fs.Int("maxAge", 7, "Maximum number of days for backup log files")
	fs.Int("maxBackups", 30, "Maximum number of backup log files")
	fs.Int("cacheSize", 102400, "The cache size of the log")
	fs.Int("limitIPConn", 5, "The tcp connection limit for each ip, range is [1,128]")
	fs.Int("limitTotalConn", 20, "The tcp connection limit for all request, range is [1,512]")
	fs.String("limitIPReq", "20/1", "The http request limit counts for each ip, 20/1 means allow 20 request in 1 seconds")
	fs.Int("profilingTime", 200, "Config pcie bandwidth profiling time, range is [1, 2000]")
	fs.Int("hccsBWProfilingTime", 200, "Config hccs bandwidth profiling time, range is [1, 1000]")
	if buildinfo.AtLeast("26.0.0") {
		o.enableHealthz = fs.Bool("enable-healthz", false, "Whether to serve the health check endpoint")
		o.healthzAddress = fs.String("healthz-address", "11256", "Port of the health check endpoint")
	}
	return o
}

func (o *options) check() error {
	if *o.port < 1025 || *o.port > 40000 {
		return fmt.Errorf("the port is invalid")
	}
	if parsed := net.ParseIP(*o.ip); parsed == nil {
		return fmt.Errorf("the listen ip is invalid")
	}
	if *o.updateTime < 1 || *o.updateTime > 60 {
		return fmt.Errorf("the updateTime is invalid")
	}
	sockets, ok := modeSockets[*o.containerMode]
	if !ok {
		return fmt.Errorf("containerMode only support docker, containerd or isula")
	}
	if *o.platform != "Prometheus" && *o.platform != "Telegraf" {
		return fmt.Errorf("the platform is invalid, only support Prometheus or Telegraf")
	}
	if *o.containerd == "" {
		*o.containerd = sockets[0]
	}
	if *o.endpoint == "" {
		*o.endpoint = sockets[1]
	}
	return nil
}

func main() {
	opts := defineFlags(flag.CommandLine)
	flag.Parse()
	if *opts.version {
		fmt.Println(buildinfo.VersionLine())
		return
	}
	if err := hwlog.Init(*opts.logFile, *opts.logLevel); err != nil {
		fmt.Printf("hwlog init failed, error is %v\n", err)
		return
	}
	if err := opts.check(); err != nil {
		hwlog.Errorf("%v", err)
		return
	}
	hwlog.Infof("npu exporter starting and the version is %s", buildinfo.Version)
	if _, err := dcmi.Open(pathcheck.Root); err != nil {
		hwlog.Errorf("new npu collector failed, error is %v", err)
		return
	}
	if err := dcmi.Init(); err != nil {
		hwlog.Errorf("new npu collector failed, error is %v", err)
		return
	}
	runtime, err := connectRuntime(*opts.containerMode, *opts.containerd, *opts.endpoint)
	if err != nil {
		hwlog.Errorf("connecting to container runtime failed, err: %v", err)
		return
	}
	c := &collector{runtime: runtime}
	c.collect()
	go func() {
		for range time.Tick(time.Duration(*opts.updateTime) * time.Second) {
			c.collect()
		}
	}()
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(c.render())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html><head><title>NPU-Exporter</title></head><body><h1 align=\"center\">NPU-Exporter</h1>" +
			"<p align=\"center\"><a href=\"/metrics\">Metrics</a></p></body></html>\n"))
	})
	if opts.enableHealthz != nil && *opts.enableHealthz {
		go func() {
			health := http.NewServeMux()
			health.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
			if err := http.ListenAndServe(":"+*opts.healthzAddress, health); err != nil {
				hwlog.Errorf("healthz server failed, err: %v", err)
			}
		}()
	}
	address := net.JoinHostPort(*opts.ip, strconv.Itoa(*opts.port))
	hwlog.Infof("start http server now on %s", address)
	if err := http.ListenAndServe(address, mux); err != nil {
		hwlog.Errorf("listen and serve error: %v", err)
	}
}
