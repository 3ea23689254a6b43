"""Where the cgroup hierarchies are, as this process sees them: the cgroup mounts and this process's own group in
each (from /proc/self), for tournaments.sandbox.cgroups, which makes its groups under them."""

from __future__ import annotations

from pathlib import Path

V1_CONTROLLERS = ("memory", "pids", "cpuacct", "freezer")
"""The cgroup v1 hierarchies tourney uses (tournaments.sandbox.cgroups)."""


def mounts() -> dict[str, dict[str, tuple[Path, str]]]:
    """cgroup mounts: for "cgroup2", {"": (mount point, its root)}; for "cgroup", {controller: ...}."""
    found: dict[str, dict[str, tuple[Path, str]]] = {"cgroup": {}, "cgroup2": {}}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields, _, rest = line.partition(" - ")
        kind, _source, options = [*rest.split(), "", "", ""][:3]
        parts = fields.split()
        if kind == "cgroup2":
            found["cgroup2"].setdefault("", (Path(unescape(parts[4])), unescape(parts[3])))
        elif kind == "cgroup":
            for option in options.split(","):
                if option in V1_CONTROLLERS:
                    found["cgroup"].setdefault(option, (Path(unescape(parts[4])), unescape(parts[3])))
    return found


def unescape(field: str) -> str:
    return field.encode().decode("unicode_escape") if "\\" in field else field


def own_groups() -> dict[str, str]:
    """This process's group in each hierarchy: {"": path} for v2, {controller: path} for v1."""
    found = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _id, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            found[controller] = path
    return found


def inside(mount: tuple[Path, str], path: str) -> Path:
    """The folder of group ``path`` under a mount whose root is a group of its own (a container's)."""
    point, root = mount
    relative = path[len(root):] if root != "/" and path.startswith(root) else path
    return point / relative.lstrip("/")
