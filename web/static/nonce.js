// The device's nonce for a command's digital dice (docs/dice.md): every
// command sent without physical dice carries fresh randomness from this
// device, which the service mixes into any digital roll the command makes;
// each roll records it, and the page checks that it does.

// commandBody returns the envelope's id and dice, or nonce, for a command
// sent with holder, which keeps both the id and the nonce for a resend
// after a network failure: a repeat appends nothing twice, and a server
// that dropped the first attempt gets the same nonce again, never a second
// roll to choose from. hex(n) gives n random bytes in hex.
export function commandBody(holder, dice, hex) {
  if (!holder.id) {
    holder.id = "page-" + hex(10);
    holder.nonce = hex(16);
  }
  const body = { id: holder.id };
  if (dice && dice.length) body.dice = dice;
  else body.nonce = holder.nonce;
  return body;
}

// settle forgets holder's command once the ledger answered it (accepted
// or refused): the next attempt is a new command, with a new nonce.
export function settle(holder) {
  holder.id = "";
  holder.nonce = "";
}

// foreignRolls lists the versions of the digital rolls among the answer's
// events that do not carry the nonce this device sent: a ledger that
// recorded another chose the roll itself. A duplicate answer (the command
// was already recorded: a resend) is checked as well, since the resend
// carries the same nonce.
export function foreignRolls(body, out) {
  if (!body.nonce) return [];
  const bad = [];
  for (const e of out.events || []) {
    const p = e.payload || {};
    if (e.type === "dice.rolled" && p.source === "digital" && String(p.nonce || "").toLowerCase() !== body.nonce) bad.push(e.version);
  }
  return bad;
}
