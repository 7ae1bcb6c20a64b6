"""What faces the network: the Starlette app and its routes, the WebSocket connections and their outboxes, the checks in front of them, and the server's start-up (also inside the browser)."""
