// Command pause is the test bed's pod sandbox ("pause") image: it holds the pod's namespaces,
// reaps orphaned children (it is PID 1 of the pod) and exits on SIGINT/SIGTERM, as
// registry.k8s.io/pause does. Built static (CGO_ENABLED=0), it is the image's only file.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
