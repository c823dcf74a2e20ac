// Drawing Spades: the trick in the middle with each seat where it sits, bids and tricks
// won, the sides' scores and bags; bidding buttons (looking first or bidding blind) and
// playing by clicking a card. What may be bid or played comes from the server's
// legal_moves; cards that cannot be played now are dimmed, never judged here. The page
// may show moves before the server's view of them arrives (`applyEvent`, what a move
// visibly changes); the server's view always replaces it.

import { el, plural } from "../api.js";
import { cardBack, cardElement, parseCard, pretty } from "../cards.js";
import { positions } from "../table/seats.js";

// -- words ---------------------------------------------------------------------------------------

function bidText(bid) {
  if (!bid) return "—";
  if (bid.tricks === 0) return bid.blind ? "blind nil" : "nil";
  return `${bid.tricks}${bid.blind ? " blind" : ""}`;
}

function sideName(who, seats) {
  return seats.map(who).join(" & ");
}

function title(view) {
  const hand = view.hand_number ? ` · hand ${view.hand_number}` : "";
  const target = view.options?.target_score ? ` · to ${view.options.target_score}` : "";
  return `Spades · ${view.mode || view.preset || ""}${hand}${target}`;
}

function turnText(ctx) {
  const view = ctx.view;
  const bidding = view.phase === "bidding";
  if (ctx.myTurn()) {
    if (!bidding) return "Your turn: click a card to play it.";
    return view.you.hand_hidden ? "Your bid: look at your cards, or bid blind without looking." : "Your bid: how many tricks will you take?";
  }
  return `${ctx.who(view.turn)} to ${bidding ? "bid" : "play"}`;
}

const turnWord = (view) => (view.phase === "bidding" ? "to bid" : "to play");

/** A seat's last move, in a few words. */
function moveText(event) {
  switch (event.type) {
    case "bid_made":
      return `bid ${bidText(event)}`;
    case "cards_seen":
      return "looked at their cards";
    case "card_played":
      return `played ${pretty(event.card)}`;
    default:
      return "";
  }
}

function seatDetails(ctx, seat) {
  const view = ctx.view;
  const bid = (view.bids || [])[seat];
  const side = (view.sides || []).findIndex((seats) => seats.includes(seat));
  return [
    el("span", { class: "seat-bid", title: "Bid" }, `bid ${bidText(bid)}`),
    el("span", { class: "seat-tricks", title: "Tricks won this hand" }, plural((view.tricks_won || [])[seat] ?? 0, "trick")),
    el("span", { class: "seat-score", title: view.sides?.[side]?.length > 1 ? "The side's score" : "Score" }, plural(view.side_scores?.[side] ?? 0, "point")),
  ];
}

// -- the trick in the middle ----------------------------------------------------------------------

const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

/** Who holds the trick so far: the highest trump (the server's trump order), else the
 * highest card of the suit led. Only said, never used to judge a move. */
function winningSoFar(cards, trumpOrder) {
  const trump = (card) => trumpOrder.indexOf(card);
  const suit = (card) => (trump(card) >= 0 ? "trump" : parseCard(card).suit);
  const led = suit(cards[0][1]);
  let best = cards[0];
  for (const entry of cards.slice(1)) {
    const [a, b] = [best[1], entry[1]];
    if (suit(b) === "trump" && (suit(a) !== "trump" || trump(b) < trump(a))) best = entry;
    else if (suit(a) !== "trump" && suit(b) === led && RANKS.indexOf(parseCard(b).rank) > RANKS.indexOf(parseCard(a).rank)) best = entry;
  }
  return best[0];
}

/**
 * The current trick, or when none has started the last one won (faded, its winner
 * marked), each card in front of the seat that played it: the seats' positions are the
 * table's own (static/js/table/seats.js). `lastMove` ({seat, card}) is the move just made.
 */
