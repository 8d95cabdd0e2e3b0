import json

from inmanta.plugins import plugin

DEFAULTS = json.loads('{"port": 80}')
# a broken constant: the import fails on the next line
BROKEN = json.loads("{port: 80}")


@plugin
def port() -> "int":
    return DEFAULTS["port"]
