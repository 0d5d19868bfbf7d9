package geom

// Eps is the numerical tolerance, in table units: two lengths closer than
// Eps are equal, a point within Eps of a line or of a boundary is on it. It
// only absorbs floating-point rounding: coordinates on a table stay below
// about 1,000 units, where one float64 rounding is about 1e-13, so a few
// dozen operations stay far below 1e-9, and 1e-9 is ten million times
// smaller than anything a player can place or measure. Eps decides the
// "exactly on" cases of the documented conventions (a point exactly on an
// arc boundary, a target corner exactly on a front-arc boundary, a base
// exactly flush with the table edge).
const Eps = 1e-9

// ContactTolerance is "base contact", defined once, in the battle's unit:
// two bases whose gap or overlap is at most this much are in base contact
// (Touching); they overlap only when they interpenetrate by more
// (Overlaps). It is 0.01 of the unit: 0.25 mm in inches, 0.1 mm in cm.
//
// Why 0.01: it is below what anyone can place or measure with miniatures
// (about 1 mm), so whatever the ledger calls contact looks like contact on
// the table; it is ten million times Eps, so bases the engine places flush
// (K.6) are in contact whatever the rounding; and positions typed with two
// decimals (0.005 rounding on each coordinate, at most about 0.007 on a
// distance) can still express contact, even for bases at odd angles.
//
// The same tolerance decides how much of an obstacle a sight line may clip
// before it is blocked (a line grazing a corner or running along an edge is
// not blocked) and how deep terrain must reach into a base to overlap it.
const ContactTolerance = 0.01

// MinEdgeContact is the least length of an edge that must lie within
// ContactTolerance of another base for the contact to be edge contact (K.7).
// Corner-to-corner contact leaves at most √2·ContactTolerance (about
// 0.014) of an edge that close, so twice the tolerance separates the two
// cases with a margin.
const MinEdgeContact = 2 * ContactTolerance
