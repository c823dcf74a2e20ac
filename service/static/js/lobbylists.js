// The lobby's game lists (open seats, in progress, finished), kept up to date by themselves:
// each list is asked for every few seconds with the ETag of the answer last shown, so while
// nothing changes the server answers 304 with no body; a hidden tab does not ask at all,
// and asks at once when it is shown again. Only the games that changed are redrawn, so a
// name being typed into a join form survives the updates around it.

import { $, api, clientSeed, el, Problem, remember, remembered, seatName, show, tokens } from "./api.js";
import { ago } from "./listing.js";

export const POLL_MS = 3000;
const STATUSES = ["waiting", "playing", "finished"];
const PAGE_SIZE = 20;

let player = null; // the logged-in player, if any
const tags = {}; // status -> the ETag of the list shown
const shown = {}; // status -> Map(game id -> {key, node})
let timer = null;
let running = false;

/** A seat as a person reads it: the server's label when it gives one, else its name. */
export const seatText = (seat) => seat.label || seatName(seat);

/** A seat bound to the logged-in player: their session cookie plays it, no token needed. */
export const mySeat = (seat) => Boolean(player && seat.player === player.id && !seat.invited);

function seatsList(game) {
  return el(
    "ol",
    { class: "game-seats", "aria-label": "Seats" },
    game.seats.map((seat) => el("li", {}, el("span", { class: "seat-no" }, seat.seat + 1), " ", seatText(seat))),
  );
}

function gameLine(game) {
  return el(
    "div",
    { class: "game-line" },
    el("span", { class: "game-preset" }, `${game.game[0].toUpperCase()}${game.game.slice(1)}${game.preset ? " · " + game.preset : ""}`),
    seatsList(game),
    el("span", { class: "hint game-ago", dataset: { created: game.created ?? "" } }, ago(game.created)),
    el("span", { class: "game-id" }, game.id),
  );
}

/** Take the open seat: logged in, as yourself (the cookie plays it); else by a name, keeping
 * the seat's token in this browser. */
function joinForm(game) {
  const name = el("input", {
    type: "text",
    maxlength: "40",
    placeholder: "your name",
    required: true,
    value: remembered("name"),
    "aria-label": `Your name, to join game ${game.id}`,
    class: "join-name",
    hidden: Boolean(player),
  });
  const error = el("span", { class: "inline-error", role: "alert" });
  const label = player ? `Join as ${player.name}` : "Join";
  const form = el("form", { class: "join-form row" }, name, el("button", { type: "submit", class: "primary" }, label), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = name.value.trim();
    if (!player && !chosen) {
      error.textContent = "Give a name to join.";
      return;
    }
    if (!player) remember("name", chosen);
    const body = player ? { client_seed: clientSeed() } : { name: chosen, client_seed: clientSeed() };
    try {
      const joined = await api(`/games/${encodeURIComponent(game.id)}/join`, { method: "POST", body });
      if (!player) tokens.set(game.id, joined.token);
      location.assign(`/play/${encodeURIComponent(game.id)}`);
    } catch (problem) {
      if (!(problem instanceof Problem)) throw problem;
      error.textContent = problem.text;
    }
  });
  return form;
}

function gameItem(game, status) {
  const id = encodeURIComponent(game.id);
  const mine = Boolean(tokens.get(game.id)) || game.seats.some(mySeat);
  const actions = el("div", { class: "game-actions row" });
  if (status === "waiting") {
    if (mine) actions.append(el("a", { class: "button secondary", href: `/play/${id}` }, "Your table"));
    actions.append(joinForm(game));
  } else if (status === "playing") {
    actions.append(el("a", { class: "button " + (mine ? "primary" : "secondary"), href: `/play/${id}` }, mine ? "Play" : "Watch"));
  } else {
    actions.append(
      el("a", { class: "button primary", href: `/replay/${id}` }, "Replay"),
      el("a", { class: "button secondary", href: `/play/${id}` }, "Table"),
    );
  }
  return el("li", { class: "game" + (mine ? " mine" : ""), dataset: { gameId: game.id } }, gameLine(game), actions);
}

/** The list's answer, or null when the one shown is still current (304). */
async function fetchList(status) {
  const headers = { Accept: "application/json" };
  if (tags[status]) headers["If-None-Match"] = tags[status];
  let response;
  try {
    response = await fetch(`/games?status=${status}&page_size=${PAGE_SIZE}`, { headers, cache: "no-store" });
  } catch {
    throw new Problem(0, { detail: "The server cannot be reached; retrying…", code: "network" });
  }
  if (response.status === 304) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok || !data) throw new Problem(response.status, data);
  tags[status] = response.headers.get("ETag");
  return data;
}

/** Put `nodes` in `list` in order, moving only what must move (a moved node loses focus). */
function place(list, nodes) {
  nodes.forEach((node, k) => {
    if (list.children[k] !== node) list.insertBefore(node, list.children[k] ?? null);
  });
  while (list.children.length > nodes.length) list.lastElementChild.remove();
}

function drawList(status, data) {
  const list = $(`#games-${status}`);
  const before = shown[status] ?? new Map();
  const now = new Map();
  const nodes = data.items.map((game) => {
    // What the item shows depends on the game and on whether this browser holds a seat.
    const key = JSON.stringify([game, Boolean(tokens.get(game.id)), game.seats.some(mySeat)]);
    const old = before.get(game.id);
    let node = old?.node;
    if (!old || old.key !== key) {
      node = gameItem(game, status);
      const typed = old?.node.querySelector(".join-name")?.value;
      if (typed && node.querySelector(".join-name")) node.querySelector(".join-name").value = typed;
    }
    now.set(game.id, { key, node });
    return node;
  });
  shown[status] = now;
  if (!nodes.length) nodes.push(list.querySelector(".empty") ?? el("li", { class: "empty hint" }, "None yet."));
  const more = data.total - data.items.length;
  if (more > 0) nodes.push(el("li", { class: "hint more" }, `…and ${more} more.`));
  place(list, nodes);
  list.dataset.count = data.items.length;
}

function live(state, text) {
  const badge = $("#list-live");
  badge.dataset.live = state;
  badge.textContent = text;
}

/** Every list once: redraw the ones that changed; the "ago" times of all of them. */
export async function refresh() {
  try {
    const answers = await Promise.all(STATUSES.map(fetchList));
    STATUSES.forEach((status, k) => answers[k] && drawList(status, answers[k]));
    show($("#list-error"), "");
    live("open", "Up to date: the lists update by themselves");
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    show($("#list-error"), error.text);
    live("offline", "Offline: retrying…");
  }
  for (const span of document.querySelectorAll(".game-ago")) span.textContent = ago(Number(span.dataset.created));
  $("#games-panel").dataset.polls = Number($("#games-panel").dataset.polls || 0) + 1;
}

async function tick() {
  clearTimeout(timer);
  timer = null;
  if (running) return;
  running = true;
  try {
    await refresh();
  } finally {
    running = false;
  }
  if (!document.hidden) timer = setTimeout(tick, POLL_MS);
}

/** Show the lists and keep them current while the tab is in view. */
export function startLists(loggedIn) {
  player = loggedIn;
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) {
      clearTimeout(timer);
      timer = null;
      live("paused", "Paused while this tab is hidden");
    } else if (!timer && !running) {
      tick();
    }
  });
  tick();
}
