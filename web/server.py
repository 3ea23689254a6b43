"""How `tourney serve` holds connections: uvicorn's HTTP/1.1 protocol with the deadlines it lacks.

uvicorn closes a connection idle after a response (``timeout_keep_alive``) and can refuse requests
past a number of open connections (``limit_concurrency``), but it waits for ever for a request's
headers or its body: a client that opens connections and sends a byte now and then (slowloris)
keeps them all. ``Protocol`` gives each request two deadlines:

* its line and headers must have arrived ``TOURNEY_HEADER_SECONDS`` (10) after the connection
  opened or, on a connection kept alive, after the first bytes of the request (until they come,
  the keep-alive closes an idle connection);
* its body must have arrived ``TOURNEY_BODY_SECONDS`` (60) after its headers (a 1 MiB upload
  then needs some 17 KiB/s).

Past a deadline the client is answered ``408 Request Timeout`` (when no response has begun) and
the connection is closed; the application, if it was reading the body, sees the client go.
`tourney serve` runs uvicorn with ``http="web.server:Protocol"``; any uvicorn can
(``uvicorn --factory web.app:create_app --http web.server:Protocol``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from web.settings import Settings

LATE = b"the request did not arrive in time: the connection is closed\n"
TIMED_OUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
             b"content-length: %d\r\n\r\n%s" % (len(LATE), LATE))


class Protocol(H11Protocol):
    """uvicorn's h11 protocol, with a deadline for each request's headers and one for its body."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = Settings.from_env()
        self.deadlines = {h11.IDLE: settings.header_seconds, h11.SEND_BODY: settings.body_seconds}
        self._phase: Any = None
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._follow(arriving=True)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow(arriving=True)

    def handle_events(self) -> None:
        super().handle_events()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    def _follow(self, arriving: bool = False) -> None:
        """Keep the deadline of the phase the client's side of the connection is in: sending a request's headers
        (IDLE, once the connection opens or bytes of a new request arrive: a connection idle after a response is
        the keep-alive's), sending its body (SEND_BODY), or none (the request is in, the response under way)."""
        phase = self.conn.their_state
        if self.transport is None or self.transport.is_closing():
            return
        if phase is not self._phase:
            self._stop()
            self._phase = phase
        elif self._deadline is not None or not arriving:
            return
        seconds = self.deadlines.get(phase)
        if seconds is not None and (phase is not h11.IDLE or arriving):
            self._deadline = self.loop.call_later(seconds, self._late)

    def _stop(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
            self.transport.write(TIMED_OUT)
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.keep_alive = False
        self.transport.close()
