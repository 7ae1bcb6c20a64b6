"""Starting a server, or PostgreSQL, Redis and nginx of its own, as child processes on loopback (tests, benchmarks, scripts)."""
