// The player this browser is logged in as (the session cookie), and the top bar's account
// links: My games with the count of games waiting on you, your page, the leaderboard, log out.

import { api, csrfToken, el, Problem } from "./api.js";

let current = null; // the promise of GET /players/me, asked once per page

/**
 * The logged-in player ({id, name, created}), or null. The readable CSRF cookie says
 * whether a session may exist, so a visitor who never logged in costs no request (and
 * no 401 in the console); a session that ended answers 401, which is null too.
 */
export function currentPlayer() {
  if (!csrfToken()) return Promise.resolve(null);
  current ??= api("/players/me").catch((error) => {
    if (error instanceof Problem) return null;
    throw error;
  });
  return current;
}

/** Log out (the server closes the session and clears its cookies), then go to the lobby. */
export async function logOut() {
  try {
    await api("/session", { method: "DELETE" });
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
  }
  location.assign("/");
}

export const yourTurns = (items) => items.filter((item) => item.your_turn).length;

// -- news between this browser's tabs -----------------------------------------------------------
// A table tells the other tabs when its turn or status changes (a move of yours reaches no
// stream of news: nobody needs telling it is no longer your turn), so My games and the top
// bar's count follow at once.

const channel = "BroadcastChannel" in window ? new BroadcastChannel("cardtrail") : null;

export function tellOtherTabs(message) {
  channel?.postMessage(message);
}

export function onOtherTabs(listener) {
  channel?.addEventListener("message", (event) => listener(event.data));
}

// -- the top bar ------------------------------------------------------------------------------

let badge = null;
let counting = null;
let shownCount = 0; // kept for a badge drawn after the count is known

/** Show `count` games waiting on you beside "My games" (nothing when 0). */
export function setTurnCount(count) {
  shownCount = count;
  if (!badge) return;
  badge.textContent = count > 0 ? String(count) : "";
  badge.hidden = count <= 0;
  badge.dataset.count = count;
  badge.title = count === 1 ? "1 game waits on your move" : `${count} games wait on your move`;
}

/** How many of your games wait on your move (they are all in play, and listed first). */
export async function countTurns() {
  return yourTurns((await api("/players/me/games?status=playing&page_size=100")).items);
}

/** Count your turns again (a table moved on, say); one request at a time. */
export function recountTurns() {
  if (!badge || counting) return counting;
  counting = countTurns()
    .then(setTurnCount)
    .catch((error) => {
      if (!(error instanceof Problem)) throw error;
    })
    .finally(() => {
      counting = null;
    });
  return counting;
}

function loggedInLinks(player) {
  badge = el("span", { class: "badge turns", id: "turn-badge", hidden: true, "aria-live": "polite" });
  const logOutButton = el("button", { type: "button", class: "link-button", id: "log-out" }, "Log out");
  logOutButton.addEventListener("click", logOut);
  return [
    el("a", { href: "/me", id: "nav-my-games" }, "My games ", badge),
    el("a", { href: `/profile/${encodeURIComponent(player.name)}`, id: "nav-player" }, player.name),
    el("a", { href: "/leaderboard", id: "nav-leaderboard" }, "Leaderboard"),
    logOutButton,
  ];
}

function loggedOutLinks() {
  const back = location.pathname === "/login" ? "" : `?next=${encodeURIComponent(location.pathname)}`;
  return [
    el("a", { href: `/login${back}`, id: "nav-login" }, "Log in / Sign up"),
    el("a", { href: "/leaderboard", id: "nav-leaderboard" }, "Leaderboard"),
  ];
}

/** Fill the top bar's account links; the My games page keeps its badge current itself. */
export async function startTopbar() {
  const nav = document.getElementById("account-nav");
  if (!nav) return;
  const player = await currentPlayer();
  nav.replaceChildren(...(player ? loggedInLinks(player) : loggedOutLinks()));
  nav.dataset.player = player ? player.name : "";
  if (player) setTurnCount(shownCount);
  if (player && document.body.dataset.page !== "me") {
    onOtherTabs(() => recountTurns());
    await recountTurns();
  }
}
