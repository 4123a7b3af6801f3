"""Reads the public API dumps of swift-api-digester for scripts/api-baseline.sh.

    python3 scripts/api_baseline.py public RAW.json OUT.json
        Writes RAW without its `package` declarations (marked `isInternal`), for the baseline.
    python3 scripts/api_baseline.py compare BASELINE.json CURRENT.json
        Exits 0 if both declare the same public API; otherwise prints the declarations added,
        removed and changed, and exits 1.

A declaration is compared by its kind, qualified name, signature (the types of its result and
parameters, or of its value), generic signature, conformances, attributes, accessors and
availability. What does not change the API is left out: source locations, whether a property
is stored or a `let`, and which module of Foundation declares a type (FoundationEssentials and
FoundationNetworking on Linux, Foundation elsewhere).
"""

import json
import sys

# Keys of a declaration that say nothing about its API, or that the other keys already say.
IGNORED_KEYS = {
    "children", "accessors", "conformances", "kind", "name", "printedName", "usr", "mangledName",
    "moduleName", "hasStorage", "implicit", "isFromExtension", "reqNewWitnessTableEntry",
    "declAttributes", "declKind", "isInternal", "isLet",
}
# Attributes that say how a declaration is stored or implemented, not what callers may write.
IGNORED_ATTRIBUTES = {"HasStorage", "Transparent", "HasInitialValue", "Final"}


def without_package_declarations(node):
    """The node with every declaration below it that is not public (package) left out."""
    kept = dict(node)
    for key in ("children", "accessors"):
        if key in node:
            kept[key] = [without_package_declarations(child) for child in node[key]
                         if not child.get("isInternal")]
    return kept


def foundation_named_alike(text):
    """`text` with Foundation's types named by `Foundation` on every system: on Linux they live
    in FoundationEssentials and FoundationNetworking."""
    return text.replace("FoundationNetworking.", "Foundation.").replace("FoundationEssentials.", "Foundation.")


def type_name(node):
    return foundation_named_alike(node.get("printedName", ""))


def declarations(root):
    """Every public declaration of the dump, one line each: `kind path  signature  {details}`."""
    lines = {}

    def visit(node, path):
        for child in node.get("children", []):
            declaration_kind = child.get("declKind")
            if declaration_kind is None or declaration_kind == "Import" or child.get("isInternal"):
                continue
            name = path + [type_name(child)]
            types = [type_name(c) for c in child.get("children", []) if c.get("kind", "").startswith("Type")]
            details = {key: value for key, value in child.items() if key not in IGNORED_KEYS}
            attributes = sorted(set(child.get("declAttributes", [])) - IGNORED_ATTRIBUTES)
            if attributes:
                details["attributes"] = attributes
            if child.get("conformances"):
                details["conformances"] = sorted(type_name(c) for c in child["conformances"])
            accessors = [a.get("accessorKind") for a in child.get("accessors", []) if not a.get("isInternal")]
            if accessors:
                details["accessors"] = accessors
            signature = "(" + ", ".join(types) + ")" if types else ""
            qualified = ".".join(name)
            line = f"{declaration_kind} {qualified}{signature}"
            if details:
                line += "  " + foundation_named_alike(json.dumps(details, sort_keys=True))
            # Overloads share a path; the signature tells them apart.
            lines[line] = qualified
            if child.get("kind") == "TypeDecl":
                visit(child, name)

    visit(root["ABIRoot"], [])
    return lines


def compare(baseline_path, current_path):
    baseline = declarations(json.load(open(baseline_path)))
    current = declarations(json.load(open(current_path)))
    if baseline.keys() == current.keys():
        return 0
    removed = {line: path for line, path in baseline.items() if line not in current}
    added = {line: path for line, path in current.items() if line not in baseline}
    changed_paths = set(removed.values()) & set(added.values())
    module = current_path.rsplit("/", 1)[-1].removesuffix(".json")
    print(f"{module}: the public API differs from {baseline_path}:")
    for title, entries, keep in (
        ("changed (as recorded, then as built)", {**removed, **added}, lambda path: path in changed_paths),
        ("removed", removed, lambda path: path not in changed_paths),
        ("added", added, lambda path: path not in changed_paths),
    ):
        shown = sorted((path, line) for line, path in entries.items() if keep(path))
        if not shown:
            continue
        print(f"  {title}:")
        for path, line in shown:
            marker = "-" if line in removed else "+"
            print(f"    {marker} {line}")
    # What swift-api-digester does not count as breaking in a library built without library
    # evolution, and yet breaks code that compiled: a new case fails a user's exhaustive
    # `switch`, a new requirement fails a user's conformance unless it has a default.
    for line in sorted(added):
        if line.startswith("EnumElement "):
            print(f"  breaks source compatibility: a new case fails exhaustive switches: {added[line]}")
        elif '"protocolReq": true' in line:
            print(f"  breaks source compatibility unless it has a default implementation: {added[line]}")
    return 1


def main():
    command = sys.argv[1]
    if command == "public":
        raw = json.load(open(sys.argv[2]))
        with open(sys.argv[3], "w") as output:
            json.dump(without_package_declarations(raw), output, indent=1, sort_keys=True)
            output.write("\n")
        return 0
    if command == "compare":
        return compare(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
