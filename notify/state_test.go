package notify

import (
	"reflect"
	"testing"
)

// FuzzDecodeState: notify.json is written by any process on the home and
// may be damaged; decoding must never panic, and whatever it accepts must
// validate and survive a round trip unchanged. Seeds live in f.Add and in
// testdata/fuzz/FuzzDecodeState.
func FuzzDecodeState(f *testing.F) {
	for _, seed := range []string{
		``,
		`{"v":1}`,
		`{"v":1,"last":{"0123456789abcdef0123456789abcdef":1764417600000},"window_start":1764417600000,"sent":5,"folded":7}`,
		`{"v":1,"sent":-1}`,
		`{"v":2}`,
		`null`,
		`[]`,
		`{"v":1,"last":{"../x":1}}`,
		`{"v":1e400}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeState(data)
		if err != nil {
			return
		}
		if err := st.validate(); err != nil {
			t.Fatalf("decodeState accepted an invalid state: %v", err)
		}
		enc, err := encodeState(st)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeState(enc)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
		if len(st.Last) == 0 && len(again.Last) == 0 {
			st.Last, again.Last = nil, nil
		}
		if !reflect.DeepEqual(st, again) {
			t.Fatalf("round trip changed the state:\n %+v\n %+v", st, again)
		}
	})
}

func TestApplyNeverExceedsTheBudgetInAWindow(t *testing.T) {
	for _, max := range []int{1, 2, 5} {
		c := config{on: true, cooldown: 0, window: 60_000_000_000, max: max}
		st := state{V: stateVersion}
		now := int64(1_000_000)
		shown := 0
		for w := 0; w < 4; w++ {
			shown = 0
			for i := 0; i < 3*max; i++ {
				fold, show, _ := st.apply(blockKey(block(w*100+i)), now+int64(i), c)
				if fold > 0 {
					shown++
				}
				if show {
					shown++
				}
			}
			if shown > max {
				t.Fatalf("max %d, window %d: %d notifications", max, w, shown)
			}
			now += 60_000
		}
	}
}
