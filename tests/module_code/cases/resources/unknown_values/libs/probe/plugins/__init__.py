from inmanta.resources import Resource, resource


@resource("probe::Probe", agent="host.name", id_attribute="name")
class Probe(Resource):
    fields = ("name", "value")
