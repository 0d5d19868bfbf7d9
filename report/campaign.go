package report

import (
	"context"
	"io"
	"strconv"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
)

// Campaign is a whole campaign's report: its standings, then each battle's
// report in the campaign's order, as one caller may see them.
type Campaign struct {
	ID        string             `json:"campaign"`
	Name      string             `json:"name"`
	Lang      string             `json:"lang"`
	Standings campaign.Standings `json:"standings"`
	Battles   []*Report          `json:"battles"`

	cat *i18n.Catalogue
}

// MaxBattles bounds a campaign's report: its first battles, in the
// campaign's order (docs/report.md).
const MaxBattles = 50

// MaxCampaignPictures bounds a campaign's pictures: each battle draws at
// most its share (MaxCampaignPictures over the battles, at most
// MaxPictures, at least 1), the end's pictures beyond it.
const MaxCampaignPictures = 1000

// BuildCampaign reads campaign id through api and gathers the report of
// each of its battles (Build, each with the same options), in the
// campaign's order, at most MaxBattles.
func BuildCampaign(ctx context.Context, api app.API, cat *i18n.Catalogue, id string, opt Options) (*Campaign, error) {
	lang, err := begin(ctx, cat, opt)
	if err != nil {
		return nil, err
	}
	info, err := api.Campaign(ctx, id)
	if err != nil {
		return nil, err
	}
	st, err := api.Standings(ctx, id)
	if err != nil {
		return nil, err
	}
	c := &Campaign{ID: id, Name: info.Name, Lang: lang, Standings: st.Standings, cat: cat}
	if c.Name == "" {
		c.Name = id
	}
	battles := info.Battles[:min(len(info.Battles), MaxBattles)]
	if len(battles) > 0 {
		share := max(1, min(MaxPictures, MaxCampaignPictures/len(battles)))
		if opt.MaxPictures <= 0 || opt.MaxPictures > share {
			opt.MaxPictures = share
		}
	}
	for _, b := range battles {
		r, err := Build(ctx, api, cat, events.Key{Campaign: id, Battle: b.Battle}, opt)
		if err != nil {
			return nil, err
		}
		c.Battles = append(c.Battles, r)
	}
	return c, nil
}

func (c *Campaign) t(key string) string { return c.cat.Text(c.Lang, "report."+key) }

// Pictures are every battle's pictures, each named with its battle's id
// first (b1-001-turn-1-french.png), as the campaign's post names them.
func (c *Campaign) Pictures() []Picture {
	var out []Picture
	for _, r := range c.Battles {
		for _, p := range r.Pictures {
			p.Name = fileSafe(r.Key.Battle) + "-" + p.Name
			out = append(out, p)
		}
	}
	return out
}

// Write writes the campaign's report in format: the campaign's title and
// standings, then each battle's report with its headings one level down
// and its anchors and pictures named by its battle.
func (c *Campaign) Write(w io.Writer, format string) error {
	d := []block{{kind: bTitle, text: c.Name}}
	d = append(d, block{kind: bPara, text: fmtText(c.t("campaign_battles"), "n", len(c.Battles))})
	d = append(d, block{kind: bHeading, id: "standings", text: c.t("standings")})
	var rows [][]string
	for _, s := range c.Standings.Sides {
		name := s.Name
		if name == "" {
			name = s.Side
		}
		rows = append(rows, []string{name, strconv.Itoa(s.Points), strconv.Itoa(s.Played), strconv.Itoa(s.Won), strconv.Itoa(s.Drawn), strconv.Itoa(s.Lost)})
	}
	if len(rows) == 0 {
		d = append(d, block{kind: bPara, text: c.t("none")})
	} else {
		d = append(d, block{kind: bTable, head: []string{c.t("col.side"), c.t("col.points"), c.t("col.played"), c.t("col.won"), c.t("col.drawn"), c.t("col.lost")}, rows: rows})
	}
	pictures := c.Pictures()
	offset := 0
	for _, r := range c.Battles {
		prefix := fileSafe(r.Key.Battle) + "-"
		for _, b := range r.document() {
			switch b.kind {
			case bTitle:
				b.kind, b.id = bHeading, prefix+"battle"
			case bHeading:
				b.kind = bSubheading
			case bSubheading:
				b.kind = bMinor
			}
			if b.id != "" && b.id != prefix+"battle" {
				b.id = prefix + b.id
			}
			if b.kind == bFigure && b.pic >= 0 {
				b.pic += offset
			}
			if len(b.items) > 0 {
				items := make([]item, len(b.items))
				for i, it := range b.items {
					if it.pic >= 0 {
						it.pic += offset
					}
					items[i] = it
				}
				b.items = items
			}
			d = append(d, b)
		}
		offset += len(r.Pictures)
	}
	return page{blocks: d, pictures: pictures, lang: c.Lang, title: fmtText(c.t("doc_title"), "name", c.Name)}.write(w, format)
}

// WritePictures writes every battle's pictures through create, named as
// Pictures names them.
func (c *Campaign) WritePictures(create func(name string) (io.WriteCloser, error)) error {
	return writePictures(c.Pictures(), create)
}
