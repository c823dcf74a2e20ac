// A player's page (GET /players/{name}): their ratings per pool, provisional ones marked,
// and their recent finished games with results and replay links. Nothing of a game in play.

import { $, api, el, Problem, show } from "./api.js";
import { ago, fixed, gameTitle, provisionalMark, resultText, seatsLine } from "./listing.js";

const name = document.body.dataset.playerName;
const box = $("#profile");

function ratingRow(rating) {
  return el(
    "tr",
    { dataset: { pool: rating.pool, provisional: rating.provisional } },
    el("th", { scope: "row" }, el("a", { href: `/leaderboard/${encodeURIComponent(rating.pool)}` }, rating.title)),
    el("td", { class: "num" }, rating.rank ?? "–"),
    el("td", { class: "num" }, fixed(rating.ordinal), " ", provisionalMark(rating)),
    el("td", { class: "num" }, `${fixed(rating.mu)} ± ${fixed(rating.sigma)}`),
    el("td", { class: "num" }, rating.games),
  );
}

function gameRow(game) {
  const mine = game.seat === null || game.seat === undefined ? [] : [game.seat];
  const result = resultText(game.seats, game.result, mine).replace(/^You /, `${name} `);
  return el(
    "li",
    { class: "game", dataset: { gameId: game.id } },
    el(
      "div",
      { class: "game-text" },
      el(
        "div",
        { class: "game-line" },
        el("span", { class: "game-preset" }, gameTitle(game)),
        el("span", { class: "game-id" }, game.id),
        seatsLine(game.seats),
        el("span", { class: "hint" }, ago(game.created)),
      ),
      el("div", { class: "game-about" }, el("strong", { class: "game-result" }, result)),
    ),
    el(
      "div",
      { class: "game-actions row" },
      el("a", { class: "button primary replay-link", href: `/replay/${encodeURIComponent(game.id)}` }, "Replay"),
    ),
  );
}

async function start() {
  let page;
  try {
    page = await api(`/players/${encodeURIComponent(name)}`);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    box.dataset.status = "error";
    show($("#profile-error"), error.status === 404 ? `There is no player called “${name}”.` : error.text);
    return;
  }
  $("#profile-title").textContent = page.name;
  document.title = `cardtrail · ${page.name}`;
  $("#since").textContent = `Playing since ${new Date(page.created * 1000).toLocaleDateString()}.`;
  const ratings = $("#ratings tbody");
  ratings.replaceChildren(...page.ratings.map(ratingRow));
  if (!page.ratings.length) {
    ratings.append(el("tr", { class: "empty" }, el("td", { colspan: 5, class: "hint" }, "Not rated yet: ratings come with finished games against rated players or bots.")));
  }
  const games = $("#recent-games");
  games.replaceChildren(...page.recent_games.map(gameRow));
  if (!page.recent_games.length) games.append(el("li", { class: "empty hint" }, "No finished games yet."));
  box.dataset.status = "ready";
}

start();
