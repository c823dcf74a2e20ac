// The lobby: create a game, list open / running / finished games, join an open seat.

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
import { gameModule } from "./games/index.js";

const CONFIG = config();

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

function seatRow(kind = "bot", value = "greedy") {
  const kindSelect = el(
    "select",
    { class: "seat-kind", "aria-label": "Who sits here" },
    el("option", { value: "human" }, "a person"),
    el("option", { value: "open" }, "open seat"),
    el("option", { value: "bot" }, "a bot"),
  );
  kindSelect.value = kind;
  const nameInput = el("input", {
    class: "seat-name",
    type: "text",
    maxlength: "40",
    placeholder: "name",
    "aria-label": "Player's name",
    value: kind === "human" ? value : "",
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
    nameInput.hidden = kindSelect.value !== "human";
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
    if (kind === "open") return { open: true };
    if (kind === "bot") return { bot: row.querySelector(".seat-bot").value };
    return { name: row.querySelector(".seat-name").value.trim(), client_seed: clientSeed() };
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
  const people = created.seats.filter((seat) => seat.token);
  const table = `/play/${encodeURIComponent(created.id)}`;
  if (people.length > 0) tokens.set(created.id, people[0].token);
  if (people.length <= 1) {
    location.assign(table);
    return;
  }
  // Several people at one table: this browser plays the first; hand the others their links.
  const box = $("#created");
  box.hidden = false;
  box.replaceChildren(
    el("p", {}, `Game ${created.id} is ready. You play seat ${people[0].seat + 1} (${people[0].name}).`),
    el("p", { class: "hint" }, "Send each other player their own link (keep them private: whoever has a link plays that seat)."),
    el(
      "ul",
      { class: "links" },
      people.slice(1).map((seat) =>
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

function when(created) {
  if (!created) return "";
  const seconds = Math.max(0, Date.now() / 1000 - created);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(created * 1000).toLocaleDateString();
}

function gameLine(game) {
  const seats = game.seats.map((seat) => seatName(seat)).join(", ");
  return el(
    "div",
    { class: "game-line" },
    el("span", { class: "game-id" }, game.id),
    el("span", { class: "game-preset" }, `${game.game}${game.preset ? " · " + game.preset : ""}`),
    el("span", { class: "game-seats" }, seats),
    el("span", { class: "hint" }, when(game.created)),
  );
}

function joinForm(game) {
  const name = el("input", {
    type: "text",
    maxlength: "40",
    placeholder: "your name",
    required: true,
    value: remembered("name"),
    "aria-label": "Your name",
    class: "join-name",
  });
  const error = el("span", { class: "inline-error", role: "alert" });
  const form = el("form", { class: "join-form row" }, name, el("button", { type: "submit", class: "primary" }, "Join"), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = name.value.trim();
    if (!chosen) {
      error.textContent = "Give a name to join.";
      return;
    }
    remember("name", chosen);
    try {
      const joined = await api(`/games/${encodeURIComponent(game.id)}/join`, {
        method: "POST",
        body: { name: chosen, client_seed: clientSeed() },
      });
      tokens.set(game.id, joined.token);
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
  const mine = Boolean(tokens.get(game.id));
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

/** You and bots, as many seats as the game usually has. */
function fillSeats() {
  const rows = [seatRow("human", remembered("name", ""))];
  while (rows.length < chosenLobby().seats) rows.push(seatRow("bot", "greedy"));
  seatsList.replaceChildren(...rows);
  syncSeatButtons();
}

const seatsList = $("#seats");
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
