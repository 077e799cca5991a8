"""Loading libtorpor.so with CFFI (ABI mode) from the C header itself.

The declarations are read from ``torpor.h`` at import time, so the C header
stays the one description of the API: no struct is declared twice. The header
is cut down to what CFFI's parser takes: comments (CFFI strips them), the
``extern "C"`` guard and the preprocessor lines go; plain integer ``#define``
constants stay.

Where the library and header are found, first match wins:

1. the environment: ``TORPOR_LIBRARY`` (path of libtorpor.so) and ``TORPOR_HEADER``
   (path of torpor.h);
2. next to this file, in ``_native/`` (what ``pip install ./python`` puts there);
3. a source checkout: ``build/libtorpor.so`` and ``include/torpor.h`` two folders
   up from the package (running from ``python/`` in the repository).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import cffi

_here = Path(__file__).resolve().parent


def _candidates() -> list[tuple[Path, Path]]:
    found = []
    lib, hdr = os.environ.get("TORPOR_LIBRARY"), os.environ.get("TORPOR_HEADER")
    if lib:
        found.append((Path(lib), Path(hdr) if hdr else _here.parent.parent / "include" / "torpor.h"))
    found.append((_here / "_native" / "libtorpor.so", _here / "_native" / "torpor.h"))
    root = _here.parent.parent
    found.append((root / "build" / "libtorpor.so", root / "include" / "torpor.h"))
    return found


def header_text(path: Path) -> str:
    """torpor.h with the public headers it includes ("torpor_*.h", beside it) put in place."""
    out = []
    for line in path.read_text().splitlines():
        m = re.match(r'\s*#\s*include\s+"(torpor_\w+\.h)"', line)
        out.append(header_text(path.parent / m.group(1)) if m else line)
    return "\n".join(out)


def header_declarations(text: str) -> str:
    """The C declarations of ``torpor.h`` as CFFI's ``cdef`` takes them."""
    out, skip = [], 0
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#ifdef __cplusplus"):
            skip = 1
            continue
        if skip:
            if s.startswith("#endif"):
                skip = 0
            continue
        if s.startswith("#"):
            m = re.match(r"#\s*define\s+(\w+)\s+(\d+)\s*$", s)
            if m:
                out.append(f"#define {m.group(1)} {m.group(2)}")
            continue
        out.append(line)
    return "\n".join(out)


def _load():
    errors = []
    for lib, hdr in _candidates():
        if not lib.exists() or not hdr.exists():
            errors.append(f"{lib} / {hdr}: not found")
            continue
        ffi = cffi.FFI()
        ffi.cdef(header_declarations(header_text(hdr)))
        return ffi, ffi.dlopen(str(lib)), lib, hdr
    raise ImportError(
        "torpor: libtorpor.so was not found; set TORPOR_LIBRARY (and TORPOR_HEADER) or install "
        "the package with `pip install ./python`. Tried:\n  " + "\n  ".join(errors))


ffi, lib, library_path, header_path = _load()
