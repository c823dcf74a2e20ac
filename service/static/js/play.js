// The table: your hand, the melds, the piles; moves by clicking; follows the game by long-poll.

import {
  $,
  api,
  el,
  gameId,
  plural,
  Problem,
  remember,
  remembered,
  seatLink,
  seatName,
  show,
  sleep,
  takeTokenFromFragment,
  tokens,
} from "./api.js";
import { cardBack, cardElement, cardRow, pretty, sortCards } from "./cards.js";

const id = gameId();
const base = `/games/${encodeURIComponent(id)}`;
let token = takeTokenFromFragment(id) || tokens.get(id);
let view = null;
let sortBy = remembered("sort", "suit");
let selected = new Set(); // keys "card#n": the n-th copy of a card in the shown hand
let busy = false;
let logged = 0; // the newest event version written to the log
let dismissedResult = 0;

const table = $("#table");

// -- words --------------------------------------------------------------------------------------

function names() {
  return (view?.seats || []).map((seat) => seatName(seat));
}

function who(seat) {
  const name = names()[seat] ?? `seat ${seat + 1}`;
  return view?.you && view.you.seat === seat ? `${name} (you)` : name;
}

const cardsText = (cards) => cards.map(pretty).join(" ");

/** One sentence per event (the replay viewer gets the engine's own from the server). */
function describe(event) {
  const name = event.seat !== undefined ? who(event.seat) : "";
  switch (event.type) {
    case "game_created":
      return `A game of Rummy for ${event.players} players began.`;
    case "players_seated":
      return "Every seat is taken.";
    case "hand_dealt":
      return `Hand ${event.hand} was dealt by ${who(event.dealer)}.`;
    case "card_drawn":
      if (event.source === "discard") return `${name} drew ${pretty(event.card)} from the discard pile.`;
      return event.card ? `${name} drew ${pretty(event.card)} from the stock.` : `${name} drew from the stock.`;
    case "stock_replenished":
      return `The stock ran out; the discard pile was ${event.shuffled ? "shuffled into" : "turned over to make"} a new stock.`;
    case "melded":
      return `${name} melded ${cardsText(event.meld.cards)} (meld ${event.meld.id}).`;
    case "laid_off":
      return `${name} laid off ${pretty(event.card)} on meld ${event.meld}.`;
    case "joker_swapped":
      return `${name} swapped ${pretty(event.card)} for the joker in meld ${event.meld}.`;
    case "discarded":
      return `${name} discarded ${pretty(event.card)}.`;
    case "hand_ended":
      if (event.winner === null || event.winner === undefined) return `Hand ${event.hand} ended with nobody out.`;
      return `${who(event.winner)} went out${event.rummy ? " going rummy" : ""} and won hand ${event.hand}.`;
    case "game_ended":
      return `The game ended; winner: ${event.winners.map(who).join(", ")}.`;
    case "seed_revealed":
      return "The server's seed was revealed: the deals can now be audited.";
    default: {
      const text = event.type.replaceAll("_", " ");
      return text[0].toUpperCase() + text.slice(1) + ".";
    }
  }
}

function logEvents(events) {
  const log = $("#log");
  for (const event of events) {
    if (event.version <= logged) continue;
    logged = event.version;
    log.prepend(el("li", { dataset: { version: event.version, type: event.type } }, describe(event)));
  }
  while (log.children.length > 40) log.lastElementChild.remove();
}

// -- state --------------------------------------------------------------------------------------------

const myTurn = () => Boolean(view?.you && view.status === "playing" && view.turn === view.you.seat);

function shownHand() {
  const cards = sortCards(view?.you?.hand || [], sortBy);
  const seen = {};
  return cards.map((card) => {
    seen[card] = (seen[card] || 0) + 1;
    return { card, key: `${card}#${seen[card]}` };
  });
}

function selectedCards() {
  return shownHand()
    .filter((entry) => selected.has(entry.key))
    .map((entry) => entry.card);
}

async function refresh() {
  let fresh;
  try {
    fresh = await api(base, { token });
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    if (token && (error.status === 401 || error.status === 403)) {
      tokens.remove(id);
      token = null;
      showError(`${error.detail} You are watching this table without a seat.`);
      return refresh();
    }
    throw error;
  }
  if (view && fresh.version < view.version) return; // older than the one shown
  view = fresh;
  render();
}

// -- moves ----------------------------------------------------------------------------------------------

