// Ends of hands and of the game. A hand's result is shown over the table (never pushing it)
// until you close it, and a closed one stays closed, in this browser, for that game and
// hand. The end of the game tells the truth: who resigned or forfeited (and "You
// resigned"), the final scores, then a new game with the same options, the rematch, the
// replay.

import { api, clientSeed, el, Problem, remember, remembered, tokens } from "../api.js";

const closedKey = (gameId) => `result-closed.${gameId}`;

/** The newest hand whose result you closed at this game (0: none). */
export const closedHand = (gameId) => Number(remembered(closedKey(gameId), "0")) || 0;

/** Close hand `hand`'s result for good, and every earlier one with it. */
export function closeHand(gameId, hand) {
  if (hand > closedHand(gameId)) remember(closedKey(gameId), String(hand));
}

/** The hand-result overlay's children: the game's own table of it, and Close. */
export function handResultPanel(ctx, result, onClose) {
  const parts = ctx.game.handResult(ctx, result);
  if (parts[0]) parts[0].id = "hand-result-title";
  const close = el("button", { type: "button", class: "secondary close", id: "close-result" }, "Close");
  close.addEventListener("click", onClose);
  return [...parts, el("div", { class: "row" }, close)];
}

/** "You resigned." / "West (strong bot) ran out of time and forfeited." / null. */
export function forfeitText(ctx, result, timedOut) {
  const seat = result?.forfeited;
  if (seat === null || seat === undefined) return null;
  const mine = ctx.view.you?.seat === seat;
  if (timedOut) return mine ? "Your time ran out: you forfeited the game." : `${ctx.who(seat)} ran out of time and forfeited.`;
  return mine ? "You resigned." : `${ctx.who(seat)} resigned.`;
}

/** The game-over panel: the headline, who resigned, the final scores, the last hand. */
export function gameOverPanel(ctx, { timedOut = false } = {}) {
  const view = ctx.view;
  const result = view.result || {};
  const winners = result.winners || [];
  const resigned = forfeitText(ctx, result, timedOut);
  const last = view.last_hand;
  // After a resignation the last hand played is history, not how the game ended.
  const lastHand = last && !resigned ? ctx.game.handResult(ctx, last) : [];
  return [
    el("h2", { id: "winner" }, `Game over · winner: ${winners.map(ctx.who).join(", ") || "nobody"}`),
    resigned ? el("p", { id: "resigned", class: "resigned" }, resigned) : null,
    el("h3", { class: "small" }, "Final scores"),
    ctx.game.finalScores(ctx, result),
    ...(lastHand.length ? [el("h3", { class: "small" }, "The last hand"), ...lastHand] : []),
  ];
}

/** The options a game was created with (clock included), from its first event. */
async function createdWith(gameId, token) {
  const { events } = await api(`/games/${encodeURIComponent(gameId)}/events?after=0`, { token });
  const created = events.find((event) => event.type === "game_created");
  if (!created) throw new Problem(0, { detail: "This game's options could not be read." });
  const options = { ...created.options };
  if (created.clock) {
    for (const name of ["move_time", "on_timeout", "timeout_bot"]) options[name] = created.clock[name];
  }
  return options;
}

/** Who sits where in the new game: the bots again (same levels), you, open seats for the rest. */
function newSeats(view, player) {
  return view.seats.map((seat) => {
    if (seat.bot) return { bot: seat.bot };
    if (seat.seat !== view.you?.seat) return { open: true };
    if (player && seat.player === player.id) return { me: true, client_seed: clientSeed() };
    return { name: seat.name || "me", client_seed: clientSeed() };
  });
}

/** The "New game with the same options" button: creates it, then goes there. */
export function newGameButton(ctx, { gameId, token, player, showError }) {
  const button = el("button", { type: "button", class: "primary", id: "new-game" }, "New game with the same options");
  button.addEventListener("click", async () => {
    button.disabled = true;
    showError("");
    try {
      const view = ctx.view;
      const body = { game: view.game, options: await createdWith(gameId, token()), seats: newSeats(view, player) };
      if (view.preset) body.preset = view.preset;
      const created = await api("/games", { method: "POST", body, idempotencyKey: clientSeed() });
      const mine = created.seats.find((seat) => seat.seat === view.you.seat);
      if (mine?.token) tokens.set(created.id, mine.token);
      location.assign(`/play/${encodeURIComponent(created.id)}`);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      button.disabled = false;
      showError(error.text);
    }
  });
  return button;
}
