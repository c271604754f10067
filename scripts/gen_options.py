#!/usr/bin/env python3
"""Writes, or checks, what capi/options.def declares in the files that document the option keys:

  capi/zeta.h           the key table of the Options block: the lines after the line starting
                        " * Options: key/value knobs." up to the line starting " * The other keys apply"
  wasm/js/options.d.ts  the TypeScript interface OptionValues (the whole file)

    scripts/gen_options.py --write   rewrite both files (CMake target zeta_options_generate)
    scripts/gen_options.py --check   exit 1 with a diff when either differs (CTest capi_options_generated)

The C API reads options.def itself (capi/src/options.cpp), so the key table, these docs and the TypeScript type
cannot disagree once the check passes. Standard library only.
"""
import argparse
import difflib
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER_BEGIN = " * Options: key/value knobs."
HEADER_END = " * The other keys apply"
# Columns of zeta.h's table: key, default, range, doc start at these offsets; lines stay within WIDTH.
COLUMNS = (5, 28, 35, 45)
WIDTH = 115
INT_MAX = 2147483647
APPLIES = {"TRAINER": "trainer", "EBP": "EBP nets", "SOFTMAX": "softmax classifiers", "MLP": "MLPs",
           "DARN": "DARNs", "PRUNER": "pruners", "ALL": "every handle"}


class DefError(Exception):
    pass


def macro_calls(text):
    """(name, [argument text]) of every ZETA_OPTION / ZETA_OPTION_SECTION call, comments and strings respected."""
    calls = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        for name in ("ZETA_OPTION_SECTION", "ZETA_OPTION"):
            if text.startswith(name + "(", i):
                args, i = split_arguments(text, i + len(name) + 1)
                calls.append((name, args))
                break
        else:
            if not text[i].isspace():
                line = text.count("\n", 0, i) + 1
                raise DefError(f"options.def:{line}: unexpected text {text[i:i + 30]!r}")
            i += 1
    return calls


def split_arguments(text, i):
    """Splits the arguments of a call whose '(' ends before i; returns them and the index after ')'."""
    args, current, depth = [], [], 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            current.append(text[i:j + 1])
            i = j + 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                args.append("".join(current).strip())
                return args, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    raise DefError("options.def: unterminated macro call")


def string_value(arg):
    """The value of one or more adjacent C string literals."""
    out, i = [], 0
    while i < len(arg):
        if arg[i].isspace():
            i += 1
            continue
        if arg[i] != '"':
            raise DefError(f"options.def: expected a string literal, got {arg!r}")
        i += 1
        while arg[i] != '"':
            if arg[i] == "\\":
                out.append({"n": "\n", '"': '"', "\\": "\\"}[arg[i + 1]])
                i += 2
            else:
                out.append(arg[i])
                i += 1
        i += 1
    return "".join(out)


def number(token):
    token = token.strip()
    if token in ("INF", "-INF"):
        return -math.inf if token.startswith("-") else math.inf
    if token == "INT_MAX":
        return float(INT_MAX)
    if token == "NAN":
        return math.nan
    return float(token)


def read_def(path):
    keys, sections = [], {}
    for name, args in macro_calls(path.read_text()):
        if name == "ZETA_OPTION_SECTION":
            if len(args) != 2:
                raise DefError(f"options.def: ZETA_OPTION_SECTION needs 2 arguments, got {args}")
            sections[len(keys)] = string_value(args[1])
            continue
        if len(args) != 9:
            raise DefError(f"options.def: ZETA_OPTION needs 9 arguments, got {len(args)} in {args[:1]}")
        key, kind, default, low, lo, hi, high, applies, doc = args
        if kind not in ("REAL", "INT", "BOOL") or low not in ("GE", "GT") or high not in ("LE", "LT"):
            raise DefError(f"options.def: {key}: bad kind or bound ({kind}, {low}, {high})")
        applies_to = [a.strip() for a in applies.split("|")]
        if any(a not in APPLIES for a in applies_to):
            raise DefError(f"options.def: {key}: unknown applies_to {applies}")
        keys.append(dict(key=key, kind=kind, default=default.strip(), low=low, min=number(lo), max=number(hi),
                         high=high, applies=applies_to, doc=string_value(doc)))
    return keys, sections


def fmt(x):
    if x == int(x):
        x = int(x)
        if x >= 1 << 20 and x & (x - 1) == 0:
            return f"2^{x.bit_length() - 1}"
        return str(x)
    return f"{x:g}"


