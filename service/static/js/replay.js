// The replay viewer: pick a hand, step through it (or turn by turn, trick by trick), every
// hand face up once the hand is over. The felt is drawn by the game's module.

import { $, api, el, gameId, plural, Problem, recordsPanel, show, tokens } from "./api.js";
import { cardBack, cardRow, sortCards } from "./cards.js";
import { gameModule } from "./games/index.js";

const id = gameId();
const base = `/games/${encodeURIComponent(id)}`;
const token = tokens.get(id); // a hand still in play replays from your own seat only
const root = $("#replay");
// The export, the receipts this browser kept and their check, beside the audit badge.
const records = recordsPanel(id, { token: () => token });
const PLAY_EVERY_MS = 900;

let hands = [];
let hand = null; // the chosen hand's summary
let names = [];
let steps = 0;
let step = 0;
let faceUp = false;
let shownStep = -1;
let playing = null; // interval id
const cache = new Map(); // "hand:step" -> replay answer
let loadSeq = 0;
let game = null; // the game's drawing module
let marks = []; // steps that end a turn or a trick (the module's milestone), per chosen hand

const params = new URLSearchParams(location.search);

function setError(text) {
  show($("#error"), text);
}

function nameOf(seat) {
  return names[seat] ?? `seat ${seat + 1}`;
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

async function go(k) {
  if (!hand) return;
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
    setError(error.text);
    root.dataset.status = "error";
    root.dataset.loading = "false";
    stop();
    return;
  }
  if (seq !== loadSeq) return;
  setError("");
  render(answer);
  root.dataset.loading = "false";
  // Prefetch the next step so stepping forward feels instant.
  if (step < steps) loadStep(hand.number, step + 1).catch(() => {});
  const url = new URL(location.href);
  url.searchParams.set("hand", hand.number);
  url.searchParams.set("step", step);
  history.replaceState(null, "", url.pathname + url.search);
}

function syncControls() {
  $("#slider").max = steps;
  $("#slider").value = step;
  $("#step-input").max = steps;
  if (document.activeElement !== $("#step-input")) $("#step-input").value = step;
  $("#step-total").textContent = steps;
  $("#first").disabled = step === 0;
  $("#prev").disabled = step === 0;
  $("#next").disabled = step >= steps;
  $("#last").disabled = step >= steps;
  $("#prev-mark").disabled = step === 0;
  $("#next-mark").disabled = !marks.some((k) => k > step);
  $("#play").textContent = playing ? "■ Pause" : "▶ Play";
  $("#play").setAttribute("aria-label", playing ? "Pause" : "Play");
  root.dataset.playing = playing ? "true" : "false";
}

function render(answer) {
  const state = answer.state || {};
  const event = answer.event || {};
  game = gameModule(state.game);
  if (!game) {
    root.dataset.status = "unsupported";
    setError(`This page cannot draw ${state.game} hands; read them through the API.`);
    return;
  }
  names = answer.names || names;
  faceUp = answer.face_up;
  shownStep = answer.step;
  root.dataset.step = answer.step;
  root.dataset.steps = answer.steps;
  root.dataset.hand = answer.hand.number;
  root.dataset.faceUp = faceUp ? "true" : "false";
  root.dataset.status = "ready";
  $("#description").textContent = `${answer.step}. ${event.description || event.type || ""}`;
  const highlight = event.card ?? null;
  const rctx = { who: nameOf };
  game.replay.felt(rctx, $("#felt"), state, event);

  const handsBox = $("#hands");
  handsBox.replaceChildren();
  const counts = state.hand_counts || [];
  for (let seat = 0; seat < counts.length; seat += 1) {
    // Face up: every hand once the hand is over, else your own (unless still face down).
    const mine = state.you && state.you.seat === seat && !state.you.hand_hidden;
    const cards = state.hands ? state.hands[seat] : mine ? state.you.hand : null;
    const turn = state.turn === seat;
    const content = cards
      ? cards.length
        ? cardRow(game.sortable ? sortCards(cards) : cards, { className: "cards", highlight })
        : el("p", { class: "hint" }, "No cards left.")
      : el("div", { class: "cards backs" }, Array.from({ length: Math.min(counts[seat], 14) }, cardBack));
    handsBox.append(
      el(
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
      ),
    );
  }

  const result = $("#hand-result");
  const last = answer.step === answer.steps && answer.hand.finished ? answer.hand.result : null;
  if (last) {
    result.hidden = false;
    result.replaceChildren(...game.replay.result(rctx, last));
  } else {
    result.hidden = true;
  }
  syncControls();
}

function stop() {
  if (playing) clearInterval(playing);
  playing = null;
  syncControls();
}

