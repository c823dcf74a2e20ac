// The games these pages can draw, by the name the API gives them (view.game). Each module
// draws its game's table, replay felt and lobby options; the pages around them are shared.

import rummy from "./rummy.js";
import spades from "./spades.js";

const MODULES = { rummy, spades };

/** The drawing module for a game, or null when these pages cannot draw it. */
export function gameModule(name) {
  return MODULES[name] ?? null;
}
