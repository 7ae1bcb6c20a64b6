"""Many seeded bot games and what they say: win rates with intervals, tournaments.

`games` plays them (in processes when asked); `statistics` summarises them.
"""
