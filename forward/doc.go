// Package forward ships the audit chain off the machine, continuously:
// airlock forward follows the chain across rotations (audit.LinesAfter) and
// sends every line to one or more receivers, at least once and in order,
// advancing a per-target cursor only when the transport's promise holds.
//
// Transports (docs/forwarding.md says what each promises):
//
//   - relp://host:port — RFC 5424 syslog over RELP: every message is
//     acknowledged by the receiver (rsyslog's imrelp); the cursor advances
//     on the acknowledgements.
//   - tls://host:port — RFC 5425 (octet-counted syslog over TLS), and
//     tcp://host:port (RFC 6587 octet counting): no acknowledgement; the
//     cursor advances once a batch is written and the connection is still
//     up, and a broken connection resends from the cursor.
//   - udp://host:port — one datagram per message, best effort.
//   - otlp+http://host:port, otlp+https://host:port (or any http(s) URL of
//     an OTLP/HTTP logs endpoint) — OTLP logs over HTTP/protobuf with the
//     official OpenTelemetry exporter, called synchronously; the cursor
//     advances on the receiver's success response.
//
// Every message carries the record's h and prev, so a receiver drops
// duplicates by h and proves the copy whole (Verify); the syslog MSG (and
// the OTLP body) is the stored line itself, already masked at write time,
// so h can be recomputed without the machine. Heartbeats, sent on a fixed
// interval, name the last record shipped.
package forward