def range_text(k):
    lo, hi = k["min"], k["max"]
    if k["kind"] == "BOOL":
        return "0,1"
    if k["kind"] == "INT":
        if hi == INT_MAX:
            return f"int {'>' if k['low'] == 'GT' else '>='} {fmt(lo)}"
        if hi - lo <= 2:
            return ",".join(str(v) for v in range(int(lo), int(hi) + 1))
        return f"int {fmt(lo)}..{fmt(hi)}"
    if lo == -math.inf and hi == math.inf:
        return "finite"
    if hi == math.inf:
        return f"{'>' if k['low'] == 'GT' else '>='} {fmt(lo)}"
    return f"{'(' if k['low'] == 'GT' else '['}{fmt(lo)}, {fmt(hi)}{')' if k['high'] == 'LT' else ']'}"


def default_text(k):
    return "NaN" if k["default"] == "NAN" else k["default"]


def wrap(words, first, rest):
    """Greedy word wrap: the first line has `first` columns, the others `rest`."""
    lines, line = [], ""
    for w in words:
        limit = first if not lines else rest
        if line and len(line) + 1 + len(w) > limit:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(line)
    return lines


def header_table(keys, sections):
    out = []
    for i, k in enumerate(keys):
        if i in sections:
            out.append(f" * {sections[i]}")
        line = " *"
        for col, field in zip(COLUMNS, (k["key"], default_text(k), range_text(k))):
            line += " " * max(col - len(line), 1) + field
        doc_col = max(COLUMNS[3], len(line) + 2)
        first = True
        for part in k["doc"].split("\n"):
            for text in wrap(part.split(), WIDTH - doc_col if first else WIDTH - COLUMNS[3], WIDTH - COLUMNS[3]):
                if first:
                    line += " " * (doc_col - len(line)) + text
                    first = False
                else:
                    out.append(line)
                    line = " *" + " " * (COLUMNS[3] - 2) + text
        out.append(line.rstrip())
    return out


def ts_type(k):
    lo, hi = k["min"], k["max"]
    if k["kind"] == "BOOL" or (k["kind"] == "INT" and lo == 0 and hi == 1):
        return "0 | 1 | boolean"
    if k["kind"] == "INT" and hi - lo <= 2:
        return " | ".join(str(v) for v in range(int(lo), int(hi) + 1))
    return "number"


def typescript(keys):
    out = ["// Generated by scripts/gen_options.py from capi/options.def: edit that file, not this one.",
           "",
           "/** Option keys and values (zeta_options_set); a key left out keeps its default. */",
           "export interface OptionValues {"]
    for k in keys:
        applies = " and ".join(APPLIES[a] for a in k["applies"])
        # The facts in parentheses are kept on one line (NUL stands for their spaces while wrapping).
        facts = f"({applies}; default {default_text(k)}; {range_text(k)})".replace(" ", "\0")
        doc = " ".join(k["doc"].split())
        lines = [line.replace("\0", " ") for line in wrap(f"{doc} {facts}".split(), 112, 112)]
        if len(lines) == 1:
            out.append(f"  /** {lines[0]} */")
        else:
            out.append("  /**")
            out.extend(f"   * {line}" for line in lines)
            out.append("   */")
        out.append(f"  {k['key']}?: {ts_type(k)};")
    out.append("  [key: string]: number | boolean | undefined;")
    out.append("}")
    return "\n".join(out) + "\n"


def header_text(path, keys, sections):
    lines = path.read_text().split("\n")
    begin = [i for i, l in enumerate(lines) if l.startswith(HEADER_BEGIN)]
    end = [i for i, l in enumerate(lines) if l.startswith(HEADER_END)]
    if len(begin) != 1 or len(end) != 1 or end[0] <= begin[0]:
        raise DefError(f"{path}: expected one line starting {HEADER_BEGIN!r} and, after it, one starting "
                       f"{HEADER_END!r}")
    return "\n".join(lines[:begin[0] + 1] + header_table(keys, sections) + lines[end[0]:])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    parser.add_argument("--def", dest="definition", type=pathlib.Path, default=ROOT / "capi/options.def")
    parser.add_argument("--header", type=pathlib.Path, default=ROOT / "capi/zeta.h")
    parser.add_argument("--ts", type=pathlib.Path, default=ROOT / "wasm/js/options.d.ts")
    a = parser.parse_args()
    try:
        keys, sections = read_def(a.definition)
        wanted = {a.header: header_text(a.header, keys, sections), a.ts: typescript(keys)}
    except DefError as e:
        print(f"gen_options.py: {e}", file=sys.stderr)
        return 2
    stale = 0
    for path, text in wanted.items():
        current = path.read_text() if path.exists() else ""
        if current == text:
            continue
        if a.write:
            path.write_text(text)
            print(f"wrote {path}")
        else:
            stale += 1
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       str(path), f"{path} from {a.definition.name}"))
    if stale:
        print(f"\n{stale} file(s) differ from {a.definition}: run scripts/gen_options.py --write "
              "(or build the target zeta_options_generate)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
