// Drawing Rummy: the piles, the melds, the buttons of your phase, the hand results; the
// replay viewer's felt; the lobby's options. It never judges a move: the server's
// legal_moves say what may be done, and a refused move shows the engine's sentence. The
// page may show moves before the server's view of them arrives (`applyEvent`, what a move
// visibly changes); the server's view always replaces it.

import { el, plural } from "../api.js";
import { cardBack, cardElement, cardRow, pretty, sortCards } from "../cards.js";

const cardsText = (cards) => cards.map(pretty).join(" ");

// -- the table ---------------------------------------------------------------------------------

function title(view) {
  const hand = view.hand_number ? ` · hand ${view.hand_number}` : "";
  return `Rummy${view.preset ? " · " + view.preset : ""}${hand}`;
}

const turnWord = (view) => (view.phase === "draw" ? "to draw" : "to play");

function turnText(ctx) {
  const view = ctx.view;
  if (ctx.myTurn()) return view.phase === "draw" ? "Your turn: draw a card." : "Your turn: meld, lay off, then discard.";
  return `${ctx.who(view.turn)} to play · ${view.phase === "draw" ? "drawing" : "playing"}`;
}

function seatDetails(ctx, seat) {
  const info = ctx.view.seats[seat];
  return [
    el("span", { class: "seat-cards", title: "Cards in hand" }, plural(info.hand_count ?? 0, "card")),
    el("span", { class: "seat-score", title: "Score" }, plural(info.score ?? 0, "point")),
  ];
}

/** A seat's last move, in a few words. */
function moveText(event) {
  switch (event.type) {
    case "card_drawn":
      return event.source === "discard" ? `took ${pretty(event.card)} from the discards` : "drew from the stock";
    case "melded":
      return `melded ${cardsText(event.meld.cards)}`;
    case "laid_off":
      return `laid off ${pretty(event.card)} on meld ${event.meld}`;
    case "joker_swapped":
      return `swapped ${pretty(event.card)} for a joker`;
    case "discarded":
      return `discarded ${pretty(event.card)}`;
    default:
      return "";
  }
}

// -- moves shown before the server's view of them ----------------------------------------------

function takeFromHand(view, seat, cards) {
  const info = view.seats[seat];
  if (info) info.hand_count = Math.max(0, (info.hand_count ?? 0) - cards.length);
  if (view.hand_counts) view.hand_counts[seat] = info?.hand_count ?? 0;
  if (view.you?.seat !== seat) return;
  for (const card of cards) {
    const at = view.you.hand.indexOf(card);
    if (at >= 0) view.you.hand.splice(at, 1);
  }
}

/** Apply `event` to `view` (a copy) as far as it shows; false when only the server can. */
function applyEvent(view, event) {
  const seat = event.seat;
  switch (event.type) {
    case "card_drawn": {
      if (event.source === "stock") view.stock_count = Math.max(0, (view.stock_count ?? 1) - 1);
      else view.discard_pile.pop();
      const info = view.seats[seat];
      info.hand_count = (info.hand_count ?? 0) + 1;
      if (view.hand_counts) view.hand_counts[seat] = info.hand_count;
      if (view.you?.seat === seat && event.card) view.you.hand.push(event.card);
      view.phase = "play";
      return true;
    }
    case "melded":
      view.melds.push(event.meld);
      takeFromHand(view, seat, event.meld.cards);
      return true;
    case "laid_off":
      view.melds = view.melds.map((meld) => (meld.id === event.meld ? event.result : meld));
      takeFromHand(view, seat, [event.card]);
      return true;
    case "discarded":
      view.discard_pile.push(event.card);
      takeFromHand(view, seat, [event.card]);
      view.phase = "draw";
      view.turn = (seat + 1) % view.seats.length;
      return true;
    case "stock_replenished":
      view.discard_pile = [];
      view.stock_count = event.stock_count ?? view.stock_count;
      return true;
    default:
      return false;
  }
}

/** The card(s) of the move just shown, where they now lie. */
function movedNodes(event) {
  const felt = document.querySelector("#felt");
  switch (event.type) {
    case "discarded":
      return [felt.querySelector("#discard-pile [data-card]")];
    case "melded":
      return [...felt.querySelectorAll(`#melds [data-meld="${event.meld.id}"] [data-card]`)];
    case "laid_off":
      return [felt.querySelector(`#melds [data-meld="${event.meld}"] [data-card="${event.card}"]`)];
    default:
      return [];
  }
}

