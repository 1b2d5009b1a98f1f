"""The command line shared by the Python bench scripts (decode_baseline.py, peers.py): [--quick] [--out FILE]."""

import argparse
import pathlib


def options(doc):
    """Parses the command line; returns (repeats per case, output path or None)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 repeats per case instead of 21")
    parser.add_argument("--out", type=pathlib.Path, help="write the results as JSON here")
    arguments = parser.parse_args()
    return (5 if arguments.quick else 21), arguments.out
