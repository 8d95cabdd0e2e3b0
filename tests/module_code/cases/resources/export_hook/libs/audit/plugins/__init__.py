from inmanta.export import export


@export("audit_check", "audit::Report")
def check_reports(exporter, types):
    names = sorted(report.name for report in types["audit::Report"])
    if names != ["one", "two"]:
        raise Exception(f"unexpected reports {names}")
