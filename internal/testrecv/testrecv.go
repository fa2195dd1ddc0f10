// Package testrecv runs real log receivers for tests: rsyslogd (RELP,
// UDP, and TLS with a CA made for the test) on loopback ports, and an
// OTLP/HTTP logs endpoint that decodes requests with the OTLP protobuf
// types. Tests only: forward's tests and e2e use it.
package testrecv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
)

// NeedRsyslog fails the test (never skips it) when rsyslogd or one of its
// modules is missing: .ci/apt-deps installs them.
func NeedRsyslog(t testing.TB, modules ...string) string {
	t.Helper()
	bin, err := exec.LookPath("rsyslogd")
	if err != nil {
		bin = "/usr/sbin/rsyslogd"
		if _, serr := os.Stat(bin); serr != nil {
			t.Fatalf("rsyslogd is not installed: the forwarding tests run against a real rsyslog; install it with .ci/apt-deps (apt-get install rsyslog rsyslog-relp rsyslog-gnutls)")
		}
	}
	for _, m := range modules {
		found := false
		for _, dir := range []string{"/usr/lib/x86_64-linux-gnu/rsyslog", "/usr/lib/aarch64-linux-gnu/rsyslog", "/usr/lib/rsyslog"} {
			if _, err := os.Stat(filepath.Join(dir, m+".so")); err == nil {
				found = true
			}
		}
		if !found {
			t.Fatalf("rsyslog module %s is not installed: install it with .ci/apt-deps (apt-get install rsyslog-relp rsyslog-gnutls)", m)
		}
	}
	return bin
}

// FreePort is a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Rsyslog is an unprivileged-config rsyslogd on loopback ports, writing
// every message it takes (its raw form) to Out.
type Rsyslog struct {
	t         testing.TB
	bin, dir  string
	conf      string
	Out       string
	RELP, TLS int
	UDP       int
	mu        sync.Mutex
	cmd       *exec.Cmd
}

