"""Type aliases of inmanta-core that module code uses in annotations."""

from typing import Any, Union

PrimitiveTypes = Union[None, str, float, int, bool]
JsonType = dict[str, Any]
ResourceIdStr = str  # "std::File[agent,path=/a]"
ResourceVersionIdStr = str  # "std::File[agent,path=/a],v=3"
ResourceType = str  # "std::File"
