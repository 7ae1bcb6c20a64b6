"""Fit the value network's seat offsets (bots/seat_offsets.json) and show what they change.

    python benchmarks/calibrate_seats.py                 # fit, check on fresh games, print
    python benchmarks/calibrate_seats.py --write         # ... and write bots/seat_offsets.json
    python benchmarks/calibrate_seats.py --weights W.npz --out W.json --write   # other weights

The network sees every player from the roller's point of view, so it cannot tell where
the seats sit around the board: in three-player games the seat before the empty one
wins far more often than it predicts (under `house`, yellow wins 46-48% of the network's
own games; it predicted 33-42%), and in two-player games it gives the player about to
roll slightly less than half at the start, where that player wins about 51%. A logit
offset per configuration, phase, roller and player, added before the softmax, corrects
this.

For each configuration the network trains on (train_value.CONFIGS: every preset with 2
players facing and side by side, 3 and 4), `--games` games of the network's own 1-ply
play give every position before a roll with who finished first; the offsets are their
maximum-likelihood fit (Newton's method, the first player's offset fixed at 0), one set
for the opening (every plane in its hangar) and one for the rest of the game. Fresh
games on another seed then compare log loss and Brier score without and with them; a
set that does not lower the fresh games' log loss is not kept (zeros). The file also
records each configuration's opening: the roller's share of wins there, measured on the
fresh games, which tests hold the shipped chances to.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from flyingchess import Rules
from flyingchess.bots.value import OFFSETS_FILE, ValueNet, encode, read_net, value_tables, weights_digest
from train_value import CONFIGS, WEIGHTS, self_play

OUT = WEIGHTS.with_name(OFFSETS_FILE)


def logits_and_outcomes(
    net: ValueNet, preset: str, players: tuple[str, ...], games: int, seed: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """(logits by slot [N, n], roller [N], winner's slot [N], opening [N]) over every
    position before a roll of `games` games of the network's own play."""
    rules = Rules.preset(preset)
    samples = self_play(rules, players, games, net, 0.0, 1.0, 1.0, np.random.default_rng(seed))
    count = len(players)
    tables = value_tables(rules, players)
    turn = samples.turn.astype(np.intp)
    logits = np.empty((len(turn), count))
    for start in range(0, len(turn), 8192):
        part = slice(start, start + 8192)
        logits[part] = net.logits(encode(tables, samples.positions[part], turn[part], samples.sixes[part]), count)[
            :, :count
        ]
    winner = np.argmax(samples.target, axis=1)
    winner_slot = (winner - turn) % count
    opening = (samples.positions == -1).all(axis=(1, 2))
    return logits, turn, winner_slot, opening


def softmax(logits: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: npt.NDArray[np.float64] = shifted / shifted.sum(axis=1, keepdims=True)
    return out


def fit(logits: npt.NDArray[np.float64], winner_slot: npt.NDArray[np.intp], steps: int = 25) -> npt.NDArray[np.float64]:
    """The offsets [n] (slot 0's fixed at 0) that maximise the likelihood of the winners."""
    count = logits.shape[1]
    offsets = np.zeros(count)
    won = np.eye(count)[winner_slot]
    for _ in range(steps):
        chances = softmax(logits + offsets)
        gradient = (won - chances).sum(axis=0)[1:]
        hessian = (np.einsum("ni,nj->ij", chances, chances) - np.diag(chances.sum(axis=0)))[1:, 1:]
        step = np.linalg.solve(hessian, gradient)
        offsets[1:] -= step
        if np.abs(step).max() < 1e-9:
            break
    return offsets


def scores(chances: npt.NDArray[np.float64], winner_slot: npt.NDArray[np.intp]) -> tuple[float, float]:
    """(log loss, Brier) of slot chances against the winners."""
    won = np.eye(chances.shape[1])[winner_slot]
    picked = chances[np.arange(len(winner_slot)), winner_slot]
    return float(-np.log(np.maximum(picked, 1e-12)).mean()), float(((chances - won) ** 2).sum(axis=1).mean())


PHASES = ("opening", "play")
"""The opening (every plane of every player in its hangar: the same position whoever
rolls) and the rest of the game, each with offsets of its own: the network's error at the
opening is not its error later (with 4 players a correction fitted on the whole game
made the opening worse)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12000, help="games per configuration to fit on")
    parser.add_argument("--check-games", type=int, default=6000, help="fresh games per configuration to check on")
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument(
        "--weights", type=Path, default=WEIGHTS, help="the network to calibrate (default: the shipped one)"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="where --write writes")
    parser.add_argument("--write", action="store_true", help=f"write the calibration (default {OUT.name})")
    args = parser.parse_args()
    weights = args.weights.read_bytes()
    net, digest = read_net(weights), weights_digest(weights)  # its own chances and play, uncalibrated
    began = time.perf_counter()
    configs = []
    totals = {name: np.zeros(2) for name in ("raw", "fitted")}
    checked = 0
    seen = set()
    for index, (preset, players, _) in enumerate(CONFIGS):
        if (preset, players) in seen:
            continue
        seen.add((preset, players))
        count = len(players)
        logits, turn, winner_slot, opening = logits_and_outcomes(net, preset, players, args.games, args.seed + index)
        check_logits, check_turn, check_winner, check_opening = logits_and_outcomes(
            net, preset, players, args.check_games, args.seed + 1000 + index
        )
        offsets, words = {}, []
        for phase, inside, check_inside in (
            ("opening", opening, check_opening),
            ("play", ~opening, ~check_opening),
        ):
            fitted = np.array(
                [fit(logits[inside & (turn == r)], winner_slot[inside & (turn == r)]) for r in range(count)]
            )
            raw_scores = np.array(scores(softmax(check_logits[check_inside]), check_winner[check_inside]))
            new_scores = np.array(
                scores(
                    softmax(check_logits[check_inside] + fitted[check_turn[check_inside]]), check_winner[check_inside]
                )
            )
            kept = bool(new_scores[0] < raw_scores[0])  # on fresh games, by log loss: else no correction
            offsets[phase] = fitted if kept else np.zeros_like(fitted)
            totals["raw"] += raw_scores * check_inside.sum()
            totals["fitted"] += (new_scores if kept else raw_scores) * check_inside.sum()
            words.append(f"{phase} Brier {raw_scores[1]:.4f} -> {new_scores[1]:.4f}{'' if kept else ' (not kept)'}")
        checked += len(check_winner)
        first = check_opening & (check_turn == 0)  # every plane home, the first player to roll
        measured = float((check_winner[first] == 0).mean())
        raw_first = softmax(check_logits[first])[:, 0].mean()
        fitted_first = softmax(check_logits[first] + offsets["opening"][0])[:, 0].mean()
        print(
            f"{preset:11} {'-'.join(players):22} {'; '.join(words)}; at the start the roller wins {measured:.1%}"
            f" (n={first.sum()}), raw {raw_first:.1%}, fitted {fitted_first:.1%}",
            flush=True,
        )
        configs.append(
            {
                "rules": Rules.preset(preset).to_json(),
                "players": list(players),
                "offsets": {phase: [[round(float(v), 5) for v in row] for row in offsets[phase]] for phase in PHASES},
                "opening_roller_wins": round(measured, 4),
                "opening_positions": int(first.sum()),
                "fit_games": args.games,
                "check_games": args.check_games,
            }
        )
    if not configs or checked == 0:
        raise SystemExit("no position collected: nothing was fitted")
    for name in ("raw", "fitted"):
        loss, brier = totals[name] / checked
        print(f"{name:6}: log loss {loss:.4f}, Brier {brier:.4f} over every position of the fresh games")
    print(f"({len(configs)} configurations, {checked:,} positions checked, {time.perf_counter() - began:.0f} s)")
    if args.write:
        data = {"version": 1, "weights_sha256": digest, "seed": args.seed, "games": args.games, "configs": configs}
        args.out.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
