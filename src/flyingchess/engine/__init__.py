"""The rules engine: geometry, the typed options, the compiled game, the immutable state.

Layered inside (pyproject.toml checks it): `board`, `rules`, `events`, `text` below
`compiled` below `game` below `moves` and `layout`. Nothing here imports anything else of
the package; everything else asks this for every rule fact (docs/ARCHITECTURE.md).
"""
