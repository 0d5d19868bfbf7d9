package report

import (
	"fmt"
	"strconv"
	"strings"
)

// A report is written once as a document of blocks (headings,
// paragraphs, numbered lists, tables, figures), then rendered as HTML,
// BBCode or Markdown: the three formats tell the same narrative.

type blockKind int

const (
	bTitle blockKind = iota
	bHeading
	bSubheading
	bMinor
	bPara
	bList
	bTable
	bFigure
	bCode
)

type block struct {
	kind  blockKind
	id    string // the section's anchor (HTML)
	text  string
	items []item
	head  []string
	rows  [][]string
	pic   int
}

// item is one entry of a numbered list: its sentence, stressed when it is
// a decisive moment, and the picture after it (-1: none).
type item struct {
	text   string
	strong bool
	pic    int
}

// document writes the report as blocks.
func (r *Report) document() []block {
	var d []block
	h2 := func(id, key string) { d = append(d, block{kind: bHeading, id: id, text: r.t(key)}) }
	p := func(s string) { d = append(d, block{kind: bPara, text: s}) }

	d = append(d, block{kind: bTitle, text: r.Name})
	status := r.cat.Text(r.Lang, "status."+r.Status)
	if r.Campaign != "" {
		p(r.f("subtitle", "campaign", r.Campaign, "status", status, "turn", r.Turn))
	} else {
		p(r.f("subtitle", "campaign", r.Key.Campaign, "status", status, "turn", r.Turn))
	}
	p(r.f("table", "width", r.length(r.TableWidth), "depth", r.length(r.TableDepth), "measurement", r.t("measurement."+r.measurementKey())))

	h2("sides", "sides")
	var rows [][]string
	for _, s := range r.Sides {
		rows = append(rows, []string{s.Name, strings.Join(s.Players, ", "), s.CInC, strings.Join(s.Generals, ", "), strconv.Itoa(s.Units)})
	}
	d = append(d, block{kind: bTable, head: []string{r.t("col.side"), r.t("col.players"), r.t("col.c_in_c"), r.t("col.generals"), r.t("col.units")}, rows: rows})

	if len(r.Order) > 0 {
		h2("order-of-battle", "order_of_battle")
		p(r.t("order_rule"))
		rows = nil
		for _, m := range r.Order {
			what := r.term("type", m.Type)
			switch {
			case m.CInC:
				what = r.t("c_in_c")
			case m.Type == "":
				what = r.t("general")
			}
			rows = append(rows, []string{r.sideName(m.Side), m.Brigade, m.ID, m.Name, what})
		}
		d = append(d, block{kind: bTable, head: []string{r.t("col.side"), r.t("col.brigade"), r.t("col.id"), r.t("col.name"), r.t("col.type")}, rows: rows})
	}

	h2("narrative", "narrative")
	if len(r.Prelude) > 0 {
		d = append(d, block{kind: bSubheading, id: "prelude", text: r.t("prelude")})
		d = append(d, block{kind: bList, items: r.items(r.Prelude)})
	}
	for _, t := range r.Turns {
		d = append(d, block{kind: bSubheading, id: fmt.Sprintf("turn-%d-%s", t.Turn, fileSafe(t.Side)), text: r.turnTitle(t)})
		if t.Picture >= 0 {
			d = append(d, block{kind: bFigure, pic: t.Picture})
		}
		d = append(d, block{kind: bList, items: r.items(t.Lines)})
	}
	if r.Unpictured > 0 {
		p(r.f("unpictured", "n", r.Unpictured, "max", r.PictureLimit))
	}
	if r.Ended && len(r.Pictures) > 0 {
		last := len(r.Pictures) - 1
		if r.Pictures[last].Version == r.Last && r.endPicture {
			d = append(d, block{kind: bSubheading, id: "end", text: r.t("end_picture")})
			d = append(d, block{kind: bFigure, pic: last})
		}
	}

	h2("moments", "moments")
	p(r.t("moments_rule"))
	if len(r.Moments) == 0 {
		p(r.t("none"))
	} else {
		rows = nil
		for _, m := range r.Moments {
			rows = append(rows, []string{"#" + strconv.FormatUint(m.Version, 10), strconv.Itoa(m.Turn), r.t("kind." + m.Kind), m.Text})
		}
		d = append(d, block{kind: bTable, head: []string{r.t("col.event"), r.t("col.turn"), r.t("col.moment"), r.t("col.what")}, rows: rows})
	}

	h2("disputes", "disputes")
	if len(r.Disputes) == 0 {
		p(r.t("none"))
	} else {
		rows = nil
		for _, ds := range r.Disputes {
			rows = append(rows, []string{strconv.Itoa(ds.N), "#" + strconv.FormatUint(ds.EventVersion, 10), ds.Reason, r.cat.Text(r.Lang, "dstatus."+ds.Status), ds.Ruling})
		}
		d = append(d, block{kind: bTable, head: []string{r.t("col.n"), r.t("col.event"), r.t("col.reason"), r.t("col.status"), r.t("col.ruling")}, rows: rows})
	}

	if len(r.FlankMarches) > 0 {
		h2("flank-marches", "flank_marches")
		rows = nil
		for _, m := range r.FlankMarches {
			units := r.t("sealed")
			if m.Orders != nil {
				var us []string
				for _, b := range m.Orders.Brigades {
					for _, u := range b.Units {
						us = append(us, u.ID)
					}
				}
				units = strings.Join(us, ", ")
			}
			arrival := r.term("entry", m.Entry)
			if m.ArrivalTurn > 0 {
				arrival = r.f("arrival_turn", "turn", m.ArrivalTurn, "how", arrival)
			}
			rows = append(rows, []string{strconv.Itoa(m.N), r.sideName(m.Side), r.term("edge_name", string(m.Edge)), strconv.Itoa(m.DeclaredTurn), arrival, units})
		}
		d = append(d, block{kind: bTable, head: []string{r.t("col.n"), r.t("col.side"), r.t("col.edge"), r.t("col.declared"), r.t("col.arrival"), r.t("col.units")}, rows: rows})
	}

	h2("losses", "losses")
	if len(r.Losses) == 0 {
		p(r.t("none"))
	} else {
		rows = nil
		for _, l := range r.Losses {
			rows = append(rows, []string{r.sideName(l.Side), l.Unit, r.term("type", l.Type), strconv.Itoa(l.Markers), r.term("status", l.Status)})
		}
		d = append(d, block{kind: bTable, head: []string{r.t("col.side"), r.t("col.unit"), r.t("col.type"), r.t("col.markers"), r.t("col.status")}, rows: rows})
	}

	h2("score", "score")
	if r.Score == nil {
		p(r.t("not_scored"))
	} else {
		p(r.f("scored_at", "version", r.ScoredAt))
		rows = nil
		for _, sc := range r.Score.Sides {
			var how []string
			for _, u := range sc.Units {
				how = append(how, r.f("scored_unit", "unit", u.Unit, "status", r.term("status", u.Status), "value", u.Value))
			}
			for _, o := range sc.Objectives {
				how = append(how, r.f("scored_objective", "objective", o.Objective, "value", o.Value))
			}
			if len(how) == 0 {
				how = append(how, r.t("none"))
			}
			rows = append(rows, []string{r.sideName(sc.Side), strconv.Itoa(sc.Points), strings.Join(how, "; ")})
		}
		d = append(d, block{kind: bTable, head: []string{r.t("col.side"), r.t("col.points"), r.t("col.how")}, rows: rows})
		for _, x := range r.Score.Excluded {
			p(r.f("excluded", "unit", x.Unit, "side", r.sideName(x.Side), "march", x.March, "value", x.Value))
		}
	}

	h2("luck", "luck")
	p(r.t("luck_rule"))
	rows = nil
	for _, pl := range r.Luck {
		var outs []string
		for _, o := range pl.Outcomes {
			name := r.term("outcome", o.Outcome)
			if o.Outcome == "actions" {
				name = r.f("outcome_actions", "n", o.Actions)
			}
			outs = append(outs, r.f("observed_expected", "outcome", name, "observed", o.Observed, "expected", r.decimal(o.Expected)))
		}
		if len(outs) == 0 {
			outs = append(outs, r.t("none"))
		}
		faces := r.t("none")
		var fs []string
		for _, f := range pl.Faces {
			if f.Source != "all" {
				continue
			}
			verdict := r.t("fair")
			switch {
			case f.SmallSample:
				verdict = r.t("small_sample")
			case f.Exceeds:
				verdict = r.t("exceeds")
			}
			fs = append(fs, r.f("faces", "dice", f.Dice, "sides", f.Sides, "chi", r.decimal(f.ChiSquare), "critical", r.decimal(f.Critical999), "verdict", verdict))
		}
		if len(fs) > 0 {
			faces = strings.Join(fs, "; ")
		}
		rows = append(rows, []string{pl.Player, strconv.Itoa(pl.Orders), strings.Join(outs, "; "), strconv.Itoa(pl.Dice), faces})
	}
	if len(rows) == 0 {
		p(r.t("none"))
	} else {
		d = append(d, block{kind: bTable, head: []string{r.t("col.person"), r.t("col.orders"), r.t("col.outcomes"), r.t("col.dice"), r.t("col.faces")}, rows: rows})
	}

	h2("verify", "verify")
	p(r.f("head", "head", r.Head, "last", r.Last, "events", r.Events))
	if r.Withheld > 0 {
		p(r.f("withheld", "n", r.Withheld))
	}
	chain := r.t("chain_intact")
	if r.Chain != "intact" {
		chain = r.Chain
	}
	audited := r.t("audit_passed")
	if !r.AuditPass {
		audited = r.t("audit_failed")
	}
	p(chain + " " + audited)
	p(r.t("verify_how"))
	key := r.Key.Campaign + "/" + r.Key.Battle
	d = append(d, block{kind: bCode, text: "ledger audit " + key + " --head " + r.Head + "\n" +
		"ledger export " + key + " -f " + r.Key.Battle + ".jsonl\n" +
		"ledger audit --file " + r.Key.Battle + ".jsonl --head " + r.Head})
	return d
}

func (r *Report) measurementKey() string {
	if r.Measurement == "cm" {
		return "cm"
	}
	return "in"
}

// items are the narrative's lines as list items.
func (r *Report) items(lines []Line) []item {
	out := make([]item, 0, len(lines))
	for _, l := range lines {
		it := item{text: "#" + strconv.FormatUint(l.Version, 10) + " " + l.Text, pic: -1}
		if l.Moment >= 0 {
			it.strong = true
			it.pic = r.Moments[l.Moment].Picture
		}
		out = append(out, it)
	}
	return out
}

// decimal is a figure with two decimals, with a comma in Russian.
func (r *Report) decimal(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if r.Lang == "ru" {
		s = strings.ReplaceAll(s, ".", ",")
	}
	return s
}
