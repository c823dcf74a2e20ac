// The table: seats, your hand, the game's own felt and buttons (static/js/games/<game>.js);
// moves by clicking; follows the game by long-poll. Legal moves always come from the server.
// A seat is played with its token (kept in localStorage) or, for a seat bound to the
// logged-in player's account, with the session cookie alone. Once the game is over, a
// seated player may offer a rematch and a logged-in one hears of it as it is offered.

import {
  $,
  api,
  clientSeed,
  el,
  gameId,
  Problem,
  recordsPanel,
  remember,
  remembered,
  seatLink,
  seatName,
  show,
  sleep,
  takeTokenFromFragment,
  tokens,
} from "./api.js";
import { currentPlayer, recountTurns, tellOtherTabs } from "./account.js";
import { cardElement, sortCards } from "./cards.js";
import { rematchOffer, tableAddress } from "./rematch.js";
import { gameModule } from "./games/index.js";

const id = gameId();
const base = `/games/${encodeURIComponent(id)}`;
let token = takeTokenFromFragment(id) || tokens.get(id);
let view = null;
let game = null; // the game's drawing module
let sortBy = remembered("sort", "suit");
let selected = new Set(); // keys "card#n": the n-th copy of a card in the shown hand
let busy = false;
let logged = 0; // the newest event version written to the log
let dismissedResult = 0;
let player = null; // the logged-in player, whose session cookie acts for their seats
let turnShown = ""; // status and turn last drawn: the top bar counts my turns again on a change

const table = $("#table");
// The receipts this browser keeps (and, once the game is over, its export and the check):
// under "Your receipts" while the game goes on, in the game-over panel after.
const records = recordsPanel(id, { token: () => token });
// Rematch, and hearing of one at a finished table (static/js/rematch.js).
const rematch = rematchOffer(id, {
  token: () => token,
  refresh: async () => {
    await refresh();
    return view;
  },
  showError,
});

// -- words ----------------------------------------------------------------------------------

function who(seat) {
  const name = seatName(view?.seats?.[seat]) ?? `seat ${seat + 1}`;
  return view?.you && view.you.seat === seat ? `${name} (you)` : name;
}

/** Each event's sentence is the engine's own, sent with the event. */
function logEvents(events) {
  const log = $("#log");
  for (const event of events) {
    if (event.version <= logged) continue;
    logged = event.version;
    const text = event.description || event.type.replaceAll("_", " ");
    log.prepend(el("li", { dataset: { version: event.version, type: event.type } }, text));
  }
  while (log.children.length > 40) log.lastElementChild.remove();
}

// -- state ----------------------------------------------------------------------------------

const myTurn = () => Boolean(view?.you && view.status === "playing" && view.turn === view.you.seat);
const legal = () => view?.you?.legal_moves || [];

function shownHand() {
  const hand = view?.you?.hand || [];
  const cards = game.sortable ? sortCards(hand, sortBy) : hand;
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

// -- moves ----------------------------------------------------------------------------------

function showError(text) {
  show($("#error"), text);
}

async function move(command) {
  if (busy) return;
  busy = true;
  table.dataset.busy = "true";
  showError("");
  render(); // buttons off while the move is on its way
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
    render();
  }
}

/** What a game's module may use: the view, names, the selection and `move`. */
const ctx = {
  get view() {
    return view;
  },
  who,
  move,
  legal,
  myTurn,
  showError,
  selectedCards,
  clearSelection() {
    selected = new Set();
    render();
  },
  get busy() {
    return busy;
  },
  /** Redraw after the module changed something of its own. */
  redraw: () => render(),
};

// -- drawing the page -------------------------------------------------------------------------

function renderStatus() {
  $("#title").textContent = game.title(view);
  let text;
  if (view.status === "waiting") text = "Waiting for players to take the open seats…";
  else if (view.status === "finished") text = "The game is over.";
  else if (view.status === "abandoned") text = "Nobody took the open seats in time: this game was closed.";
  else if (view.turn === null || view.turn === undefined) text = "Between hands…";
  else text = game.turnText(ctx);
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
        game.seatDetails(ctx, seat.seat),
      ),
    );
  }
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
    const classes = [selected.has(key) ? "selected" : "", game.cardClass?.(ctx, card) || ""].join(" ");
    const node = cardElement(card, { tag: "button", extraClass: classes });
    node.dataset.key = key;
    if (game.selects) node.setAttribute("aria-pressed", selected.has(key) ? "true" : "false");
    node.addEventListener("click", () => {
      if (!game.selects) {
        game.clickCard(ctx, card);
        return;
      }
      if (selected.has(key)) selected.delete(key);
      else selected.add(key);
      render();
    });
    hand.append(node);
  }
  if (!entries.length && game.emptyHand) hand.append(game.emptyHand(ctx));
  $("#hand-count").textContent = view.you.hand_hidden ? "face down" : `${entries.length} card${entries.length === 1 ? "" : "s"}`;
  $("#sort").hidden = !game.sortable;
  for (const button of document.querySelectorAll("[data-sort]")) {
    button.setAttribute("aria-pressed", button.dataset.sort === sortBy ? "true" : "false");
  }
}