function showError(text) {
  show($("#error"), text);
}

async function move(command) {
  if (busy) return;
  busy = true;
  table.dataset.busy = "true";
  showError("");
  try {
    const answer = await api(`${base}/moves`, { method: "POST", token, body: command });
    selected = new Set();
    logEvents(answer.events);
    await refresh();
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    showError(error.text);
    if (error.status === 409 || error.status === 412) await refresh();
  } finally {
    busy = false;
    table.dataset.busy = "false";
    renderControls();
  }
}

function legal() {
  return view?.you?.legal_moves || [];
}

function clickStock() {
  move({ type: "draw", source: "stock" });
}

function clickDiscardPile() {
  const cards = selectedCards();
  if (view.phase === "play" && cards.length === 1) move({ type: "discard", card: cards[0] });
  else move({ type: "draw", source: "discard" });
}

function clickMeld(meldId) {
  if (!myTurn()) {
    showError("It is not your turn.");
    return;
  }
  const cards = selectedCards();
  if (cards.length !== 1) {
    showError("Select one card from your hand, then click a meld to lay it off (or swap it for a joker).");
    return;
  }
  const card = cards[0];
  const fits = (type) => legal().some((m) => m.type === type && m.card === card && m.meld === meldId);
  const type = fits("lay_off") ? "lay_off" : fits("swap_joker") ? "swap_joker" : "lay_off";
  move({ type, card, meld: meldId });
}

function clickMeldButton() {
  move({ type: "meld", cards: selectedCards() });
}

function clickDiscardButton() {
  const cards = selectedCards();
  if (cards.length !== 1) {
    showError("Select exactly one card to discard.");
    return;
  }
  move({ type: "discard", card: cards[0] });
}

// -- drawing the page ----------------------------------------------------------------------------------

function renderStatus() {
  const hand = view.hand_number ? ` · hand ${view.hand_number}` : "";
  $("#title").textContent = `Rummy${view.preset ? " · " + view.preset : ""}${hand}`;
  let text;
  if (view.status === "waiting") text = "Waiting for players to take the open seats…";
  else if (view.status === "finished") text = "The game is over.";
  else if (view.turn === null || view.turn === undefined) text = "Between hands…";
  else if (myTurn()) text = view.phase === "draw" ? "Your turn: draw a card." : "Your turn: meld, lay off, then discard.";
  else text = `${who(view.turn)} to play · ${view.phase === "draw" ? "drawing" : "playing"}`;
  $("#turn-info").textContent = text;
}

function renderSeats() {
  const list = $("#seats");
  list.replaceChildren();
  for (const seat of view.seats) {
    const classes = ["seat"];
    if (view.turn === seat.seat && view.status === "playing") classes.push("turn");
    if (view.you?.seat === seat.seat) classes.push("you");
    list.append(
      el(
        "li",
        { class: classes.join(" "), dataset: { seat: seat.seat } },
        el("span", { class: "seat-name" }, who(seat.seat)),
        view.dealer === seat.seat ? el("span", { class: "dealer", title: "Dealer" }, "D") : null,
        el("span", { class: "seat-cards", title: "Cards in hand" }, plural(seat.hand_count ?? 0, "card")),
        el("span", { class: "seat-score", title: "Score" }, plural(seat.score ?? 0, "point")),
      ),
    );
  }
}

function renderPiles() {
  const pile = view.discard_pile || [];
  $("#stock-count").textContent = view.stock_count ?? 0;
  $("#stock").dataset.count = view.stock_count ?? 0;
  const discard = $("#discard-pile");
  discard.replaceChildren(pile.length ? cardElement(pile[pile.length - 1]) : el("span", { class: "card empty" }, ""));
  discard.dataset.depth = pile.length;
  discard.setAttribute("aria-label", pile.length ? `Discard pile, ${pretty(pile[pile.length - 1])} on top` : "Discard pile, empty");
  $("#discard-count").textContent = pile.length;
}

