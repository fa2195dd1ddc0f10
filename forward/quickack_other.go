//go:build !linux

package forward

import "net"

// quickACK is Linux's TCP_QUICKACK; elsewhere the kernel's delayed ACK
// stays as it is.
func quickACK(net.Conn) {}
