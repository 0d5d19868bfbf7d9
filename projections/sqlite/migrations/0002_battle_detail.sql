-- What the battle events recorded so far carry beyond 0001: the battle's
-- sides and brigades, the current turn's bookkeeping (orders given, actions
-- left, initiative, charges), every unit action as a timeline row, and the
-- digital dice's commitments, reveals and players' seeds. Tables for
-- features not built yet (flank marches, victory points, standings,
-- disputes, players, rosters) come with those features.

ALTER TABLE battles ADD COLUMN first_side TEXT NOT NULL DEFAULT '';
ALTER TABLE battles ADD COLUMN turn_limit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE battles ADD COLUMN end_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE battles ADD COLUMN roll_counter INTEGER NOT NULL DEFAULT 0;
-- The current turn's command-phase state (RULES.md C.1, C.10, C.11).
ALTER TABLE battles ADD COLUMN current_general TEXT NOT NULL DEFAULT '';
ALTER TABLE battles ADD COLUMN orders_closed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE battles ADD COLUMN initiative_closed INTEGER NOT NULL DEFAULT 0;
-- The open dice period and whether it has rolled (no more player seeds).
ALTER TABLE battles ADD COLUMN dice_period TEXT NOT NULL DEFAULT '';
ALTER TABLE battles ADD COLUMN dice_rolled INTEGER NOT NULL DEFAULT 0;

ALTER TABLE generals ADD COLUMN gifted INTEGER NOT NULL DEFAULT 0;

-- Who ordered what: the order's content and its special kind (C.13, C.14),
-- the blunder-table result (C.5) and the decision in words.
ALTER TABLE orders ADD COLUMN side TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN c_in_c INTEGER NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN action TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN special TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN attached TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN blunder TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN summary TEXT NOT NULL DEFAULT '';

-- A battle's sides, in battle.create order.
CREATE TABLE battle_sides (
    campaign TEXT NOT NULL,
    battle   TEXT NOT NULL,
    side     TEXT NOT NULL,
    position INTEGER NOT NULL,
    name     TEXT NOT NULL,
    nation   TEXT NOT NULL,
    player   TEXT NOT NULL,
    deployed INTEGER NOT NULL,
    c_in_c   TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, side)
);

-- Brigades under their orders (T.6); units lists unit ids in deployment order.
CREATE TABLE brigades (
    campaign      TEXT NOT NULL,
    battle        TEXT NOT NULL,
    brigade       TEXT NOT NULL,
    side          TEXT NOT NULL,
    name          TEXT NOT NULL,
    brigade_order TEXT NOT NULL,
    general       TEXT NOT NULL,
    units         TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, brigade)
);

-- The current turn's bookkeeping per unit: orders, actions granted and
-- left, failure, initiative, charges (C.3-C.17). Reset at each turn.
CREATE TABLE unit_turns (
    campaign          TEXT NOT NULL,
    battle            TEXT NOT NULL,
    unit              TEXT NOT NULL,
    orders            INTEGER NOT NULL,
    actions_granted   INTEGER NOT NULL,
    actions_left      INTEGER NOT NULL,
    move_actions      INTEGER NOT NULL,
    failed            INTEGER NOT NULL,
    blundered         INTEGER NOT NULL,
    failed_moves      INTEGER NOT NULL,
    initiative        INTEGER NOT NULL,
    initiative_action TEXT NOT NULL,
    declined          INTEGER NOT NULL,
    may_charge        INTEGER NOT NULL,
    reforms           INTEGER NOT NULL,
    charged           TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, unit)
);

-- The current turn's bookkeeping per general: orders given, and the rule
-- that closed him (C.4, C.10, C.13, C.14).
CREATE TABLE general_turns (
    campaign TEXT NOT NULL,
    battle   TEXT NOT NULL,
    general  TEXT NOT NULL,
    orders   INTEGER NOT NULL,
    done     INTEGER NOT NULL,
    reason   TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, general)
);

-- Every unit action, for the timeline and the map: moves, formation
-- changes, charges, blunders carried out, initiative taken or declined.
-- Positions are the base's centre and facing before and after; NULL for an
-- action that does not move the unit.
CREATE TABLE unit_actions (
    seq          INTEGER PRIMARY KEY,
    campaign     TEXT NOT NULL,
    battle       TEXT NOT NULL,
    turn         INTEGER NOT NULL,
    unit         TEXT NOT NULL,
    type         TEXT NOT NULL,
    actions_used INTEGER NOT NULL,
    from_x       REAL,
    from_y       REAL,
    from_facing  REAL,
    to_x         REAL,
    to_y         REAL,
    to_facing    REAL,
    distance     REAL,
    formation    TEXT NOT NULL,
    target       TEXT NOT NULL,
    contact      INTEGER NOT NULL,
    detail       TEXT NOT NULL,
    actor        TEXT NOT NULL
);
CREATE INDEX unit_actions_unit ON unit_actions (campaign, battle, unit, seq);

-- The digital dice's periods: the commitment made before the first roll
-- and the seed revealed at the end (docs/dice.md).
CREATE TABLE dice_periods (
    campaign   TEXT NOT NULL,
    battle     TEXT NOT NULL,
    period     TEXT NOT NULL,
    number     INTEGER NOT NULL,
    commitment TEXT NOT NULL,
    revealed   TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, period)
);

-- Players' own seeds mixed into a period's digital dice.
CREATE TABLE dice_seeds (
    seq      INTEGER PRIMARY KEY,
    campaign TEXT NOT NULL,
    battle   TEXT NOT NULL,
    period   TEXT NOT NULL,
    player   TEXT NOT NULL,
    seed     TEXT NOT NULL,
    actor    TEXT NOT NULL
);

-- The new columns and tables are derived from events already applied: a
-- projection made before this migration replays from the first event, in
-- place, the next time the projector runs (docs/projections.md).
DELETE FROM checkpoint;
DELETE FROM events;
DELETE FROM commands;
DELETE FROM campaigns;
DELETE FROM campaign_sides;
DELETE FROM campaign_battles;
DELETE FROM battles;
DELETE FROM battle_state;
DELETE FROM units;
DELETE FROM generals;
DELETE FROM orders;
DELETE FROM rolls;
