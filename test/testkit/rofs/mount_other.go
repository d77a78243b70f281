//go:build !linux

package rofs

import "errors"

var errNoMounts = errors.New("read-only mounts are made only on Linux")

func mountTmpfs(string) error            { return errNoMounts }
func bind(string) error                  { return errNoMounts }
func remountReadOnly(string, bool) error { return errNoMounts }
func unmount(string)                     {}
