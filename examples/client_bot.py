"""Seat a bot in a network game's open seat through flyingchess.clients (docs/clients.md).

    flyingchess serve --host 127.0.0.1 --port 8000    # then create a game with an open seat in the page
    python examples/client_bot.py http://127.0.0.1:8000/#/join/GAME blue

The bot takes the seat, adds its share to the committed dice, plays until the game ends
and checks every roll against the commitment. Needs the `web` extra (websockets).
"""

from __future__ import annotations

import asyncio
import sys

from flyingchess.bots import make_bot
from flyingchess.clients import ClientError, GameClient


async def play(link: str, colour: str, bot_name: str = "heuristic") -> None:
    bot = make_bot(bot_name)
    async with GameClient(link) as game:
        await game.join(colour, f"{bot_name} bot")
        share = await game.contribute() if game.game is not None and game.game.dice is not None else None
        while (now := await game.my_turn()).phase != "over":
            if now.phase == "roll":
                await game.roll()
            else:
                await game.move(bot.choose(now.state))
        print(f"game over: {now.state.winner} wins; ranking {', '.join(now.state.ranking)}")
        if share is not None:
            print((await game.verify_dice(share)).summary())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    try:
        asyncio.run(play(sys.argv[1], sys.argv[2]))
    except ClientError as error:
        raise SystemExit(f"client_bot: {error}") from None