function renderMelds() {
  const box = $("#melds");
  box.replaceChildren();
  const cards = selectedCards();
  const card = cards.length === 1 ? cards[0] : null;
  let targets = 0;
  for (const meld of view.melds || []) {
    const target =
      card && legal().some((m) => (m.type === "lay_off" || m.type === "swap_joker") && m.card === card && m.meld === meld.id);
    const node = el(
      "button",
      {
        type: "button",
        class: "meld" + (target ? " target" : ""),
        dataset: { meld: meld.id },
        "aria-label": `Meld ${meld.id} by ${who(meld.owner)}: ${cardsText(meld.cards)}`,
      },
      el("span", { class: "meld-label" }, `${meld.id} · ${who(meld.owner)}`),
      cardRow(meld.cards, { className: "cards mini" }),
    );
    if (target) targets += 1;
    node.addEventListener("click", () => clickMeld(meld.id));
    box.append(node);
  }
  if (!(view.melds || []).length) box.append(el("p", { class: "hint" }, "No melds yet."));
  $("#meld-hint").textContent = targets && myTurn() ? `click a highlighted meld to lay off ${pretty(card)}` : "";
}

function renderHand() {
  const section = $("#my-hand");
  if (!view.you) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const entries = shownHand();
  const keys = new Set(entries.map((e) => e.key));
  selected = new Set([...selected].filter((key) => keys.has(key)));
  const hand = $("#hand");
  hand.replaceChildren();
  for (const { card, key } of entries) {
    const node = cardElement(card, { tag: "button", extraClass: selected.has(key) ? "selected" : "" });
    node.dataset.key = key;
    node.setAttribute("aria-pressed", selected.has(key) ? "true" : "false");
    node.addEventListener("click", () => {
      if (selected.has(key)) selected.delete(key);
      else selected.add(key);
      renderHand();
      renderMelds();
      renderControls();
    });
    hand.append(node);
  }
  $("#hand-count").textContent = plural(entries.length, "card");
  for (const button of document.querySelectorAll("[data-sort]")) {
    button.setAttribute("aria-pressed", button.dataset.sort === sortBy ? "true" : "false");
  }
  renderGoDown();
}

function renderGoDown() {
  const box = $("#go-down");
  const moves = legal().filter((m) => m.type === "go_down");
  box.replaceChildren();
  box.hidden = moves.length === 0;
  if (!moves.length) return;
  box.append(el("p", { class: "hint" }, "This deal is laid down all at once. You can go down:"));
  for (const command of moves.slice(0, 8)) {
    const text = command.melds.map(cardsText).join(" · ") + (command.discard ? ` · discard ${pretty(command.discard)}` : "");
    box.append(el("button", { type: "button", class: "primary", onclick: () => move(command) }, `Go down: ${text}`));
  }
}

function renderControls() {
  const mine = myTurn() && !busy;
  const count = selected.size;
  $("#stock").disabled = !(mine && view.phase === "draw");
  $("#discard-pile").disabled = !(mine && (view.phase === "draw" || count === 1));
  $("#meld").disabled = !(mine && view.phase === "play" && count >= 1);
  $("#discard").disabled = !(mine && view.phase === "play" && count === 1);
  $("#clear").disabled = count === 0;
  $("#hand-actions").hidden = view.status !== "playing";
  table.dataset.myTurn = myTurn() ? "true" : "false";
  table.dataset.selected = count;
}

