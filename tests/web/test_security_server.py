"""How `tourney serve` holds connections (web/server.py), over real sockets to a real server: a request whose
headers, or whose body, do not arrive within the deadline is answered 408 and its connection closed; an idle
connection is closed after the keep-alive; past --max-connections a request is answered 503. The deadlines are
set small here (1 s); the socket's own timeout only bounds how long the test waits for the server to act."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.web.league import League
from tests.web.live import start, stop
from web.server import LATE

WAIT = 30
"""Seconds the test waits for the server at the most (far above the 1 s deadlines: never a timing claim)."""


def serving(league: League, *args: str) -> Iterator[int]:
    process, base = start(league, "--submissions", *args)
    yield int(base.rstrip("/").rsplit(":", 1)[1])
    stop(process)


@pytest.fixture
def port(league: League) -> Iterator[int]:
    """The port of a server whose deadlines are 1 s."""
    yield from serving(league, "--header-timeout", "1", "--body-timeout", "1", "--keep-alive", "1")


@pytest.fixture
def kept(league: League) -> Iterator[int]:
    """The port of a server that keeps idle connections for 10 minutes but waits 1 s for a request's headers."""
    yield from serving(league, "--header-timeout", "1", "--keep-alive", "600")


@pytest.fixture
def few(league: League) -> Iterator[int]:
    """The port of a server that takes 4 connections (and waits long for headers: the held ones stay)."""
    yield from serving(league, "--max-connections", "4", "--header-timeout", "600")


def connect(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port))
    connection.settimeout(WAIT)
    return connection


def read_all(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (socket.timeout if it never does)."""
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def test_headers_that_do_not_arrive_in_time_get_408_and_the_connection_closed(port):
    """A request line and half its headers, then nothing (slowloris): 408, and the server closes the connection."""
    with connect(port) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: league.test\r\nX-Slow: ")
        answer = read_all(connection)
    assert answer.startswith(b"HTTP/1.1 408 ") and answer.endswith(LATE)


def test_a_connection_that_sends_nothing_is_closed(port):
    """A connection opened and left silent is closed by the header deadline too."""
    with connect(port) as connection:
        assert read_all(connection).startswith(b"HTTP/1.1 408 ")


def test_a_body_that_does_not_arrive_in_time_gets_408(port):
    """Headers that promise 100 bytes of body, then 6 of them and nothing more: 408, and the connection closed."""
    with connect(port) as connection:
        connection.sendall(b"POST /sign-in HTTP/1.1\r\nHost: league.test\r\nContent-Type: "
                           b"application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntoken=")
        assert read_all(connection).startswith(b"HTTP/1.1 408 ")


def test_a_whole_request_is_answered_and_the_idle_connection_closed_after_the_keep_alive(port):
    """A request sent whole is answered as ever (the deadlines do not touch it); the connection, kept alive, is
    closed once idle for the keep-alive."""
    with connect(port) as connection:
        connection.sendall(b"GET /static/favicon.svg HTTP/1.1\r\nHost: league.test\r\n\r\n")
        answer = read_all(connection)
    assert answer.startswith(b"HTTP/1.1 200 ") and b"</svg>" in answer and b" 408 " not in answer


def test_on_a_kept_alive_connection_the_next_requests_headers_have_their_deadline_too(kept):
    """After a whole request and its answer, on the connection kept alive (for 10 minutes), the next request's first
    bytes and then nothing: 408 and the connection closed (the keep-alive does not shelter a slow request)."""
    with connect(kept) as connection:
        connection.sendall(b"GET /static/favicon.svg HTTP/1.1\r\nHost: league.test\r\n\r\n")
        first = b""
        while b"</svg>" not in first:
            first += connection.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 ")
        connection.sendall(b"GET / HTTP/1.1\r\nHost: lea")
        assert read_all(connection).startswith(b"HTTP/1.1 408 ")


def test_past_the_connection_limit_a_request_is_answered_503(few):
    """With --max-connections 4 and three connections open, a request on a fourth is answered 503."""
    held = [connect(few) for _ in range(3)]
    try:
        with connect(few) as connection:
            connection.sendall(b"GET / HTTP/1.1\r\nHost: league.test\r\n\r\n")
            assert connection.recv(65536).startswith(b"HTTP/1.1 503 ")
    finally:
        for connection in held:
            connection.close()
