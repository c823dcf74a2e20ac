// Cards: notation ("10H", "QS", "JK", and "JL" for the little joker), drawing them with
// suit symbols, sorting.

export const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king" };
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
// Sorting by suit alternates colours: ♠ ♥ ♣ ♦.
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };
export const JOKER = "JK";
export const LITTLE_JOKER = "JL";
const isJoker = (card) => card === JOKER || card === LITTLE_JOKER;

export function parseCard(card) {
  if (isJoker(card)) return { rank: card, suit: null };
  return { rank: card.slice(0, -1), suit: card.slice(-1) };
}

export function rankNumber(card) {
  return RANKS.indexOf(parseCard(card).rank) + 1;
}

/** "7♥", "Joker", or "Little joker". */
export function pretty(card) {
  if (card === JOKER) return "Joker";
  if (card === LITTLE_JOKER) return "Little joker";
  const { rank, suit } = parseCard(card);
  return rank + (SUIT_SYMBOLS[suit] ?? suit);
}

export function cardName(card) {
  if (card === JOKER) return "joker";
  if (card === LITTLE_JOKER) return "little joker";
  const { rank, suit } = parseCard(card);
  return `${RANK_NAMES[rank] ?? rank} of ${SUIT_NAMES[suit] ?? suit}`;
}

function suitKey(card) {
  return isJoker(card) ? 9 : SUIT_ORDER[parseCard(card).suit];
}

/** A sorted copy: by suit then rank, or by rank then suit; jokers last. */
export function sortCards(cards, by = "suit") {
  return [...cards].sort((a, b) => {
    const sa = suitKey(a);
    const sb = suitKey(b);
    const ra = isJoker(a) ? 99 : rankNumber(a);
    const rb = isJoker(b) ? 99 : rankNumber(b);
    return by === "rank" ? ra - rb || sa - sb : sa - sb || ra - rb;
  });
}

/**
 * One card element with `data-card`, its colour and an accessible name.
 * `tag` "button" makes it clickable (the hand); "span" just shows it.
 */
export function cardElement(card, { tag = "span", extraClass = "" } = {}) {
  const node = document.createElement(tag);
  const { rank, suit } = parseCard(card);
  node.className = "card";
  if (isJoker(card)) node.classList.add("joker", card === LITTLE_JOKER ? "little" : "big");
  else node.classList.add(suit === "H" || suit === "D" ? "red" : "black", `suit-${suit}`);
  if (extraClass) node.classList.add(...extraClass.split(" ").filter(Boolean));
  node.dataset.card = card;
  if (tag === "button") node.type = "button";
  else node.setAttribute("role", "img"); // a card shown, not a control: named as a picture
  node.setAttribute("aria-label", cardName(card));
  node.title = pretty(card);
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.setAttribute("aria-hidden", "true");
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.setAttribute("aria-hidden", "true");
  if (isJoker(card)) {
    corner.textContent = card === JOKER ? "JKR" : "jkr";
    pip.textContent = card === JOKER ? "★" : "☆";
  } else {
    const r = document.createElement("span");
    r.className = "rank";
    r.textContent = rank;
    const s = document.createElement("span");
    s.className = "suit";
    s.textContent = SUIT_SYMBOLS[suit];
    corner.append(r, s);
    pip.textContent = SUIT_SYMBOLS[suit];
  }
  node.append(corner, pip);
  return node;
}

export function cardBack() {
  const node = document.createElement("span");
  node.className = "card back";
  node.setAttribute("aria-hidden", "true");
  return node;
}

/** A row of cards (spans), e.g. a meld or a hand shown face up. */
export function cardRow(cards, { className = "cards", highlight = null } = {}) {
  // highlight: one card, or a set of cards
  const row = document.createElement("div");
  row.className = className;
  for (const card of cards) {
    const lit = highlight instanceof Set ? highlight.has(card) : card === highlight;
    row.append(cardElement(card, { extraClass: lit ? "highlight" : "" }));
  }
  return row;
}
