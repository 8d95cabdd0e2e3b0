"""
A small client of the orchestrator's REST API for code that runs in the compile (``ctx.get_client()``).

The requests go through the compiler (``_inmanta_native.server_call``), which knows the server, the
token and the environment of the compile from the same settings as ``inmanta export``. The methods
that compile-time code calls are listed in ``_METHODS``; ``tid`` is the environment, sent by the
compiler in its header, so it is accepted and not repeated in the URL or body.
"""

import json
import urllib.parse
from typing import Any, Optional

from inmanta import _native

# method name -> (HTTP operation, path with <arg> placeholders); the other arguments go in the body (or the query of a GET)
_METHODS: dict[str, tuple[str, str]] = {
    "get_param": ("GET", "/api/v1/parameter/<id>"),
    "set_param": ("PUT", "/api/v1/parameter/<id>"),
    "delete_param": ("DELETE", "/api/v1/parameter/<id>"),
    "list_params": ("POST", "/api/v1/parameter"),
    "set_parameters": ("PATCH", "/api/v1/parameter"),
    "get_environment": ("GET", "/api/v1/environment/<id>"),
    "environment_get": ("GET", "/api/v2/environment/<id>"),
    "list_environments": ("GET", "/api/v1/environment"),
    "get_setting": ("GET", "/api/v1/environment/setting/<id>"),
    "list_settings": ("GET", "/api/v1/environment/setting"),
    "get_resource": ("GET", "/api/v1/resource/<id>"),
    "get_version": ("GET", "/api/v1/version/<id>"),
    "list_versions": ("GET", "/api/v1/version"),
    "get_state": ("GET", "/api/v1/agentrecovery"),
    "set_state": ("POST", "/api/v1/agentrecovery"),
    "create_token": ("POST", "/api/v1/environment_auth"),
    "stat_file": ("HEAD", "/api/v1/file/<id>"),
    "get_file": ("GET", "/api/v1/file/<id>"),
    "upload_file": ("PUT", "/api/v1/file/<id>"),
}


class Result:
    """The answer of a call: ``code`` (HTTP status; 599 when there was no connection) and the decoded ``result``."""

    def __init__(self, code: int = 0, result: Optional[Any] = None) -> None:
        self.code = code
        self._result = result

    @property
    def result(self) -> Optional[Any]:
        return self._result

    def get_result(self) -> Optional[Any]:
        return self._result

    def __repr__(self) -> str:
        return f"Result(code={self.code}, result={self._result!r})"


def _json_default(value: object) -> object:
    if hasattr(value, "value"):  # enums
        return value.value  # type: ignore[attr-defined]
    return str(value)


def _do_call(method: str, kwargs: dict[str, Any]) -> Result:
    if method not in _METHODS:
        raise AttributeError(f"The REST method {method} is not available to compile-time code in inmanta-cpp")
    operation, path = _METHODS[method]
    args = {k: v for k, v in kwargs.items() if k != "tid"}
    while "<" in path:
        start = path.index("<")
        end = path.index(">", start)
        name = path[start + 1 : end]
        path = path[:start] + urllib.parse.quote(str(args.pop(name, "")), safe="") + path[end + 1 :]
    body = ""  # no body: an empty text
    if args:
        if operation in ("GET", "HEAD", "DELETE"):
            query = {k: (json.dumps(v) if isinstance(v, (dict, list, bool)) else str(v)) for k, v in args.items() if v is not None}
            if query:
                path += "?" + urllib.parse.urlencode(query)
        else:
            body = json.dumps(args, default=_json_default)
    status, text = _native.get().server_call(operation, path, body)
    if status == 0:
        return Result(599, {"message": text})
    try:
        decoded = json.loads(text) if text else None
    except ValueError:
        decoded = {"message": text}
    return Result(status, decoded)


class Client:
    """``await client.get_param(tid=..., id=...)`` -> :class:`Result`."""

    def __init__(self, name: str = "compiler", timeout: int = 120) -> None:
        self.name = name
        self.timeout = timeout

    def __getattr__(self, method: str) -> Any:
        if method.startswith("_"):
            raise AttributeError(method)

        async def call(**kwargs: Any) -> Result:
            return _do_call(method, kwargs)

        return call


class SyncClient:
    """``client.get_param(tid=..., id=...)`` -> :class:`Result`, without asyncio."""

    def __init__(self, name: str = "compiler", timeout: int = 120, client: Optional[Client] = None) -> None:
        self.name = name
        self.timeout = timeout

    def __getattr__(self, method: str) -> Any:
        if method.startswith("_"):
            raise AttributeError(method)

        def call(**kwargs: Any) -> Result:
            return _do_call(method, kwargs)

        return call