function trickArea(who, state, { bottom = 0, highlight = null, lastMove = null } = {}) {
  const players = state.players || (state.hand_counts || []).length || 4;
  const spot = positions(players, bottom, { compass: true });
  const current = state.trick || [];
  const tricks = state.tricks || [];
  const last = tricks[tricks.length - 1];
  const showingLast = current.length === 0 && last;
  const shown = showingLast ? last.cards : current;
  const played = Object.fromEntries(shown.map(([seat, card]) => [seat, card]));
  const leading = current.length && state.trump_order ? winningSoFar(current, state.trump_order) : null;
  const area = el("div", {
    id: "trick",
    class: "trick" + (showingLast ? " last" : "") + (players === 3 ? " three" : ""),
    dataset: { cards: Object.keys(played).length, showing: showingLast ? "last" : "current" },
  });
  for (let seat = 0; seat < players; seat += 1) {
    const card = played[seat];
    const winner = showingLast && last.winner === seat;
    const moved = card && lastMove?.seat === seat && lastMove.card === card;
    const classes = [card === highlight ? "highlight" : "", moved ? "last-move" : ""].join(" ");
    area.append(
      el(
        "div",
        {
          class: `trick-seat ${spot[seat]}` + (state.turn === seat ? " turn" : "") + (winner ? " winner" : "") + (leading === seat ? " winning" : ""),
          dataset: { seat, position: spot[seat] },
        },
        card ? cardElement(card, { extraClass: classes }) : el("span", { class: "card empty" }),
        el("span", { class: "trick-name" }, winner ? el("span", { class: "takes" }, "★ ") : null, who(seat)),
      ),
    );
  }
  let caption;
  if (showingLast) caption = `Trick ${tricks.length} went to ${who(last.winner)}.`;
  else if (current.length) {
    const holds = current.length > 1 && leading !== null ? ` ${who(leading)} holds it so far.` : "";
    caption = `Trick ${tricks.length + 1}: ${who(current[0][0])} led.${holds}`;
  } else caption = state.phase === "bidding" ? "Bidding…" : "";
  area.append(el("p", { class: "trick-caption", id: "trick-caption" }, caption));
  return area;
}

