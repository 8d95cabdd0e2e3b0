from inmanta.resources import PurgeableResource, resource


@resource("webapp::Site", agent="host.name", id_attribute="name")
class Site(PurgeableResource):
    fields = ("name", "port", "aliases", "options", "url", "port_text")
    map = {"port_text": lambda exporter, site: str(site.port)}

    @staticmethod
    def get_url(exporter, site):
        return f"http://{site.host.name}:{site.port}/"
