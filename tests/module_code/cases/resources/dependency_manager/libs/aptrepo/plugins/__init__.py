from collections import defaultdict

from inmanta.export import dependency_manager


@dependency_manager
def sources_before_packages(model_types, resources):
    sources = defaultdict(list)
    for resource_id, res in resources.items():
        if resource_id.entity_type == "std::File" and res.path.startswith("/etc/apt/sources.list.d/"):
            sources[resource_id.agent_name].append(res)
    for resource_id, res in resources.items():
        if resource_id.entity_type == "std::Package":
            for source in sources[resource_id.agent_name]:
                res.requires.add(source)
