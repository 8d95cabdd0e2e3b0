from inmanta.plugins import plugin


@plugin
def manager_name(person: "optrel::Person") -> "string":
    return person.manager.name
