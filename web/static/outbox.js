// The outbox: commands made while the page could not reach the ledger (no
// network, or the server's answer was "unavailable, try again"), kept on
// this device and sent when it can be reached again (docs/club.md, "When
// the Wi-Fi drops"). Each keeps the command id and the nonce it was made with: a
// command that did reach the ledger before the network failed is answered
// "already recorded" when it is sent again, never recorded twice, and a
// digital roll mixes the nonce chosen when the player pressed the button,
// not one chosen later.
//
// The outbox is kept where the token is (sessionStorage on a shared
// device, localStorage otherwise), under the battle's path and the player,
// so that a reload while offline loses nothing and another player's page on
// the same browser sends none of it. It is bounded: at most MAX commands.

export const MAX = 50;

// retryable says whether a failed post may be sent again later with the
// same id: no answer at all (fetch's TypeError), a proxy's 502/504, the
// ledger's 503 (its log unavailable, or the server draining) and 429 (too
// many at once). Anything else is the ledger's answer to the command.
export function retryable(err) {
  if (err instanceof TypeError) return true;
  const s = err && err.status;
  return s === 429 || s === 502 || s === 503 || s === 504;
}

// pendingFor lists what waits in store for the battle at base, whoever's
// outbox it is in: what a page that cannot load the battle (a reload
// without a network) shows it still holds, read only. The battle's own
// page sends it once it loads.
export function pendingFor(store, base) {
  const prefix = "ledger.outbox.v1." + base + ".";
  const out = [];
  try {
    for (let i = 0; i < store.length; i++) {
      const k = store.key(i);
      if (!k || !k.startsWith(prefix)) continue;
      const v = JSON.parse(store.getItem(k) || "[]");
      if (Array.isArray(v)) out.push(...v.filter(e => e && typeof e.name === "string" && e.body && typeof e.body.id === "string").slice(0, MAX));
    }
  } catch (e) { /* storage refused: nothing to show */ }
  return out.sort((a, b) => (a.made || 0) - (b.made || 0));
}

// outbox opens the outbox of the battle at base for player in store.
// Entries are { name, body, made, state, error }: state is "waiting" (to
// be sent), or "refused" (sent, and refused: kept, with the ledger's
// error, until the player dismisses it).
export function openOutbox(store, base, player) {
  const key = "ledger.outbox.v1." + base + "." + player;
  let entries = [];
  try {
    const v = JSON.parse(store.getItem(key) || "[]");
    if (Array.isArray(v)) entries = v.filter(e => e && typeof e.name === "string" && e.body && typeof e.body.id === "string");
  } catch (e) { entries = []; }
  const save = () => {
    try {
      if (entries.length) store.setItem(key, JSON.stringify(entries)); else store.removeItem(key);
    } catch (e) { /* storage full or refused: the page still holds them */ }
  };
  return {
    list: () => entries.slice(),
    waiting: () => entries.filter(e => e.state === "waiting"),
    // add keeps a command to send later; false when the outbox is full.
    add(name, body) {
      if (entries.some(e => e.body.id === body.id)) return true;
      if (entries.length >= MAX) return false;
      entries.push({ name, body, made: Date.now(), state: "waiting" });
      save();
      return true;
    },
    remove(id) { entries = entries.filter(e => e.body.id !== id); save(); },
    refused(id, error) {
      const e = entries.find(x => x.body.id === id);
      if (!e) return;
      e.state = "refused";
      e.error = { status: error.status, kind: error.kind, code: error.code, rule: error.rule, message: error.message, numbers: error.numbers };
      save();
    },
  };
}
