"""Bots as players: the SDK (a class with one method), built-in AIs, engine adapters, runner."""
