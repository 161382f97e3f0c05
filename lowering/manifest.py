"""The launch manifest of a built kernel (DESIGN.md, "phobos-build"): what the runtime needs to
launch the PTX without the analyzer: the entry, the target, the block size, the parameters in
order with their dtypes and shapes, the runtime extents passed after them (LANGUAGE §10), the
``@aligned`` promises to check, and the resources ptxas reported.
"""

from __future__ import annotations

import json

from ..language.types import Tensor, settle
from ..language.targets import ptx_isa
from .names import entry_symbol

VERSION = 1


def manifest(kinfo, arch: str, resources: dict | None, dynamic_shared_bytes: int = 0) -> dict:
    params = []
    for b in kinfo.params:
        if isinstance(b.type, Tensor):
            params.append({"name": b.name, "kind": "tensor", "dtype": settle(b.type.elem).name,
                           "shape": list(b.type.shape)})
        else:
            params.append({"name": b.name, "kind": "scalar", "dtype": settle(b.type).name})
    return {"version": VERSION, "entry": entry_symbol(kinfo.kernel.name), "target": arch, "ptx_version": ptx_isa(arch),
            "block": kinfo.threads, "dynamic_shared_bytes": dynamic_shared_bytes, "params": params,
            "extents": list(kinfo.extents), "aligned": dict(kinfo.aligned), "resources": resources}


def dumps(m: dict) -> str:
    """The manifest as written to KERNEL.json: keys in DESIGN.md's order, one line per param."""
    lines = ["{" + ", ".join(f"{json.dumps(k)}: {json.dumps(m[k])}" for k in
                             ("version", "entry", "target", "ptx_version")) + ","]
    lines.append(" " + ", ".join(f"{json.dumps(k)}: {json.dumps(m[k])}" for k in ("block", "dynamic_shared_bytes")) + ",")
    params = ",\n            ".join(json.dumps(p) for p in m["params"])
    lines.append(f' "params": [{params}],')
    lines.append(" " + ", ".join(f"{json.dumps(k)}: {json.dumps(m[k])}" for k in ("extents", "aligned")) + ",")
    # the -D and @autotune values a build fixed (phobos-build --autotune records them)
    defines = f',\n "defines": {json.dumps(m["defines"])}' if "defines" in m else ""
    lines.append(f' "resources": {json.dumps(m["resources"])}{defines}}}')
    return "\n".join(lines) + "\n"
