"""Deltas between JSON values: how a replay page stores one view per step and stays small.

A patch is a list of operations, each a JSON array, applied in order:

* ``[path, value]`` sets the value at ``path`` (a list of object keys and array indices;
  ``[]`` is the whole value; an index equal to the array's length appends);
* ``[path]`` removes it: an object's key, or, when the last step of the path is an index,
  the array's items from that index on (arrays only ever shrink at their end).

``diff(old, new)`` makes a patch with ``patch(old, diff(old, new)) == new``; the page's
JavaScript applies the same operations (replays/viewer/viewer.js, ``applyPatch``). Views are
JSON (objects, arrays, strings, ints, booleans, null), so equality is JSON equality.
"""

from __future__ import annotations

from typing import Any

import orjson

Op = list[Any]
_dumps = orjson.dumps


def diff(old: Any, new: Any) -> list[Op]:
    """A patch that turns ``old`` into ``new`` (empty when they are equal)."""
    ops: list[Op] = []
    _diff(old, new, [], ops)
    return ops


def patch(value: Any, ops: list[Op]) -> Any:
    """``value`` with ``ops`` applied; ``value`` itself is left as it was (copy on write)."""
    for op in ops:
        value = _apply(value, op[0], op[1:])
    return value


def same(a: Any, b: Any) -> bool:
    """JSON equality: like ``==``, but True is not 1."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _diff(old: Any, new: Any, path: list[Any], ops: list[Op]) -> None:
    if old is new or _dumps(old) == _dumps(new):  # JSON equality: True and 1 differ, as in JSON
        return
    if type(old) is dict and type(new) is dict:
        # Key by key: a view keeps its keys from one step to the next, and only a few change.
        for key, value in new.items():
            if key not in old:
                ops.append([[*path, key], value])
            else:
                _diff(old[key], value, [*path, key], ops)
        ops.extend([[*path, key]] for key in old if key not in new)
        return
    if type(old) is list and type(new) is list:
        # Item by item when that is shorter than the whole list: piles grow at their end,
        # hands lose a card anywhere (then the whole list is shorter).
        items: list[Op] = []
        for index in range(min(len(old), len(new))):
            _diff(old[index], new[index], [*path, index], items)
        items.extend([[*path, index], new[index]] for index in range(len(old), len(new)))
        if len(new) < len(old):
            items.append([[*path, len(new)]])
        whole = [path, new]
        if len(_dumps(items)) < len(_dumps(whole)):
            ops.extend(items)
        else:
            ops.append(whole)
        return
    ops.append([path, new])


def _apply(value: Any, path: list[Any], rest: list[Any]) -> Any:
    if not path:
        if rest:
            return rest[0]
        raise ValueError("a patch cannot remove the whole value")
    key, deeper = path[0], path[1:]
    if type(value) is dict:
        copy = dict(value)
        if deeper:
            copy[key] = _apply(value[key], deeper, rest)
        elif rest:
            copy[key] = rest[0]
        else:
            del copy[key]
        return copy
    if type(value) is list and type(key) is int:
        copy = list(value)
        if deeper:
            copy[key] = _apply(value[key], deeper, rest)
        elif not rest:
            del copy[key:]
        elif key == len(copy):
            copy.append(rest[0])
        else:
            copy[key] = rest[0]
        return copy
    raise ValueError(f"patch path step {key!r} does not fit a {type(value).__name__}")