// StartRsyslog starts rsyslogd with imrelp on one port and, when ca is
// set, imtcp with the gtls driver on another, both into one file.
func StartRsyslog(t testing.TB, ca *CA) *Rsyslog {
	t.Helper()
	mods := []string{"imrelp", "imudp"}
	if ca != nil {
		mods = append(mods, "imtcp", "lmnsd_gtls")
	}
	r := &Rsyslog{t: t, bin: NeedRsyslog(t, mods...), dir: t.TempDir(), RELP: FreePort(t), UDP: FreePort(t)}
	r.Out = filepath.Join(r.dir, "out.log")
	var c strings.Builder
	fmt.Fprintf(&c, "global(workDirectory=%q maxMessageSize=\"1m\"", r.dir)
	if ca != nil {
		r.TLS = FreePort(t)
		fmt.Fprintf(&c, " defaultNetstreamDriverCAFile=%q defaultNetstreamDriverCertFile=%q defaultNetstreamDriverKeyFile=%q", ca.CAFile, ca.CertFile, ca.KeyFile)
	}
	c.WriteString(")\n")
	c.WriteString("template(name=\"raw\" type=\"string\" string=\"%rawmsg%\\n\")\n")
	c.WriteString("ruleset(name=\"out\" queue.type=\"Direct\") {\n")
	fmt.Fprintf(&c, "  action(type=\"omfile\" file=%q template=\"raw\" asyncWriting=\"off\" flushOnTXEnd=\"on\" ioBufferSize=\"4k\")\n}\n", r.Out)
	c.WriteString("module(load=\"imrelp\")\n")
	fmt.Fprintf(&c, "input(type=\"imrelp\" port=\"%d\" address=\"127.0.0.1\" ruleset=\"out\" maxDataSize=\"1m\")\n", r.RELP)
	c.WriteString("module(load=\"imudp\")\n")
	fmt.Fprintf(&c, "input(type=\"imudp\" port=\"%d\" address=\"127.0.0.1\" ruleset=\"out\")\n", r.UDP)
	if ca != nil {
		c.WriteString("module(load=\"imtcp\" StreamDriver.Name=\"gtls\" StreamDriver.Mode=\"1\" StreamDriver.AuthMode=\"anon\")\n")
		fmt.Fprintf(&c, "input(type=\"imtcp\" port=\"%d\" address=\"127.0.0.1\" ruleset=\"out\")\n", r.TLS)
	}
	r.conf = filepath.Join(r.dir, "rsyslog.conf")
	if err := os.WriteFile(r.conf, []byte(c.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r.Start()
	t.Cleanup(r.Kill)
	return r
}

// Start runs rsyslogd in the foreground and waits until its RELP port
// answers.
func (r *Rsyslog) Start() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	cmd := exec.Command(r.bin, "-n", "-f", r.conf, "-i", filepath.Join(r.dir, "rsyslogd.pid"))
	log, err := os.OpenFile(filepath.Join(r.dir, "rsyslogd.stderr"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		r.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("start rsyslogd: %v", err)
	}
	log.Close()
	r.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok := true
		for _, p := range []int{r.RELP, r.TLS} {
			if p == 0 {
				continue
			}
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), 200*time.Millisecond)
			if err != nil {
				ok = false
				break
			}
			c.Close()
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(r.dir, "rsyslogd.stderr"))
			r.t.Fatalf("rsyslogd did not listen within 10s; its output:\n%s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill ends rsyslogd with SIGKILL, as a crash would.
func (r *Rsyslog) Kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	_ = r.cmd.Wait()
	r.cmd = nil
	_ = os.Remove(filepath.Join(r.dir, "rsyslogd.pid"))
}

// CA is a CA generated for one test and a server certificate for
// 127.0.0.1 and localhost signed by it.
type CA struct {
	CAFile, CertFile, KeyFile string
}

func NewCA(t testing.TB) *CA {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "airlock test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	ca := &CA{CAFile: filepath.Join(dir, "ca.pem"), CertFile: filepath.Join(dir, "srv.pem"), KeyFile: filepath.Join(dir, "srv.key")}
	write := func(path, typ string, b []byte) {
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(ca.CAFile, "CERTIFICATE", caDER)
	write(ca.CertFile, "CERTIFICATE", der)
	write(ca.KeyFile, "EC PRIVATE KEY", keyDER)
	return ca
}

// OTLP is an OTLP/HTTP logs endpoint: it decodes each request
// with the OTLP protobuf types and appends it, as OTLP JSON, to Out (what a
// Collector's file exporter writes). Down makes it refuse with 503.
type OTLP struct {
	t    testing.TB
	Out  string
	Port int
	ca   *CA // serve HTTPS with its server certificate; nil for HTTP
	mu   sync.Mutex
	srv  *http.Server
	down bool
}

func StartOTLP(t testing.TB) *OTLP {
	t.Helper()
	r := &OTLP{t: t, Out: filepath.Join(t.TempDir(), "otlp.jsonl"), Port: FreePort(t)}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// URL is the forwarder target of the receiver.
func (r *OTLP) URL() string {
	if r.ca != nil {
		return fmt.Sprintf("otlp+https://localhost:%d?ca=%s", r.Port, r.ca.CAFile)
	}
	return fmt.Sprintf("otlp+http://127.0.0.1:%d", r.Port)
}

// StartOTLPTLS is StartOTLP over HTTPS, with ca's server certificate.
func StartOTLPTLS(t testing.TB, ca *CA) *OTLP {
	t.Helper()
	r := &OTLP{t: t, Out: filepath.Join(t.TempDir(), "otlp.jsonl"), Port: FreePort(t), ca: ca}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// Start serves on the receiver's port (again, after Stop).
func (r *OTLP) Start() {
	r.t.Helper()
	var l net.Listener
	var err error
	for i := 0; i < 100; i++ { // the port of a stopped server may take a moment
		if l, err = net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", r.Port)); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		r.t.Fatalf("otlp receiver: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/logs", r.serve)
	srv := &http.Server{Handler: mux}
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
	if r.ca != nil {
		go func() { _ = srv.ServeTLS(l, r.ca.CertFile, r.ca.KeyFile) }()
		return
	}
	go func() { _ = srv.Serve(l) }()
}

// Stop closes the server and its connections, as a crash would.
func (r *OTLP) Stop() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

func (r *OTLP) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var msg collogspb.ExportLogsServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	js, err := protojson.Marshal(&logspb.LogsData{ResourceLogs: msg.GetResourceLogs()})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f, err := os.OpenFile(r.Out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err == nil {
		_, err = f.Write(append(js, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	out, _ := proto.Marshal(&collogspb.ExportLogsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// SetDown makes the receiver answer 503 (true) or take requests again.
func (r *OTLP) SetDown(down bool) {
	r.mu.Lock()
	r.down = down
	r.mu.Unlock()
}
