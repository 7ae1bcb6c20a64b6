"""The web app's server: rooms over SQLite, a JSON API and WebSockets (needs the `web` extra)."""
