// Copyright (c) 2026 cubestudio maintainers
// GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// Package hwlog logs like MindCluster's run log: to the -logFile and, so that `kubectl logs`
// shows it too, to stderr. Levels follow -logLevel: -1 debug, 0 info, 1 warn, 2 error, 3 critical.
package hwlog

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

var (
	mu     sync.Mutex
	out    io.Writer = os.Stderr
	level            = 0
	levels           = map[int]string{-1: "DEBUG", 0: "INFO", 1: "WARN", 2: "ERROR", 3: "CRITICAL"}
)

// Init opens (appends to) the log file, creating its folder like the real logger does, and
// logs to it and to stderr from now on. A folder that cannot be made (no mount on a read-only
// root) or a log file that is a symlink is an error.
func Init(path string, logLevel int) error {
	if logLevel < -1 || logLevel > 3 {
		return fmt.Errorf("the log level %d is invalid, it should be in [-1, 3]", logLevel)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("create log dir failed: %w", err)
	}
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("check log file failed: %s is a symlink", path)
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("open log file failed: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	out = io.MultiWriter(file, os.Stderr)
	level = logLevel
	return nil
}

func write(lvl int, format string, args ...interface{}) {
	if lvl < level {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(out, "[%-8s] %s %d %s\n", levels[lvl], time.Now().Format("2006/01/02 15:04:05.000000"),
		os.Getpid(), fmt.Sprintf(format, args...))
}

// Debugf logs at debug level.
func Debugf(format string, args ...interface{}) { write(-1, format, args...) }

// Infof logs at info level.
func Infof(format string, args ...interface{}) { write(0, format, args...) }

// Warnf logs at warn level.
func Warnf(format string, args ...interface{}) { write(1, format, args...) }

// Errorf logs at error level.
func Errorf(format string, args ...interface{}) { write(2, format, args...) }
