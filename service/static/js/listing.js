// Words for a game in a list (My games, a player's page): its title, who sits where, how
// long ago, and how it ended; and a rating's numbers.

import { el, seatName } from "./api.js";

/** "just now", "5 min ago", "3 h ago", else the date. */
export function ago(seconds) {
  if (!seconds) return "";
  const past = Math.max(0, Date.now() / 1000 - seconds);
  if (past < 60) return "just now";
  if (past < 3600) return `${Math.floor(past / 60)} min ago`;
  if (past < 86400) return `${Math.floor(past / 3600)} h ago`;
  return new Date(seconds * 1000).toLocaleDateString();
}

/** "in 5 min", "in 3 h", else the date and time. */
export function dueIn(seconds) {
  const left = seconds - Date.now() / 1000;
  if (left <= 60) return "any moment now";
  if (left < 3600) return `in ${Math.ceil(left / 60)} min`;
  if (left < 86400) return `in ${Math.round(left / 3600)} h`;
  return `on ${new Date(seconds * 1000).toLocaleString()}`;
}

const capital = (text) => (text ? text[0].toUpperCase() + text.slice(1) : "");

export function gameTitle(game) {
  return `${capital(game.game)}${game.preset ? " · " + game.preset : ""}`;
}

/** The seats, `mine` (seat numbers) marked "(you)", each account's name linking to its page. */
export function seatsLine(seats, mine = []) {
  const parts = seats.map((seat) => {
    const label = seatName(seat) + (mine.includes(seat.seat) ? " (you)" : "");
    if (seat.player && seat.name) {
      return el("a", { href: `/profile/${encodeURIComponent(seat.name)}`, class: "player-link" }, label);
    }
    return label;
  });
  return el("span", { class: "game-seats" }, parts.flatMap((part, i) => (i ? [", ", part] : [part])));
}

/** "You won · ann 12, bob 0, greedy bot 30", from the seats' point of view of `mine`. */
export function resultText(seats, result, mine = []) {
  if (!result) return "";
  const winners = result.winners || [];
  const names = (list) => list.map((seat) => seatName(seats[seat] ?? { seat })).join(", ");
  let headline;
  if (mine.length && winners.some((seat) => mine.includes(seat))) headline = "You won";
  else if (mine.length) headline = `You lost · winner: ${names(winners) || "nobody"}`;
  else headline = `Winner: ${names(winners) || "nobody"}`;
  const scores = (result.scores || []).map((score, seat) => `${seatName(seats[seat] ?? { seat })} ${score}`);
  return scores.length ? `${headline} · ${scores.join(", ")}` : headline;
}

// -- ratings ------------------------------------------------------------------------------------

/** A rating's number to `digits` places, or a dash. */
export const fixed = (value, digits = 1) => (typeof value === "number" ? value.toFixed(digits) : "–");

/** The mark of a rating fewer than `gamesNeeded` rated games back. */
export function provisionalMark(rating, gamesNeeded) {
  if (!rating.provisional) return null;
  const title = gamesNeeded ? `Provisional: fewer than ${gamesNeeded} rated games yet` : "Provisional: few rated games yet";
  return el("span", { class: "badge provisional", title }, "provisional");
}
