// The seats around the table, seen from your chair: where each one sits (you at the
// bottom, play going round clockwise, a partner opposite), what each is called, and each
// seat's box (name, dealer, whose turn, the clock, the game's own counts, its last move).
// Shared by the table and, for where a trick's cards lie, by the replay viewer.

import { el } from "../api.js";

/** Positions round the table for `players` seats, seen from the bottom chair. */
const LAYOUTS = {
  1: ["south"],
  2: ["south", "north"],
  3: ["south", "west", "east"],
  4: ["south", "west", "north", "east"],
  5: ["south", "west", "north-west", "north-east", "east"],
  6: ["south", "west", "north-west", "north", "north-east", "east"],
};

// Games that name their seats by the compass (Spades: South, West, North, East from the
// first seat) keep those places for three players, so that a seat called North sits north.
const COMPASS = { 3: ["south", "west", "north"] };

/** seat → position ("south", "west", …) when `bottom` sits at the bottom. */
export function positions(players, bottom = 0, { compass = false } = {}) {
  const spots = (compass && COMPASS[players]) || LAYOUTS[players] || LAYOUTS[6];
  return Object.fromEntries(Array.from({ length: players }, (_, k) => [(bottom + k) % players, spots[k] ?? "north"]));
}

/**
 * What a person reads for a seat: the server's `label` when it sends one ("West (strong
 * bot)", "ann"), else the name, else "Seat 3 (greedy bot)": numbered from 1, so that three
 * bots of one level are still three players.
 */
export function seatLabel(seat) {
  if (!seat) return "?";
  if (seat.label) return seat.label;
  if (seat.name) return seat.name;
  const number = `Seat ${seat.seat + 1}`;
  if (seat.bot) return `${number} (${seat.bot} bot)`;
  if (seat.invited) return `${seat.invited} (invited)`;
  return `${number} (open)`;
}

/** Your partner's seat, when you play in a side of two (Spades pairs); else null. */
export function partnerOf(view) {
  if (!view?.you || !Array.isArray(view.sides)) return null;
  const side = view.sides.find((seats) => seats.includes(view.you.seat));
  if (!side || side.length !== 2) return null;
  return side.find((seat) => seat !== view.you.seat) ?? null;
}

/** "59:58" or "1:02:03" for seconds left; "0:00" once run out. */
export function clockText(seconds) {
  const left = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = String(left % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function tags(ctx, seat) {
  const view = ctx.view;
  const found = [];
  if (view.you?.seat === seat) found.push(el("span", { class: "tag you-tag" }, "you"));
  if (partnerOf(view) === seat) found.push(el("span", { class: "tag partner-tag" }, "partner"));
  if (view.dealer === seat) {
    found.push(
      el("span", { class: "dealer", title: "Dealer" }, el("span", { "aria-hidden": "true" }, "D"), el("span", { class: "sr-only" }, "dealer")),
    );
  }
  return found;
}

function turnLine(ctx, seat) {
  const view = ctx.view;
  if (view.status !== "playing" || view.turn !== seat) return null;
  const info = view.seats[seat];
  return el(
    "span",
    { class: "seat-turn" },
    el("span", { "aria-hidden": "true" }, "▶ "),
    ctx.game.turnWord?.(view) ?? "to play",
    info?.deadline ? el("span", { class: "seat-clock", dataset: { deadline: info.deadline } }, "") : null,
  );
}

/** One seat's box, placed at its position round the table. */
function seatBox(ctx, seat, position) {
  const view = ctx.view;
  const classes = ["seat", `at-${position}`];
  if (view.turn === seat && view.status === "playing") classes.push("turn");
  if (view.you?.seat === seat) classes.push("you");
  if (partnerOf(view) === seat) classes.push("partner");
  const side = (view.sides || []).findIndex((seats) => seats.includes(seat));
  const last = ctx.lastMoves.get(seat);
  return el(
    "li",
    { class: classes.join(" "), dataset: { seat, position, side: side >= 0 ? side : null } },
    el("div", { class: "seat-head" }, el("span", { class: "seat-name" }, ctx.who(seat)), tags(ctx, seat)),
    el("div", { class: "seat-details" }, ctx.game.seatDetails(ctx, seat)),
    turnLine(ctx, seat),
    last ? el("div", { class: "seat-last", dataset: { version: last.version } }, ctx.game.moveText?.(last) ?? "") : null,
  );
}

/** Every seat's box into `list`, each at its place seen from your chair (or seat 1's). */
export function drawSeats(ctx, list) {
  const view = ctx.view;
  const places = positions(view.seats.length, view.you ? view.you.seat : 0, { compass: ctx.game.compass });
  list.replaceChildren(...view.seats.map((info) => seatBox(ctx, info.seat, places[info.seat])));
  list.dataset.players = view.seats.length;
}