/** Move the cards of `event`, just drawn in their new places, from where they came. */
function animate(ctx, event, before, motion) {
  const mine = ctx.view.you?.seat === event.seat;
  const from = (card) => (mine && before.hand.get(card)) || before.seats.get(event.seat);
  if (event.type === "card_drawn") {
    const pile = event.source === "stock" ? before.stock : before.discard;
    if (mine) motion.arrive(document.querySelector(`#hand [data-card="${event.card}"]`), pile);
    else motion.fly(pile, before.seats.get(event.seat), event.card ? cardElement(event.card) : null);
    return;
  }
  for (const node of movedNodes(event)) if (node) motion.arrive(node, from(node.dataset.card));
  motion.flash(movedNodes(event));
}

// -- the felt --------------------------------------------------------------------------------------

/** The cards each seat's last move put on the felt and that still lie there, to keep
 * marked ("last-move"): a discard still on top of the pile, a meld made, a card laid off. */
function lastMoveCards(ctx) {
  const marked = { pile: null, melds: new Map() };
  const pile = ctx.view.discard_pile || [];
  for (const last of ctx.lastMoves.values()) {
    if (last.type === "discarded" && last.card === pile[pile.length - 1]) marked.pile = last.card;
    else if (last.type === "melded") marked.melds.set(last.meld.id, new Set(last.meld.cards));
    else if (last.type === "laid_off" || last.type === "joker_swapped") marked.melds.set(last.meld, new Set([last.card]));
  }
  return marked;
}

function clickMeld(ctx, meldId) {
  if (!ctx.myTurn()) {
    ctx.showError("It is not your turn.");
    return;
  }
  const cards = ctx.selectedCards();
  if (cards.length !== 1) {
    ctx.showError("Select one card from your hand, then click a meld to lay it off (or swap it for a joker).");
    return;
  }
  const card = cards[0];
  const fits = (type) => ctx.legal().some((m) => m.type === type && m.card === card && m.meld === meldId);
  const type = fits("lay_off") ? "lay_off" : fits("swap_joker") ? "swap_joker" : "lay_off";
  ctx.move({ type, card, meld: meldId });
}

function piles(ctx) {
  const view = ctx.view;
  const mine = ctx.myTurn() && !ctx.busy;
  const selected = ctx.selectedCards();
  const pile = view.discard_pile || [];
  const marked = lastMoveCards(ctx);

  const stock = el("button", { type: "button", id: "stock", class: "pile-button", "aria-label": `Stock, ${plural(view.stock_count ?? 0, "card")}` }, cardBack());
  stock.dataset.count = view.stock_count ?? 0;
  stock.disabled = !(mine && view.phase === "draw");
  stock.addEventListener("click", () => ctx.move({ type: "draw", source: "stock" }));

  const topCard = pile[pile.length - 1];
  const top = pile.length ? cardElement(topCard, { extraClass: marked.pile === topCard ? "last-move" : "" }) : el("span", { class: "card empty" }, "");
  const discard = el(
    "button",
    { type: "button", id: "discard-pile", class: "pile-button", "aria-label": pile.length ? `Discard pile, ${pretty(topCard)} on top` : "Discard pile, empty" },
    top,
  );
  discard.dataset.depth = pile.length;
  discard.disabled = !(mine && (view.phase === "draw" || selected.length === 1));
  discard.addEventListener("click", () => {
    const cards = ctx.selectedCards();
    if (view.phase === "play" && cards.length === 1) ctx.move({ type: "discard", card: cards[0] });
    else ctx.move({ type: "draw", source: "discard" });
  });
  return el(
    "div",
    { class: "piles" },
    el("div", { class: "pile" }, stock, el("div", { class: "pile-label" }, "Stock ", el("span", { id: "stock-count", class: "count" }, view.stock_count ?? 0))),
    el("div", { class: "pile" }, discard, el("div", { class: "pile-label" }, "Discards ", el("span", { id: "discard-count", class: "count" }, pile.length))),
  );
}

