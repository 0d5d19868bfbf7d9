-- The read model of the ledger. Everything here is derived from the log and
-- can be deleted and rebuilt (`ledger projections rebuild`).

CREATE TABLE checkpoint (
    projection TEXT PRIMARY KEY,
    sequence   INTEGER NOT NULL
);

-- Every event, as an index for queries. The payload is kept so that a viewer
-- can be shown the events its audience allows.
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY,
    campaign   TEXT NOT NULL,
    battle     TEXT NOT NULL DEFAULT '',
    version    INTEGER NOT NULL,
    id         TEXT NOT NULL UNIQUE,
    type       TEXT NOT NULL,
    schema     INTEGER NOT NULL,
    time       TEXT NOT NULL,
    actor      TEXT NOT NULL,
    command_id TEXT NOT NULL,
    audience   TEXT NOT NULL,
    prev_hash  TEXT NOT NULL,
    hash       TEXT NOT NULL,
    payload    TEXT NOT NULL,
    UNIQUE (campaign, battle, version)
);
CREATE INDEX events_stream ON events (campaign, battle, version);

-- Command ids already applied, per stream: a repeated command is recognised
-- here long after the server's duplicate window has passed.
CREATE TABLE commands (
    campaign   TEXT NOT NULL,
    battle     TEXT NOT NULL DEFAULT '',
    command_id TEXT NOT NULL,
    first_seq  INTEGER NOT NULL,
    events     INTEGER NOT NULL,
    PRIMARY KEY (campaign, battle, command_id)
);

CREATE TABLE campaigns (
    id      TEXT PRIMARY KEY,
    name    TEXT NOT NULL,
    era     TEXT NOT NULL,
    ruleset TEXT NOT NULL DEFAULT ''
);

CREATE TABLE campaign_sides (
    campaign TEXT NOT NULL REFERENCES campaigns (id),
    side     TEXT NOT NULL,
    name     TEXT NOT NULL,
    nation   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (campaign, side)
);

CREATE TABLE campaign_battles (
    campaign TEXT NOT NULL REFERENCES campaigns (id),
    battle   TEXT NOT NULL,
    number   INTEGER NOT NULL,
    name     TEXT NOT NULL,
    PRIMARY KEY (campaign, battle)
);

-- One row per battle: where it stands.
CREATE TABLE battles (
    campaign     TEXT NOT NULL,
    battle       TEXT NOT NULL,
    name         TEXT NOT NULL,
    status       TEXT NOT NULL,
    turn         INTEGER NOT NULL,
    phasing_side TEXT NOT NULL,
    phase        TEXT NOT NULL,
    measurement  TEXT NOT NULL,
    table_width  REAL NOT NULL,
    table_depth  REAL NOT NULL,
    version      INTEGER NOT NULL,
    PRIMARY KEY (campaign, battle)
);

-- The battle state as the rules engine folds it, after the last applied
-- event of that battle: the projector resumes from it after a restart
-- without reading the stream again.
CREATE TABLE battle_state (
    campaign TEXT NOT NULL,
    battle   TEXT NOT NULL,
    version  INTEGER NOT NULL,
    state    TEXT NOT NULL,
    PRIMARY KEY (campaign, battle)
);

CREATE TABLE units (
    campaign  TEXT NOT NULL,
    battle    TEXT NOT NULL,
    unit      TEXT NOT NULL,
    side      TEXT NOT NULL,
    brigade   TEXT NOT NULL,
    name      TEXT NOT NULL,
    type      TEXT NOT NULL,
    formation TEXT NOT NULL,
    x         REAL NOT NULL,
    y         REAL NOT NULL,
    facing    REAL NOT NULL,
    width     REAL NOT NULL,
    depth     REAL NOT NULL,
    markers   INTEGER NOT NULL,
    status    TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, unit)
);

CREATE TABLE generals (
    campaign    TEXT NOT NULL,
    battle      TEXT NOT NULL,
    general     TEXT NOT NULL,
    side        TEXT NOT NULL,
    brigade     TEXT NOT NULL DEFAULT '',
    name        TEXT NOT NULL,
    rating      INTEGER NOT NULL,
    x           REAL NOT NULL,
    y           REAL NOT NULL,
    attached_to TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (campaign, battle, general)
);

-- Every order roll, with its modifiers and outcome, for replay and disputes.
CREATE TABLE orders (
    seq          INTEGER PRIMARY KEY,
    campaign     TEXT NOT NULL,
    battle       TEXT NOT NULL,
    turn         INTEGER NOT NULL,
    general      TEXT NOT NULL,
    units        TEXT NOT NULL,
    roll         TEXT NOT NULL,
    modifiers    TEXT NOT NULL,
    base_rating  INTEGER NOT NULL,
    effective    INTEGER NOT NULL,
    outcome      TEXT NOT NULL,
    actions      INTEGER NOT NULL,
    actor        TEXT NOT NULL
);

-- Every die rolled, for the audit and statistics.
CREATE TABLE rolls (
    seq        INTEGER NOT NULL,
    campaign   TEXT NOT NULL,
    battle     TEXT NOT NULL,
    counter    INTEGER NOT NULL,
    purpose    TEXT NOT NULL,
    sides      INTEGER NOT NULL,
    dice       TEXT NOT NULL,
    total      INTEGER NOT NULL,
    source     TEXT NOT NULL,
    entered_by TEXT NOT NULL DEFAULT '',
    actor      TEXT NOT NULL,
    PRIMARY KEY (campaign, battle, counter)
);
