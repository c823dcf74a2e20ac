// The JSON API (with a seat's token or the session cookie), seat tokens and receipts in
// localStorage, and small DOM helpers shared by the pages.

/** An API refusal: the problem+json body's `detail` is the sentence to show. */
export class Problem extends Error {
  constructor(status, body) {
    const detail = body?.detail || `The server answered ${status}.`;
    super(detail);
    this.status = status;
    this.code = body?.code || "http_" + status;
    this.detail = detail;
    this.errors = body?.errors || [];
  }

  /** The detail, plus each field's reason for validation errors. */
  get text() {
    const fields = this.errors
      .filter((e) => e.field && e.reason && e.reason !== this.detail)
      .map((e) => `${e.field}: ${e.reason}`);
    return [this.detail, ...fields].join(" ");
  }
}

// -- the session cookie's CSRF token -------------------------------------------------------
// Logging in sets an HttpOnly session cookie, which the browser sends by itself, and a
// readable `cardtrail_csrf` cookie: every write the session cookie authenticates must
// repeat that value in X-CSRF-Token (a page of another site cannot read it).

export const CSRF_COOKIE = "cardtrail_csrf";

/** The session's CSRF token, or null when this browser holds no session. */
export function csrfToken() {
  for (const part of document.cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === CSRF_COOKIE) return decodeURIComponent(value.join("=")) || null;
  }
  return null;
}

const SAFE_METHODS = ["GET", "HEAD"];

/**
 * One call to the JSON API. A seat's `token` goes as Bearer; without one, the session
 * cookie (if any) speaks for the player, and writes carry its CSRF token. An
 * `idempotencyKey` makes a retried write answer the first one's result.
 */
export async function api(path, { method = "GET", token = null, body = undefined, signal, idempotencyKey } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const csrf = token || SAFE_METHODS.includes(method) ? null : csrfToken();
  if (csrf) headers["X-CSRF-Token"] = csrf;
  if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      cache: "no-store",
      referrerPolicy: "no-referrer",
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new Problem(0, { detail: "The server cannot be reached; retrying…", code: "network" });
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) throw new Problem(response.status, data);
  if (data && typeof data === "object" && data.receipt) keepReceipt(data.receipt);
  return data;
}

// -- seat tokens ---------------------------------------------------------------------------
// Kept in localStorage per game id; never put in a URL the server sees.

const TOKEN_PREFIX = "cardtrail.token.";

export const tokens = {
  get(gameId) {
    try {
      return localStorage.getItem(TOKEN_PREFIX + gameId);
    } catch {
      return null;
    }
  },
  set(gameId, token) {
    try {
      localStorage.setItem(TOKEN_PREFIX + gameId, token);
    } catch {
      /* storage disabled: the page still works for this visit */
    }
  },
  remove(gameId) {
    try {
      localStorage.removeItem(TOKEN_PREFIX + gameId);
    } catch {
      /* ignore */
    }
  },
};

// -- receipts ------------------------------------------------------------------------------
// Every answer that appends to or shows a game carries the server's signed receipt: "the game
// stood at this version with this chain hash". `api()` keeps each one, per game, so that the
// player can later prove what they were shown (docs/audit.md): a history rewritten in the
// server's store no longer has those hashes, however carefully it was re-chained.

const RECEIPTS_PREFIX = "cardtrail:receipts:";
const RECEIPT_FIELDS = ["game", "version", "hash", "key_id", "signature"];

/**
 * The newest receipts kept per game. localStorage holds about 5 MB per origin (and Chromium
 * counts it in UTF-16, two bytes a character); a receipt is about 280 characters of JSON, so
 * 2,000 of them take about 1 MB and a few long games still fit beside each other. Dropping
 * the oldest loses little: each receipt's hash commits to the whole log up to its version.
 */
export const RECEIPTS_KEPT = 2000;

