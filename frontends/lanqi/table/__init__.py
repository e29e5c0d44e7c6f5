"""The table port: the one seam through which a frontend plays or follows a game.

:class:`~lanqi.table.port.Table` is the interface; ``LocalTable`` runs the referee's
own ``GameSession`` in process (offline and vs-AI games, benches, tests) and
``RemoteTable`` follows a game over the process's one connection to a server;
``InProcessTable`` plays on a referee service running in this process without its
sockets (``lanqi match``'s private referee).
"""
