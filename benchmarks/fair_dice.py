"""Committed dice (docs/records.md §6): the cost of a roll, of verifying a record, and
whether the faces are even.

Prints the time to derive one roll, to verify a 1,000-roll record in Python (and, with
--browser, in headless Chromium through Web Crypto and through the plain SHA-256 a LAN
page over http falls back to), then a table of each face's count over --rolls derived
rolls (6,000,000 by default) with the binomial 99.9% interval of 1/6 and the chi-square
test's p-value. Exits non-zero when a face falls outside its interval or nothing was
measured.

    python benchmarks/fair_dice.py [--rolls 6000000] [--browser]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from flyingchess.records.fair_dice import DiceProof, commitment_of, derive_roll, new_seed, nonce_of, verify_rolls

Z_999 = 3.2905  # two-sided 99.9% normal quantile


def chi_square_p_value_5(x: float) -> float:
    """P(chi-square with 5 degrees of freedom >= x), in closed form (odd degrees of
    freedom: erfc plus a finite series), so the benchmark needs no SciPy."""
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * (1 + x / 3)


def a_record(rolls: int) -> dict[str, object]:
    """A 1,000-roll record's dice part: the proof and its rolls (the rules need not
    replay for the proof to be checked; `flyingchess verify` replays first)."""
    seed = new_seed()
    proof = DiceProof(
        commitment_of(seed), seed, 0, ("benchmark-share-1", "benchmark-share-2"), ("host", "blue"), seated=("blue",)
    )
    return {
        "players": ["red", "blue"],
        "dice": proof.public(reveal=True),
        "actions": [{"roll": r, "plane": None} for r in proof.rolls(0, rolls)],
    }


def python_timings(repeats: int) -> tuple[float, float]:
    seed, nonce = new_seed(), nonce_of(["benchmark-share"])
    count = 100_000
    started = time.perf_counter()
    for index in range(count):
        derive_roll(seed, nonce, index)
    per_roll = (time.perf_counter() - started) / count
    record = a_record(1000)
    rolls = [a["roll"] for a in record["actions"]]  # type: ignore[index]
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        verified = verify_rolls(record["dice"], rolls, ["red", "blue"])
        times.append(time.perf_counter() - started)
    if verified.rolls != 1000:
        raise SystemExit("the benchmark verified no rolls")
    return per_roll, statistics.median(times)


def browser_timings(repeats: int) -> dict[str, float]:
    """Median ms to verify a 1,000-roll record in Chromium, each way of hashing."""
    import tempfile

    from playwright.sync_api import sync_playwright

    from flyingchess.server.launch.process import ServerProcess as Server

    record = a_record(1000)
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as data, sync_playwright() as playwright:
        server = Server(Path(data))
        try:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(server.url)
            for plain, name in ((False, "Web Crypto"), (True, "plain SHA-256")):
                times = page.evaluate(
                    """async ([record, plain, repeats]) => {
                        const m = await import('/static/fairdice.js');
                        const times = [];
                        for (let k = 0; k < repeats; k++) {
                            const start = performance.now();
                            const r = await m.verifyRecord(record, m.hasher(plain));
                            if (!r.ok || r.rolls !== 1000) throw new Error('not verified: ' + JSON.stringify(r));
                            times.push(performance.now() - start);
                        }
                        return times;
                    }""",
                    [record, plain, repeats],
                )
                results[name] = statistics.median(times)
            browser.close()
        finally:
            server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=6_000_000)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--browser", action="store_true", help="also verify in headless Chromium")
    args = parser.parse_args()
    console = Console()
    per_roll, verify_seconds = python_timings(args.repeats)
    console.print(f"derive one roll: {per_roll * 1e6:.2f} µs (median of 100,000)")
    console.print(f"verify a 1,000-roll record in Python: {verify_seconds * 1000:.1f} ms (median of {args.repeats})")
    if args.browser:
        for name, ms in browser_timings(args.repeats).items():
            console.print(f"verify a 1,000-roll record in Chromium ({name}): {ms:.1f} ms (median of {args.repeats})")

    seed = new_seed()
    proof = DiceProof(commitment_of(seed), seed, 0, ("statistics-share",))
    counts: Counter[int] = Counter()
    started = time.perf_counter()
    chunk = 200_000
    for start in range(0, args.rolls, chunk):
        counts.update(proof.rolls(start, min(chunk, args.rolls - start)))
    total = sum(counts.values())
    if total == 0:
        raise SystemExit("no rolls were derived")
    p = 1 / 6
    half = Z_999 * math.sqrt(total * p * (1 - p))
    expected = total * p
    table = Table(title=f"{total:,} derived rolls ({time.perf_counter() - started:.0f} s), seed {seed.hex()[:12]}…")
    for column in ("face", "count", "share", "99.9% interval of 1/6", "inside"):
        table.add_column(column, justify="right")
    outside = 0
    for face in range(1, 7):
        inside = abs(counts[face] - expected) <= half
        outside += not inside
        table.add_row(
            str(face),
            f"{counts[face]:,}",
            f"{counts[face] / total:.5f}",
            f"{(expected - half) / total:.5f} - {(expected + half) / total:.5f}",
            "yes" if inside else "NO",
        )
    console.print(table)
    chi_square = sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))
    console.print(f"chi-square {chi_square:.2f} with 5 degrees of freedom: p = {chi_square_p_value_5(chi_square):.3f}")
    print(json.dumps({"rolls": total, "counts": {f: counts[f] for f in range(1, 7)}, "chi_square": chi_square}))
    if outside:
        raise SystemExit(f"{outside} face(s) outside the 99.9% interval")


if __name__ == "__main__":
    main()
