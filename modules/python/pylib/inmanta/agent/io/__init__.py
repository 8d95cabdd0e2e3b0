"""Access to the host a handler manages (older modules use ``self._io`` for this)."""

from inmanta.agent.io.local import LocalIO


def get_io(cache: object = None, uri: str = "local:", config: object = None) -> LocalIO:
    """The IO object for ``uri``; only the local host is supported."""
    if not uri.startswith("local:"):
        raise NotImplementedError(f"Remote io ({uri}) is not supported by inmanta-cpp")
    return LocalIO(uri, config or {})
