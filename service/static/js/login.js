// Log in or sign up: two small forms. A refusal shows the problem+json's sentence, and each
// field it names gets its reason beside it. Then on to My games (or the page that sent you).

import { $, api, el, Problem, show } from "./api.js";
import { currentPlayer } from "./account.js";

/** Where to go once logged in: a path of this site from ?next=, else My games. */
function next() {
  const wanted = new URLSearchParams(location.search).get("next") || "";
  return wanted.startsWith("/") && !wanted.startsWith("//") && !wanted.startsWith("/login") ? wanted : "/me";
}

function clearErrors(form) {
  show(form.querySelector(".form-error"), "");
  for (const span of form.querySelectorAll(".field-error")) span.textContent = "";
  for (const input of form.querySelectorAll("input")) input.removeAttribute("aria-invalid");
}

/** Each field the problem names gets its reason beside it (the field, focused, reads it out);
 * what no field of the form holds is said under the form. */
function showProblem(form, problem) {
  let unplaced = problem.errors.length === 0;
  for (const { field, reason } of problem.errors) {
    const span = field && form.querySelector(`.field-error[data-field="${CSS.escape(field)}"]`);
    if (!span) {
      unplaced = true;
      continue;
    }
    span.textContent = reason;
    form.querySelector(`input[name="${CSS.escape(field)}"]`)?.setAttribute("aria-invalid", "true");
  }
  show(form.querySelector(".form-error"), unplaced ? problem.text : "");
  form.querySelector('[aria-invalid="true"]')?.focus();
}

function credentials(form) {
  return { name: form.elements.name.value.trim(), password: form.elements.password.value };
}

const logIn = (body) => api("/session", { method: "POST", body });

async function signUp(body) {
  await api("/players", { method: "POST", body });
  return logIn(body);
}

function handle(form, send) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await send(credentials(form));
      location.assign(next());
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      showProblem(form, error);
      button.disabled = false;
    }
  });
}

async function start() {
  handle($("#login-form"), logIn);
  handle($("#signup-form"), signUp);
  const player = await currentPlayer();
  if (player) {
    const box = $("#logged-in");
    box.hidden = false;
    box.replaceChildren(
      `You are logged in as ${player.name}. `,
      el("a", { href: "/me" }, "Go to My games"),
      " — or log in as someone else below.",
    );
  }
}

start();
