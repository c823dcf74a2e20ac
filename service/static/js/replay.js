// The replay viewer: pick a hand, step through it by move, by turn or by trick (buttons and
// keys), every hand face up once the hand is over. The address names the hand and the step
// shown (?hand=1&step=12), so any step can be linked to. A hand still in play replays only
// from a player's own seat: anyone else is told so, with the controls off. The felt is
// drawn by the game's module.

import { $, api, el, gameId, plural, Problem, recordsPanel, show, tokens } from "./api.js";
import { cardBack, cardRow, sortCards } from "./cards.js";
import { gameModule } from "./games/index.js";
import { nextMark, previousMark, trickEnds, trickType, turnEnds } from "./replaymarks.js";

const id = gameId();
const base = `/games/${encodeURIComponent(id)}`;
const token = tokens.get(id); // a hand still in play replays from your own seat only
const root = $("#replay");
// The export, the receipts this browser kept and their check, beside the audit badge.
const records = recordsPanel(id, { token: () => token });
const PLAY_EVERY_MS = 900;
const IN_PLAY = "hand_in_play";

let hands = [];
let hand = null; // the chosen hand's summary
let names = [];
let labels = []; // the seats' labels, when the game's view gives them
let steps = 0;
let step = 0;
let playing = null; // interval id
let shut = false; // the chosen hand cannot be replayed from here (still in play)
let lastAnswer = null;
const cache = new Map(); // "hand:step" -> replay answer
let loadSeq = 0;
let game = null; // the game's drawing module
let turns = []; // steps that end a turn, in the chosen hand
let tricks = []; // steps that take a trick
let marks = []; // steps of the game's own milestone (a Rummy turn, a Spades trick)

function setError(text) {
  show($("#error"), text);
}

function nameOf(seat) {
  return labels[seat] || names[seat] || `seat ${seat + 1}`;
}

/** The hand and step the address asks for: ?hand=&step=, or the same in the fragment. */
function wanted() {
  const query = new URLSearchParams(location.search);
  const fragment = new URLSearchParams(location.hash.slice(1));
  const read = (name) => Number.parseInt(query.get(name) ?? fragment.get(name) ?? "", 10);
  return { hand: read("hand"), step: read("step") };
}

async function loadStep(number, k) {
  const key = `${number}:${k}`;
  if (!cache.has(key)) {
    cache.set(key, api(`${base}/hands/${number}/replay?step=${k}`, { token }));
  }
  try {
    return await cache.get(key);
  } catch (error) {
    cache.delete(key);
    throw error;
  }
}

function stepUrl() {
  const url = new URL(location.href);
  url.hash = "";
  url.searchParams.set("hand", hand.number);
  url.searchParams.set("step", step);
  return url;
}

async function go(k) {
  if (!hand || shut) return;
  step = Math.max(0, Math.min(steps, k));
  const seq = ++loadSeq;
  root.dataset.loading = "true";
  syncControls();
  let answer;
  try {
    answer = await loadStep(hand.number, step);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    if (seq !== loadSeq) return;
    stop();
    root.dataset.loading = "false";
    if (error.code === IN_PLAY) closeInPlay();
    else {
      setError(error.text);
      root.dataset.status = "error";
    }
    return;
  }
  if (seq !== loadSeq) return;
  setError("");
  render(answer);
  root.dataset.loading = "false";
  // Prefetch the next step so stepping forward feels instant.
  if (step < steps) loadStep(hand.number, step + 1).catch(() => {});
  const url = stepUrl();
  history.replaceState(null, "", url.pathname + url.search);
  $("#step-link").href = url.href;
}

function syncControls() {
  $("#slider").max = steps;
  $("#slider").value = step;
  $("#step-input").max = steps;
  if (document.activeElement !== $("#step-input")) $("#step-input").value = step;
  $("#step-total").textContent = steps;
  const off = (selector, disabled) => ($(selector).disabled = shut || disabled);
  off("#first", step === 0);
  off("#prev", step === 0);
  off("#next", step >= steps);
  off("#last", step >= steps);
  off("#play", steps === 0);
  off("#prev-turn", step === 0);
  off("#next-turn", !turns.some((k) => k > step));
  off("#prev-trick", !tricks.some((k) => k < step));
  off("#next-trick", !tricks.some((k) => k > step));
  off("#slider", false);
  off("#step-input", false);
  off("#copy-link", false);
  $("#step-link").hidden = shut;
  $("#play").textContent = playing ? "■ Pause" : "▶ Play";
  $("#play").setAttribute("aria-label", playing ? "Pause" : "Play");
  root.dataset.playing = playing ? "true" : "false";
}