function drawFelt(ctx, felt) {
  const view = ctx.view;
  const selected = ctx.selectedCards();
  const card = selected.length === 1 ? selected[0] : null;
  const marked = lastMoveCards(ctx);
  const melds = el("div", { id: "melds", class: "melds" });
  let targets = 0;
  for (const meld of view.melds || []) {
    const target =
      card &&
      ctx.legal().some((m) => (m.type === "lay_off" || m.type === "swap_joker") && m.card === card && m.meld === meld.id);
    if (target) targets += 1;
    const lit = marked.melds.get(meld.id);
    const row = el("div", { class: "cards mini" }, meld.cards.map((c) => cardElement(c, { extraClass: lit?.has(c) ? "last-move" : "" })));
    const node = el(
      "button",
      {
        type: "button",
        class: "meld" + (target ? " target" : "") + (lit ? " last-meld" : ""),
        dataset: { meld: meld.id },
        "aria-label": `Meld ${meld.id} by ${ctx.who(meld.owner)}: ${cardsText(meld.cards)}`,
      },
      el("span", { class: "meld-label" }, `${meld.id} · ${ctx.who(meld.owner)}`),
      row,
    );
    node.addEventListener("click", () => clickMeld(ctx, meld.id));
    melds.append(node);
  }
  if (!(view.melds || []).length) melds.append(el("p", { class: "hint" }, "No melds yet."));
  const hint = targets && ctx.myTurn() ? `click a highlighted meld to lay off ${pretty(card)}` : "";
  felt.replaceChildren(
    piles(ctx),
    el("div", { class: "melds-area" }, el("h2", { class: "small" }, "Melds ", el("span", { class: "hint", id: "meld-hint" }, hint)), melds),
  );
}

// -- your hand and the buttons of your phase ---------------------------------------------------------

/** The cards of your possible melds and lay-offs (the server's legal moves), for the hint. */
function possible(ctx) {
  const melds = new Set();
  const layOffs = new Set();
  if (!(ctx.myTurn() && ctx.view.phase === "play")) return { melds, layOffs, moves: [] };
  const moves = ctx.legal().filter((m) => m.type === "meld" || m.type === "lay_off" || m.type === "swap_joker");
  for (const m of moves) {
    if (m.type === "meld") m.cards.forEach((c) => melds.add(c));
    else layOffs.add(m.card);
  }
  return { melds, layOffs, moves };
}

function cardClass(ctx, card) {
  if (!ctx.option("hints")) return "";
  const { melds, layOffs } = possible(ctx);
  return [melds.has(card) ? "hint-meld" : "", layOffs.has(card) ? "hint-layoff" : ""].join(" ").trim();
}

function button(id, label, enabled, onclick, kind = "primary") {
  const node = el("button", { type: "button", id, class: kind }, label);
  node.disabled = !enabled;
  node.addEventListener("click", onclick);
  return node;
}

function drawButtons(ctx, box) {
  const pile = ctx.view.discard_pile || [];
  const top = pile[pile.length - 1];
  const can = (source) => !ctx.busy && ctx.legal().some((m) => m.type === "draw" && m.source === source);
  box.append(
    button("draw-stock", "Draw from the stock", can("stock"), () => ctx.move({ type: "draw", source: "stock" })),
    button("draw-discard", top ? `Take ${pretty(top)}` : "Take the discard", can("discard"), () => ctx.move({ type: "draw", source: "discard" }), "secondary"),
  );
}

/** With one card selected: a button for each meld it may be laid off on (or swapped into). */
function layOffButtons(ctx, box, card) {
  const moves = ctx.legal().filter((m) => (m.type === "lay_off" || m.type === "swap_joker") && m.card === card);
  for (const m of moves.slice(0, 4)) {
    const label = m.type === "lay_off" ? `Lay off on meld ${m.meld}` : `Swap for the joker in meld ${m.meld}`;
    box.append(button(`lay-off-${m.meld}`, label, !ctx.busy, () => ctx.move(m), "secondary lay-off"));
  }
}

function hintToggle(ctx) {
  const on = ctx.option("hints");
  const node = el("button", { type: "button", id: "hints", class: "secondary small", "aria-pressed": on ? "true" : "false", title: "Highlight the cards of your possible melds and lay-offs" }, "Show possible melds");
  node.addEventListener("click", () => ctx.setOption("hints", !on));
  return node;
}

/** With the hint on: each possible meld or lay-off as a button selecting its cards. */
function suggestions(ctx, extra) {
  const { moves } = possible(ctx);
  if (!ctx.option("hints") || !moves.length) return;
  const shown = [...moves].sort((a, b) => (b.cards?.length ?? 1) - (a.cards?.length ?? 1)).slice(0, 6);
  extra.append(
    el(
      "div",
      { class: "suggestions", id: "suggestions", role: "group", "aria-label": "Possible melds and lay-offs" },
      el("span", { class: "hint" }, "You could:"),
      shown.map((m) => {
        const cards = m.type === "meld" ? m.cards : [m.card];
        const text = m.type === "meld" ? `meld ${cardsText(m.cards)}` : `lay off ${pretty(m.card)} on ${m.meld}`;
        return el("button", { type: "button", class: "secondary small suggestion", onclick: () => ctx.select(cards) }, text);
      }),
    ),
  );
}

