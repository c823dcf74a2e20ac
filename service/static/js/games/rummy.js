// Drawing Rummy: the piles, the melds, the buttons under your hand, the hand results;
// the replay viewer's felt; the lobby's options. It never judges a move: the server's
// legal_moves say what may be done, and a refused move shows the engine's sentence.

import { el, plural } from "../api.js";
import { cardBack, cardElement, cardRow, pretty, sortCards } from "../cards.js";

const cardsText = (cards) => cards.map(pretty).join(" ");

// -- the table ---------------------------------------------------------------------------------

function title(view) {
  const hand = view.hand_number ? ` · hand ${view.hand_number}` : "";
  return `Rummy${view.preset ? " · " + view.preset : ""}${hand}`;
}

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

function drawFelt(ctx, felt) {
  const view = ctx.view;
  const mine = ctx.myTurn() && !ctx.busy;
  const selected = ctx.selectedCards();
  const pile = view.discard_pile || [];

  const stock = el("button", { type: "button", id: "stock", class: "pile-button", "aria-label": "Stock" }, cardBack());
  stock.dataset.count = view.stock_count ?? 0;
  stock.disabled = !(mine && view.phase === "draw");
  stock.addEventListener("click", () => ctx.move({ type: "draw", source: "stock" }));

  const top = pile.length ? cardElement(pile[pile.length - 1]) : el("span", { class: "card empty" }, "");
  const discard = el(
    "button",
    {
      type: "button",
      id: "discard-pile",
      class: "pile-button",
      "aria-label": pile.length ? `Discard pile, ${pretty(pile[pile.length - 1])} on top` : "Discard pile, empty",
    },
    top,
  );
  discard.dataset.depth = pile.length;
  discard.disabled = !(mine && (view.phase === "draw" || selected.length === 1));
  discard.addEventListener("click", () => {
    const cards = ctx.selectedCards();
    if (view.phase === "play" && cards.length === 1) ctx.move({ type: "discard", card: cards[0] });
    else ctx.move({ type: "draw", source: "discard" });
  });

  const card = selected.length === 1 ? selected[0] : null;
  const melds = el("div", { id: "melds", class: "melds" });
  let targets = 0;
  for (const meld of view.melds || []) {
    const target =
      card &&
      ctx.legal().some((m) => (m.type === "lay_off" || m.type === "swap_joker") && m.card === card && m.meld === meld.id);
    if (target) targets += 1;
    const node = el(
      "button",
      {
        type: "button",
        class: "meld" + (target ? " target" : ""),
        dataset: { meld: meld.id },
        "aria-label": `Meld ${meld.id} by ${ctx.who(meld.owner)}: ${cardsText(meld.cards)}`,
      },
      el("span", { class: "meld-label" }, `${meld.id} · ${ctx.who(meld.owner)}`),
      cardRow(meld.cards, { className: "cards mini" }),
    );
    node.addEventListener("click", () => clickMeld(ctx, meld.id));
    melds.append(node);
  }
  if (!(view.melds || []).length) melds.append(el("p", { class: "hint" }, "No melds yet."));
  const hint = targets && ctx.myTurn() ? `click a highlighted meld to lay off ${pretty(card)}` : "";

  felt.replaceChildren(
    el(
      "div",
      { class: "piles" },
      el("div", { class: "pile" }, stock, el("div", { class: "pile-label" }, "Stock ", el("span", { id: "stock-count", class: "count" }, view.stock_count ?? 0))),
      el("div", { class: "pile" }, discard, el("div", { class: "pile-label" }, "Discards ", el("span", { id: "discard-count", class: "count" }, pile.length))),
    ),
    el(
      "div",
      { class: "melds-area" },
      el("h2", { class: "small" }, "Melds ", el("span", { class: "hint", id: "meld-hint" }, hint)),
      melds,
    ),
  );
}

function drawActions(ctx, box, extra) {
  const view = ctx.view;
  const mine = ctx.myTurn() && !ctx.busy;
  const count = ctx.selectedCards().length;
  const button = (id, label, enabled, onclick, kind = "primary") => {
    const node = el("button", { type: "button", id, class: kind }, label);
    node.disabled = !enabled;
    node.addEventListener("click", onclick);
    return node;
  };
  box.append(
    button("meld", "Meld", mine && view.phase === "play" && count >= 1, () => ctx.move({ type: "meld", cards: ctx.selectedCards() })),
    button("discard", "Discard", mine && view.phase === "play" && count === 1, () => {
      const cards = ctx.selectedCards();
      if (cards.length === 1) ctx.move({ type: "discard", card: cards[0] });
      else ctx.showError("Select exactly one card to discard.");
    }),
    button("clear", "Clear", count > 0, () => ctx.clearSelection(), "secondary"),
  );
  const goDowns = ctx.legal().filter((m) => m.type === "go_down");
  if (!goDowns.length) return;
  extra.append(el("p", { class: "hint" }, "This deal is laid down all at once. You can go down:"));
  for (const command of goDowns.slice(0, 8)) {
    const text = command.melds.map(cardsText).join(" · ") + (command.discard ? ` · discard ${pretty(command.discard)}` : "");
    extra.append(el("button", { type: "button", class: "primary", onclick: () => ctx.move(command) }, `Go down: ${text}`));
  }
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
  seatDetails,
  drawFelt,
  drawActions,
  handResult,
  replay: {
    milestone: { type: "discarded", label: "turn" },
    felt: replayFelt,
    seatDetails: replaySeat,
    turnBadge: replayTurnBadge,
    result: replayResult,
  },
  lobby: { hints: PRESET_HINTS, options: OPTIONS, seats: 2, maxSeats: 6 },
};
