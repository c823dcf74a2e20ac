// Cards that move: where things stood before a move was drawn, then the moved card sliding
// from there into its new place (FLIP: the page is drawn in its new state first, the card
// starts displaced and eases home), a face-down card flying to a seat that drew, a trick
// swept to its winner. Short CSS animations (static/css/table.css); with
// prefers-reduced-motion nothing moves: the new state is simply shown.

import { cardBack } from "../cards.js";

const query = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

/** The reader asked for less motion: no card moves. */
export const still = () => Boolean(query?.matches);

const centre = (rect) => ({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });

function rectOf(selector) {
  const node = document.querySelector(selector);
  return node ? node.getBoundingClientRect() : null;
}

/**
 * Where things are now, to move from: each card of your hand (by card), each seat's box
 * (by seat), the stock and the discard pile.
 */
export function positions() {
  const hand = new Map();
  for (const node of document.querySelectorAll("#hand [data-card]")) {
    if (!hand.has(node.dataset.card)) hand.set(node.dataset.card, node.getBoundingClientRect());
  }
  const seats = new Map();
  for (const node of document.querySelectorAll("#seats > [data-seat]")) {
    seats.set(Number(node.dataset.seat), node.getBoundingClientRect());
  }
  return { hand, seats, stock: rectOf("#stock"), discard: rectOf("#discard-pile") };
}

function displace(node, from, to) {
  const a = centre(from);
  const b = centre(to);
  node.style.setProperty("--dx", `${Math.round(a.x - b.x)}px`);
  node.style.setProperty("--dy", `${Math.round(a.y - b.y)}px`);
}

/** Once the animation `kind` ends (or should have), drop its class unless `keep`. */
function settle(node, kind, keep = false) {
  return new Promise((resolve) => {
    const done = () => {
      if (!keep) node.classList.remove(kind);
      resolve();
    };
    node.addEventListener("animationend", done, { once: true });
    setTimeout(done, 700); // a hidden tab may never end it
  });
}

/** `node`, drawn in its new place, slides there from `from` (a rect). */
export function arrive(node, from) {
  if (!node || !from || still()) return;
  displace(node, from, node.getBoundingClientRect());
  node.classList.add("arrive");
  settle(node, "arrive");
}

/** A face-down card (or `face`) flies from `from` to `to` over the page, then is gone. */
export function fly(from, to, face = null) {
  if (!from || !to || still()) return;
  const node = face ?? cardBack();
  node.classList.add("ghost");
  node.setAttribute("aria-hidden", "true");
  const start = centre(from);
  node.style.left = `${Math.round(start.x)}px`;
  node.style.top = `${Math.round(start.y)}px`;
  document.body.append(node);
  node.style.setProperty("--dx", `${Math.round(centre(to).x - start.x)}px`);
  node.style.setProperty("--dy", `${Math.round(centre(to).y - start.y)}px`);
  settle(node, "ghost").then(() => node.remove());
}

/** The cards `nodes` sweep off to `to` (the winner's seat); resolves once they are gone. */
export async function sweep(nodes, to) {
  if (!to || still() || document.hidden) return;
  const moving = [...nodes].filter(Boolean);
  for (const node of moving) {
    node.style.setProperty("--dx", `${Math.round(centre(to).x - centre(node.getBoundingClientRect()).x)}px`);
    node.style.setProperty("--dy", `${Math.round(centre(to).y - centre(node.getBoundingClientRect()).y)}px`);
    node.classList.add("sweep");
  }
  await Promise.all(moving.map((node) => settle(node, "sweep", true))); // gone until redrawn
}

/** Mark the card(s) of the move just shown so that they catch the eye once. */
export function flash(nodes) {
  if (still()) return;
  for (const node of nodes) {
    if (!node) continue;
    node.classList.add("flash");
    settle(node, "flash");
  }
}
