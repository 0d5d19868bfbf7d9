-- The campaign view (issue 8): a campaign's people, each battle's flank
-- marches, objectives and victory points, disputes and retraction requests,
-- and the campaign's standings and rosters battle after battle
-- (docs/projections.md, docs/flank-marches.md). Everything here is derived
-- from events already in the log, so the migration ends by emptying the
-- projection: a file made before it replays from the first event.

-- A campaign's people (campaign.player_added). Never the token hash: the
-- projection is read by queries and tools that must not learn it.
CREATE TABLE players (
    campaign TEXT NOT NULL,
    player   TEXT NOT NULL,
    name     TEXT NOT NULL,
    role     TEXT NOT NULL,
    side     TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    PRIMARY KEY (campaign, player)
);

-- Flank marches (F.1-F.10), as public as the log: before flank.revealed only
-- what flank.declared says (side, edge, roll, arrival, commitment); the
-- composition (brigades, units) and the entry point are NULL until the
-- sealed orders are revealed. status: declared, lost, arriving (revealed on
-- arrival, units still off the table), arrived (all on the table),
-- not_arrived (revealed at the battle's end without having arrived).
CREATE TABLE flank_marches (
    campaign             TEXT NOT NULL,
    battle               TEXT NOT NULL,
    march                INTEGER NOT NULL,
    side                 TEXT NOT NULL,
    edge                 TEXT NOT NULL,
    status               TEXT NOT NULL,
    entry_kind           TEXT NOT NULL,
    roll                 INTEGER NOT NULL,
    declared_turn        INTEGER NOT NULL,
    arrival_turn         INTEGER NOT NULL,
    artillery_extra_move INTEGER NOT NULL,
    fight                TEXT NOT NULL,
    commitment           TEXT NOT NULL,
    revealed             TEXT NOT NULL,
    entry_x              REAL,
    entry_y              REAL,
    brigades             TEXT,
    units                INTEGER,
    entered              TEXT NOT NULL,
    waiting              TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, march)
);

-- A battle's objectives (battle.create) and who holds each (objective.held,
-- V.2); held_by is empty when nobody does.
CREATE TABLE objectives (
    campaign  TEXT NOT NULL,
    battle    TEXT NOT NULL,
    objective TEXT NOT NULL,
    position  INTEGER NOT NULL,
    name      TEXT NOT NULL,
    value     INTEGER NOT NULL,
    x         REAL,
    y         REAL,
    held_by   TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, objective)
);

-- Each side's victory points in an ended battle (battle.scored, V.1-V.3):
-- the enemy units and objectives it scores, as JSON lists.
CREATE TABLE victory_points (
    campaign         TEXT NOT NULL,
    battle           TEXT NOT NULL,
    side             TEXT NOT NULL,
    position         INTEGER NOT NULL,
    points           INTEGER NOT NULL,
    unit_points      INTEGER NOT NULL,
    objective_points INTEGER NOT NULL,
    units            TEXT NOT NULL,
    objectives       TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, side)
);

-- Units left out of a battle's score: flank marchers that never came on the
-- table, lost ones above all (F.9, V.3), in battle.scored's order.
CREATE TABLE victory_excluded (
    campaign TEXT NOT NULL,
    battle   TEXT NOT NULL,
    position INTEGER NOT NULL,
    unit     TEXT NOT NULL,
    side     TEXT NOT NULL,
    type     TEXT NOT NULL,
    march    INTEGER NOT NULL,
    value    INTEGER NOT NULL,
    reason   TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, position)
);