function seatHand(seat, state, counts, highlight) {
  // Face up: every hand once the hand is over, else your own (unless still face down).
  const mine = state.you && state.you.seat === seat && !state.you.hand_hidden;
  const cards = state.hands ? state.hands[seat] : mine ? state.you.hand : null;
  const turn = state.turn === seat;
  const rctx = { who: nameOf };
  const content = cards
    ? cards.length
      ? cardRow(game.sortable ? sortCards(cards) : cards, { className: "cards", highlight })
      : el("p", { class: "hint" }, "No cards left.")
    : el("div", { class: "cards backs" }, Array.from({ length: Math.min(counts[seat], 14) }, cardBack));
  return el(
    "section",
    { class: "seat-hand" + (turn ? " turn" : ""), dataset: { seatHand: seat, faceUp: cards ? "true" : "false" } },
    el(
      "h2",
      { class: "small" },
      nameOf(seat),
      el("span", { class: "count" }, plural(counts[seat], "card")),
      game.replay.seatDetails(rctx, seat, state),
      turn ? el("span", { class: "badge turn-badge" }, game.replay.turnBadge(state)) : null,
    ),
    content,
  );
}

function render(answer) {
  const state = answer.state || {};
  const event = answer.event || {};
  lastAnswer = answer;
  game = gameModule(state.game);
  if (!game) {
    root.dataset.status = "unsupported";
    setError(`This page cannot draw ${state.game} hands; read them through the API.`);
    return;
  }
  names = answer.names || names;
  root.dataset.step = answer.step;
  root.dataset.steps = answer.steps;
  root.dataset.hand = answer.hand.number;
  root.dataset.faceUp = answer.face_up ? "true" : "false";
  root.dataset.status = "ready";
  $("#description").textContent = `${answer.step}. ${event.description || event.type || ""}`;
  const highlight = event.card ?? null;
  const rctx = { who: nameOf };
  game.replay.felt(rctx, $("#felt"), state, event);
  const counts = state.hand_counts || [];
  $("#hands").replaceChildren(...counts.map((_, seat) => seatHand(seat, state, counts, highlight)));
  const result = $("#hand-result");
  const last = answer.step === answer.steps && answer.hand.finished ? answer.hand.result : null;
  result.hidden = !last;
  result.replaceChildren(...(last ? game.replay.result(rctx, last) : []));
  syncControls();
}

/** The chosen hand is still in play and this browser holds no seat in it: say so, clear
 * the table, and turn the step controls off (the hand menu stays, for the finished ones). */
function closeInPlay() {
  shut = true;
  root.dataset.status = "in-play";
  setError("");
  for (const box of ["#felt", "#hands", "#hand-result"]) $(box).replaceChildren();
  $("#hand-result").hidden = true;
  $("#description").textContent = "";
  const finished = hands.filter((h) => h.finished);
  const other = finished[finished.length - 1];
  const box = $("#in-play");
  box.hidden = false;
  box.replaceChildren(
    el("strong", {}, `Hand ${hand.number} is still being played.`),
    " Its replay opens to everyone once the hand is over; until then only its players can step through it, each from their own seat. ",
    el("span", { class: "in-play-actions row" },
      el("a", { class: "button secondary", href: `/play/${encodeURIComponent(id)}`, id: "watch-table" }, "Watch the table"),
      other ? el("button", { type: "button", class: "secondary", id: "replay-finished", onclick: () => chooseHand(other.number) }, `Replay hand ${other.number}`) : null,
    ),
  );
  syncControls();
}

function stop() {
  if (playing) clearInterval(playing);
  playing = null;
  syncControls();
}

function togglePlay() {
  if (shut) return;
  if (playing) {
    stop();
    return;
  }
  if (step >= steps) go(0);
  playing = setInterval(() => {
    if (step >= steps) stop();
    else go(step + 1);
  }, PLAY_EVERY_MS);
  syncControls();
}

/** Stop playing, then show step `k`. */
function jump(k) {
  stop();
  go(k);
}

const byTurn = (direction) => jump(direction > 0 ? nextMark(turns, step, steps) : previousMark(turns, step));
const byTrick = (direction) => {
  if (!tricks.length) return;
  jump(direction > 0 ? nextMark(tricks, step, step) : previousMark(tricks, step));
};

/** The hand's turns and tricks, from its events (one request per hand). */
async function loadMarks(number) {
  turns = [];
  tricks = [];
  marks = [];
  for (const key of ["turns", "tricks", "marks"]) delete root.dataset[key];
  const trick = trickType(game);
  $("#trick-controls").hidden = !trick;
  $("#keys-trick").hidden = !trick;
  const events = (await api(`${base}/hands/${number}/replay`, { token })).events;
  if (hand?.number !== number) return;
  turns = turnEnds(events, trick);
  tricks = trickEnds(events, trick);
  const milestone = game?.replay.milestone;
  marks = milestone ? trickEnds(events, milestone.type) : [];
  Object.assign(root.dataset, { turns: turns.length, tricks: tricks.length, marks: marks.length });
  syncControls();
}

function handInfo() {
  const dealer = names.length ? ` · dealt by ${nameOf(hand.dealer)}` : "";
  const shown = hand.finished ? "finished: all hands face up" : token ? "in play: your own hand only" : "in play";
  return `${plural(hand.steps, "step")}${dealer} · ${shown}`;
}

async function chooseHand(number, at = 0) {
  stop();
  shut = false;
  $("#in-play").hidden = true;
  hand = hands.find((h) => h.number === number) || hands[hands.length - 1];
  steps = hand.steps;
  turns = [];
  tricks = [];
  $("#hand-select").value = hand.number;
  $("#hand-info").textContent = handInfo();
  await go(at);
  if (shut) return;
  $("#hand-info").textContent = handInfo(); // the names came with the first step
  loadMarks(hand.number).catch(() => {});
}

