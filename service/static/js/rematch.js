// A finished table's rematch: the "Rematch" button (one new game however often it is
// pressed), "Go to the rematch" once there is one, and, for a logged-in player, hearing of a
// rematch as it is offered (their stream of news), without reloading the table.

import { api, clientSeed, el, Problem, remember, remembered, sleep, tokens } from "./api.js";

export const tableAddress = (gameId) => `/play/${encodeURIComponent(gameId)}`;

/**
 * The rematch of game `id`. `table.token()` is the seat's token, if the seat is played by
 * one; `table.refresh()` reads the view again and gives it; `table.showError(text)` says
 * what went wrong. `control(view)` is the button or link to show; `watch(view)` listens.
 */
export function rematchOffer(id, table) {
  const base = `/games/${encodeURIComponent(id)}`;
  let asking = false;

  /** This game's request key, kept in this browser: asking twice (a double click, a retry,
   * a second tab) repeats the first answer instead of asking anew. */
  function key() {
    const name = `rematch-key.${id}`;
    let value = remembered(name, "");
    if (!value) {
      value = clientSeed();
      remember(name, value);
    }
    return value;
  }

  /** POST it with the key; while another tab's request with the same key is still being
   * answered, wait for that answer rather than fail. */
  async function offer() {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await api(`${base}/rematch`, { method: "POST", token: table.token(), idempotencyKey: key() });
      } catch (error) {
        if (!(error instanceof Problem) || error.code !== "idempotency_key_in_use" || attempt >= 10) throw error;
        await sleep(300 * attempt);
      }
    }
  }

  async function ask(button) {
    if (asking) return;
    asking = true;
    button.disabled = true;
    table.showError("");
    try {
      const answer = await offer();
      // A seat played by its token gets the rematch's token; an account's needs none.
      if (table.token() && answer.joined?.token) tokens.set(answer.id, answer.joined.token);
      location.assign(tableAddress(answer.id));
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      asking = false;
      button.disabled = false;
      table.showError(error.text);
    }
  }

  /** "Go to the rematch" once there is one; else "Rematch" for a seated player. */
  function control(view) {
    if (view.rematch) {
      return el("a", { class: "button primary", id: "rematch-link", href: tableAddress(view.rematch) }, "Go to the rematch");
    }
    if (!view.you) return null;
    const button = el("button", { type: "button", class: "secondary", id: "rematch" }, "Rematch");
    button.disabled = asking;
    button.addEventListener("click", () => ask(button));
    return button;
  }

  /** Seated at a finished game (and logged in): hear of its rematch as it is offered,
   * through the player's stream of news, and read the view again then (also once the
   * stream is open, so an offer made just before is not missed). */
  function watch(view) {
    if (view.status !== "finished" || view.rematch || !view.you) return;
    const source = new EventSource("/players/me/stream");
    const stop = () => source.close();
    window.addEventListener("pagehide", stop, { once: true });
    const check = async () => {
      try {
        if ((await table.refresh()).rematch) stop();
      } catch (error) {
        if (!(error instanceof Problem)) throw error;
      }
    };
    source.addEventListener("open", check);
    source.addEventListener("rematch_offered", (event) => {
      let notice = {};
      try {
        notice = JSON.parse(event.data);
      } catch {
        /* not a notice of ours */
      }
      if (notice.rematch_of === id) check();
    });
    source.addEventListener("closed", stop);
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) stop(); // refused: the link shows on a reload
    });
  }

  return { control, watch };
}
