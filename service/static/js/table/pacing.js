// What happened, shown one move after another. Bots answer in a fraction of a second, so
// their moves reach the page in bursts: each event is queued (from the long-poll and from
// the answers to your own moves) and shown in turn, each move held for a moment before the
// next one, so that a person can follow who did what. A tab in the background, or a long
// backlog (a reconnection), catches up at once instead.

import { sleep } from "../api.js";

const BACKLOG = 16; // more events waiting than this: catch up rather than replay them

/**
 * `show(event)` draws one event and answers how many milliseconds to hold it (0 for one
 * that shows nothing); `catchUp(events)` takes many at once; `settle()` reads the server's
 * own view once the queue is empty; `busy(yes)` says whether the queue is being shown.
 */
export function pacer({ show, catchUp, settle, busy }) {
  const queue = [];
  let newest = 0; // the newest version queued
  let running = null;
  let readyAt = 0; // performance.now() before which the next move waits

  async function run() {
    busy(true);
    try {
      for (;;) {
        while (queue.length) {
          if (queue.length > BACKLOG || document.hidden) {
            await catchUp(queue.splice(0));
            readyAt = 0;
            continue;
          }
          const event = queue.shift();
          const wait = readyAt - performance.now();
          if (wait > 0) await sleep(wait);
          const hold = await show(event);
          if (hold > 0) readyAt = performance.now() + hold;
        }
        await settle();
        if (!queue.length) break;
      }
    } finally {
      busy(false);
    }
  }

  return {
    /** Queue `events` (any already queued are skipped); resolves once all are shown. */
    push(events) {
      for (const event of events || []) {
        if (event.version > newest) {
          queue.push(event);
          newest = event.version;
        }
      }
      if (!running && queue.length) {
        running = run().finally(() => {
          running = null;
        });
      }
      return running ?? Promise.resolve();
    },
    /** Events up to `version` are in the view already: nothing older is queued again. */
    seen(version) {
      newest = Math.max(newest, version);
    },
    get newest() {
      return newest;
    },
    get running() {
      return Boolean(running);
    },
  };
}