function handResultPanel(result) {
  const winner = result.winner;
  const headline =
    winner === null || winner === undefined
      ? `Hand ${result.hand} ended with nobody out${result.reason === "stock_exhausted" ? " (the stock ran out)" : ""}.`
      : `${who(winner)} went out${result.rummy ? " going rummy" : ""} and won hand ${result.hand}.`;
  const rows = (result.hands || []).map((cards, seat) =>
    el(
      "tr",
      { dataset: { seat } },
      el("th", { scope: "row" }, who(seat)),
      el("td", {}, cards.length ? cardRow(sortCards(cards), { className: "cards mini" }) : "out"),
      el("td", { class: "num" }, result.points?.[seat] ?? ""),
      el("td", { class: "num" }, (result.deltas?.[seat] > 0 ? "+" : "") + (result.deltas?.[seat] ?? "")),
      el("td", { class: "num" }, result.scores?.[seat] ?? ""),
    ),
  );
  return [
    el("h2", {}, headline),
    el(
      "table",
      { class: "scores" },
      el("thead", {}, el("tr", {}, ["Player", "Cards left", "Points", "This hand", "Total"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows),
    ),
  ];
}

function renderResults() {
  const last = view.last_hand;
  const panel = $("#hand-result");
  if (last && last.hand !== dismissedResult && view.status !== "finished") {
    panel.hidden = false;
    const close = el("button", { type: "button", class: "secondary" }, "Close");
    close.addEventListener("click", () => {
      dismissedResult = last.hand;
      panel.hidden = true;
    });
    panel.replaceChildren(...handResultPanel(last), close);
  } else if (view.status !== "finished") {
    panel.hidden = true;
  }
  const over = $("#game-over");
  if (view.status === "finished") {
    const winners = view.result?.winners || [];
    over.hidden = false;
    panel.hidden = true;
    over.replaceChildren(
      el("h2", { id: "winner" }, `Game over · winner: ${winners.map(who).join(", ") || "nobody"}`),
      ...(last ? handResultPanel(last) : []),
      el("a", { class: "button primary", id: "replay-cta", href: `/replay/${encodeURIComponent(id)}` }, "Watch the replay"),
    );
  } else {
    over.hidden = true;
  }
}

function renderShare() {
  const share = $("#share");
  share.hidden = !token;
  if (token) $("#share-link").value = seatLink(id, token);
}

const TABLE_GAMES = ["rummy"];

function render() {
  if (!TABLE_GAMES.includes(view.game)) {
    table.dataset.status = "unsupported";
    $("#title").textContent = `A game of ${view.game}`;
    show($("#message"), `This page draws Rummy tables only; follow this ${view.game} game through the API or its replay.`);
    return;
  }
  table.dataset.status = view.status;
  table.dataset.version = view.version;
  table.dataset.hand = view.hand_number ?? 0;
  table.dataset.turn = view.turn ?? "";
  table.dataset.phase = view.phase ?? "";
  table.dataset.mySeat = view.you ? view.you.seat : "";
  renderStatus();
  renderSeats();
  renderPiles();
  renderHand();
  renderMelds();
  renderControls();
  renderResults();
  renderShare();
  if (!view.you) show($("#message"), "You are watching this table (you have no seat here).");
  else show($("#message"), "");
}

// -- following the game -----------------------------------------------------------------------------------

async function follow() {
  let after = view.version;
  let failures = 0;
  let wait = 25; // seconds the server may hold each long-poll
  while (view.status !== "finished") {
    const began = performance.now();
    try {
      const data = await api(`${base}/events?after=${after}&wait=${wait}`, { token });
      failures = 0;
      logEvents(data.events);
      if (data.version > after) {
        after = data.version;
        if (data.version > view.version) await refresh();
      }
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      const held = (performance.now() - began) / 1000;
      if ((error.status === 0 || error.status >= 500) && held >= 2 && held < wait - 1 && failures === 0) {
        // Something on the way cut the long-poll short: ask for shorter waits from now on.
        wait = Math.max(1, Math.floor(held) - 1);
        console.warn(`long-poll cut after ${held.toFixed(1)} s; waiting ${wait} s per poll from now on`);
        failures += 1;
        continue;
      }
      failures += 1;
      if (token && (error.status === 401 || error.status === 403)) {
        await refresh(); // drops a token that is no longer valid
        continue;
      }
      if (failures > 2) showError(error.detail);
      await sleep(Math.min(10000, 1000 * failures));
      continue;
    }
    after = Math.max(after, view.version);
  }
  showError("");
}

async function start() {
  $("#stock").addEventListener("click", clickStock);
  $("#discard-pile").addEventListener("click", clickDiscardPile);
  $("#meld").addEventListener("click", clickMeldButton);
  $("#discard").addEventListener("click", clickDiscardButton);
  $("#clear").addEventListener("click", () => {
    selected = new Set();
    renderHand();
    renderMelds();
    renderControls();
  });
  for (const button of document.querySelectorAll("[data-sort]")) {
    button.addEventListener("click", () => {
      sortBy = button.dataset.sort;
      remember("sort", sortBy);
      renderHand();
    });
  }
  $("#copy-link").addEventListener("click", async () => {
    const input = $("#share-link");
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      $("#copy-link").textContent = "Copied";
    } catch {
      $("#copy-link").textContent = "Select and copy";
    }
  });
  $("#stock").replaceChildren(cardBack());
  try {
    await refresh();
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    table.dataset.status = "error";
    $("#title").textContent = "Table not found";
    showError(error.text);
    return;
  }
  // The latest few events, so the log starts with some context.
  try {
    const recent = await api(`${base}/events?after=${Math.max(0, view.version - 12)}`, { token });
    logEvents(recent.events);
  } catch {
    /* the log is a nicety */
  }
  await follow();
}

start();