-- Disputes (dispute.raised, .upheld, .dismissed): status open, upheld or
-- dismissed; who raised it and who ruled (the events' actors).
CREATE TABLE disputes (
    campaign      TEXT NOT NULL,
    battle        TEXT NOT NULL,
    dispute       INTEGER NOT NULL,
    event_version INTEGER NOT NULL,
    event_type    TEXT NOT NULL,
    status        TEXT NOT NULL,
    reason        TEXT NOT NULL,
    raised_by     TEXT NOT NULL,
    raised_seq    INTEGER NOT NULL,
    ruling        TEXT NOT NULL,
    corrections   INTEGER NOT NULL,
    ruled_by      TEXT NOT NULL,
    ruled_seq     INTEGER,
    PRIMARY KEY (campaign, battle, dispute)
);

-- Requests to take a command back (command.retract_requested, then
-- .retract_declined or .retracted): status pending, declined or retracted.
CREATE TABLE retractions (
    campaign      TEXT NOT NULL,
    battle        TEXT NOT NULL,
    request       INTEGER NOT NULL,
    command_id    TEXT NOT NULL,
    versions      TEXT NOT NULL,
    types         TEXT NOT NULL,
    turn          INTEGER NOT NULL,
    phase         TEXT NOT NULL,
    status        TEXT NOT NULL,
    requested_by  TEXT NOT NULL,
    requested_seq INTEGER NOT NULL,
    answered_by   TEXT NOT NULL,
    answered_seq  INTEGER,
    reason        TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, request)
);

-- A campaign's standings (V.4), one row per side in campaign.created's
-- order: the battles counted (ended and scored), won, drawn, lost and the
-- points summed over them.
CREATE TABLE standings (
    campaign TEXT NOT NULL,
    side     TEXT NOT NULL,
    position INTEGER NOT NULL,
    name     TEXT NOT NULL,
    played   INTEGER NOT NULL,
    won      INTEGER NOT NULL,
    drawn    INTEGER NOT NULL,
    lost     INTEGER NOT NULL,
    points   INTEGER NOT NULL,
    PRIMARY KEY (campaign, side)
);

-- Each counted battle of a campaign, per side: its points and result, and
-- the side's standing after it (played, won, drawn, lost, total points).
CREATE TABLE battle_results (
    campaign     TEXT NOT NULL,
    number       INTEGER NOT NULL,
    battle       TEXT NOT NULL,
    side         TEXT NOT NULL,
    points       INTEGER NOT NULL,
    result       TEXT NOT NULL,
    played       INTEGER NOT NULL,
    won          INTEGER NOT NULL,
    drawn        INTEGER NOT NULL,
    lost         INTEGER NOT NULL,
    total_points INTEGER NOT NULL,
    PRIMARY KEY (campaign, number, side)
);

-- Each side's roster after each counted battle (V.3): the units it has for
-- its next battle, with the casualty markers they carry, how many battles
-- they fought, and the last battle they belonged to (fought or returned: a
-- flank march that took no part).
CREATE TABLE rosters (
    campaign    TEXT NOT NULL,
    number      INTEGER NOT NULL,
    battle      TEXT NOT NULL,
    side        TEXT NOT NULL,
    unit        TEXT NOT NULL,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL,
    markers     INTEGER NOT NULL,
    battles     INTEGER NOT NULL,
    last_battle TEXT NOT NULL,
    last_was    TEXT NOT NULL,
    PRIMARY KEY (campaign, number, side, unit)
);

-- Units gone from a roster for good: destroyed in the counted battle
-- `number`, in the order the standings list them.
CREATE TABLE roster_destroyed (
    campaign TEXT NOT NULL,
    number   INTEGER NOT NULL,
    side     TEXT NOT NULL,
    position INTEGER NOT NULL,
    battle   TEXT NOT NULL,
    unit     TEXT NOT NULL,
    PRIMARY KEY (campaign, number, side, position)
);

CREATE INDEX campaign_battles_number ON campaign_battles (campaign, number);

-- The new tables are derived from events already applied: a projection
-- made before this migration replays from the first event, in place, the
-- next time the projector runs (docs/projections.md).
DELETE FROM checkpoint;
DELETE FROM events;
-- Sides and battles before their campaigns: they refer to them and
-- foreign keys are on.
DELETE FROM campaign_sides;
DELETE FROM campaign_battles;
DELETE FROM campaigns;
DELETE FROM battles;
DELETE FROM battle_state;
DELETE FROM battle_sides;
DELETE FROM brigades;
DELETE FROM units;
DELETE FROM generals;
DELETE FROM unit_turns;
DELETE FROM general_turns;
DELETE FROM orders;
DELETE FROM rolls;
DELETE FROM unit_actions;
DELETE FROM dice_periods;
DELETE FROM dice_seeds;
