package main

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

// connectThroughProxy opens one CONNECT tunnel to target through the proxy
// HTTPS_PROXY names (the egress proxy of a sandboxed server) and reports
// the proxy's answer on stderr as "fakemcp: connect TARGET: STATUS LINE",
// or "fakemcp: connect TARGET: error: …". It never sends anything through
// the tunnel.
func connectThroughProxy(target string) {
	fmt.Fprintf(os.Stderr, "fakemcp: connect %s: %s\n", target, connectStatus(target))
}

func connectStatus(target string) string {
	proxy := os.Getenv("HTTPS_PROXY")
	if proxy == "" {
		return "error: no HTTPS_PROXY"
	}
	u, err := url.Parse(proxy)
	if err != nil {
		return "error: " + err.Error()
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return "error: " + err.Error()
	}
	defer conn.Close()
	// an ask waits for a person: the deadline is the ask's timeout and more
	_ = conn.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target); err != nil {
		return "error: " + err.Error()
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimSpace(line)
}