function goDownButtons(ctx, extra) {
  const goDowns = ctx.legal().filter((m) => m.type === "go_down");
  if (!goDowns.length) return;
  extra.append(el("p", { class: "hint" }, "This deal is laid down all at once. You can go down:"));
  for (const command of goDowns.slice(0, 8)) {
    const text = command.melds.map(cardsText).join(" · ") + (command.discard ? ` · discard ${pretty(command.discard)}` : "");
    extra.append(el("button", { type: "button", class: "primary", onclick: () => ctx.move(command) }, `Go down: ${text}`));
  }
}

function drawActions(ctx, box, extra) {
  const view = ctx.view;
  const mine = ctx.myTurn() && !ctx.busy;
  const selected = ctx.selectedCards();
  const count = selected.length;
  if (ctx.myTurn() && view.phase === "draw") {
    drawButtons(ctx, box);
  } else {
    box.append(
      button("meld", "Meld", mine && view.phase === "play" && count >= 1, () => ctx.move({ type: "meld", cards: ctx.selectedCards() })),
      button("discard", "Discard", mine && view.phase === "play" && count === 1, () => {
        const cards = ctx.selectedCards();
        if (cards.length === 1) ctx.move({ type: "discard", card: cards[0] });
        else ctx.showError("Select exactly one card to discard.");
      }),
    );
    if (mine && view.phase === "play" && count === 1) layOffButtons(ctx, box, selected[0]);
    box.append(button("clear", "Clear", count > 0, () => ctx.clearSelection(), "secondary"));
  }
  box.append(hintToggle(ctx));
  suggestions(ctx, extra);
  goDownButtons(ctx, extra);
}

