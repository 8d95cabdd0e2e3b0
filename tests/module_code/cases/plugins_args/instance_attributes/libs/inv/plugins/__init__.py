from inmanta.ast import OptionalValueException
from inmanta.plugins import plugin


@plugin
def report(server: "inv::Server") -> "string":
    ports = sorted(s.port for s in server.services)
    names = ",".join(sorted(s.name for s in server.services))
    return (
        f"{server.name} cores={server.cores} active={server.active} tags={list(server.tags)} "
        f"comment={server.comment} labels={dict(server.labels)} services={names} ports={ports}"
    )


@plugin
def rack_of(server: "inv::Server") -> "string":
    try:
        return server.rack.location
    except OptionalValueException:
        return "no rack"


@plugin
def back_to_server(svc: "inv::Service") -> "string":
    return svc.server.name + ":" + str(svc.port)
