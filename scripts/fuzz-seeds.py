#!/usr/bin/env python3
"""Writes the seed inputs of each fuzz target into CORPUS_ROOT/<target>/ (scripts/fuzz calls this).

Seeds are the inputs callproof already knows are interesting: every argument text of the malformed-input corpus
and of the shipped scenarios (decode targets), the protocol examples in fuzz/seeds/protocol_line/, the MCP
messages in fuzz/seeds/mcp_message/, and every shipped scenario file (scenario target). A seed's file name is
its content hash, so rerunning adds nothing twice.
"""
import hashlib
import pathlib
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOOLS = 7  # decode_call picks the tool with its first byte, modulo the catalog's names + 1 non-tool name


def write(folder: pathlib.Path, data: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def argument_texts():
    corpus = tomllib.loads((ROOT / "scenarios/corpus/malformed.toml").read_text())
    for case in corpus.get("case", []):
        if "arguments" in case:
            yield case["arguments"]
    for path in sorted((ROOT / "scenarios").rglob("*.toml")):
        if "corpus" in path.parts:
            continue
        for step in tomllib.loads(path.read_text()).get("step", []):
            if isinstance(step.get("arguments"), str):
                yield step["arguments"]


def main() -> None:
    root = pathlib.Path(sys.argv[1])
    texts = sorted(set(argument_texts()))
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        write(root / "decode_json", data)
        for pick in range(TOOLS):
            write(root / "decode_call", bytes([pick]) + data)
    for path in sorted((ROOT / "fuzz/seeds/protocol_line").iterdir()):
        write(root / "protocol_line", path.read_bytes())
    for path in sorted((ROOT / "fuzz/seeds/mcp_message").iterdir()):
        write(root / "mcp_message", path.read_bytes())
    scenarios = sorted((ROOT / "scenarios").rglob("*.toml"))
    for path in scenarios:
        if "corpus" not in path.parts and "catalog" not in path.parts:
            write(root / "scenario", path.read_bytes())
    print(f"fuzz seeds: {len(texts)} argument texts, {len(scenarios)} scenario files, into {root}")


if __name__ == "__main__":
    main()
