package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// addBattle records a new battle on its campaign's stream (idempotently: the
// same command id appends it once) and completes the battle.create command
// from the campaign: its id, its sides when the battle names none, and its
// ruleset overlay and era.
func (s *Service) addBattle(ctx context.Context, key events.Key, req call, cmd rules.Command) error {
	cb, ok := cmd.(*rules.CreateBattle)
	if !ok {
		return fmt.Errorf("campaign: battle.create decoded as %T", cmd)
	}
	if cb.Battle == "" {
		cb.Battle = key.Battle
	}
	if cb.Battle != key.Battle {
		return rules.Refuse("campaign", "battle.mismatch", "body names battle %q, request %q", cb.Battle, key.Battle)
	}
	if cb.Campaign != "" && cb.Campaign != key.Campaign {
		return rules.Refuse("campaign", "campaign.mismatch", "body names campaign %q, request %q", cb.Campaign, key.Campaign)
	}
	cb.Campaign = key.Campaign
	camp, err := s.Campaign(ctx, key.Campaign)
	if err != nil {
		return err
	}
	if !camp.Exists() {
		return rules.Refuse("campaign", "campaign.unknown", "campaign %q does not exist; create it first (campaign.create)", key.Campaign)
	}
	if len(cb.Sides) == 0 {
		for _, sd := range camp.Sides {
			cb.Sides = append(cb.Sides, rules.SideSpec{ID: sd.ID, Name: sd.Name, Nation: sd.Nation})
		}
	}
	// The battle's overlay is judged as its user wrote it, naming its own
	// lines; the campaign's was when the campaign was created.
	if err := checkOverlay(cb.Ruleset); err != nil {
		return err
	}
	overlay, err := mergeOverlays(camp.Ruleset, "era: "+camp.Era+"\n", cb.Ruleset)
	var tooLarge *rules.Refusal
	if errors.As(err, &tooLarge) {
		return err
	}
	if err != nil {
		return rules.Refuse("ruleset", "ruleset.overlay", "%s", err.Error())
	}
	if len(overlay) > MaxRuleset {
		// YAML's aliases repeat what they name: a small overlay may say a
		// great deal, which every battle would then carry and check.
		return rules.Refuse("ruleset", "ruleset.too_large", "the ruleset overlay, its aliases expanded and merged with the campaign's, is %d bytes, at most %d", len(overlay), MaxRuleset).
			WithNumbers(map[string]float64{"bytes": float64(len(overlay)), "max": MaxRuleset})
	}
	cb.Ruleset = overlay
	// The rules judge the battle before the campaign records it: a refused
	// battle.create leaves no battle in the campaign's list.
	decided, err := rules.Decide(rules.NewState(), cb, noDice{})
	if err != nil {
		return err
	}
	// Nor a battle whose events the log could not store: the campaign
	// would list a battle that is never created. An event's envelope
	// adds its fields to its payload (eventOverhead).
	for _, ev := range decided {
		payload, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if n := len(payload) + eventOverhead; n > s.maxEvent {
			return s.tooLarge(ev.EventType(), n)
		}
	}
	battle, _, err := s.State(ctx, key)
	if err != nil {
		return err
	}
	if req.DryRun {
		// A dry run checks the battle; it records nothing in the campaign.
		if camp.HasBattle(key.Battle) && battle.Status != rules.StatusNew {
			return rules.Refuse("campaign", "battle.exists", "battle %q already exists in campaign %q", key.Battle, key.Campaign)
		}
		return nil
	}
	ckey := events.Key{Campaign: key.Campaign}
	_, err = s.run(ctx, ckey, req, func(st *stream) ([]pending, error) {
		c := st.campaign
		if c.HasBattle(key.Battle) {
			if battle.Status == rules.StatusNew {
				// Recorded by an earlier battle.create whose battle
				// stream was never written (the process stopped in
				// between): the battle is still to be created.
				return nil, errAlreadyAdded
			}
			return nil, rules.Refuse("campaign", "battle.exists", "battle %q already exists in campaign %q", key.Battle, key.Campaign)
		}
		return []pending{{typ: EvBattleAdded, audience: events.AudienceAll, payload: BattleAdded{
			Battle: key.Battle, Name: cb.Name, Number: len(c.Battles) + 1,
		}}}, nil
	})
	if errors.Is(err, errAlreadyAdded) {
		return nil
	}
	return err
}

// eventOverhead is what a stored event's envelope adds to its payload, at
// most: its key, ids, times, hashes and signature (about 700 bytes).
const eventOverhead = 2 << 10

// overlaySize refuses a ruleset overlay that says more than MaxRuleset
// bytes once YAML's aliases are expanded, reading it as nodes (aliases not
// expanded) and counting each node's expanded size once: an overlay of a
// few kilobytes of aliases expanded to megabytes, and took seconds and
// hundreds of megabytes of a server to say so.
func overlaySize(o string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(o), &doc); err != nil {
		return fmt.Errorf("ruleset overlay: %w", err)
	}
	return docSize(&doc)
}

// docSize is overlaySize of an overlay read.
func docSize(doc *yaml.Node) error {
	sizes := map[*yaml.Node]int{}
	deep := false
	var size func(n *yaml.Node, depth int) int
	size = func(n *yaml.Node, depth int) int {
		if n == nil {
			return 0
		}
		if s, ok := sizes[n]; ok {
			return s
		}
		if depth > MaxDepth {
			deep = true
			return MaxRuleset + 1
		}
		s := len(n.Value) + 2
		switch n.Kind {
		case yaml.AliasNode:
			s = size(n.Alias, depth+1)
		default:
			for _, c := range n.Content {
				if s += size(c, depth+1); s > MaxRuleset {
					s = MaxRuleset + 1
					break
				}
			}
		}
		sizes[n] = s
		return s
	}
	over := size(doc, 0) > MaxRuleset
	if over && deep {
		return rules.Refuse("ruleset", "ruleset.too_large", "the ruleset overlay is nested more than %d deep", MaxDepth).
			WithNumbers(map[string]float64{"max": MaxDepth})
	}
	if over {
		return rules.Refuse("ruleset", "ruleset.too_large", "the ruleset overlay, its aliases expanded, is more than %d bytes", MaxRuleset).
			WithNumbers(map[string]float64{"max": MaxRuleset})
	}
	return nil
}

