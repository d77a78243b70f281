//go:build !linux

package fulldisk

import "errors"

var errNoMounts = errors.New("a small tmpfs is mounted only on Linux")

func mount(string, string) error { return errNoMounts }
func unmount(string) error       { return nil }
