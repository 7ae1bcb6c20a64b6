"""What a running server measures, for Prometheus (`serve --metrics ADDRESS:PORT`).

The figures are kept whether or not anyone reads them (counting costs next to nothing);
they are served only on the address the operator names, never on the game's own port
(SECURITY.md). Where `prometheus-client` is missing (Python in the browser), every
figure is a no-op and nothing can be served.

- `flyingchess_rooms`, `flyingchess_pages`: rooms this process plays, pages connected.
- `flyingchess_actions_total`: rolls and moves stored and acknowledged (rate(): actions a second).
- `flyingchess_request_seconds`: from a page's message arriving to its answer being sent.
- `flyingchess_storage_batch_seconds`, `flyingchess_storage_batch_writes`: each group commit.
- `flyingchess_takeovers_total`: rooms this process took from another (dead, frozen, leaving).
- `flyingchess_refusals_total{code}`: requests and connections refused, by the error code.
- `flyingchess_errors_total`: faults of the server itself (each is also logged).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    import prometheus_client
except ImportError:  # Python in the browser: nothing to serve, nothing kept
    prometheus_client = None  # type: ignore[assignment]


class _Nothing:
    """A figure where prometheus-client is missing: every call does nothing."""

    def labels(self, *args: Any, **kwargs: Any) -> _Nothing:
        return self

    def inc(self, amount: float = 1) -> None: ...

    def dec(self, amount: float = 1) -> None: ...

    def observe(self, amount: float) -> None: ...

    def set_function(self, function: Callable[[], float]) -> None: ...


REGISTRY: Any = prometheus_client.CollectorRegistry() if prometheus_client is not None else None
"""This module's own registry: only the game's figures (and the process's) are served."""

QUICK = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Histogram buckets in seconds: a round trip is a millisecond or two when all is well."""


def _figure(kind: str, name: str, text: str, **options: Any) -> Any:
    if prometheus_client is None:
        return _Nothing()
    return getattr(prometheus_client, kind)(name, text, registry=REGISTRY, **options)


rooms = _figure("Gauge", "flyingchess_rooms", "Rooms this process plays (in memory)")
pages = _figure("Gauge", "flyingchess_pages", "Pages (WebSockets) connected to this process")
actions = _figure("Counter", "flyingchess_actions", "Rolls and moves stored and acknowledged")
request_seconds = _figure(
    "Histogram", "flyingchess_request_seconds", "From a page's message to its answer", buckets=QUICK
)
storage_batch_seconds = _figure(
    "Histogram", "flyingchess_storage_batch_seconds", "Time to commit one batch of writes", buckets=QUICK
)
storage_batch_writes = _figure(
    "Histogram",
    "flyingchess_storage_batch_writes",
    "Writes committed in one batch",
    buckets=(1, 2, 5, 10, 20, 50, 100, 200, 512),
)
takeovers = _figure("Counter", "flyingchess_takeovers", "Rooms taken over from another process")
refusals = _figure("Counter", "flyingchess_refusals", "Requests and connections refused", labelnames=("code",))
abandoned = _figure(
    "Counter",
    "flyingchess_handshakes_abandoned",
    "WebSocket handshakes whose client had gone before the process got to them (a balancer gave up: the process is behind)",
)
errors = _figure("Counter", "flyingchess_errors", "Faults of the server itself (each is logged too)")


class MetricsError(Exception):
    """The metrics cannot be served: one line saying why."""


def serve(address: str, port: int, rooms_in_memory: Callable[[], float]) -> None:
    """Serve the figures over HTTP on `address`:`port` (a thread of their own)."""
    if prometheus_client is None:
        raise MetricsError("--metrics needs prometheus-client: pip install 'flyingchess[web]'")
    prometheus_client.ProcessCollector(registry=REGISTRY)
    rooms.set_function(rooms_in_memory)
    try:
        prometheus_client.start_http_server(port, addr=address, registry=REGISTRY)
    except OSError as error:
        raise MetricsError(f"cannot serve metrics on {address}:{port}: {error.strerror or error}") from None
