// The lobby: create a game, list open / running / finished games, join an open seat.
// Logged in, a seat may be your own ("Me": bound to your account, played with your session
// cookie, so no seat token is kept) or kept for a player you invite by name.

import {
  $,
  api,
  clientSeed,
  config,
  el,
  Problem,
  remember,
  remembered,
  seatLink,
  seatName,
  show,
  tokens,
} from "./api.js";
import { currentPlayer } from "./account.js";
import { ago } from "./listing.js";
import { gameModule } from "./games/index.js";

const CONFIG = config();
let player = null; // the logged-in player, if any

// Each game's module names its presets' hints, its main options and its seats.
const lobbyOf = (name) => gameModule(name)?.lobby ?? { hints: {}, options: [], seats: 2, maxSeats: 6 };
const chosenLobby = () => lobbyOf($("#game").value);
// The chosen game's bot levels, as the server's registry gives them.
const chosenGame = () => (CONFIG.games || []).find((g) => g.name === $("#game").value);
const botLevels = () => chosenGame()?.bots ?? ["random", "greedy", "strong"];

// -- the create form ---------------------------------------------------------------------------

function fillGames() {
  const gameSelect = $("#game");
  for (const game of CONFIG.games || [{ name: "rummy", presets: [] }]) {
    gameSelect.append(el("option", { value: game.name }, game.name[0].toUpperCase() + game.name.slice(1)));
  }
  gameSelect.addEventListener("change", () => {
    fillPresets();
    fillOptions();
    fillSeats();
  });
  fillPresets();
}

function fillPresets() {
  const game = chosenGame();
  const presetSelect = $("#preset");
  presetSelect.replaceChildren();
  for (const preset of game?.presets || []) {
    presetSelect.append(el("option", { value: preset }, preset));
  }
  presetSelect.onchange = () => show($("#preset-hint"), chosenLobby().hints[presetSelect.value] || "");
  presetSelect.onchange();
}

function fillOptions() {
  const box = $("#option-fields");
  box.replaceChildren();
  for (const option of chosenLobby().options) {
    let control;
    if (option.choices) {
      control = el(
        "select",
        { id: `opt-${option.name}`, name: option.name },
        el("option", { value: "" }, "as preset"),
        option.choices.map(([value, label]) => el("option", { value }, label)),
      );
    } else {
      control = el("input", {
        id: `opt-${option.name}`,
        name: option.name,
        type: "number",
        inputmode: "numeric",
        min: option.number.min,
        max: option.number.max,
        placeholder: `as preset (${option.number.placeholder})`,
      });
    }
    box.append(el("label", { class: "field" }, option.label, control));
  }
}

function readOptions() {
  const options = {};
  for (const option of chosenLobby().options) {
    const value = $(`#opt-${option.name}`).value.trim();
    if (value === "") continue;
    if (option.number) options[option.name] = Number.parseInt(value, 10);
    else if (option.flag) options[option.name] = value === "true";
    else options[option.name] = value;
  }
  return options;
}

/** Who may sit in a seat: you and invited players only when logged in. */
function seatKinds() {
  return [
    player ? ["me", `me (${player.name})`] : null,
    ["human", "a person"],
    player ? ["invite", "invite a player"] : null,
    ["open", "open seat"],
    ["bot", "a bot"],
  ].filter(Boolean);
}

const NAME_PLACEHOLDER = { human: "name", invite: "their player name" };