function auditBadge(text, state, className = "pending", title = "") {
  const badge = $("#audit");
  badge.hidden = false;
  badge.className = `badge ${className}`;
  badge.textContent = text;
  badge.title = title;
  badge.dataset.audit = state;
}

async function showAudit() {
  let view;
  try {
    view = await api(base, { token });
  } catch {
    view = await api(base);
  }
  const name = gameModule(view.game)?.name ?? view.game;
  $("#title").textContent = `Replay · ${name}${view.preset ? " · " + view.preset : ""} · ${id}`;
  labels = (view.seats || []).map((seat) => seat.label || "");
  if (labels.some(Boolean) && lastAnswer && !shut) render(lastAnswer);
  records.finished(view.status === "finished");
  if (view.status !== "finished") {
    auditBadge("Audit: when the game is over", "pending");
    return;
  }
  auditBadge("Auditing…", "running");
  try {
    const verdict = await api(`${base}/audit`, { token });
    if (verdict.ok) {
      const title = `Hash chain, seed commitment, ${verdict.hands} deal(s) and every move re-checked (${verdict.events} events).`;
      auditBadge("✔ Audit passed", "ok", "ok", title);
    } else {
      const bad = verdict.first_bad || {};
      const checks = Object.entries(verdict.checks || {}).map(([check, ok]) => `${check}: ${ok ? "ok" : "FAILED"}`);
      auditBadge(`✘ Audit failed at event ${bad.version ?? "?"}: ${bad.reason ?? "see the checks"}`, "failed", "failed", checks.join(", "));
    }
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    auditBadge(`Audit unavailable: ${error.detail}`, "error", "failed");
  }
}

/** ← → a move, Shift+← → a turn, [ ] a trick, Home End, Space: anywhere but in a field. */
function onKey(event) {
  if (event.target.closest("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
  if (shut) return;
  const { key, shiftKey } = event;
  if (key === "ArrowRight") shiftKey ? byTurn(1) : jump(step + 1);
  else if (key === "ArrowLeft") shiftKey ? byTurn(-1) : jump(step - 1);
  else if (key === "]" || key === "}") byTrick(1);
  else if (key === "[" || key === "{") byTrick(-1);
  else if (key === "Home") jump(0);
  else if (key === "End") jump(steps);
  else if (key === " " && !event.target.closest("button, a, summary")) togglePlay();
  else return;
  event.preventDefault();
}

async function copyLink() {
  const link = $("#step-link").href;
  try {
    await navigator.clipboard.writeText(link);
    $("#copied").textContent = "Copied.";
  } catch {
    $("#copied").textContent = `Copy it from here: ${link}`;
  }
  setTimeout(() => ($("#copied").textContent = ""), 4000);
}

function wireControls() {
  $("#first").addEventListener("click", () => jump(0));
  $("#prev").addEventListener("click", () => jump(step - 1));
  $("#next").addEventListener("click", () => jump(step + 1));
  $("#last").addEventListener("click", () => jump(steps));
  $("#prev-turn").addEventListener("click", () => byTurn(-1));
  $("#next-turn").addEventListener("click", () => byTurn(1));
  $("#prev-trick").addEventListener("click", () => byTrick(-1));
  $("#next-trick").addEventListener("click", () => byTrick(1));
  $("#play").addEventListener("click", togglePlay);
  $("#copy-link").addEventListener("click", copyLink);
  // Read the value before stop() puts the old step back.
  $("#slider").addEventListener("input", (event) => jump(Number(event.target.value)));
  $("#step-input").addEventListener("change", (event) => {
    const value = Number.parseInt(event.target.value, 10);
    if (Number.isFinite(value)) jump(value);
  });
  $("#hand-select").addEventListener("change", (event) => chooseHand(Number(event.target.value)));
  document.addEventListener("keydown", onKey);
}

async function start() {
  $("#records-slot").append(records.node);
  wireControls();
  try {
    hands = (await api(`${base}/hands`)).hands;
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    root.dataset.status = "error";
    $("#records-slot").hidden = true;
    setError(error.text);
    return;
  }
  showAudit().catch(() => {});
  if (!hands.length) {
    root.dataset.status = "empty";
    shut = true;
    syncControls();
    $("#description").textContent = "No hand has been dealt yet.";
    return;
  }
  const select = $("#hand-select");
  for (const h of hands) {
    select.append(el("option", { value: h.number }, `Hand ${h.number}${h.finished ? "" : " (in play)"}`));
  }
  // Without a seat here a hand still in play cannot be replayed: unless the address names
  // one, start on the last finished hand.
  const asked = wanted();
  const finished = hands.filter((h) => h.finished);
  const fallback = token || !finished.length ? hands[hands.length - 1] : finished[finished.length - 1];
  const chosen = hands.find((h) => h.number === asked.hand) || fallback;
  await chooseHand(chosen.number, Number.isFinite(asked.step) ? asked.step : 0);
}

start();
