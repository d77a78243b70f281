//go:build !linux

package smalldisk

import "errors"

var errNoMounts = errors.New("small filesystems are mounted only on Linux")

func mount(string, string) error { return errNoMounts }
func unmount(string) error       { return nil }
