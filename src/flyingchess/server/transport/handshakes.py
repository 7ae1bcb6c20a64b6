"""Whether a WebSocket's client is still there before its handshake is answered. The
project's uvicorn protocol (connections.py) puts a weak reference to itself in the
ASGI scope; the app asks here. Kept apart from connections.py, which needs uvicorn: the
app also runs in the browser (site.py), where this answers False.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

CONNECTION_EXTENSION: Final = "flyingchess.connection"
"""The ASGI scope's extension holding (a weak reference to) a WebSocket's own protocol."""


def client_gone(scope: Mapping[str, Any]) -> bool:
    """Whether a WebSocket's client has gone already, before the app has answered it. In
    a process that is behind (a storm of reconnections after a takeover), a handshake can
    wait in the event loop longer than a balancer waits for it: nginx answers the page 504
    and closes its side, and the page tries again. Finding the room for a handshake nobody
    waits for any more, sending it the game and telling the room's other pages it came
    and went, is work the busy process then does for nothing. False where the server
    does not say (another server than the project's protocols)."""
    reference = scope.get("extensions", {}).get(CONNECTION_EXTENSION)
    if reference is None:
        return False
    protocol = reference()
    return protocol is None or bool(protocol.disconnected) or protocol.transport.is_closing()
