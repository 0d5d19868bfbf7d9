package web

import (
	"encoding/json"
	"net/http"
	"sort"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/rules"
)

// DiceJSON is GET .../dice: every die of the battle's dice.rolled events
// the caller may read, counted by face for each person and die size.
type DiceJSON struct {
	People []DicePerson `json:"people"`
}

// DicePerson is one person's dice of one size. A physical die counts for
// whoever entered it; a digital one for whoever gave the command that rolled it.
type DicePerson struct {
	Person string `json:"person"`
	Sides  int    `json:"sides"`
	// Dice is the number of dice; Faces[i] how many showed i+1.
	Dice     int   `json:"dice"`
	Faces    []int `json:"faces"`
	Physical int   `json:"physical"`
	Digital  int   `json:"digital"`
	// Expected is how many of each face fair dice show on average: Dice/Sides.
	Expected float64 `json:"expected"`
}

func (s *Server) handleDice(w http.ResponseWriter, r *http.Request) {
	wh, _, evs, ok := s.battleEvents(w, r)
	if !ok {
		return
	}
	type k struct {
		person string
		sides  int
	}
	by := map[k]*DicePerson{}
	for _, e := range evs {
		if e.Type != rules.EvDiceRolled || !wh.CanRead(e.Audience) {
			continue
		}
		payload, err := campaign.Registry().Upcast(&e)
		if err != nil {
			continue
		}
		var d rules.DiceRolled
		if err := json.Unmarshal(payload, &d); err != nil || d.Sides < 1 {
			continue
		}
		person := e.Actor
		if d.Source == "physical" && d.EnteredBy != "" {
			person = d.EnteredBy
		}
		p := by[k{person, d.Sides}]
		if p == nil {
			p = &DicePerson{Person: person, Sides: d.Sides, Faces: make([]int, d.Sides)}
			by[k{person, d.Sides}] = p
		}
		for _, v := range d.Values {
			if v < 1 || v > d.Sides {
				continue
			}
			p.Faces[v-1]++
			p.Dice++
			if d.Source == "physical" {
				p.Physical++
			} else {
				p.Digital++
			}
		}
	}
	out := DiceJSON{People: []DicePerson{}}
	for _, p := range by {
		p.Expected = float64(p.Dice) / float64(p.Sides)
		out.People = append(out.People, *p)
	}
	sort.Slice(out.People, func(i, j int) bool {
		if out.People[i].Person != out.People[j].Person {
			return out.People[i].Person < out.People[j].Person
		}
		return out.People[i].Sides < out.People[j].Sides
	})
	writeJSON(w, http.StatusOK, out)
}
