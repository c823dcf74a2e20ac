// Time and attention: the clock of a turn counting down (each seat's `deadline` in the
// view, epoch seconds), and, when it becomes your turn while this tab is in the
// background, the tab's title saying so and — if you opted in, in this browser — a
// notification and a short beep.

import { $, remember, remembered, show } from "../api.js";
import { clockText } from "./seats.js";

const TITLE = document.title;
const TURN_TITLE = "▶ Your turn · ";
let audio = null; // one AudioContext, made on a click (browsers let sound start only then)

/** Every `[data-deadline]` on the page shows the time left; run out, it says so. */
function tick() {
  const now = Date.now() / 1000;
  for (const node of document.querySelectorAll("[data-deadline]")) {
    const left = Number(node.dataset.deadline) - now;
    const text = left > 0 ? clockText(left) : "time is up";
    if (node.textContent !== text) node.textContent = node.id === "countdown" && left > 0 ? `${text} left` : text;
    node.classList.toggle("low", left < 30);
    node.dataset.left = Math.max(0, Math.ceil(left));
  }
}

/** The dock's countdown: your own turn's deadline, when the table is clocked. */
export function showCountdown(deadline) {
  const node = $("#countdown");
  if (!deadline) {
    node.hidden = true;
    delete node.dataset.deadline;
    node.textContent = "";
    return;
  }
  node.hidden = false;
  node.dataset.deadline = deadline;
  node.title = "Time left for your move";
  tick();
}

function beep() {
  if (!audio) return;
  if (audio.state === "suspended") audio.resume();
  const now = audio.currentTime;
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.type = "sine";
  tone.frequency.setValueAtTime(880, now);
  tone.frequency.setValueAtTime(660, now + 0.12);
  gain.gain.setValueAtTime(0.0001, now);
  gain.gain.exponentialRampToValueAtTime(0.2, now + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.28);
  tone.connect(gain).connect(audio.destination);
  tone.start(now);
  tone.stop(now + 0.3);
}

function makeAudio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!audio && Context) audio = new Context();
  return audio;
}

function notify(title, body, tag) {
  if (!$("#notify-turn").checked || !("Notification" in window) || Notification.permission !== "granted") return;
  const shown = new Notification(title, { body, tag });
  shown.addEventListener("click", () => {
    window.focus();
    shown.close();
  });
}

/** It has just become your turn: said in the title (and the opted-in ways) if nobody sees the tab. */
export function yourTurnBegan({ game, text }) {
  if (!document.hidden) return;
  document.title = TURN_TITLE + TITLE;
  notify("Your turn at cardtrail", text, `turn-${game}`);
  if ($("#sound-turn").checked && makeAudio()) beep();
}

/** Your turn is over (or the tab is in view again): the plain title. */
export function turnSeen() {
  if (document.title !== TITLE) document.title = TITLE;
}

async function askToNotify(box, hint) {
  show(hint, "");
  if (!box.checked) {
    remember("table-notify", "off");
    return;
  }
  // Asked only now, when the box is ticked: never on opening the page.
  const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  if (permission !== "granted") {
    box.checked = false;
    remember("table-notify", "off");
    show(hint, "Notifications are blocked for this site: allow them in the browser's site settings first.");
    return;
  }
  remember("table-notify", "on");
}

/** The opt-in boxes (remembered in this browser), the ticking clock, the title reset. */
export function startAttention() {
  const notifyBox = $("#notify-turn");
  const soundBox = $("#sound-turn");
  const hint = $("#alerts-hint");
  if (!("Notification" in window)) {
    notifyBox.disabled = true;
    show(hint, "This browser cannot show notifications.");
  } else {
    notifyBox.checked = remembered("table-notify") === "on" && Notification.permission === "granted";
    notifyBox.addEventListener("change", () => askToNotify(notifyBox, hint));
  }
  soundBox.checked = remembered("table-sound") === "on";
  soundBox.addEventListener("change", () => {
    remember("table-sound", soundBox.checked ? "on" : "off");
    if (soundBox.checked && makeAudio()) beep(); // what it sounds like, and sound allowed from now on
  });
  // A remembered "on" still needs a gesture on this page before any sound may play.
  document.addEventListener("pointerdown", () => soundBox.checked && makeAudio()?.resume(), { once: true });
  document.addEventListener("keydown", () => soundBox.checked && makeAudio()?.resume(), { once: true });
  document.addEventListener("visibilitychange", () => !document.hidden && turnSeen());
  setInterval(tick, 500);
}
