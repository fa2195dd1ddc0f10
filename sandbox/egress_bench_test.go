package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
)

// BenchmarkEgressThroughput moves bytes over loopback directly and through
// a CONNECT tunnel of the proxy, in each direction; MB/s is the figure
// (go test -bench EgressThroughput -benchtime 2000x ./sandbox/).
func BenchmarkEgressThroughput(b *testing.B) {
	const chunk = 1 << 20
	source := egressBenchServer(b, func(c net.Conn) { // sends forever
		buf := make([]byte, 64<<10)
		for {
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	})
	sink := egressBenchServer(b, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	e, err := StartEgress(egressOptions{Decide: func(string, int, string) (bool, string, string) { return true, "bench", "" }})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for _, dir := range []struct {
		name string
		addr string
		move func(r io.Reader, w io.Writer, buf []byte) error
	}{
		{"download", source, func(r io.Reader, _ io.Writer, buf []byte) error { _, err := io.ReadFull(r, buf); return err }},
		{"upload", sink, func(_ io.Reader, w io.Writer, buf []byte) error { _, err := w.Write(buf); return err }},
	} {
		for _, via := range []string{"direct", "connect"} {
			b.Run(dir.name+"/"+via, func(b *testing.B) {
				var (
					c   net.Conn
					r   io.Reader
					err error
				)
				if via == "direct" {
					c, err = net.Dial("tcp", dir.addr)
					r = c
				} else {
					c, r, err = egressBenchTunnel(e.Addr(), dir.addr)
				}
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				buf := make([]byte, chunk)
				b.SetBytes(chunk)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := dir.move(r, c, buf); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func egressBenchServer(b *testing.B, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c) }()
		}
	}()
	return ln.Addr().String()
}

func egressBenchTunnel(proxy, dest string) (net.Conn, io.Reader, error) {
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(c, 64<<10)
	if _, err := io.WriteString(c, "CONNECT "+dest+" HTTP/1.1\r\n\r\n"); err != nil {
		c.Close()
		return nil, nil, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		c.Close()
		if err == nil {
			err = fmt.Errorf("CONNECT %s: %s", dest, resp.Status)
		}
		return nil, nil, err
	}
	return c, br, nil
}
