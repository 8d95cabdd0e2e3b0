from inmanta.resources import Resource, resource


@resource("store::Volume", agent="host.name", id_attribute="key")
class Volume(Resource):
    fields = ("key", "size")

    @staticmethod
    def get_key(exporter, volume):
        return f"{volume.pool}/{volume.name}"
