//go:build !unix

package ask

import (
	"net"
	"os"
)

func unsafeSocket(fi os.FileInfo) string {
	if fi.Mode()&os.ModeSocket == 0 && fi.Mode()&os.ModeIrregular == 0 {
		return "is not a socket"
	}
	return ""
}

func listenPrivate(path string) (net.Listener, error) {
	return net.Listen("unix", path)
}

func unsafeHome(string) string { return "" }
