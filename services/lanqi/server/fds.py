"""The open-file limit of a service process.

Every client connection holds a file descriptor in the service (a matchmaker: one for
each player's requests and one for each lobby follower; a referee: two for each
player at a game), and Linux's default soft limit is often 1,024: about 500 GUI
players in one lobby.  A process may raise its soft limit up to its hard limit
without privileges; the service entry points do so at start (``lanqi bench crowd``,
docs/bench.md).
"""

from __future__ import annotations

import logging
import resource

__all__ = ["raise_open_files"]

log = logging.getLogger(__name__)

#: the soft limit asked for when the hard one is unlimited
UNLIMITED_TARGET = 1 << 20


def raise_open_files() -> int:
    """Raise this process's soft open-file limit to its hard limit; the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = UNLIMITED_TARGET if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as exc:  # a container may refuse even this
            log.warning("open files stay limited to %d: %s", soft, exc)
            return soft
        log.info("open files: limit raised from %d to %d", soft, target)
        return target
    return soft
