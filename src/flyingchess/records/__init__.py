"""Game records, the canonical state and committed dice: the engine's games as JSON.

`record` reads, writes and replays records (docs/records.md); `fair_dice` derives and
checks a network game's committed rolls (docs/records.md §6).
"""
