"""Referee and matchmaker together in one process (``lanqi serve``, ``lanqi demo``)."""
