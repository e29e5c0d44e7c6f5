"""Fixtures for the client connection's tests: real referees as subprocesses
(``referee_factory``, from the referee tests: restartable on the same ports and data
directory, stopped after the test) and a whole server in this process (``server``)."""

from __future__ import annotations

from tests.referee.conftest import referee_factory

__all__ = ["referee_factory"]
