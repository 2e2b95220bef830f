#!/usr/bin/env python3
"""Fails when a library's sources include a header of a library it may not depend on. Which
library a source belongs to is read from the add_library/add_executable lists of the
CMakeLists.txt files (tests aside); a header belongs to its .cpp's library, and one with no .cpp
of its own to the lowest library (in ALLOWED's order) whose sources in its folder include it.
Run by ctest (source_layering), so the layering CMakeLists.txt states stays true.

    tools/check-layers.py [--root .] [--graph]
"""
import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

# What each library's sources may include besides its own headers, lowest layer first. The
# top-level CMakeLists.txt states the same in words.
ALLOWED = {
    "vktune_catalogue": set(),
    # The SPIR-V validator (kernels/vk/spirv_validate.h) runs db/spirv_check.h's header checks first.
    "vktune_kernels": {"vktune_catalogue", "vktune_db"},
    "vktune_db": set(),
    "vktune_model": set(),
    "vktune_runtime": {"vktune_db", "vktune_catalogue"},
    "vktune_runtime_synthetic": {"vktune_runtime", "vktune_db", "vktune_catalogue"},
    "vktune_load_times": {"vktune_runtime", "vktune_db", "vktune_catalogue"},
    "vktune_lookup_bench": {"vktune_load_times", "vktune_runtime_synthetic", "vktune_runtime",
                            "vktune_db", "vktune_catalogue"},
    "vktune_select_bench": {"vktune_load_times", "vktune_runtime", "vktune_db",
                            "vktune_catalogue"},
    # The database operations: the SPIR-V validator (kernels/vk/spirv_validate.h) checks what
    # they import, serve and answer; the runtime's Snapshot gives lookup's and evaluate's answers.
    "vktune_db_ops": {"vktune_runtime", "vktune_kernels", "vktune_catalogue", "vktune_db"},
    "vktune_tuner": {"vktune_kernels", "vktune_catalogue", "vktune_db", "vktune_model",
                     "vktune_runtime"},
    "vktune_report": {"vktune_db_ops", "vktune_runtime", "vktune_db", "vktune_catalogue"},
    "vktune_engine": {"vktune_runtime", "vktune_kernels", "vktune_catalogue", "vktune_model"},
    "vktune_cli": {"vktune_engine", "vktune_report", "vktune_tuner", "vktune_db_ops",
                   "vktune_runtime", "vktune_kernels", "vktune_catalogue", "vktune_db",
                   "vktune_model"},
    "vktune": {"vktune_cli"},
    # Times empty dispatches and copies as the tuner times a kernel (docs/measuring.md).
    "dispatch_floor": {"vktune_tuner", "vktune_kernels", "vktune_catalogue"},
    # An sdpa_decode variant timed with parts of its shader left out (docs/results/h200.md).
    "decode_ablation": {"vktune_tuner", "vktune_kernels", "vktune_catalogue"},
}
TARGET = re.compile(r"add_(?:library|executable)\(\s*(\w+)([^)]*)\)")
GLOB = re.compile(r"file\(GLOB\s+(\w+)\s+([^)]*)\)")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root):
    """Source path (relative to root) -> library, from the CMakeLists.txt files."""
    owner = {}
    for cmake in sorted(root.rglob("CMakeLists.txt")):
        parts = cmake.relative_to(root).parts
        # Hidden folders hold other projects' sources (.deps: the newer shader compiler's build).
        if parts[0] in ("tests", "build", "examples", "bench") or parts[0].startswith(".") or "fuzz" in parts:
            continue
        text = re.sub(r"#[^\n]*", "", cmake.read_text())
        # file(GLOB VAR patterns): ${VAR} in a source list stands for the files they match.
        globbed = {}
        for var, patterns in GLOB.findall(text):
            files = []
            for pattern in patterns.split():
                if pattern != "CONFIGURE_DEPENDS":
                    relative = pattern.replace("${CMAKE_CURRENT_SOURCE_DIR}/", "")
                    files += [f.relative_to(cmake.parent).as_posix() for f in cmake.parent.glob(relative)]
            globbed["${" + var + "}"] = sorted(files)
        for name, listed in TARGET.findall(text):
            for token in [f for t in listed.split() for f in globbed.get(t, [t])]:
                if token in ("STATIC", "SHARED", "OBJECT") or token.startswith("$"):
                    continue
                owner[(cmake.parent / token).resolve().relative_to(root).as_posix()] = name
    return owner


def includes(root, path):
    return INCLUDE.findall((root / path).read_text(errors="replace"))


def header_owners(root, owner):
    """Adds the headers: a .cpp's header is its library's; a lone one, its lowest includer's."""
    order = list(ALLOWED)
    lone = defaultdict(set)
    for path, lib in list(owner.items()):
        header = Path(path).with_suffix(".h").as_posix()
        if path.endswith(".cpp") and (root / header).exists():
            owner.setdefault(header, lib)
    changed = True
    while changed:  # a lone header may be included only by other headers
        changed = False
        for path, lib in list(owner.items()):
            for inc in includes(root, path):
                if inc in owner or not (root / inc).exists():
                    continue
                if Path(inc).parent == Path(path).parent:
                    lone[inc].add(lib)
        for inc, libs in lone.items():
            if inc not in owner:
                owner[inc] = min(libs, key=lambda lib: order.index(lib) if lib in order else len(order))
                changed = True
    return owner


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--graph", action="store_true", help="print every library edge found")
    args = parser.parse_args()
    owner = header_owners(args.root, sources(args.root))
    edges = defaultdict(list)
    for path, lib in sorted(owner.items()):
        for inc in includes(args.root, path):
            target = owner.get(inc)
            if target is not None and target != lib:
                edges[(lib, target)].append(f"{path} includes {inc}")
    bad = 0
    for (lib, target), where in sorted(edges.items()):
        if args.graph:
            print(f"{lib} -> {target} ({len(where)} includes)")
        if lib not in ALLOWED:
            print(f"{lib}: not in tools/check-layers.py's ALLOWED table; add its row")
            bad += 1
        elif target not in ALLOWED[lib]:
            print(f"{lib} may not include {target}'s headers: {'; '.join(where)}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
