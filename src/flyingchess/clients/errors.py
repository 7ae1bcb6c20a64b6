"""What a client raises: a refusal in the protocol's words, a server out of reach, no answer in time."""

from __future__ import annotations


class ClientError(Exception):
    """What went wrong, in one line."""


class Refused(ClientError):
    """The server refused a request (docs/protocol.md, Errors); nothing changed."""

    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_after = retry_after


class Unreachable(ClientError):
    """The server cannot be reached (down, a wrong address, no answer in time)."""


class TimedOut(ClientError):
    """What was waited for did not happen in the time given."""
