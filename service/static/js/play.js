// The table: the seats around it (you at the bottom), the game's own felt in the middle
// (static/js/games/<game>.js), and, always in view at the bottom, whose turn it is, your
// cards and the buttons of your phase. Moves by clicking; legal moves always come from the
// server. The game is followed by long-poll, and what happened is shown one move after
// another (static/js/table/pacing.js), each card moving from where it came
// (static/js/table/motion.js), the last move of each seat marked.
// A seat is played with its token (kept in localStorage) or, for a seat bound to the
// logged-in player's account, with the session cookie alone. Once the game is over, a
// seated player may start a new game like it, or offer a rematch.

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
  show,
  sleep,
  takeTokenFromFragment,
  tokens,
} from "./api.js";
import { currentPlayer, recountTurns, tellOtherTabs } from "./account.js";
import { cardElement, sortCards } from "./cards.js";
import { rematchOffer, tableAddress } from "./rematch.js";
import { gameModule } from "./games/index.js";
import { drawSeats, seatLabel } from "./table/seats.js";
import * as motion from "./table/motion.js";
import { pacer } from "./table/pacing.js";
import { showCountdown, startAttention, turnSeen, yourTurnBegan } from "./table/attention.js";
import { closedHand, closeHand, gameOverPanel, handResultPanel, newGameButton } from "./table/endings.js";

const id = gameId();
const base = `/games/${encodeURIComponent(id)}`;
let token = takeTokenFromFragment(id) || tokens.get(id);
let view = null; // what is shown: the server's view, or it with the moves since applied (`local`)
let game = null; // the game's drawing module
let sortBy = remembered("sort", "suit");
let selected = new Set(); // keys "card#n": the n-th copy of a card in the shown hand
let moving = false; // a move of ours on its way
let pacing = false; // moves being shown one after another
let logged = 0; // the newest event version written to the log
let player = null; // the logged-in player, whose session cookie acts for their seats
let turnShown = ""; // status and turn last drawn: the top bar counts my turns again on a change
let wasMyTurn = false;
const lastMoves = new Map(); // seat → its last move this hand (an event)
let latest = null; // the newest move of anyone
let drawn = null; // the card you drew this turn
const timedOut = new Set(); // seats whose clock ran out
let overClosed = false; // the game-over panel closed on this page
let shownResult = ""; // what the overlays were last drawn for
let endButtons = null;

// A move held on screen this long before the next one (a draw, which shows no card, a
// little shorter; a trick taken, longer).
const HOLD_MS = 550;
const HOLD_DRAW_MS = 450;
const HOLD_TRICK_MS = 900;
const MOVES = new Set(["card_drawn", "melded", "laid_off", "joker_swapped", "discarded", "bid_made", "cards_seen", "card_played"]);

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
  const name = seatLabel(view?.seats?.[seat]) ?? `Seat ${seat + 1}`;
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

/** Remember what `event` says about the seats: last moves, the card you drew, a time-out. */
function note(event) {
  const mine = view?.you && event.seat === view.you.seat;
  if (event.type === "hand_dealt") {
    lastMoves.clear();
    latest = null;
    drawn = null;
  } else if (MOVES.has(event.type) && event.seat !== undefined) {
    lastMoves.set(event.seat, event);
    if (event.type !== "cards_seen") latest = event;
  }
  if (mine && event.type === "card_drawn") drawn = event.card ?? null;
  if (mine && event.type === "discarded") drawn = null;
  if (event.type === "turn_timed_out") timedOut.add(event.seat);
}

// -- state ----------------------------------------------------------------------------------

const myTurn = () => Boolean(view?.you && view.status === "playing" && view.turn === view.you.seat);
const legal = () => view?.you?.legal_moves || [];
const busy = () => moving || pacing;

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

function setBusy() {
  table.dataset.busy = busy() ? "true" : "false";
}

// -- showing what happened, one move after another ---------------------------------------------

/** Moves that any game's table shows alike: the clock of a turn, the seed revealed. */
function applyTableEvent(copy, event) {
  if (event.type === "turn_started") {
    for (const seat of copy.seats) delete seat.deadline;
    if (copy.seats[event.seat]) copy.seats[event.seat].deadline = event.deadline;
    return true;
  }
  return event.type === "seed_revealed";
}

function holdFor(event) {
  if (event.type === "trick_won") return HOLD_TRICK_MS;
  if (event.type === "card_drawn") return HOLD_DRAW_MS;
  return MOVES.has(event.type) ? HOLD_MS : 0;
}

/** Show one event: drawn on a copy of the view when the game's module can, else the
 * server's view read again. Answers how long to hold it on screen. */
async function showEvent(event) {
  if (event.version <= view.version || !game) {
    note(event);
    logEvents([event]);
    return 0;
  }
  await game.beforeEvent?.(ctx, event, motion);
  const before = motion.positions();
  const copy = structuredClone(view);
  const applied = event.version === view.version + 1 && (applyTableEvent(copy, event) || game.applyEvent?.(copy, event));
  note(event);
  logEvents([event]);
  if (!applied) {
    await refresh();
    return holdFor(event);
  }
  copy.version = event.version;
  copy.local = true;
  view = copy;
  render();
  if (!document.hidden) game.animate?.(ctx, event, before, motion);
  return holdFor(event);
}

