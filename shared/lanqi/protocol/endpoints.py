"""Default ports, topics and endpoint helpers."""

from __future__ import annotations

MATCHMAKER_PORT = 5050  # ROUTER: the classic LAN xiangqi port
MATCHMAKER_PUB_PORT = 5051
REFEREE_PORT = 5052
REFEREE_PUB_PORT = 5053

TOPIC_LOBBY = "lobby"
TOPIC_RESULTS = "results"


def game_topic(game_id: str) -> str:
    return f"game/{game_id}"


def tour_topic(tournament_id: str) -> str:
    return f"tour/{tournament_id}"


def tcp(host: str, port: int) -> str:
    """A ZeroMQ TCP endpoint: ``tcp(\"127.0.0.1\", 5052) == 'tcp://127.0.0.1:5052'``."""
    return f"tcp://{host}:{port}"