/** A receipt's own fields, in a fixed order, or null when it is not shaped like one. */
function receiptOf(value) {
  if (!value || typeof value !== "object") return null;
  const { game, version, hash } = value;
  if (typeof game !== "string" || !game || typeof hash !== "string") return null;
  if (!Number.isInteger(version) || version < 0) return null;
  if (typeof value.key_id !== "string" || typeof value.signature !== "string") return null;
  return Object.fromEntries(RECEIPT_FIELDS.map((name) => [name, value[name]]));
}

function readReceipts(gameId) {
  try {
    const parsed = JSON.parse(localStorage.getItem(RECEIPTS_PREFIX + gameId) || "[]");
    return Array.isArray(parsed) ? parsed.map(receiptOf).filter(Boolean) : [];
  } catch {
    return [];
  }
}

/**
 * `kept` with `receipt` added: once per version and hash (two hashes at one version are
 * both kept: together they show the server told two stories), in version order, the
 * newest RECEIPTS_KEPT only. Returns null when the receipt was kept already.
 */
export function withReceipt(kept, receipt) {
  if (kept.some((r) => r.version === receipt.version && r.hash === receipt.hash)) return null;
  const all = [...kept, receipt].sort((a, b) => a.version - b.version); // stable: ties keep order
  return all.slice(-RECEIPTS_KEPT);
}

function keepReceipt(value) {
  const receipt = receiptOf(value);
  if (!receipt) return;
  const next = withReceipt(readReceipts(receipt.game), receipt);
  if (!next) return;
  const key = RECEIPTS_PREFIX + receipt.game;
  try {
    localStorage.setItem(key, JSON.stringify(next));
  } catch {
    // Storage full (other games' receipts): keep the newest half of this game's rather
    // than none; disabled storage: the page still works for this visit.
    try {
      localStorage.setItem(key, JSON.stringify(next.slice(-Math.ceil(next.length / 2))));
    } catch {
      return;
    }
  }
  window.dispatchEvent(new CustomEvent("cardtrail:receipt", { detail: { game: receipt.game } }));
}

/** The receipts this browser kept of a game, in version order. */
export function receipts(gameId) {
  return readReceipts(gameId);
}

/** Them as a JSON Lines file (one receipt a line), the shape `cardtrail audit --receipts` reads. */
export function receiptsFile(gameId) {
  return receipts(gameId)
    .map((receipt) => JSON.stringify(receipt) + "\n")
    .join("");
}

/** Call `listener` whenever a receipt of `gameId` is kept, by this page or another tab. */
export function onReceipt(gameId, listener) {
  window.addEventListener("cardtrail:receipt", (event) => {
    if (event.detail?.game === gameId) listener();
  });
  window.addEventListener("storage", (event) => {
    if (event.key === null || event.key === RECEIPTS_PREFIX + gameId) listener();
  });
}

/**
 * A token handed over in the URL fragment (#token=…): store it and clear the fragment.
 * Browsers never send the fragment to the server, so it is never in a request log.
 */
export function takeTokenFromFragment(gameId) {
  if (!location.hash) return null;
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  if (!token) return null;
  tokens.set(gameId, token);
  history.replaceState(null, "", location.pathname + location.search);
  return token;
}

export function seatLink(gameId, token) {
  return `${location.origin}/play/${encodeURIComponent(gameId)}#token=${encodeURIComponent(token)}`;
}

export function remembered(key, fallback = "") {
  try {
    return localStorage.getItem("cardtrail." + key) ?? fallback;
  } catch {
    return fallback;
  }
}

export function remember(key, value) {
  try {
    localStorage.setItem("cardtrail." + key, value);
  } catch {
    /* ignore */
  }
}

/** 16 random bytes as hex: the browser's contribution to the shuffle (client_seed). */
export function clientSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// -- seats and words -------------------------------------------------------------------------

export function seatName(seat) {
  if (!seat) return "?";
  if (seat.label) return seat.label; // the server's: "ann", "West (strong bot)", "Seat 2 (open)"
  if (seat.name) return seat.name;
  if (seat.bot) return `${seat.bot} bot`;
  if (seat.invited) return `${seat.invited} (invited)`; // kept for that player until they join
  return `open seat ${seat.seat + 1}`;
}

