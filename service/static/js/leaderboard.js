// The leaderboard (GET /ratings, GET /ratings/{pool}?page=): a pool picker, one page of the
// pool's ratings at a time, bots and provisional ratings marked. The address follows the
// choice (/leaderboard/<pool>?page=N), so it can be shared and the back button works.

import { $, api, el, Problem, show } from "./api.js";
import { fixed, provisionalMark } from "./listing.js";

const PAGE_SIZE = 20;
const box = $("#leaderboard");
let pools = [];

function wanted() {
  const match = location.pathname.match(/^\/leaderboard\/([^/]+)$/);
  const page = Number.parseInt(new URLSearchParams(location.search).get("page") || "1", 10);
  return { pool: match ? decodeURIComponent(match[1]) : null, page: page > 0 ? page : 1 };
}

function address(pool, page) {
  return `/leaderboard/${encodeURIComponent(pool)}${page > 1 ? `?page=${page}` : ""}`;
}

function who(rating) {
  if (rating.bot) return [rating.name, " ", el("span", { class: "badge bot", title: "A bot: the game's own player" }, "bot")];
  return [el("a", { href: `/profile/${encodeURIComponent(rating.name)}`, class: "player-link" }, rating.name)];
}

function row(rating, gamesNeeded) {
  return el(
    "tr",
    { dataset: { player: rating.player, bot: rating.bot, provisional: rating.provisional } },
    el("td", { class: "num rank" }, rating.rank),
    el("th", { scope: "row" }, ...who(rating)),
    el("td", { class: "num" }, fixed(rating.ordinal), " ", provisionalMark(rating, gamesNeeded)),
    el("td", { class: "num" }, `${fixed(rating.mu)} ± ${fixed(rating.sigma)}`),
    el("td", { class: "num" }, rating.games),
  );
}

async function load({ pool, page }) {
  box.dataset.status = "loading";
  show($("#board-error"), "");
  const body = $("#board tbody");
  let board;
  try {
    board = await api(`/ratings/${encodeURIComponent(pool)}?page=${page}&page_size=${PAGE_SIZE}`);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    body.replaceChildren();
    box.dataset.status = "error";
    show($("#board-error"), error.status === 404 ? `There is no rating pool “${pool}”.` : error.text);
    return;
  }
  $("#pool").value = pool;
  document.title = `cardtrail · leaderboard · ${board.title}`;
  body.replaceChildren(...board.ratings.map((rating) => row(rating, board.provisional_games)));
  if (!board.ratings.length) {
    const text = page > 1 ? "No ratings on this page." : "Nobody is rated in this pool yet.";
    body.append(el("tr", { class: "empty" }, el("td", { colspan: 5, class: "hint" }, text)));
  }
  const pages = Math.max(1, Math.ceil(board.total / PAGE_SIZE));
  $("#pager").hidden = pages <= 1 && page <= 1;
  $("#page-info").textContent = `Page ${page} of ${pages}`;
  $("#prev-page").disabled = page <= 1;
  $("#next-page").disabled = page >= pages;
  box.dataset.pool = pool;
  box.dataset.page = page;
  box.dataset.status = "ready";
}

function go(pool, page) {
  history.pushState(null, "", address(pool, page));
  load({ pool, page });
}

async function start() {
  try {
    pools = (await api("/ratings")).pools;
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    box.dataset.status = "error";
    show($("#board-error"), error.text);
    return;
  }
  const select = $("#pool");
  select.replaceChildren(...pools.map((p) => el("option", { value: p.pool }, `${p.title} (${p.rated} rated)`)));
  select.addEventListener("change", () => go(select.value, 1));
  $("#prev-page").addEventListener("click", () => go(box.dataset.pool, Number(box.dataset.page) - 1));
  $("#next-page").addEventListener("click", () => go(box.dataset.pool, Number(box.dataset.page) + 1));
  window.addEventListener("popstate", () => load(chosen()));
  const first = chosen();
  if (!wanted().pool && first.pool) history.replaceState(null, "", address(first.pool, first.page));
  if (first.pool) await load(first);
}

/** The pool in the address, else the first one anybody is rated in, else the first. */
function chosen() {
  const { pool, page } = wanted();
  const fallback = (pools.find((p) => p.rated > 0) || pools[0])?.pool ?? null;
  return { pool: pool || fallback, page };
}

start();
