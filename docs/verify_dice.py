#!/usr/bin/env python3
"""Verify the digital dice of an exported ledger battle, independently of the ledger.

    python3 verify_dice.py BATTLE.jsonl           # a report; exit 0 when every digital roll recomputes
    python3 verify_dice.py --json BATTLE.jsonl    # the same, as JSON

BATTLE.jsonl is a file written by `ledger export CAMPAIGN/BATTLE -f BATTLE.jsonl`.
Written from docs/dice.md alone (section 12 says what it checks); standard library
only, Python 3.6 or later. The derivation is the reference implementation of
docs/dice.md section 7, copied here verbatim. It does not check the hash chain or the
signatures: `ledger audit --file` and the Python audit of docs/audit.md section 6 do.
"""

# ledger-dice reference implementation: ledger-dice-v1, v2 and v3
import hashlib, hmac, struct

V1, V2, V3 = "ledger-dice-v1", "ledger-dice-v2", "ledger-dice-v3"

def _str(s):
    b = s.encode("utf-8")
    return struct.pack(">I", len(b)) + b

def message_prefix(battle, period, player_seeds, scheme=V1):
    m = scheme.encode("ascii") + b"\x00" + _str(battle) + _str(period)
    m += struct.pack(">I", len(player_seeds))
    for pid in sorted(player_seeds, key=lambda p: p.encode("utf-8")):
        m += _str(pid) + _str(player_seeds[pid])
    return m

def roll_message(battle, period, player_seeds, counter, scheme=V1, command="", nonce=""):
    """The HMAC message of one roll, without the block number j."""
    m = message_prefix(battle, period, player_seeds, scheme) + struct.pack(">Q", counter)
    n = bytes.fromhex(nonce)  # "" (no player's nonce) or 16 to 64 hex digits
    if scheme == V3 and not command:  # v3: the nonce alone, no command id
        return m + struct.pack(">I", len(n)) + n
    if scheme == V2:
        return m + _str(command) + struct.pack(">I", len(n)) + n
    if scheme != V1 or command or nonce:
        raise ValueError("unknown scheme, a command id given to v1 or v3, or a nonce to v1")
    return m

def stream(seed_hex, message):
    key = bytes.fromhex(seed_hex)
    j = 0
    while True:
        yield from hmac.new(key, message + struct.pack(">I", j), hashlib.sha256).digest()
        j += 1

def roll(seed_hex, battle, period, player_seeds, counter, n, sides=6, scheme=V1, command="", nonce=""):
    bound = 256 - 256 % sides
    out = []
    for b in stream(seed_hex, roll_message(battle, period, player_seeds, counter, scheme, command, nonce)):
        if b < bound:  # a byte >= bound is rejected: skipped, the next one is read
            out.append(b % sides + 1)
            if len(out) == n:
                return out

def commitment(seed_hex):
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()

def verify(seed_hex, commitment_hex):
    return len(seed_hex) == 64 and commitment(seed_hex) == commitment_hex.lower()
# end of the reference implementation

import base64, json, sys


