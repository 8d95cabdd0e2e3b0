from inmanta.resources import IgnoreResourceException, ManagedResource, resource


@resource("share::Share", agent="host.name", id_attribute="path")
class Share(ManagedResource):
    fields = ("path", "mode")

    @staticmethod
    def get_mode(exporter, share):
        if share.mode == "none":
            raise IgnoreResourceException()
        return share.mode
