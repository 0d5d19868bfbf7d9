package app

import (
	"context"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
)

// Executor plays a scenario's commands through api: `ledger play` goes
// through the same door as every other command, as its caller (the
// Request's Principal is the caller's; its For is kept).
func Executor(api API) campaign.Executor { return executor{api} }

type executor struct{ api API }

func (x executor) Execute(ctx context.Context, req campaign.Request) (campaign.Outcome, error) {
	res, err := x.api.Execute(ctx, Command{ID: req.ID, Campaign: req.Campaign, Battle: req.Battle, Name: req.Name,
		Body: req.Body, Dice: req.Dice.Values, For: req.For, Nonce: req.Nonce, DryRun: req.DryRun})
	if err != nil {
		return campaign.Outcome{}, err
	}
	out := campaign.Outcome{Key: res.Key, Duplicate: res.Duplicate, DryRun: res.DryRun, Token: res.Token}
	for _, v := range res.Events {
		out.Events = append(out.Events, v.Envelope(res.Key))
	}
	if out.Events == nil {
		out.Events = []events.Envelope{}
	}
	return out, nil
}