const shown = pacer({
  show: async (event) => {
    try {
      return await showEvent(event);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      return 0; // the view is read again once the queue is empty
    }
  },
  catchUp: async (events) => {
    for (const event of events) note(event);
    logEvents(events);
    await settle(true);
  },
  settle: () => settle(false),
  busy: (yes) => {
    pacing = yes;
    setBusy();
    if (!yes && view) render();
  },
});

/** Read the server's view if what is shown was drawn here (or is behind). */
async function settle(always) {
  if (!always && !view.local && view.version >= shown.newest) return;
  try {
    await refresh();
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    showError(error.detail);
  }
}

// -- moves ----------------------------------------------------------------------------------

function showError(text) {
  show($("#error"), text);
}

/** Your move answers the result of the last hand: seen, it is closed for good. */
function resultSeen() {
  const last = view.last_hand;
  if (last && !$("#hand-result").hidden) {
    closeHand(id, last.hand);
    $("#hand-result").hidden = true;
  }
}

async function move(command) {
  if (moving) return;
  moving = true;
  setBusy();
  showError("");
  render(); // buttons off while the move is on its way
  try {
    // A card clicked while the last moves are still being shown goes once they are.
    if (pacing) await shown.push([]);
    const answer = await api(`${base}/moves`, { method: "POST", token, body: command });
    selected = new Set();
    resultSeen();
    shown.push(answer.events);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    showError(error.text);
    if (error.status === 409 || error.status === 412) await refresh();
  } finally {
    moving = false;
    setBusy();
    render();
  }
}

