package forward

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/report"
)

// OTLP attribute names. They are part of the interface a collector's
// pipeline is written against: renaming one is a breaking change.
const (
	AttrH          = "airlock.h"           // the record's h
	AttrPrev       = "airlock.prev"        // the record's prev
	AttrChain      = "airlock.chain"       // the audit home's id (audit.HomeID)
	AttrFile       = "airlock.file"        // the chain file the line was read from
	AttrEvent      = "airlock.event"       // the record's event
	AttrSource     = "airlock.source"      // hook | mcp | cli | audit
	AttrSession    = "airlock.session"     // the agent session
	AttrTool       = "airlock.tool"        // the tool
	AttrDecision   = "airlock.decision"    // what the policy said
	AttrEffective  = "airlock.effective"   // what happened
	AttrRule       = "airlock.rule"        // the rule or forbid id
	AttrTarget     = "airlock.target"      // the matched path, host or command
	AttrMode       = "airlock.mode"        // the policy mode
	AttrArgsDigest = "airlock.args_digest" // sha256 of the canonical arguments
	AttrBeat       = "airlock.beat"        // a heartbeat's sequence number
	AttrLastH      = "airlock.last_h"      // a heartbeat's last confirmed h
	AttrShipped    = "airlock.shipped"     // a heartbeat's count of confirmed records
	AttrEveryS     = "airlock.every_s"     // a heartbeat's interval in seconds

	// EventPrefix starts every log record's event name: airlock.<event>,
	// airlock.forward_heartbeat for heartbeats.
	EventPrefix = "airlock."
)

// scopeName is the instrumentation scope of the forwarded records.
const scopeName = "github.com/agentairlock/airlock/forward"

// otlpSender exports with otlploghttp's Exporter, called directly and
// synchronously: no batch processor (whose queue drops records when it is
// full) stands between the cursor and the receiver. The exporter's own
// retries are off; the forwarder's loop retries with its backoff, so a
// failed Export leaves the cursor where it was. A partial success (the
// receiver rejected some records) is a failure of the whole batch.
type otlpSender struct {
	exp    *otlploghttp.Exporter
	prov   *sdklog.LoggerProvider
	logger otellog.Logger
	coll   *collector
	chain  string
}

// collector is a Processor that keeps what the logger emits, so the SDK
// builds each record (resource, scope, limits) and the sender exports the
// batch itself.
type collector struct {
	mu   sync.Mutex
	recs []sdklog.Record
}

func (c *collector) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (c *collector) OnEmit(_ context.Context, r *sdklog.Record) error {
	c.mu.Lock()
	c.recs = append(c.recs, r.Clone())
	c.mu.Unlock()
	return nil
}
func (c *collector) Shutdown(context.Context) error   { return nil }
func (c *collector) ForceFlush(context.Context) error { return nil }

func (c *collector) take() []sdklog.Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.recs
	c.recs = nil
	return out
}

func newOTLPSender(ctx context.Context, t Target, timeout time.Duration, host, chain, version string) (*otlpSender, error) {
	opts := []otlploghttp.Option{
		otlploghttp.WithEndpointURL(t.URL),
		otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}),
		otlploghttp.WithTimeout(timeout),
	}
	if strings.HasPrefix(t.URL, "https://") {
		u := strings.TrimPrefix(t.URL, "https://")
		h, _, _ := strings.Cut(u, "/")
		if i := strings.LastIndexByte(h, ':'); i > 0 && !strings.HasSuffix(h, "]") {
			h = h[:i]
		}
		cfg, err := tlsConfig(t, strings.Trim(h, "[]"))
		if err != nil {
			return nil, err
		}
		opts = append(opts, otlploghttp.WithTLSClientConfig(cfg))
	}
	exp, err := otlploghttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("otlp %s: %w", t.URL, err)
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", "airlock"),
		attribute.String("service.version", version),
		attribute.String("host.name", host),
	)
	coll := &collector{}
	prov := sdklog.NewLoggerProvider(
		sdklog.WithResource(res),
		sdklog.WithProcessor(coll),
		sdklog.WithAttributeCountLimit(-1),
		sdklog.WithAttributeValueLengthLimit(-1),
	)
	return &otlpSender{
		exp: exp, prov: prov, coll: coll, chain: chain,
		logger: prov.Logger(scopeName, otellog.WithInstrumentationVersion(version)),
	}, nil
}

// Send exports the batch in one request and returns nil only on the
// receiver's success.
func (s *otlpSender) Send(ctx context.Context, items []item) error {
	s.coll.take()
	for _, it := range items {
		s.logger.Emit(ctx, s.record(it))
	}
	recs := s.coll.take()
	if len(recs) != len(items) {
		return fmt.Errorf("otlp: the SDK built %d of %d records", len(recs), len(items))
	}
	if err := s.exp.Export(ctx, recs); err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	return nil
}

func (s *otlpSender) record(it item) otellog.Record {
	var r otellog.Record
	str := func(k, v string) {
		if v != "" {
			r.AddAttributes(attribute.String(k, v))
		}
	}
	r.SetObservedTimestamp(time.Now())
	str(AttrChain, s.chain)
	if b := it.beat; b != nil {
		if t, err := time.Parse(audit.TimeFormat, b.Time); err == nil {
			r.SetTimestamp(t)
		}
		r.SetEventName(EventPrefix + HeartbeatEvent)
		r.SetSeverity(otellog.SeverityInfo)
		r.SetBody(attribute.StringValue(b.json()))
		r.AddAttributes(attribute.Int64(AttrBeat, b.Seq), attribute.Int64(AttrShipped, b.Shipped), attribute.Int64(AttrEveryS, b.EveryS))
		str(AttrLastH, b.LastH)
		return r
	}
	rec := it.rec
	if t, err := time.Parse(audit.TimeFormat, rec.Time); err == nil {
		r.SetTimestamp(t)
	}
	r.SetEventName(EventPrefix + rec.Event)
	sev := report.Severity(rec)
	r.SetSeverity(otelSeverity(sev))
	r.SetBody(attribute.StringValue(string(it.line.Raw)))
	str(AttrH, it.line.Pos.H)
	str(AttrPrev, it.line.Prev)
	str(AttrFile, it.line.Pos.File)
	str(AttrEvent, rec.Event)
	str(AttrSource, rec.Source)
	str(AttrSession, rec.Session)
	str(AttrTool, rec.Tool)
	str(AttrDecision, rec.Decision)
	str(AttrEffective, rec.Effective)
	str(AttrRule, rec.Rule)
	str(AttrTarget, rec.Target)
	str(AttrMode, rec.Mode)
	str(AttrArgsDigest, rec.ArgsDigest)
	return r
}

// otelSeverity maps the 0-10 grade of report.Severity.
func otelSeverity(s int) otellog.Severity {
	switch {
	case s >= 9:
		return otellog.SeverityFatal
	case s >= 8:
		return otellog.SeverityError
	case s >= 7:
		return otellog.SeverityWarn
	case s >= 5:
		return otellog.SeverityInfo2
	}
	return otellog.SeverityInfo
}

func (s *otlpSender) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.prov.Shutdown(ctx)
	return s.exp.Shutdown(ctx)
}
