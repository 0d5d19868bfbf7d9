// Witnessed heads (docs/principles.md principle 5): the page keeps, per battle, the
// hashes it has seen at given versions (the state's head, and each event it
// has read), in localStorage, and checks every history the ledger later
// shows against them: the event at a kept version must still carry the kept
// hash. A history that does not extend a kept head was rewritten, and the
// page says so loudly. Heads are not secret: "forget this device" keeps
// them, since noticing a rewrite is their whole purpose.

const KEY = "ledger.heads";
const KEEP = 64; // heads kept per battle: the newest

function load() {
  try { return JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch (e) { return {}; }
}

// keepHead remembers that battle (campaign/battle) had hash at version v.
export function keepHead(battle, v, hash) {
  if (!v || !hash) return;
  const all = load();
  const list = (all[battle] || []).filter(x => x.v !== v);
  list.push({ v, h: hash, at: Date.now() });
  list.sort((a, b) => a.v - b.v);
  all[battle] = list.slice(-KEEP);
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch (e) { /* storage full: the check still runs on what is kept */ }
}

export function keptHeads(battle) { return load()[battle] || []; }

// checkHeads compares the kept heads of battle with a history the ledger
// shows: events (each with version and hash, those the caller may read)
// and last, the battle's last version. It returns the kept heads the
// history does not extend: a version now past the end, or a version whose
// event now has another hash. A kept version whose event the caller may
// not read is not judged.
export function checkHeads(battle, events, last) {
  const byVersion = new Map(events.filter(e => e.hash).map(e => [e.version, e.hash]));
  const bad = [];
  for (const k of keptHeads(battle)) {
    if (k.v > last) bad.push({ v: k.v, kept: k.h, now: "", at: k.at });
    else if (byVersion.has(k.v) && byVersion.get(k.v) !== k.h) bad.push({ v: k.v, kept: k.h, now: byVersion.get(k.v), at: k.at });
  }
  return bad;
}
