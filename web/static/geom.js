// The table's geometry the page works out itself, the twin of the Go
// functions of the same names in rules/geom (geom.go): a move typed as a
// distance and a heading lands on the point `ledger move --by --heading`
// gives (cmd/ledger TestBrowserGeometryMirrorsGo holds them equal).
// Directions are degrees clockwise from north, y growing north.

// normDeg is geom.NormDeg: an angle in degrees in [0, 360).
export function normDeg(d) {
  let x = d % 360;
  if (x < 0) x += 360;
  if (x >= 360) x = 0; // -1e-20 + 360 rounds to 360
  return x;
}

// heading is geom.Heading: the unit vector of a direction, exact for the
// four cardinal ones.
export function heading(d) {
  const n = normDeg(d);
  switch (n) {
    case 0: return { x: 0, y: 1 };
    case 90: return { x: 1, y: 0 };
    case 180: return { x: 0, y: -1 };
    case 270: return { x: -1, y: 0 };
  }
  const r = n * Math.PI / 180;
  return { x: Math.sin(r), y: Math.cos(r) };
}

// along is geom.Along: where a point ends that goes dist from `from` along
// the heading h.
export function along(from, dist, h) {
  const v = heading(h);
  return { x: from.x + v.x * dist, y: from.y + v.y * dist };
}

// bearing is geom.Bearing: the heading from a to b (0 when they are one
// point).
export function bearing(a, b) {
  const dx = b.x - a.x, dy = b.y - a.y;
  if (dx === 0 && dy === 0) return 0;
  return normDeg(Math.atan2(dx, dy) * 180 / Math.PI);
}
