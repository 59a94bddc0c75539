"""YAML alias bombs: a few hundred bytes that expand to billions of values, with
the alias in each place a configuration can hold one (issue 37, item 8)."""


def list_bomb(levels: int = 9, width: int = 9) -> list[str]:
    """Billion laughs: each level a list of ``width`` aliases of the one below."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels + 1)]
    return lines


def mixed_bomb(levels: int = 9, width: int = 9) -> list[str]:
    """Mappings inside lists: each level a list of mappings aliasing the one below."""
    lines = ["m0: &m0 [{a: 1, b: 2}]"]
    lines += [
        f"m{i}: &m{i} [{', '.join(f'{{k{j}: *m{i - 1}}}' for j in range(width))}]"
        for i in range(1, levels + 1)
    ]
    return lines


def indent(lines: list[str], depth: int) -> str:
    return "\n".join("  " * depth + line for line in lines)


# Where a bomb sits: under an unknown top-level key, under a known free-form
# value, inside an analysis entry, in `build`.
CASES = {
    "unknown_top_level_key": "unknown_key:\n" + indent(list_bomb(), 1),
    "unknown_key_in_an_analysis": (
        "analyses:\n  mine:\n    kind: benchmark\n    raw_dir: raw\n    notes:\n"
        + indent(list_bomb(), 3)
    ),
    "mappings_in_lists": "unknown_key:\n" + indent(mixed_bomb(), 1),
    "build_list": "defs:\n" + indent(list_bomb(), 1) + "\nbuild: *l9",
}
