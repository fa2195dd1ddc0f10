package forward

import (
	"net"
	"syscall"
)

// quickACK asks Linux to acknowledge what arrives on c at once. A RELP
// receiver that sends its answers with Nagle's algorithm holds the second
// answer until the first is acknowledged, and the kernel's delayed ACK
// would otherwise hold that acknowledgement for 40 ms or more: one stall
// per batch. The flag does not stick, so it is set again before each read.
func quickACK(c net.Conn) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
	})
}
