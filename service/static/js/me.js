// My games: the inbox (GET /players/me/games), my turns first, kept current by my one
// stream of news (GET /players/me/stream, opened before the list is read, so no notice falls
// between): every notice reads the list again, and so does a move made at one of my tables in
// another tab of this browser. The title and the top bar count my turns; a
// browser notification, if I opted in, says it is my turn while this tab is in the background.

import { $, api, clientSeed, el, Problem, remember, remembered, show } from "./api.js";
import { countTurns, currentPlayer, onOtherTabs, setTurnCount, yourTurns } from "./account.js";
import { ago, dueIn, gameTitle, resultText, seatsLine } from "./listing.js";

const PAGE_SIZE = 50;
const NOTICES = ["your_turn", "hand_ended", "game_ended", "game_abandoned", "invited", "rematch_offered"];
const TITLE = document.title;
const inbox = $("#inbox");

let page = 1;
let items = [];
let stream = null;
let loading = null; // the read in flight
let again = false; // a notice came during it: read once more after

// -- reading the list -------------------------------------------------------------------------

/** Read the list; notices arriving meanwhile make one more read, not one each. */
function reload() {
  if (loading) {
    again = true;
    return loading;
  }
  loading = (async () => {
    do {
      again = false;
      await readList();
    } while (again);
  })().finally(() => {
    loading = null;
  });
  return loading;
}

async function readList() {
  try {
    const data = await api(`/players/me/games?page=${page}&page_size=${PAGE_SIZE}`);
    items = data.items;
    const turns = page === 1 ? yourTurns(items) : await countTurns();
    render(data, turns);
    show($("#inbox-error"), "");
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    if (error.status === 401) return loggedOut("Your session has ended.");
    show($("#inbox-error"), error.text);
  }
}

function render(data, turns) {
  const groups = { turn: [], invited: [], live: [], finished: [] };
  for (const item of data.items) groups[groupOf(item)].push(gameItem(item));
  for (const [name, rows] of Object.entries(groups)) {
    const list = $(`#games-${name}`);
    list.replaceChildren(...(rows.length ? rows : [el("li", { class: "empty hint" }, "None.")]));
  }
  document.title = (turns > 0 ? `(${turns}) ` : "") + TITLE;
  setTurnCount(turns);
  const pages = Math.max(1, Math.ceil(data.total / PAGE_SIZE));
  $("#pager").hidden = pages <= 1;
  $("#page-info").textContent = `Page ${page} of ${pages}`;
  $("#newer").disabled = page <= 1;
  $("#older").disabled = page >= pages;
  inbox.dataset.status = "ready";
  inbox.dataset.turns = turns;
  inbox.dataset.reads = Number(inbox.dataset.reads || 0) + 1;
}

function groupOf(item) {
  if (item.your_turn) return "turn";
  if (item.invited) return "invited";
  if (item.status === "finished" || item.status === "abandoned") return "finished";
  return "live";
}

// -- one game ---------------------------------------------------------------------------------

const play = (id) => `/play/${encodeURIComponent(id)}`;

function statusText(item) {
  if (item.your_turn) return item.deadline ? `Your turn · due ${dueIn(item.deadline)}` : "Your turn";
  if (item.invited) return "You are invited: a seat is kept for you";
  if (item.status === "waiting") return "Waiting for players";
  if (item.status === "abandoned") return "Closed: nobody took the open seats in time";
  if (item.status === "finished") return resultText(item.seats, item.result, item.your_seats);
  return "In play";
}

function gameItem(item) {
  const links = [];
  if (item.rematch_of) {
    links.push(el("span", { class: "hint" }, "rematch of ", el("a", { href: play(item.rematch_of) }, item.rematch_of)));
  }
  const line = el(
    "div",
    { class: "game-line" },
    el("span", { class: "game-preset" }, gameTitle(item)),
    el("span", { class: "game-id" }, item.id),
    seatsLine(item.seats, item.your_seats),
    el("span", { class: "hint" }, ago(item.created)),
    ...links,
  );
  const about = el(
    "div",
    { class: "game-about" },
    el("strong", { class: "game-status" }, statusText(item)),
    item.last && item.status !== "finished" ? el("span", { class: "hint last" }, item.last.description) : null,
  );
  const classes = ["game", item.your_turn ? "your-turn" : "", item.invited ? "invited" : ""].join(" ");
  return el(
    "li",
    { class: classes, dataset: { gameId: item.id, status: item.status, yourTurn: item.your_turn } },
    el("div", { class: "game-text" }, line, about),
    actions(item),
  );
}

