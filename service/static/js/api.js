// The JSON API, seat tokens in localStorage, and small DOM helpers shared by the pages.

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

export async function api(path, { method = "GET", token = null, body = undefined, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
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
  if (seat.name) return seat.name;
  if (seat.bot) return `${seat.bot} bot`;
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