// errAlreadyAdded says the campaign already lists a battle whose stream is
// still empty.
var errAlreadyAdded = errors.New("campaign: the battle is already in the campaign's list")

// mergeOverlays deep-merges YAML overlays, later ones winning, into one.
// An overlay whose aliases expand past MaxRuleset is refused before it is
// expanded (overlaySize).
func mergeOverlays(overlays ...string) (string, error) {
	merged := map[string]any{}
	for _, o := range overlays {
		if o == "" {
			continue
		}
		if err := overlaySize(o); err != nil {
			return "", err
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(o), &m); err != nil {
			return "", fmt.Errorf("ruleset overlay: %w", err)
		}
		deepMerge(merged, m)
	}
	if len(merged) == 0 {
		return "", nil
	}
	b, err := yaml.Marshal(merged)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func deepMerge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				deepMerge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// seedName is where a period's secret dice seed is sealed.
func seedName(key events.Key, period string) string {
	return fmt.Sprintf("dice.%s.%s.%s", key.Campaign, key.Battle, period)
}

// sealedSeed returns the period's secret seed, drawing it from the operating
// system's random source and sealing it the first time. Two processes racing
// to seal agree on the first one stored. A dry run draws and seals nothing:
// the commitment it shows stands for a seed that does not exist.
func (s *Service) sealedSeed(ctx context.Context, key events.Key, period string, create, dryRun bool) (dice.Seed, error) {
	name := seedName(key, period)
	if raw, err := s.vault.Get(ctx, name); err == nil {
		return dice.ParseSeed(string(raw))
	} else if !errors.Is(err, events.ErrNotFound) || !create {
		return dice.Seed{}, fmt.Errorf("campaign: dice seed of %s period %s: %w", key, period, err)
	}
	if dryRun {
		return dice.Seed{}, nil
	}
	var seed dice.Seed
	if _, err := io.ReadFull(s.entropy, seed[:]); err != nil {
		return dice.Seed{}, fmt.Errorf("campaign: dice seed: %w", err)
	}
	if err := s.vault.Put(ctx, name, []byte(seed.Hex())); err != nil {
		raw, gerr := s.vault.Get(ctx, name)
		if gerr != nil {
			return dice.Seed{}, fmt.Errorf("campaign: seal dice seed: %w", err)
		}
		return dice.ParseSeed(string(raw))
	}
	return seed, nil
}

// prepare stamps what only the service may supply on a command: the
// commitment to a new period's dice seed, and the seed to reveal when a
// period ends. The rules engine decides whether a period starts or ends.
func (s *Service) prepare(ctx context.Context, key events.Key, st *rules.State, cmd rules.Command, dryRun bool) (rules.Command, error) {
	cmd, err := s.prepareSealed(ctx, key, st, cmd, dryRun)
	if err != nil {
		return nil, err
	}
	next, reveal := rules.DicePeriods(st, cmd)
	if next != "" {
		seed, err := s.sealedSeed(ctx, key, next, true, dryRun)
		if err != nil {
			return nil, err
		}
		cmd = rules.WithDiceCommitment(cmd, seed.Commitment())
	}
	if reveal != "" {
		seed, err := s.sealedSeed(ctx, key, reveal, false, dryRun)
		if err != nil {
			return nil, err
		}
		cmd = rules.WithDiceReveal(cmd, seed.Hex())
	}
	return cmd, nil
}

// diceFor returns the dice the command will use: the physical values the
// player entered, or the digital source of the current period, which by
// ledger-dice-v3 mixes in, for a player's own command, the nonce from their
// device, and never the command's id. finish refuses a command that left
// entered dice unused.
func (s *Service) diceFor(ctx context.Context, key events.Key, st *rules.State, req call) (rules.Dice, func() error, error) {
	nonce, err := playerNonce(req)
	if err != nil {
		return nil, nil, err
	}
	if len(req.Dice.Values) > 0 {
		by := req.Dice.EnteredBy
		if by == "" {
			by = req.as.Player
		}
		p := &physicalDice{values: req.Dice.Values, by: by}
		return p, p.leftover, nil
	}
	period := st.Dice.Period
	if period == "" || st.Dice.Commitment == "" {
		return noDice{}, func() error { return nil }, nil
	}
	if req.DryRun {
		return dryRunDice{}, func() error { return nil }, nil
	}
	if !dice.Known(st.Dice.Scheme) {
		return nil, nil, fmt.Errorf("campaign: %s period %s commits to dice scheme %q, which this program does not know", key, period, st.Dice.Scheme)
	}
	seed, err := s.sealedSeed(ctx, key, period, false, false)
	if err != nil {
		return nil, nil, err
	}
	if seed.Commitment() != st.Dice.Commitment {
		return nil, nil, fmt.Errorf("campaign: the sealed dice seed of %s period %s does not match its commitment", key, period)
	}
	in := dice.Input{Seed: seed, PlayerSeeds: st.Dice.PlayerSeeds, Battle: key.String(), Period: period}
	d := &digitalDice{scheme: dice.RollScheme(st.Dice.Scheme), in: in}
	if d.scheme != dice.SchemeV1 {
		d.nonce = nonce
	}
	return d, func() error { return nil }, nil
}