/** The sides: bids, tricks taken, score and bags. */
function sidesTable(who, state) {
  const sides = state.sides || [];
  const bids = state.bids || [];
  const won = state.tricks_won || [];
  const rows = sides.map((seats, side) => {
    const bid = seats.map((s) => bids[s]);
    const bidTotal = bid.every((b) => b) ? bid.reduce((sum, b) => sum + b.tricks, 0) : null;
    return el(
      "tr",
      { dataset: { side } },
      el("th", { scope: "row" }, sideName(who, seats)),
      el("td", {}, seats.map((s) => bidText(bids[s])).join(" + ")),
      el("td", { class: "num" }, `${seats.reduce((sum, s) => sum + (won[s] ?? 0), 0)}${bidTotal === null ? "" : " / " + bidTotal}`),
      el("td", { class: "num side-score" }, state.side_scores?.[side] ?? 0),
      el("td", { class: "num" }, state.bags?.[side] ?? 0),
    );
  });
  const notes = [];
  if (state.phase === "playing") notes.push(state.spades_broken ? "Spades are broken." : "Spades not broken yet.");
  const order = state.trump_order || [];
  if (order.length && order[0] !== "AS") notes.push(`Trumps from the top: ${order.slice(0, 6).map(pretty).join(" ")} …`);
  return el(
    "div",
    { class: "sides" },
    el(
      "table",
      { class: "scores", id: "sides" },
      el("thead", {}, el("tr", {}, ["Side", "Bid", "Tricks", "Score", "Bags"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows),
    ),
    notes.length ? el("p", { class: "hint", id: "spades-notes" }, notes.join(" ")) : null,
  );
}

function drawFelt(ctx, felt) {
  const view = ctx.view;
  const last = ctx.lastMove?.type === "card_played" ? ctx.lastMove : null;
  felt.replaceChildren(trickArea(ctx.who, view, { bottom: view.you ? view.you.seat : 0, lastMove: last }), sidesTable(ctx.who, view));
}

// -- moves shown before the server's view of them ------------------------------------------------

/** Apply `event` to `view` (a copy) as far as it shows; false when only the server can. */
function applyEvent(view, event) {
  const seat = event.seat;
  const players = view.seats.length;
  switch (event.type) {
    case "bid_made":
      view.bids[seat] = { tricks: event.tricks, blind: Boolean(event.blind) };
      view.unseen = (view.unseen || []).filter((s) => s !== seat || event.blind);
      if (view.bids.every(Boolean)) {
        view.phase = "playing";
        view.turn = (view.dealer + 1) % players;
      } else view.turn = (seat + 1) % players;
      return true;
    case "cards_seen":
      if (view.you?.seat === seat) return false; // your own cards: the server's view shows them
      view.unseen = (view.unseen || []).filter((s) => s !== seat);
      return true;
    case "card_played": {
      view.trick.push([seat, event.card]);
      view.hand_counts[seat] = Math.max(0, view.hand_counts[seat] - 1);
      if (view.seats[seat]) view.seats[seat].hand_count = view.hand_counts[seat];
      if (view.you?.seat === seat) view.you.hand = view.you.hand.filter((card) => card !== event.card);
      if (event.card.endsWith("S")) view.spades_broken = true;
      // A full trick is about to be taken: shown as its holder's, until the server says.
      const full = view.trick.length === players && view.trump_order;
      view.turn = full ? winningSoFar(view.trick, view.trump_order) : (seat + 1) % players;
      return true;
    }
    case "trick_won":
      view.tricks.push({ cards: event.cards, leader: event.leader, winner: seat });
      view.trick = [];
      view.tricks_won[seat] = (view.tricks_won[seat] ?? 0) + 1;
      view.turn = seat;
      return true;
    default:
      return false;
  }
}

/** Before a trick's first card: the last trick, still on the felt, goes to its winner. */
async function beforeEvent(ctx, event, motion) {
  const view = ctx.view;
  if (event.type !== "card_played" || view.trick.length || !view.tricks.length) return;
  const winner = view.tricks[view.tricks.length - 1].winner;
  const seat = document.querySelector(`#seats > [data-seat="${winner}"]`);
  await motion.sweep(document.querySelectorAll("#trick [data-card]"), seat?.getBoundingClientRect());
}

/** The card just played slides from the hand (yours) or the seat into the trick. */
function animate(ctx, event, before, motion) {
  if (event.type === "card_played") {
    const node = document.querySelector(`#trick .trick-seat[data-seat="${event.seat}"] [data-card]`);
    const mine = ctx.view.you?.seat === event.seat;
    motion.arrive(node, (mine && before.hand.get(event.card)) || before.seats.get(event.seat));
    motion.flash([node]);
  } else if (event.type === "trick_won") {
    motion.flash([document.querySelector("#trick .trick-seat.winner [data-card]")]);
  } else if (event.type === "bid_made") {
    motion.flash([document.querySelector(`#seats > [data-seat="${event.seat}"] .seat-bid`)]);
  }
}

// -- your hand and your moves ------------------------------------------------------------------------

const plays = (ctx) => ctx.legal().filter((m) => m.type === "play");

function cardClass(ctx) {
  return (card) => {
    // Drawn ahead of the server's view, the legal moves are not known yet: no marks.
    if (ctx.view.local || !(ctx.myTurn() && ctx.view.phase === "playing")) return "";
    return plays(ctx).some((m) => m.card === card) ? "playable" : "dim";
  };
}

function clickCard(ctx, card) {
  if (ctx.view.phase !== "playing") {
    ctx.showError("Bid first: the cards are played once everyone has bid.");
    return;
  }
  if (!ctx.myTurn()) {
    ctx.showError("It is not your turn.");
    return;
  }
  ctx.move({ type: "play", card });
}

function emptyHand(ctx) {
  const view = ctx.view;
  if (!view.you.hand_hidden) return el("p", { class: "hint" }, "No cards.");
  const count = (view.hand_counts || [])[view.you.seat] ?? 0;
  return el(
    "div",
    { class: "face-down" },
    el("div", { class: "cards backs" }, Array.from({ length: count }, cardBack)),
    el("p", { class: "hint" }, "Your cards are face down: look at them, or bid blind without looking."),
  );
}

/** What a blind bid risks, from the table's options. */
function blindStakes(options, blind) {
  const parts = [];
  if (blind.some((m) => m.tricks === 0)) parts.push(`blind nil wins or loses ${options.blind_nil_bonus}`);
  if (blind.some((m) => m.tricks > 0)) parts.push(`a blind bid adds ${options.blind_bid_bonus} when made and costs ${options.blind_bid_penalty} more when set`);
  return parts.join("; ");
}

function drawActions(ctx, box, extra) {
  const view = ctx.view;
  const legal = ctx.legal();
  const enabled = !ctx.busy;
  const button = (label, command, attrs = {}) => {
    const node = el("button", { type: "button", class: "primary", ...attrs }, label);
    node.disabled = !enabled;
    node.addEventListener("click", () => ctx.move(command));
    return node;
  };
  const look = legal.find((m) => m.type === "look");
  if (look) box.append(button("Look at my cards", look, { id: "look" }));
  if (view.phase === "bidding" && ctx.myTurn()) {
    const bids = legal.filter((m) => m.type === "bid");
    const open = bids.filter((m) => !m.blind);
    const blind = bids.filter((m) => m.blind);
    if (open.length) {
      extra.append(
        el("p", { class: "hint" }, "Your bid:"),
        el(
          "div",
          { class: "bids", id: "bids", role: "group", "aria-label": "Bids" },
          open.map((m) => button(m.tricks === 0 ? "Nil" : String(m.tricks), m, { class: "secondary bid", dataset: { tricks: m.tricks } })),
        ),
      );
    }
    if (blind.length) {
      extra.append(
        el("p", { class: "hint" }, `Or bid blind, before looking: ${blindStakes(view.options || {}, blind)}.`),
        el(
          "div",
          { class: "bids", id: "blind-bids", role: "group", "aria-label": "Blind bids" },
          blind.map((m) => button(m.tricks === 0 ? "Blind nil" : `Blind ${m.tricks}`, m, { class: "secondary bid blind", dataset: { tricks: m.tricks, blind: "true" } })),
        ),
      );
    }
  }
}

// -- results -----------------------------------------------------------------------------------------

function sideLines(who, result) {
  return (result.sides || []).map((side) => {
    const nils = (side.nils || []).map((n) => `${who(n.seat)} ${n.blind ? "blind nil" : "nil"} ${n.made ? "made" : "failed"}`);
    const bags = side.bag_penalties ? `, ${side.bag_penalties}× bag penalty` : "";
    return { side, text: `bid ${side.bid}, took ${side.took}${side.made ? "" : " (set)"}${nils.length ? "; " + nils.join(", ") : ""}${bags}` };
  });
}

function headline(who, result) {
  const parts = (result.sides || []).map((side) => `${sideName(who, side.seats)} ${side.points >= 0 ? "+" : ""}${side.points}`);
  const boston = result.boston !== null && result.boston !== undefined ? ` ${sideName(who, result.sides[result.boston].seats)} took every trick!` : "";
  return `Hand ${result.hand}: ${parts.join(", ")}.${boston}`;
}

function handResult(ctx, result) {
  const rows = sideLines(ctx.who, result).map(({ side, text }, index) =>
    el(
      "tr",
      { dataset: { side: index } },
      el("th", { scope: "row" }, sideName(ctx.who, side.seats)),
      el("td", {}, text),
      el("td", { class: "num" }, (side.points > 0 ? "+" : "") + side.points),
      el("td", { class: "num" }, result.side_scores?.[index] ?? ""),
      el("td", { class: "num" }, result.bags?.[index] ?? ""),
    ),
  );
  return [
    el("h2", {}, headline(ctx.who, result)),
    el(
      "table",
      { class: "scores" },
      el("thead", {}, el("tr", {}, ["Side", "Bid and tricks", "This hand", "Total", "Bags"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows),
    ),
  ];
}

/** The final scores, a row per side, the winners marked. */
function finalScores(ctx, result) {
  const winners = new Set(result.winners || []);
  const sides = ctx.view.sides || [];
  const scores = result.side_scores || sides.map((seats) => result.scores?.[seats[0]] ?? 0);
  const rows = sides.map((seats, side) => {
    const won = seats.some((seat) => winners.has(seat));
    return el(
      "tr",
      { dataset: { side }, class: won ? "won" : "" },
      el("th", { scope: "row" }, sideName(ctx.who, seats), won ? " ★" : ""),
      el("td", { class: "num" }, scores[side] ?? ""),
    );
  });
  return el(
    "table",
    { class: "scores", id: "final-scores" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, sides.some((s) => s.length > 1) ? "Side" : "Player"), el("th", { scope: "col", class: "num" }, "Score"))),
    el("tbody", {}, rows),
  );
}

// -- the replay viewer ------------------------------------------------------------------------------

function replayFelt(rctx, felt, state, event) {
  felt.replaceChildren(trickArea(rctx.who, state, { highlight: event.card ?? null }), sidesTable(rctx.who, state));
}

function replaySeat(rctx, seat, state) {
  return [
    el("span", { class: "count" }, `bid ${bidText((state.bids || [])[seat])}`),
    el("span", { class: "count" }, plural((state.tricks_won || [])[seat] ?? 0, "trick")),
  ];
}

function replayTurnBadge(state) {
  return state.phase === "bidding" ? "to bid" : "to play";
}

function replayResult(rctx, result) {
  return [
    el("h2", {}, headline(rctx.who, result)),
    el("ul", {}, sideLines(rctx.who, result).map(({ side, text }) => el("li", {}, `${sideName(rctx.who, side.seats)}: ${text}, total ${side.points >= 0 ? "+" : ""}${side.points}`))),
  ];
}

// -- the lobby ----------------------------------------------------------------------------------------

const PRESET_HINTS = {
  pairs: "Partners sit across the table; blind nil and blind bids of 4 or more; game to 500.",
  solo: "Cutthroat: each for themselves (three or four seats); 5 bags cost 50; nil is worth 50.",
  suicide: "Pairs where one partner must bid nil and the other at least 4.",
  whiz: "Bid nil or exactly the number of spades you hold.",
  mirror: "Bid exactly the number of spades you hold (nil with none).",
};

const YES_NO = [
  ["true", "yes"],
  ["false", "no"],
];

const OPTIONS = [
  { name: "target_score", label: "Game to", number: { min: 1, max: 100000, placeholder: "500" } },
  { name: "losing_score", label: "Lose at", number: { min: -100000, max: 0, placeholder: "none" } },
  { name: "max_hands", label: "Hands at most", number: { min: 1, max: 10000, placeholder: "200" } },
  { name: "set_scoring", label: "A side short of its bid", choices: [["zero", "scores nothing"], ["minus", "loses 10 × bid"]] },
  {
    name: "trumps",
    label: "Trumps",
    choices: [
      ["standard", "A♠ high"],
      ["bauers", "Bauers (J♠, J♣ on top)"],
      ["deuces_high", "deuces high"],
      ["jokers_high", "jokers high"],
    ],
  },
  { name: "nil", label: "Nil bids", choices: YES_NO, flag: true },
  { name: "blind_nil", label: "Blind nil", choices: YES_NO, flag: true },
  { name: "blind_bids", label: "Blind bids", choices: YES_NO, flag: true },
  { name: "boston", label: "Boston (all 13 tricks wins)", choices: YES_NO, flag: true },
];

export default {
  name: "Spades",
  sortable: false, // the server sends the hand sorted by suit, trumps first
  compass: true, // seats are called South, West, North, East: placed so
  selects: false, // clicking a card plays it
  title,
  turnText,
  turnWord,
  seatDetails,
  moveText,
  applyEvent,
  beforeEvent,
  animate,
  drawFelt,
  drawActions,
  cardClass: (ctx, card) => cardClass(ctx)(card),
  clickCard,
  emptyHand,
  handResult,
  finalScores,
  replay: {
    milestone: { type: "trick_won", label: "trick" },
    felt: replayFelt,
    seatDetails: replaySeat,
    turnBadge: replayTurnBadge,
    result: replayResult,
  },
  lobby: { hints: PRESET_HINTS, options: OPTIONS, seats: 4, maxSeats: 4 },
};
