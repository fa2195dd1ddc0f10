//go:build !unix

package ask

import (
	"context"
	"net"
	"os"
)

func unsafeSocket(fi os.FileInfo) string {
	if fi.Mode()&os.ModeSocket == 0 && fi.Mode()&os.ModeIrregular == 0 {
		return "is not a socket"
	}
	return ""
}

func dialSocket(ctx context.Context, path string) (conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}

type netListener struct{ ln net.Listener }

func (l netListener) Accept() (conn, error) { return l.ln.Accept() }
func (l netListener) Close() error          { return l.ln.Close() }

func listenPrivate(path string) (listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	return netListener{ln}, nil
}

func listenUnix(addr string) (listener, error) {
	ln, err := net.Listen("unix", addr)
	if err != nil {
		return nil, err
	}
	return netListener{ln}, nil
}

func unsafeHome(string) string { return "" }