function seatRow(kind = "bot", value = "greedy") {
  const kindSelect = el(
    "select",
    { class: "seat-kind", "aria-label": "Who sits here" },
    seatKinds().map(([value, label]) => el("option", { value }, label)),
  );
  kindSelect.value = kind;
  const nameInput = el("input", {
    class: "seat-name",
    type: "text",
    maxlength: "40",
    placeholder: "name",
    "aria-label": "Player's name",
    value: kind === "human" || kind === "invite" ? value : "",
  });
  const botSelect = el(
    "select",
    { class: "seat-bot", "aria-label": "Bot level" },
    botLevels().map((level) => el("option", { value: level }, level)),
  );
  if (kind === "bot" && botLevels().includes(value)) botSelect.value = value;
  const remove = el("button", { type: "button", class: "secondary remove-seat", "aria-label": "Remove this seat" }, "✕");
  const row = el("li", { class: "seat-row" }, kindSelect, nameInput, botSelect, remove);
  const sync = () => {
    nameInput.hidden = !(kindSelect.value in NAME_PLACEHOLDER);
    nameInput.placeholder = NAME_PLACEHOLDER[kindSelect.value] ?? "name";
    botSelect.hidden = kindSelect.value !== "bot";
  };
  kindSelect.addEventListener("change", sync);
  remove.addEventListener("click", () => {
    row.remove();
    syncSeatButtons();
  });
  sync();
  return row;
}

function syncSeatButtons() {
  const rows = document.querySelectorAll("#seats .seat-row");
  $("#add-seat").disabled = rows.length >= chosenLobby().maxSeats;
  for (const button of document.querySelectorAll("#seats .remove-seat")) button.disabled = rows.length <= 1;
}

function readSeats() {
  return [...document.querySelectorAll("#seats .seat-row")].map((row) => {
    const kind = row.querySelector(".seat-kind").value;
    const name = row.querySelector(".seat-name").value.trim();
    if (kind === "open") return { open: true };
    if (kind === "bot") return { bot: row.querySelector(".seat-bot").value };
    if (kind === "me") return { me: true, client_seed: clientSeed() };
    if (kind === "invite") return { player: name };
    return { name, client_seed: clientSeed() };
  });
}

async function createGame(event) {
  event.preventDefault();
  const button = $("#create");
  show($("#create-error"), "");
  const seats = readSeats();
  const missing = seats.findIndex((seat) => "name" in seat && !seat.name);
  if (missing >= 0) {
    show($("#create-error"), `Seat ${missing + 1} needs a name.`);
    return;
  }
  const uninvited = seats.findIndex((seat) => "player" in seat && !seat.player);
  if (uninvited >= 0) {
    show($("#create-error"), `Seat ${uninvited + 1}: whom do you invite? Give their player name.`);
    return;
  }
  const firstName = seats.find((seat) => seat.name)?.name;
  if (firstName) remember("name", firstName);
  button.disabled = true;
  try {
    const created = await api("/games", {
      method: "POST",
      body: { game: $("#game").value, preset: $("#preset").value, options: readOptions(), seats },
    });
    afterCreate(created);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    show($("#create-error"), error.text);
  } finally {
    button.disabled = false;
  }
}

/** A seat bound to the logged-in player: their session cookie plays it, no token needed. */
const mySeat = (seat) => Boolean(player && seat.player === player.id && !seat.invited);

function afterCreate(created) {
  const table = `/play/${encodeURIComponent(created.id)}`;
  // Your own account's seat needs no token: your session cookie plays it. Without one, this
  // browser plays the first person's seat by its token.
  const mine = created.seats.find(mySeat);
  const people = created.seats.filter((seat) => seat.token && !mySeat(seat));
  const yours = mine ?? people.shift();
  if (yours && !mine) tokens.set(created.id, yours.token);
  if (people.length === 0) {
    location.assign(table);
    return;
  }
  // Several people at one table: hand the others their links.
  const box = $("#created");
  box.hidden = false;
  box.replaceChildren(
    el("p", {}, `Game ${created.id} is ready. You play seat ${yours.seat + 1} (${yours.name}).`),
    el("p", { class: "hint" }, "Send each other player their own link (keep them private: whoever has a link plays that seat)."),
    el(
      "ul",
      { class: "links" },
      people.map((seat) =>
        el(
          "li",
          {},
          `${seat.name}: `,
          el("input", { type: "text", readonly: true, value: seatLink(created.id, seat.token), "aria-label": `Link for ${seat.name}` }),
        ),
      ),
    ),
    el("a", { class: "button primary", href: table, id: "go-to-table" }, "Go to my table"),
  );
  box.scrollIntoView({ behavior: "smooth" });
}

// -- the lists ------------------------------------------------------------------------------------