/** What a game's module may use: the view, names, the selection, options and `move`. */
const ctx = {
  get view() {
    return view;
  },
  get game() {
    return game;
  },
  get lastMove() {
    return latest;
  },
  get lastMoves() {
    return lastMoves;
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
  /** Select exactly `cards` in your hand (one copy each). */
  select(cards) {
    const wanted = [...cards];
    selected = new Set();
    for (const { card, key } of shownHand()) {
      const at = wanted.indexOf(card);
      if (at >= 0) {
        selected.add(key);
        wanted.splice(at, 1);
      }
    }
    render();
  },
  option: (name) => remembered(`table-${name}`) === "on",
  setOption(name, on) {
    remember(`table-${name}`, on ? "on" : "off");
    render();
  },
  get busy() {
    return busy();
  },
  /** Redraw after the module changed something of its own. */
  redraw: () => render(),
};

// -- drawing the page -------------------------------------------------------------------------

function turnText() {
  if (view.status === "waiting") return "Waiting for players to take the open seats…";
  if (view.status === "finished") return "The game is over.";
  if (view.status === "abandoned") return "Nobody took the open seats in time: this game was closed.";
  if (view.turn === null || view.turn === undefined) return "Between hands…";
  return game.turnText(ctx);
}

function renderStatus() {
  $("#title").textContent = game.title(view);
  $("#turn-info").textContent = turnText();
  const mine = myTurn();
  showCountdown(mine ? view.seats[view.you.seat]?.deadline : null);
  if (mine && !wasMyTurn && !busy()) yourTurnBegan({ game: id, text: `${game.title(view)}: ${turnText()}` });
  if (!mine) turnSeen();
  if (!busy() || !mine) wasMyTurn = mine;
}

function renderHand() {
  const section = $("#my-hand");
  const tools = $("#hand-tools");
  if (!view.you || view.status === "finished") {
    section.hidden = true;
    tools.hidden = true;
    return;
  }
  section.hidden = false;
  tools.hidden = false;
  const entries = shownHand();
  const keys = new Set(entries.map((e) => e.key));
  selected = new Set([...selected].filter((key) => keys.has(key)));
  const hand = $("#hand");
  hand.replaceChildren();
  const mark = myTurn() && drawn ? `${drawn}#1` : null; // the card you drew, until your turn ends
  for (const { card, key } of entries) {
    const classes = [selected.has(key) ? "selected" : "", game.cardClass?.(ctx, card) || "", key === mark ? "drawn" : ""].join(" ");
    const node = cardElement(card, { tag: "button", extraClass: classes });
    node.dataset.key = key;
    if (key === mark) node.setAttribute("aria-label", `${node.getAttribute("aria-label")}, just drawn`);
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
  button.disabled = busy();
  button.addEventListener("click", () => {
    if (confirm("Resign this game? You (and your partner, if you have one) lose it.")) move({ type: "forfeit" });
  });
  return button;
}

/** At the end: a new game like this one, the rematch, the replay, the result again. */
function endActions(box) {
  endButtons ??= {
    newGame: view.you ? newGameButton(ctx, { gameId: id, token: () => token, player, showError }) : null,
    replay: el("a", { class: "button secondary", id: "replay-cta", href: `/replay/${encodeURIComponent(id)}` }, "Watch the replay"),
    again: el("button", { type: "button", class: "secondary", id: "show-result", onclick: () => showOver(true) }, "Show the result"),
  };
  endButtons.again.hidden = !overClosed;
  box.append(...[endButtons.newGame, rematch.control(view), endButtons.replay, endButtons.again].filter(Boolean));
}

function renderActions() {
  const box = $("#hand-actions");
  const extra = $("#extra-actions");
  box.replaceChildren();
  extra.replaceChildren();
  if (view.status === "finished") endActions(box);
  else if (view.you && view.status === "playing") {
    game.drawActions(ctx, box, extra);
    box.append(resignButton());
  }
  box.hidden = !box.children.length;
  extra.hidden = !extra.children.length;
  table.dataset.myTurn = myTurn() ? "true" : "false";
  table.dataset.selected = selected.size;
}

function showOver(yes) {
  overClosed = !yes;
  $("#game-over").hidden = !yes;
  if (endButtons) endButtons.again.hidden = yes;
}

function renderResults() {
  const last = view.last_hand;
  const panel = $("#hand-result");
  const over = $("#game-over");
  const finished = view.status === "finished";
  const key = `${view.status}:${last?.hand ?? 0}:${finished ? view.version : ""}`;
  if (key !== shownResult && !view.local) {
    shownResult = key;
    if (last && !finished && last.hand > closedHand(id)) {
      panel.replaceChildren(
        ...handResultPanel(ctx, last, () => {
          closeHand(id, last.hand);
          panel.hidden = true;
        }),
      );
      panel.hidden = false;
    } else panel.hidden = true;
    if (finished) {
      const close = el("button", { type: "button", class: "secondary close", id: "close-over", onclick: () => showOver(false) }, "Close");
      over.replaceChildren(...gameOverPanel(ctx, { timedOut: timedOut.has(view.result?.forfeited) }), records.node, el("div", { class: "row" }, close));
      over.hidden = overClosed;
    }
  }
  if (!finished) {
    over.hidden = true;
    if (records.node.parentNode !== $("#receipts-slot")) $("#receipts-slot").append(records.node);
  }
  records.finished(finished);
  $("#receipts-box").hidden = finished;
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
  const now = `${view.status}:${view.turn ?? ""}`;
  if (now !== turnShown) {
    turnShown = now;
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
  $("#alerts").hidden = !(view.you && (view.status === "playing" || view.status === "waiting"));
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
  table.dataset.synced = view.local ? "false" : "true";
  table.dataset.hand = view.hand_number ?? 0;
  table.dataset.turn = view.turn ?? "";
  table.dataset.phase = view.phase ?? "";
  table.dataset.mySeat = view.you ? view.you.seat : "";
  table.dataset.lastMove = latest ? `${latest.seat}:${latest.card ?? ""}:${latest.version}` : "";
  table.dataset.players = view.seats.length;
  drawSeats(ctx, $("#seats"));
  renderHand();
  game.drawFelt(ctx, $("#felt"));
  renderActions();
  renderStatus();
  renderResults();
  renderShare();
  renderWho();
  if (!view.local) renderLinks();
}

// -- following the game -----------------------------------------------------------------------

const over = () => view.status === "finished" || view.status === "abandoned";

async function follow() {
  let after = view.version;
  let failures = 0;
  let wait = 25; // seconds the server may hold each long-poll
  let ended = false;
  while (!ended && !over()) {
    const began = performance.now();
    try {
      const data = await api(`${base}/events?after=${after}&wait=${wait}`, { token });
      failures = 0;
      shown.push(data.events);
      ended = data.events.some((event) => event.type === "game_ended");
      after = Math.max(after, data.version, shown.newest);
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
    }
  }
  await shown.push([]); // until every move is shown
  showError("");
}

/** The latest few events, so that the log and the last moves start with some context. */
async function recentEvents() {
  try {
    const recent = await api(`${base}/events?after=${Math.max(0, view.version - 12)}`, { token });
    const known = recent.events.filter((event) => event.version <= view.version);
    for (const event of known) note(event);
    logEvents(known);
    render();
    shown.seen(view.version);
    shown.push(recent.events.filter((event) => event.version > view.version));
  } catch (error) {
    if (!(error instanceof Problem)) throw error; // the log is a nicety
    shown.seen(view.version);
  }
}

function wireControls() {
  for (const button of document.querySelectorAll("[data-sort]")) {
    button.addEventListener("click", () => {
      sortBy = button.dataset.sort;
      remember("sort", sortBy);
      render();
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
  // The page keeps room below for the dock, however tall your phase's buttons make it.
  const dock = $("#dock");
  const measure = () => document.documentElement.style.setProperty("--dock-h", `${Math.ceil(dock.getBoundingClientRect().height)}px`);
  new ResizeObserver(measure).observe(dock);
  measure();
}

async function start() {
  wireControls();
  startAttention();
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
  await recentEvents();
  await follow();
  if (player) await rematch.watch(view);
}

start();
