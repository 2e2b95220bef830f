#!/usr/bin/env python3
"""Lists the C++ functions of the project's sources (tests and shaders aside) longer than a limit,
from the line of their signature to their closing brace; exits 1 when there is one. A function is
a brace block at namespace or class scope whose header has a parameter list; lambdas and blocks
inside it count towards it. Run by ctest (project_function_lengths), so the limit stays true.

    tools/long-functions.py [--limit 100] [--root .]
"""
import argparse
import re
import sys
from pathlib import Path

SOURCE_DIRS = ("kernels", "db", "tuner", "runtime", "tools", "examples", "bench")
SKIPPED_DIRS = {"tests", "glsl", "fuzz", "build"}
SCOPES = re.compile(r"^\s*(?:template\s*<.*>\s*)?(namespace|class|struct|union|enum|extern)\b")


def strip(text):
    """The text with comments, string and character literals blanked, newlines kept."""
    pattern = re.compile(
        r'//[^\n]*|/\*.*?\*/|R"([^(]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
        re.S)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def functions(text):
    """(header, first line, last line) of each function of the stripped text."""
    found = []
    stack = []  # per open brace: (holds functions, first line of the function it opens, header)
    header_start = 0
    pending = None  # a constructor's brace-initialised member closed: its body follows
    line = 1
    for i, ch in enumerate(text):
        if ch == "\n":
            line += 1
        elif ch == "{":
            header = text[header_start:i]
            holds = not stack or stack[-1][0]
            is_scope = bool(SCOPES.match(header + " "))
            if holds and pending is not None:
                stack.append((False, pending[0], pending[1]))
            elif holds and not is_scope and "(" in header:
                body = header.lstrip()
                stack.append((False, line - body.count("\n"), body.splitlines()[0][:80]))
            else:
                stack.append((holds and (is_scope or not header.strip()), None, None))
            pending = None
            header_start = i + 1
        elif ch == "}":
            if stack:
                _, first, name = stack.pop()
                rest = text[i + 1:].lstrip()
                if first is not None and rest[:1] in (",", "{"):
                    pending = (first, name)
                elif first is not None:
                    found.append((name, first, line))
            header_start = i + 1
        elif ch == ";":
            header_start = i + 1
            pending = None
        elif ch == "#" and (i == 0 or text[i - 1] == "\n"):
            # A preprocessor line is no part of the next header.
            end = text.find("\n", i)
            header_start = len(text) if end < 0 else end
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    long = []
    for top in SOURCE_DIRS:
        for path in sorted((args.root / top).rglob("*")):
            if path.suffix not in (".cpp", ".h") or SKIPPED_DIRS & set(path.relative_to(args.root).parts):
                continue
            for name, first, last in functions(strip(path.read_text(errors="replace"))):
                if last - first + 1 > args.limit:
                    long.append((last - first + 1, f"{path.relative_to(args.root)}:{first}", name))
    for lines, where, name in sorted(long, reverse=True):
        print(f"{lines:5d} lines  {where}  {name}")
    if long:
        print(f"{len(long)} functions over {args.limit} lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