function togglePlay() {
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

/** Jump to the previous or next step that ends a turn (Rummy) or a trick (Spades). */
function goMark(direction) {
  stop();
  if (direction > 0) go(marks.find((k) => k > step) ?? steps);
  else go([...marks].reverse().find((k) => k < step) ?? 0);
}

async function loadMarks(number) {
  marks = [];
  const milestone = game?.replay.milestone;
  for (const id of ["#prev-mark", "#next-mark"]) $(id).hidden = !milestone;
  if (!milestone) return;
  const label = milestone.label;
  $("#prev-mark").setAttribute("aria-label", `Back to the previous ${label}`);
  $("#prev-mark").title = `Previous ${label} (Shift+←)`;
  $("#next-mark").setAttribute("aria-label", `On to the next ${label}`);
  $("#next-mark").title = `Next ${label} (Shift+→)`;
  const events = (await api(`${base}/hands/${number}/replay`, { token })).events;
  if (hand?.number !== number) return;
  marks = events.map((event, k) => (event.type === milestone.type ? k : -1)).filter((k) => k > 0);
  root.dataset.marks = marks.length;
  syncControls();
}

async function chooseHand(number, at = 0) {
  stop();
  hand = hands.find((h) => h.number === number) || hands[hands.length - 1];
  steps = hand.steps;
  marks = [];
  $("#hand-select").value = hand.number;
  const dealer = names.length ? ` · dealt by ${nameOf(hand.dealer)}` : "";
  $("#hand-info").textContent = `${hand.steps} steps${dealer} · ${hand.finished ? "finished: all hands face up" : "in play: your own hand only"}`;
  await go(at);
  loadMarks(hand.number).catch(() => {});
}

async function showAudit() {
  const badge = $("#audit");
  let view;
  try {
    view = await api(base, { token });
  } catch {
    view = await api(base);
  }
  const name = gameModule(view.game)?.name ?? view.game;
  $("#title").textContent = `Replay · ${name}${view.preset ? " · " + view.preset : ""} · ${id}`;
  records.finished(view.status === "finished");
  if (view.status !== "finished") {
    badge.hidden = false;
    badge.className = "badge pending";
    badge.textContent = "Audit: when the game is over";
    badge.dataset.audit = "pending";
    return;
  }
  badge.hidden = false;
  badge.className = "badge pending";
  badge.textContent = "Auditing…";
  try {
    const verdict = await api(`${base}/audit`, { token });
    badge.dataset.audit = verdict.ok ? "ok" : "failed";
    if (verdict.ok) {
      badge.className = "badge ok";
      badge.textContent = "✔ Audit passed";
      badge.title = `Hash chain, seed commitment, ${verdict.hands} deal(s) and every move re-checked (${verdict.events} events).`;
    } else {
      const bad = verdict.first_bad || {};
      badge.className = "badge failed";
      badge.textContent = `✘ Audit failed at event ${bad.version ?? "?"}: ${bad.reason ?? "see the checks"}`;
      badge.title = Object.entries(verdict.checks || {})
        .map(([check, ok]) => `${check}: ${ok ? "ok" : "FAILED"}`)
        .join(", ");
    }
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    badge.className = "badge failed";
    badge.dataset.audit = "error";
    badge.textContent = `Audit unavailable: ${error.detail}`;
  }
}

async function start() {
  $("#records-slot").append(records.node);
  $("#first").addEventListener("click", () => {
    stop();
    go(0);
  });
  $("#prev").addEventListener("click", () => {
    stop();
    go(step - 1);
  });
  $("#next").addEventListener("click", () => {
    stop();
    go(step + 1);
  });
  $("#prev-mark").addEventListener("click", () => goMark(-1));
  $("#next-mark").addEventListener("click", () => goMark(1));
  $("#last").addEventListener("click", () => {
    stop();
    go(steps);
  });
  $("#play").addEventListener("click", togglePlay);
  $("#slider").addEventListener("input", (event) => {
    const value = Number(event.target.value); // before stop() puts the old step back
    stop();
    go(value);
  });
  $("#step-input").addEventListener("change", (event) => {
    const value = Number.parseInt(event.target.value, 10);
    stop();
    if (Number.isFinite(value)) go(value);
  });
  $("#hand-select").addEventListener("change", (event) => chooseHand(Number(event.target.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowRight" && event.shiftKey) goMark(1);
    else if (event.key === "ArrowLeft" && event.shiftKey) goMark(-1);
    else if (event.key === "ArrowRight") go(step + 1);
    else if (event.key === "ArrowLeft") go(step - 1);
    else if (event.key === " ") {
      event.preventDefault();
      togglePlay();
    }
  });
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
    $("#description").textContent = "No hand has been dealt yet.";
    return;
  }
  const select = $("#hand-select");
  for (const h of hands) {
    select.append(el("option", { value: h.number }, `Hand ${h.number}${h.finished ? "" : " (in play)"}`));
  }
  const wantedHand = Number.parseInt(params.get("hand") ?? "", 10);
  const wantedStep = Number.parseInt(params.get("step") ?? "", 10);
  // Names come with every replay answer; load step 0 of the chosen hand first.
  // Without a seat here, a hand still in play cannot be replayed: start on the last finished one.
  const finished = hands.filter((h) => h.finished);
  const fallback = token || !finished.length ? hands[hands.length - 1] : finished[finished.length - 1];
  const chosen = hands.find((h) => h.number === wantedHand) || fallback;
  try {
    names = (await loadStep(chosen.number, 0)).names;
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    setError(error.text);
  }
  await chooseHand(chosen.number, Number.isFinite(wantedStep) ? wantedStep : 0);
}

start();
