package childgroup

import "syscall"

// dieWithParent has the kernel SIGKILL the child when the thread that
// forked it ends (Start keeps that thread for the child's life).
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