def read_export(path):
    """The header and the events of an export file (a withheld one: its type only)."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(l) for l in f if l.strip()]
    head, events = lines[0], []
    if head.get("format") not in ("ledger-export-v1", "ledger-export-v2"):
        raise ValueError("%s is not a ledger export (format %r)" % (path, head.get("format")))
    for line in lines[1:]:
        if line.get("withheld"):
            events.append({"withheld": True, "type": line.get("type")})
        elif "raw" in line:
            events.append(json.loads(line["raw"]))
        else:
            events.append(json.loads(base64.b64decode(line["raw_base64"])))
    return head, events


def verify_battle(head, events):
    """Check every dice event of the battle (docs/dice.md section 12); returns the findings."""
    battle = head["campaign"] + "/" + head["battle"]
    periods, order, rolls, problems = {}, [], [], []
    counter, ended, v3_seen = 0, False, None
    for e in events:
        if e.get("withheld"):  # hidden from the players: a roll still takes a counter
            counter += e["type"] == "dice.rolled"
            continue
        t, p, name = e["type"], e["payload"], "v%d (%s)" % (e["version"], e["type"])
        entered_for = e.get("on_behalf_of") if e.get("on_behalf_of") != e["actor"] else None
        if t == "dice.committed":
            if p["period"] in periods:
                problems.append("%s: period %s committed twice" % (name, p["period"]))
                continue
            if p["scheme"] not in (V1, V2, V3):
                problems.append("%s: period %s uses scheme %s, unknown here" % (name, p["period"], p["scheme"]))
            periods[p["period"]] = {"scheme": p["scheme"], "commitment": p["commitment"], "seeds": {},
                                    "rolled": False, "seed": None}
            order.append(p["period"])
        elif t == "dice.seed_added":
            per = periods.get(p["period"])
            if per is None or per["rolled"] or per["seed"] is not None or p["period"] != order[-1]:
                problems.append("%s: %s's seed is not added to the open period before its first roll" % (name, p["player"]))
            elif p["player"] in per["seeds"]:
                problems.append("%s: a second seed for %s" % (name, p["player"]))
            else:
                per["seeds"][p["player"]] = p["seed"]
        elif t == "dice.revealed":
            per = periods.get(p["period"])
            if per is None or not verify(p["seed"], per["commitment"]):
                problems.append("%s: the seed revealed for period %s does not match its commitment" % (name, p["period"]))
            else:
                per["seed"] = p["seed"]
        elif t == "battle.ended":
            ended = True
        elif t == "dice.rolled":
            counter += 1
            if p["counter"] != counter:
                problems.append("%s: roll counter %d where %d was expected" % (name, p["counter"], counter))
                counter = p["counter"]
            if p["source"] != "digital":
                continue
            per = periods.get(p.get("period"))
            if per is None or per["seed"] is not None or p["period"] != order[-1]:
                problems.append("%s: digital roll %d is not of the open period" % (name, p["counter"]))
                continue
            per["rolled"] = True
            nonce = p.get("nonce", "")
            # The roll's scheme: the one it records (v3 only, in a v2 or v3
            # period), else its period's; no v2 roll after a v3 roll.
            scheme = p.get("scheme") or per["scheme"]
            if p.get("scheme") and (p["scheme"] != V3 or per["scheme"] == V1):
                problems.append("%s: roll %d records scheme %r in a %s period" % (name, p["counter"], p["scheme"], per["scheme"]))
                scheme = per["scheme"]
            if scheme == V3:
                v3_seen = v3_seen or name
            elif scheme == V2 and v3_seen:
                problems.append("%s: roll %d is by %s after %s, by %s" % (name, p["counter"], V2, v3_seen, V3))
            if scheme == V2 and p.get("command_id") != e["command_id"]:
                problems.append("%s: roll %d records command %r, its event is of command %r" % (name, p["counter"], p.get("command_id"), e["command_id"]))
            if scheme != V2 and p.get("command_id"):
                problems.append("%s: roll %d records a command id, which %s does not mix in" % (name, p["counter"], scheme))
            if nonce and (scheme == V1 or entered_for):
                problems.append("%s: roll %d carries a nonce, but not on a player's own command of a v2 or v3 roll" % (name, p["counter"]))
            # Charged to the player whose nonce it carries, or else to who
            # entered the command (its actor), for whom it was entered.
            by = (e.get("on_behalf_of") or e["actor"]) if nonce else e["actor"]
            rolls.append((name, p, p["period"], dict(per["seeds"]), scheme, by, None if nonce else entered_for))
    report = {"battle": battle, "digital_rolls": len(rolls), "recomputed": 0, "unverified": 0,
              "v1_rolls": 0, "nonces": {}, "entered_for": {}, "problems": problems}
    for name, p, period, seeds, scheme, by, entered_for in rolls:
        per = periods[period]
        if scheme == V1:
            report["v1_rolls"] += 1
        else:
            counts = report["nonces"].setdefault(by, [0, 0])  # [with a player's nonce, without]
            counts[0 if p.get("nonce") else 1] += 1
        if entered_for:
            key = "%s for %s" % (by, entered_for)
            report["entered_for"][key] = report["entered_for"].get(key, 0) + 1
        if per["seed"] is None:
            report["unverified"] += 1
            if ended:
                problems.append("%s: roll %d: the battle ended, its period %s was never revealed" % (name, p["counter"], period))
            continue
        if scheme == V1:
            want = roll(per["seed"], battle, period, seeds, p["counter"], p["count"], p["sides"])
        elif scheme == V2:
            want = roll(per["seed"], battle, period, seeds, p["counter"], p["count"], p["sides"],
                        V2, p.get("command_id", ""), p.get("nonce", ""))
        else:
            want = roll(per["seed"], battle, period, seeds, p["counter"], p["count"], p["sides"],
                        V3, nonce=p.get("nonce", ""))
        if want != p["values"]:
            problems.append("%s: roll %d recomputes to %s, recorded %s" % (name, p["counter"], want, p["values"]))
        else:
            report["recomputed"] += 1
    return report


def main(argv):
    as_json = "--json" in argv
    paths = [a for a in argv if a != "--json"]
    if len(paths) != 1:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    report = verify_battle(*read_export(paths[0]))
    if as_json:
        print(json.dumps(report, sort_keys=True))
    else:
        for p in report["problems"]:
            print("FAIL", p)
        print("%s: %d digital rolls, %d recomputed, %d unverifiable until their period's reveal"
              % (report["battle"], report["digital_rolls"], report["recomputed"], report["unverified"]))
        for who in sorted(report["nonces"]):
            w, wo = report["nonces"][who]
            print("  %s: %d with a player's nonce, %d without" % (who, w, wo))
        for key in sorted(report["entered_for"]):
            by, whom = key.split(" for ", 1)
            print("  entered by %s for %s, no device nonce: %d" % (by, whom, report["entered_for"][key]))
        if report["v1_rolls"]:
            print("  %d by %s (no nonces)" % (report["v1_rolls"], V1))
        print("OK" if not report["problems"] else "FAILED")
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