/** Resigning is a table move in every game (a forfeit, at any time): the seat's side loses. */
function resignButton() {
  const button = el("button", { type: "button", class: "secondary resign", id: "resign" }, "Resign");
  button.disabled = busy;
  button.addEventListener("click", () => {
    if (confirm("Resign this game? You (and your partner, if you have one) lose it.")) move({ type: "forfeit" });
  });
  return button;
}

function renderActions() {
  const box = $("#hand-actions");
  const extra = $("#extra-actions");
  box.replaceChildren();
  extra.replaceChildren();
  if (view.you && view.status === "playing") {
    game.drawActions(ctx, box, extra);
    box.append(resignButton());
  }
  box.hidden = !box.children.length;
  extra.hidden = !extra.children.length;
  table.dataset.myTurn = myTurn() ? "true" : "false";
  table.dataset.selected = selected.size;
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
    panel.replaceChildren(...game.handResult(ctx, last), close);
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
      ...(last ? game.handResult(ctx, last) : []),
      el(
        "div",
        { class: "row" },
        el("a", { class: "button primary", id: "replay-cta", href: `/replay/${encodeURIComponent(id)}` }, "Watch the replay"),
        rematch.control(view),
      ),
      records.node,
    );
  } else {
    over.hidden = true;
    if (records.node.parentNode !== $("#receipts-slot")) $("#receipts-slot").append(records.node);
  }
  records.finished(view.status === "finished");
  $("#receipts-box").hidden = view.status === "finished";
}

// -- an invitation, and how this table knows you ---------------------------------------------------

/** A seat kept for the logged-in player, not yet taken. */
const invitedSeat = () =>
  player && view.status === "waiting" ? view.seats.find((seat) => seat.invited && seat.player === player.id) : undefined;

async function joinInvited(button) {
  button.disabled = true;
  showError("");
  try {
    await api(`${base}/join`, { method: "POST", body: { client_seed: clientSeed() } });
    await refresh();
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    showError(error.text);
    button.disabled = false;
  }
}

function renderWho() {
  const message = $("#message");
  if (view.you) {
    show(message, "");
    return;
  }
  if (invitedSeat()) {
    const button = el("button", { type: "button", class: "primary", id: "join-invited" }, "Join");
    button.addEventListener("click", () => joinInvited(button));
    message.hidden = false;
    message.replaceChildren(`A seat at this table is kept for you, ${player.name}. `, button);
    return;
  }
  if (player || token) {
    show(message, "You are watching this table (you have no seat here).");
    return;
  }
  message.hidden = false;
  message.replaceChildren(
    "You are watching this table (you have no seat here). Playing with an account? ",
    el("a", { href: `/login?next=${encodeURIComponent(location.pathname)}`, id: "watch-login" }, "Log in"),
    ".",
  );
}

function renderLinks() {
  const back = $("#rematch-of-link");
  back.hidden = !view.rematch_of;
  if (view.rematch_of) {
    back.href = tableAddress(view.rematch_of);
    back.textContent = "Rematch of the last game";
  }
  const shown = `${view.status}:${view.turn ?? ""}`;
  if (shown !== turnShown) {
    turnShown = shown;
    if (player) {
      recountTurns();
      tellOtherTabs({ kind: "table", game: id, version: view.version });
    }
  }
}

function renderShare() {
  const share = $("#share");
  share.hidden = !token;
  if (token) $("#share-link").value = seatLink(id, token);
}

function render() {
  game = gameModule(view.game);
  if (!game) {
    table.dataset.status = "unsupported";
    $("#title").textContent = `A game of ${view.game}`;
    show($("#message"), `This page cannot draw ${view.game} tables; follow the game through the API or its replay.`);
    return;
  }
  table.dataset.game = view.game;
  table.dataset.status = view.status;
  table.dataset.version = view.version;
  table.dataset.hand = view.hand_number ?? 0;
  table.dataset.turn = view.turn ?? "";
  table.dataset.phase = view.phase ?? "";
  table.dataset.mySeat = view.you ? view.you.seat : "";
  renderStatus();
  renderSeats();
  renderHand();
  game.drawFelt(ctx, $("#felt"));
  renderActions();
  renderResults();
  renderShare();
  renderWho();
  renderLinks();
}

// -- following the game -----------------------------------------------------------------------

async function follow() {
  let after = view.version;
  let failures = 0;
  let wait = 25; // seconds the server may hold each long-poll
  while (view.status !== "finished" && view.status !== "abandoned") {
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
  $("#receipts-slot").append(records.node);
  player = await currentPlayer();
  try {
    await refresh();
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    $("#receipts-box").hidden = true;
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
  if (player) await rematch.watch(view);
}

start();
