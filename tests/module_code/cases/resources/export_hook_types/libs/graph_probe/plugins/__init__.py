from inmanta.ast.attribute import RelationAttribute
from inmanta.ast.entity import Entity
from inmanta.execute.util import NoneValue
from inmanta.export import export


def check(what, got, expected):
    if got != expected:
        raise Exception(f"{what}: got {got!r}, expected {expected!r}")


@export("probe")
def probe(exporter):
    types = exporter.types
    node, cluster = types["graph_probe::Node"], types["graph_probe::Cluster"]
    check("entities are Entity objects", (isinstance(node, Entity), node.get_full_name()), (True, "graph_probe::Node"))
    check("every entity is listed", {"graph_probe::Node", "graph_probe::Cluster", "std::Entity"} <= set(types), True)
    check("the same object each time", types["graph_probe::Node"] is node, True)

    attributes = node.get_attributes()
    described = sorted(
        (name, type(a).__name__, a.get_type().get_full_name(), getattr(a, "low", None), getattr(a, "high", None))
        for name, a in attributes.items())
    check("Node's own attributes", described, [
        ("cluster", "RelationAttribute", "graph_probe::Cluster", 0, 1),
        ("name", "Attribute", "string", None, None),
        ("parent", "RelationAttribute", "graph_probe::Node", 0, 1),
        ("ports", "Attribute", "int[]", None, None),
    ])
    check("a relation's other end", attributes["cluster"].end is cluster.get_attributes()["nodes"], True)
    check("the other end's multiplicity", (cluster.get_attributes()["nodes"].low,
                                            cluster.get_attributes()["nodes"].high), (0, None))
    check("the end of the end", cluster.get_attributes()["nodes"].end is attributes["cluster"], True)
    check("a relation without other end", attributes["parent"].end, None)
    check("relation attributes", sorted(n for n, a in attributes.items() if isinstance(a, RelationAttribute)),
          ["cluster", "parent"])
    check("the entity of an attribute", attributes["name"].get_entity() is node, True)

    instances = {i.slots["name"].value: i for i in node.get_all_instances()}
    check("Node's instances", sorted(instances), ["a", "b"])
    a, b = instances["a"], instances["b"]
    check("one object per instance", node.get_all_instances()[0] in instances.values(), True)
    check("an instance's type", a.type is node, True)
    check("a list attribute", a.slots["ports"].value, [1, 2])
    check("a relation's value is the instance", b.get_attribute("parent").value is a, True)
    check("an empty optional relation", isinstance(a.slots["parent"].value, NoneValue), True)
    c = a.slots["cluster"].value
    check("the other instance's type", c.type is cluster, True)
    check("the other side lists both", sorted(n.slots["name"].value for n in c.get_attribute("nodes").value),
          ["a", "b"])
    check("inherited attributes are slots too", sorted(a.slots), ["cluster", "name", "parent", "ports", "provides", "requires"])
