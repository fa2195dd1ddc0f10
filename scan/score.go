package scan

// Score turns a file's findings into a risk from 0 to 100 and the band it
// falls in. The band is Risk's severity, so only intent reaches the top:
//
//	0        nothing found
//	1–19     low: mentions only (a credential named in docs, a data URI)
//	20–59    med: something a person should read (a collector host, an
//	         env read, an instruction about another tool)
//	60–100   high: an override or concealment, hidden instructions,
//	         download-and-execute, or a credential named together with
//	         somewhere to send it
//
// Within a band, each further distinct indicator adds a little, so a file
// with five kinds of evidence ranks above one with one.
func Score(fs []Finding) (int, Severity) {
	band := Risk(fs)
	seen := map[string]Severity{}
	for _, f := range fs {
		seen[f.ID] = max(seen[f.ID], f.Severity)
	}
	var high, med, low int
	for _, s := range seen {
		switch s {
		case High:
			high++
		case Med:
			med++
		case Low:
			low++
		}
	}
	switch band {
	case High:
		return min(100, 70+8*max(high-1, 0)+3*med+low), High
	case Med:
		return min(59, 30+6*max(med-1, 0)+2*low), Med
	case Low:
		return min(19, 5+3*max(low-1, 0)), Low
	}
	return 0, None
}
