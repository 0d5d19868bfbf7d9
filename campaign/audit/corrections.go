package audit

import (
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// CheckCorrections: every correction points at an upheld dispute and the
// event it disputed (and, when it says so, at the ruling's version), an
// upheld dispute is followed by the corrections it counts, every order
// resolved again agrees with the rules applied to its corrected inputs,
// every undone command with the log without it, and every rescore with
// the score of the corrected state (docs/disputes.md).
const CheckCorrections = "corrections"

func init() {
	checkOrder = append(checkOrder, CheckCorrections)
	checkTitles[CheckCorrections] = "every correction points at an upheld dispute and its event; orders resolved again and rescores agree with the rules"
}

// corrections checks CheckCorrections over the decoded events (nil where
// an event has no readable bytes), in version order.
func (a *auditor) corrections(decoded []*events.Envelope) {
	c := a.checks[CheckCorrections]
	log := make([]rules.Event, 0, len(decoded))
	raised := map[int]uint64{}
	type ruling struct {
		ref  EventRef
		want int
		seen int
	}
	upheld := map[int]*ruling{}
	var order []int
	missing, recomputed := 0, 0
	for _, d := range decoded {
		var ev rules.Event
		if d != nil {
			if payload, err := campaign.Registry().Upcast(d); err == nil {
				ev, _ = rules.DecodeEvent(d.Type, payload)
			}
		}
		if ev == nil {
			missing++
			log = append(log, nil)
			continue
		}
		r := EventRef{Version: d.Version, ID: d.ID, Type: d.Type, Seq: d.Sequence}
		switch x := ev.(type) {
		case *rules.DisputeRaised:
			raised[x.Dispute] = x.EventVersion
		case *rules.DisputeUpheld:
			upheld[x.Dispute] = &ruling{ref: r, want: x.Corrections}
			order = append(order, x.Dispute)
		}
		if n, disputed, rv, ok := rules.CorrectionRef(ev); ok {
			c.Checked++
			on, wasRaised := raised[n]
			up := upheld[n]
			switch {
			case !wasRaised:
				a.fail(CheckCorrections, r, "it corrects under dispute %d, which was never raised before it", n)
			case on != disputed:
				a.fail(CheckCorrections, r, "it points at event %d, but dispute %d was raised on event %d", disputed, n, on)
			case up == nil:
				a.fail(CheckCorrections, r, "dispute %d was not upheld before it", n)
			case rv != 0 && rv != up.ref.Version:
				a.fail(CheckCorrections, r, "it names ruling %d, but dispute %d was upheld at %s", rv, n, up.ref)
			}
			if up != nil {
				up.seen++
			}
			if oc, isOrder := ev.(*rules.OrderCorrected); isOrder && !containsVersion(oc.Versions, disputed) {
				a.fail(CheckCorrections, r, "it resolves again the order of events %v, not the disputed event %d", oc.Versions, disputed)
			}
			switch {
			case missing > 0:
				a.add(CheckCorrections, Pending, r, 0, "events before it withheld (%d): it cannot be recomputed from this export", missing)
			default:
				if why := rules.VerifyCorrection(log, ev); why != "" {
					a.fail(CheckCorrections, r, "%s", why)
				} else {
					recomputed++
				}
			}
		}
		log = append(log, ev)
	}
	for _, n := range order {
		if up := upheld[n]; up.seen != up.want {
			a.fail(CheckCorrections, up.ref, "the ruling of dispute %d counts %d correction events; %d follow it", n, up.want, up.seen)
		}
	}
	c.summarize("corrections: %d, recomputed: %d", c.Checked, recomputed)
}

func containsVersion(vs []uint64, v uint64) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}
