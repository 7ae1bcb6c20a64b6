// The game screen's input: a click on the die, a click or tap on a plane, the keys and the
// auto-move of a single choice become a roll or a move, only when the die offers one.
import { t } from "./i18n.js";
import { settings } from "./settings.js";
import { requestKey } from "./gamemodel.js";

const AUTO_MOVE_MS = 450;  // long enough to see the roll before the plane goes

/**
 * @param {object} o
 * @param {() => string} o.state  what the die offers now (gamemodel.js's dieState)
 * @param {() => any} o.snap  the game as drawn on the board
 * @param {any} o.board  the board (board.js): its legal planes and move preview
 * @param {any} o.announcer  what a screen reader hears (announcer.js)
 * @param {(action: {type: string, plane?: number}) => void} o.act  send a roll or a move
 * @param {() => boolean} o.gone  the screen was left
 */
export function makeInput({ state, snap, board, announcer, act, gone }) {
  function roll() { if (state() === "ready") act({ type: "roll" }); }

  function move(chosen) {
    if (state() !== "move") return;
    board.clearPreview();
    act({ type: "move", plane: chosen.plane });
  }

  const autoMove = autoMover(() => requestKey(snap()), () => { if (state() === "move") move(snap().moves[0]); });
  const onKey = keyHandler({
    gone, state, roll, move, moveFor: (plane) => board.legalMoveFor(plane),
    where: () => { if (snap()) announcer.now(announcer.where(snap())); },
    moves: () => { if (state() === "move") announcer.now(t("sr.your-move", { value: snap().roll, moves: announcer.moves(snap().moves) })); },
  });
  return { roll, move, autoMove, onKey };
}

/** The keys of the game screen: space rolls, 1-4 move that plane, W says where every
 *  plane is and M what each move would do (never while typing). */
function keyHandler({ gone, state, roll, move, moveFor, where, moves }) {
  return (e) => {
    if (gone() || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target && e.target.tagName) || "";
    if (["INPUT", "SELECT", "TEXTAREA"].includes(tag)) return;
    if (e.key === " " || e.code === "Space") {
      if (tag === "BUTTON" || tag === "A") return;
      if (state() === "ready") { e.preventDefault(); roll(); }
    } else if (/^[1-4]$/.test(e.key)) {
      if (state() !== "move") return;
      const chosen = moveFor(Number(e.key) - 1);
      if (chosen) { e.preventDefault(); move(chosen); }
    } else if (e.key === "w" || e.key === "W") {
      e.preventDefault();
      where();
    } else if (e.key === "m" || e.key === "M") {
      e.preventDefault();
      moves();
    }
  };
}

/** With one real choice the move plays itself after a moment (the setting, on by
 *  default): the player still sees the roll and the plane it moves. `keyNow` says where
 *  the game stands (requestKey): the move is played only if it still stands there. */
function autoMover(keyNow, play) {
  let timer = null;
  let forKey = null;
  return {
    consider(oneChoiceNow, key) {
      if (!oneChoiceNow || !settings().autoMove) {
        clearTimeout(timer);
        timer = forKey = null;
        return;
      }
      if (forKey === key) return;
      clearTimeout(timer);
      forKey = key;
      timer = setTimeout(() => { timer = null; if (keyNow() === key) play(); }, AUTO_MOVE_MS);
    },
  };
}
