//go:build unix && !linux

package childgroup

import "syscall"

// dieWithParent has no parent-death signal to set here: the watcher alone
// ends the group with Quire.
func dieWithParent(*syscall.SysProcAttr) {}