function actions(item) {
  const box = el("div", { class: "game-actions row" });
  if (item.invited) {
    box.append(joinButton(item));
  } else if (item.status === "finished") {
    box.append(
      el("a", { class: "button primary replay-link", href: `/replay/${encodeURIComponent(item.id)}` }, "Replay"),
      el("a", { class: "button secondary", href: play(item.id) }, "Table"),
    );
    if (item.rematch) {
      box.append(el("a", { class: "button secondary rematch-link", href: play(item.rematch) }, "Go to the rematch"));
    }
  } else if (item.status !== "abandoned") {
    const label = item.your_turn ? "Play" : "Open the table";
    box.append(el("a", { class: `button ${item.your_turn ? "primary" : "secondary"} play-link`, href: item.play }, label));
  }
  return box;
}

/** One click: take the seat kept for me (the session cookie is my credential), then play. */
function joinButton(item) {
  const button = el("button", { type: "button", class: "primary join" }, "Join");
  const error = el("span", { class: "inline-error", role: "alert" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    error.textContent = "";
    try {
      await api(`/games/${encodeURIComponent(item.id)}/join`, { method: "POST", body: { client_seed: clientSeed() } });
      location.assign(play(item.id));
    } catch (problem) {
      if (!(problem instanceof Problem)) throw problem;
      error.textContent = problem.text;
      button.disabled = false;
      reload(); // taken meanwhile, or the game moved on
    }
  });
  return el("span", { class: "join-box" }, button, error);
}

// -- the stream of news -------------------------------------------------------------------------

function live(state, text) {
  const node = $("#live");
  node.dataset.live = state;
  node.textContent = text;
}

function openStream() {
  const source = new EventSource("/players/me/stream");
  stream = source;
  source.addEventListener("open", () => {
    live("open", "Live: this list follows your games by itself.");
    reload(); // after the stream is open: every later notice will reach us
  });
  for (const kind of NOTICES) {
    source.addEventListener(kind, (event) => {
      if (kind === "your_turn") notifyTurn(event);
      reload();
    });
  }
  source.addEventListener("closed", () => loggedOut("Your session was closed."));
  source.addEventListener("error", () => {
    if (source !== stream) return; // closed by us
    if (source.readyState === EventSource.CONNECTING) {
      live("reconnecting", "Reconnecting…"); // the browser resumes after the last notice
      return;
    }
    // Refused (the server holds all the streams it can, say): read the list, try later.
    source.close();
    stream = null;
    live("offline", "Not live right now: trying again soon.");
    reload();
    setTimeout(() => inbox.dataset.status !== "logged-out" && openStream(), 15000);
  });
}

function loggedOut(why) {
  stream?.close();
  stream = null;
  live("closed", why);
  $("#inbox-lists").hidden = true;
  $("#pager").hidden = true;
  $("#login-needed").hidden = false;
  inbox.dataset.status = "logged-out";
  document.title = TITLE;
  setTurnCount(0);
}

// -- notifications (opt-in) ---------------------------------------------------------------------

function setUpNotifications() {
  const box = $("#notify");
  const hint = $("#notify-hint");
  if (!("Notification" in window)) {
    box.disabled = true;
    show(hint, "This browser cannot show notifications.");
    return;
  }
  box.checked = remembered("notify") === "on" && Notification.permission === "granted";
  box.addEventListener("change", async () => {
    show(hint, "");
    if (!box.checked) {
      remember("notify", "off");
      return;
    }
    // Asked only now, when the box is ticked: never on opening the page.
    const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
    if (permission !== "granted") {
      box.checked = false;
      remember("notify", "off");
      show(hint, "Notifications are blocked for this site: allow them in the browser's site settings first.");
      return;
    }
    remember("notify", "on");
  });
}

function notifyTurn(event) {
  if (!document.hidden || !$("#notify").checked || Notification.permission !== "granted") return;
  let notice;
  try {
    notice = JSON.parse(event.data);
  } catch {
    return;
  }
  const known = items.find((item) => item.id === notice.game);
  const body = known ? `${gameTitle(known)} (${notice.game}) waits on your move.` : `Game ${notice.game} waits on your move.`;
  const shown = new Notification("Your turn at cardtrail", { body, tag: `turn-${notice.game}` });
  shown.addEventListener("click", () => {
    window.focus();
    location.assign(play(notice.game));
    shown.close();
  });
}

// -- start ----------------------------------------------------------------------------------------

async function start() {
  setUpNotifications();
  $("#newer").addEventListener("click", () => {
    page = Math.max(1, page - 1);
    reload();
  });
  $("#older").addEventListener("click", () => {
    page += 1;
    reload();
  });
  const player = await currentPlayer();
  if (!player) {
    loggedOut("");
    live("closed", "");
    return;
  }
  openStream();
  onOtherTabs(() => inbox.dataset.status === "ready" && reload()); // a table of mine moved on
  // Back to this tab: read again (a move made elsewhere, say on another device, sends no notice).
  document.addEventListener("visibilitychange", () => !document.hidden && inbox.dataset.status === "ready" && reload());
}

start();