/** The final scores, a row per player, the winners marked. */
function finalScores(ctx, result) {
  const winners = new Set(result.winners || []);
  const rows = (result.scores || []).map((score, seat) =>
    el(
      "tr",
      { dataset: { seat }, class: winners.has(seat) ? "won" : "" },
      el("th", { scope: "row" }, ctx.who(seat), winners.has(seat) ? " ★" : ""),
      el("td", { class: "num" }, score),
    ),
  );
  return el(
    "table",
    { class: "scores", id: "final-scores" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Player"), el("th", { scope: "col", class: "num" }, "Score"))),
    el("tbody", {}, rows),
  );
}

function handHeadline(who, result) {
  const winner = result.winner;
  if (winner === null || winner === undefined) {
    return `Hand ${result.hand} ended with nobody out${result.reason === "stock_exhausted" ? " (the stock ran out)" : ""}.`;
  }
  return `${who(winner)} went out${result.rummy ? " going rummy" : ""} and won hand ${result.hand}.`;
}

function handResult(ctx, result) {
  const rows = (result.hands || []).map((cards, seat) =>
    el(
      "tr",
      { dataset: { seat } },
      el("th", { scope: "row" }, ctx.who(seat)),
      el("td", {}, cards.length ? cardRow(sortCards(cards), { className: "cards mini" }) : "out"),
      el("td", { class: "num" }, result.points?.[seat] ?? ""),
      el("td", { class: "num" }, (result.deltas?.[seat] > 0 ? "+" : "") + (result.deltas?.[seat] ?? "")),
      el("td", { class: "num" }, result.scores?.[seat] ?? ""),
    ),
  );
  return [
    el("h2", {}, handHeadline(ctx.who, result)),
    el(
      "table",
      { class: "scores" },
      el("thead", {}, el("tr", {}, ["Player", "Cards left", "Points", "This hand", "Total"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows),
    ),
  ];
}

// -- the replay viewer ---------------------------------------------------------------------------

function replayFelt(rctx, felt, state, event) {
  const pile = state.discard_pile || [];
  const highlight = event.card ?? null;
  const melds = el("div", { id: "melds", class: "melds" });
  for (const meld of state.melds || []) {
    const target = event.meld === meld.id || event.meld?.id === meld.id;
    melds.append(
      el(
        "div",
        { class: "meld" + (target ? " target" : ""), dataset: { meld: meld.id } },
        el("span", { class: "meld-label" }, `${meld.id} · ${rctx.who(meld.owner)}`),
        cardRow(meld.cards, { className: "cards mini", highlight }),
      ),
    );
  }
  if (!(state.melds || []).length) melds.append(el("p", { class: "hint" }, "No melds yet."));
  const top = el("div", { id: "discard-pile", class: "pile-top" }, pile.length ? cardElement(pile[pile.length - 1]) : el("span", { class: "card empty" }));
  top.dataset.depth = pile.length;
  felt.replaceChildren(
    el(
      "div",
      { class: "piles" },
      el("div", { class: "pile" }, el("div", { class: "pile-top" }, cardBack()), el("div", { class: "pile-label" }, "Stock ", el("span", { id: "stock-count", class: "count" }, state.stock_count ?? 0))),
      el("div", { class: "pile" }, top, el("div", { class: "pile-label" }, "Discards ", el("span", { id: "discard-count", class: "count" }, pile.length))),
    ),
    el("div", { class: "melds-area" }, el("h2", { class: "small" }, "Melds"), melds),
  );
  if (state.stock) {
    felt.append(
      el(
        "section",
        { id: "stock-section", class: "stock-section" },
        el("h2", { class: "small" }, "Stock, top card first"),
        el("div", { id: "stock", class: "cards mini" }, state.stock.map((card) => cardElement(card))),
      ),
    );
  }
}

function replaySeat(rctx, seat, state) {
  return [el("span", { class: "count" }, plural((state.scores || [])[seat] ?? 0, "point"))];
}

function replayTurnBadge(state) {
  return state.phase === "draw" ? "to draw" : "to play";
}

function replayResult(rctx, result) {
  const line = (result.points || [])
    .map((points, seat) => `${rctx.who(seat)}: ${points} in hand, ${result.deltas[seat] >= 0 ? "+" : ""}${result.deltas[seat]}, total ${result.scores[seat]}`)
    .join(" · ");
  return [el("h2", {}, handHeadline(rctx.who, result)), el("p", {}, line)];
}

// -- the lobby -------------------------------------------------------------------------------------

const PRESET_HINTS = {
  pagat: "The standard game: the discard pile becomes the stock twice at most, then the hand ends.",
  block: "Block Rummy: the discard pile is never reused; the hand ends when the stock runs out.",
  penalty: "Everyone scores the cards left in their hand; at 100 the lowest total wins.",
  wrotham: "Wrotham: 55 cards with 3 jokers, six deals; in deals 4–6 you lay your whole hand down at once.",
  "classic-online": "2–4 players, any number of melds, going rummy doubles, the stock reshuffled once.",
};

// The main options, as the engine names them (docs/rules.md). "" = as the preset says.
const OPTIONS = [
  { name: "melds_per_turn", label: "Melds per turn", choices: [["one", "one"], ["any", "any number"]] },
  {
    name: "going_rummy",
    label: "Going rummy",
    choices: [["none", "no extra"], ["double", "doubles"], ["bonus", "bonus"]],
  },
  { name: "aces", label: "Aces", choices: [["low", "low"], ["high_or_low", "high or low"]] },
  {
    name: "stock_exhausted",
    label: "Stock runs out",
    choices: [["turn_over", "turn discards over"], ["shuffle", "shuffle discards"], ["end", "hand ends"]],
  },
  {
    name: "scoring",
    label: "Scoring",
    choices: [["winner", "winner scores"], ["penalty", "penalty points"], ["pay", "losers pay"]],
  },
  { name: "game_end", label: "Game ends", choices: [["target", "at the target score"], ["deals", "after N deals"]] },
  { name: "target_score", label: "Target score", number: { min: 1, max: 100000, placeholder: "100" } },
  { name: "deals", label: "Deals", number: { min: 1, max: 1000, placeholder: "10" } },
];

export default {
  name: "Rummy",
  sortable: true,
  selects: true, // clicking cards selects them; the buttons act on the selection
  title,
  turnText,
  turnWord,
  seatDetails,
  moveText,
  applyEvent,
  animate,
  drawFelt,
  drawActions,
  cardClass,
  handResult,
  finalScores,
  replay: {
    milestone: { type: "discarded", label: "turn" },
    felt: replayFelt,
    seatDetails: replaySeat,
    turnBadge: replayTurnBadge,
    result: replayResult,
  },
  lobby: { hints: PRESET_HINTS, options: OPTIONS, seats: 2, maxSeats: 6 },
};