/** "1 card", "3 cards" */
export function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// -- DOM ---------------------------------------------------------------------------------------

/** el("a", {href: "/", class: "x", dataset: {k: "v"}}, "text", child) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function $(selector) {
  return document.querySelector(selector);
}

export function show(node, text) {
  if (text === null || text === undefined || text === "") {
    node.hidden = true;
    node.textContent = "";
  } else {
    node.hidden = false;
    node.textContent = text;
  }
}

export function config() {
  const node = document.getElementById("config");
  return node ? JSON.parse(node.textContent) : {};
}

export const gameId = () => document.body.dataset.gameId;

// -- a game's records: the export, the receipts, and checking them -------------------------------

/** Save `text` as a file named `name`, made in the browser (nothing is sent anywhere). */
export function saveFile(name, text, type = "application/jsonl") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = el("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000); // a download still starting needs it
}

/** The verdict of `POST /games/{id}/audit` in words: passed or failed, and whether fair. */
export function receiptsVerdictText(verdict) {
  if (!verdict.ok) {
    const bad = verdict.first_bad || {};
    return (
      `✘ Failed at event ${bad.version ?? "?"}: ${bad.reason ?? "see the audit's checks"}. ` +
      "The game is not provably fair."
    );
  }
  const checked = plural(verdict.receipts ?? 0, "receipt");
  const fair = verdict.provably_fair
    ? "The game is provably fair."
    : `The game is not provably fair: ${verdict.notes?.[0] ?? "see the audit's notes"}`;
  return `✔ Passed: the log is intact and matches ${checked} kept by this browser. ${fair}`;
}

/**
 * The export link (a finished game only), "Download my receipts (N)" (any time) and
 * "Check my receipts" (a finished game only: the audit re-runs the whole game), with the
 * verdict in words in a live region. `token()` gives the seat's token, if any, for the audit.
 * `finished(yes)` shows or hides what needs a finished game.
 */
export function recordsPanel(gameId, { token = () => null } = {}) {
  const base = `/games/${encodeURIComponent(gameId)}`;
  const exportLink = el(
    "a",
    { class: "button secondary", id: "export-game", href: `${base}/export`, download: "", hidden: true },
    "Download the game (JSON Lines)",
  );
  const download = el("button", { type: "button", class: "secondary", id: "download-receipts" });
  const check = el(
    "button",
    { type: "button", class: "secondary", id: "check-receipts", hidden: true },
    "Check my receipts",
  );
  const verdict = el("p", {
    class: "receipts-verdict",
    id: "receipts-verdict",
    role: "status",
    "aria-live": "polite",
  });
  const count = () => {
    const kept = receipts(gameId).length;
    download.textContent = `Download my receipts (${kept})`;
    download.dataset.count = kept;
    download.disabled = kept === 0;
  };
  const say = (state, text) => {
    verdict.dataset.verdict = state;
    verdict.className = `receipts-verdict ${state}`;
    verdict.textContent = text;
  };
  download.addEventListener("click", () => saveFile(`receipts-${gameId}.jsonl`, receiptsFile(gameId)));
  check.addEventListener("click", async () => {
    const kept = receipts(gameId);
    if (!kept.length) {
      say("none", "This browser kept no receipts of this game, so there is nothing to check.");
      return;
    }
    check.disabled = true;
    say("pending", `Checking ${plural(kept.length, "receipt")} against the game's log…`);
    try {
      const answer = await api(`${base}/audit`, { method: "POST", token: token(), body: { receipts: kept } });
      say(answer.ok ? "passed" : "failed", receiptsVerdictText(answer));
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      say("error", `The receipts could not be checked: ${error.detail}`);
    } finally {
      check.disabled = false;
    }
  });
  onReceipt(gameId, count);
  count();
  const node = el(
    "div",
    { class: "records", id: "records" },
    el("div", { class: "row" }, exportLink, download, check),
    verdict,
  );
  return {
    node,
    finished(yes) {
      exportLink.hidden = !yes;
      check.hidden = !yes;
    },
  };
}
