// The lobby: one click to play Rummy or Spades against the computer; behind "More options"
// the whole form (any game and preset, the rules, a move clock, every seat); the lists of
// open / running / finished games, which keep themselves current (lobbylists.js).
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
  show,
  tokens,
} from "./api.js";
import { currentPlayer } from "./account.js";
import { gameModule } from "./games/index.js";
import { mySeat, startLists } from "./lobbylists.js";

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

/** The game's rules as chosen, and the clock: a time for each move and what a time-out does. */
function readOptions() {
  const options = {};
  const moveTime = $("#move-time").value;
  if (moveTime) {
    options.move_time = moveTime;
    options.on_timeout = $("#on-timeout").value;
  }
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

// -- one click: a game against the computer ---------------------------------------------------------

// Each game's quick table: the preset most people know and how many bots fill it.
const QUICK = {
  rummy: { preset: "pagat", bots: 1 },
  spades: { preset: "pairs", bots: 3 },
};
const QUICK_LEVEL = "strong";
const GUEST = "Guest";

const offered = (name) => (CONFIG.games || []).find((g) => g.name === name);

/** The bot levels every quick game offers (the strongest last, as the registry lists them). */
function quickLevels() {
  const lists = Object.keys(QUICK).map((name) => offered(name)?.bots ?? []).filter((list) => list.length);
  return lists.length ? lists[0].filter((level) => lists.every((list) => list.includes(level))) : [];
}

function fillQuick() {
  const select = $("#quick-level");
  const levels = quickLevels();
  select.replaceChildren(...levels.map((level) => el("option", { value: level }, level)));
  const wanted = remembered("quick-level", QUICK_LEVEL);
  select.value = levels.includes(wanted) ? wanted : levels.includes(QUICK_LEVEL) ? QUICK_LEVEL : levels.at(-1) ?? "";
  select.addEventListener("change", () => remember("quick-level", select.value));
  $("#quick-name-field").hidden = Boolean(player);
  if (player) show($("#quick-as"), `You play as ${player.name}.`);
  else $("#quick-name").value = remembered("name", "");
  for (const button of document.querySelectorAll(".quick")) {
    const game = offered(button.dataset.game);
    button.hidden = !game || !gameModule(game.name);
    button.addEventListener("click", () => quickPlay(button.dataset.game));
  }
}

/** You: your own seat when logged in, else a person by the name typed (remembered). */
function quickSeat() {
  if (player) return { me: true, client_seed: clientSeed() };
  const typed = $("#quick-name").value.trim();
  if (typed) remember("name", typed);
  return { name: typed || GUEST, client_seed: clientSeed() };
}

async function quickPlay(name) {
  const quick = QUICK[name];
  const presets = offered(name)?.presets ?? [];
  const preset = presets.includes(quick.preset) ? quick.preset : presets[0];
  const bot = $("#quick-level").value || QUICK_LEVEL;
  const seats = [quickSeat(), ...Array.from({ length: quick.bots }, () => ({ bot }))];
  const buttons = document.querySelectorAll(".quick");
  show($("#quick-error"), "");
  for (const button of buttons) button.disabled = true;
  $("#quick-status").textContent = "Dealing…";
  try {
    afterCreate(await api("/games", { method: "POST", body: { game: name, preset, options: {}, seats } }));
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    show($("#quick-error"), error.text);
    $("#quick-status").textContent = "";
    for (const button of buttons) button.disabled = false;
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
  $("#move-time").addEventListener("change", () => {
    $("#on-timeout").disabled = !$("#move-time").value;
  });
  startLists(player);
  fillQuick();
  // Back from the table (the page kept in the browser's cache): the buttons work again.
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    $("#quick-status").textContent = "";
    for (const button of document.querySelectorAll(".quick")) button.disabled = false;
  });
}

start();
