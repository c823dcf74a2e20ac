// Where the replay viewer's bigger steps land, read from a hand's events: the end of each
// seat's turn (its last move before another seat acts) and each trick taken. Pure: the
// events in, step numbers out. A game's module names its trick (replay.milestone with the
// label "trick"); a game without one has turns only.

// The table's bookkeeping, not a seat's move: a clock starting a turn.
const NOT_A_MOVE = new Set(["turn_started"]);

/** The event type that closes a trick in this game, or null. */
export function trickType(module) {
  const milestone = module?.replay?.milestone;
  return milestone?.label === "trick" ? milestone.type : null;
}

const isMove = (event, trick) =>
  Boolean(event) && Number.isInteger(event.seat) && !NOT_A_MOVE.has(event.type) && event.type !== trick;

/**
 * The steps that end a turn: a seat's move after which the next move is another seat's, or
 * a trick is taken (its winner may lead the next one: a turn of its own), or the hand has no
 * more moves. Step 0, the deal, is never one.
 */
export function turnEnds(events, trick = null) {
  const ends = [];
  let last = null; // the step of the latest move seen, while its seat still acts
  for (let k = 1; k < events.length; k += 1) {
    const closes = trick !== null && events[k]?.type === trick;
    if (!closes && !isMove(events[k], trick)) continue;
    if (last !== null && (closes || events[last].seat !== events[k].seat)) ends.push(last);
    last = closes ? null : k;
  }
  if (last !== null) ends.push(last);
  return ends;
}

/** The steps at which a trick is taken. */
export function trickEnds(events, trick) {
  if (!trick) return [];
  return events.map((event, k) => (event?.type === trick ? k : -1)).filter((k) => k > 0);
}

/** The first mark after `step` (else `otherwise`), or the last one before it (else 0). */
export function nextMark(marks, step, otherwise) {
  return marks.find((k) => k > step) ?? otherwise;
}

export function previousMark(marks, step) {
  return [...marks].reverse().find((k) => k < step) ?? 0;
}
