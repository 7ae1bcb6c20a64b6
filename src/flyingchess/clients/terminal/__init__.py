"""The game in a terminal (`flyingchess play --terminal`, `flyingchess join URL`).

A terminal game is a client of a server, like a page: of the data folder's local server
(the one `flyingchess play` runs, or one started in a thread for it; server/transport/
local.py), so that a game begun in the browser goes on in the terminal and back, or of a
network server. What it draws comes from the server's snapshots (`flyingchess.clients.game_client`);
the rules stay in the engine and the words in the page's catalogues (web/i18n).

- `words.py`: the catalogues and the language;
- `narrate.py`: the engine's events as log lines, a move as a preview;
- `picture.py`: the board as rows of styled text, at any size, in colour or not;
- `app.py`: the Textual app (home, new game, the game).
"""