function gameLine(game) {
  const seats = game.seats.map((seat) => seatName(seat)).join(", ");
  return el(
    "div",
    { class: "game-line" },
    el("span", { class: "game-id" }, game.id),
    el("span", { class: "game-preset" }, `${game.game}${game.preset ? " · " + game.preset : ""}`),
    el("span", { class: "game-seats" }, seats),
    el("span", { class: "hint" }, ago(game.created)),
  );
}

/** Take the open seat: logged in, as yourself (the cookie plays it); else by a name, keeping
 * the seat's token in this browser. */
function joinForm(game) {
  const name = el("input", {
    type: "text",
    maxlength: "40",
    placeholder: "your name",
    required: true,
    value: remembered("name"),
    "aria-label": "Your name",
    class: "join-name",
    hidden: Boolean(player),
  });
  const error = el("span", { class: "inline-error", role: "alert" });
  const label = player ? `Join as ${player.name}` : "Join";
  const form = el("form", { class: "join-form row" }, name, el("button", { type: "submit", class: "primary" }, label), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = name.value.trim();
    if (!player && !chosen) {
      error.textContent = "Give a name to join.";
      return;
    }
    if (!player) remember("name", chosen);
    const body = player ? { client_seed: clientSeed() } : { name: chosen, client_seed: clientSeed() };
    try {
      const joined = await api(`/games/${encodeURIComponent(game.id)}/join`, { method: "POST", body });
      if (!player) tokens.set(game.id, joined.token);
      location.assign(`/play/${encodeURIComponent(game.id)}`);
    } catch (problem) {
      if (!(problem instanceof Problem)) throw problem;
      error.textContent = problem.text;
    }
  });
  return form;
}

function gameItem(game, status) {
  const id = encodeURIComponent(game.id);
  const mine = Boolean(tokens.get(game.id)) || game.seats.some(mySeat);
  const actions = el("div", { class: "game-actions row" });
  if (status === "waiting") {
    if (mine) actions.append(el("a", { class: "button secondary", href: `/play/${id}` }, "Your table"));
    actions.append(joinForm(game));
  } else if (status === "playing") {
    actions.append(el("a", { class: "button " + (mine ? "primary" : "secondary"), href: `/play/${id}` }, mine ? "Play" : "Watch"));
  } else {
    actions.append(
      el("a", { class: "button primary", href: `/replay/${id}` }, "Replay"),
      el("a", { class: "button secondary", href: `/play/${id}` }, "Table"),
    );
  }
  return el("li", { class: "game", dataset: { gameId: game.id } }, gameLine(game), actions);
}

async function loadList(status) {
  const list = $(`#games-${status}`);
  const data = await api(`/games?status=${status}&page_size=20`);
  list.replaceChildren();
  if (data.items.length === 0) list.append(el("li", { class: "empty hint" }, "None yet."));
  for (const game of data.items) list.append(gameItem(game, status));
  if (data.total > data.items.length) {
    list.append(el("li", { class: "hint" }, `…and ${data.total - data.items.length} more.`));
  }
}

async function refresh() {
  show($("#list-error"), "");
  try {
    await Promise.all(["waiting", "playing", "finished"].map(loadList));
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    show($("#list-error"), error.text);
  }
}

// -- start ------------------------------------------------------------------------------------------

/** You (your own seat when logged in) and bots, as many seats as the game usually has. */
function fillSeats() {
  const rows = [player ? seatRow("me") : seatRow("human", remembered("name", ""))];
  while (rows.length < chosenLobby().seats) rows.push(seatRow("bot", "greedy"));
  seatsList.replaceChildren(...rows);
  syncSeatButtons();
}

const seatsList = $("#seats");

async function start() {
  player = await currentPlayer(); // before the seats: "me" and invitations need it
  fillGames();
  fillOptions();
  fillSeats();
  $("#add-seat").addEventListener("click", () => {
    seatsList.append(seatRow("bot", "greedy"));
    syncSeatButtons();
  });
  $("#create-form").addEventListener("submit", createGame);
  $("#refresh").addEventListener("click", refresh);
  refresh();
}

start();
