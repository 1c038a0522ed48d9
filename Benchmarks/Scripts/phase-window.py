#!/usr/bin/env python3
"""Profile one timed window of a benchmark phase, over several runs.

A phase run with FOLIO_BENCH_WINDOWS=1 prints `window KEY START END` (seconds of
CLOCK_MONOTONIC) to standard error for each figure it times. Under
`perf record -k CLOCK_MONOTONIC -g`, the samples carry the same clock, so the
samples of one figure (the first delete, say) can be kept apart from the open
and the rest of the phase, and summed over runs:

    DIR/N.windows   the phase's standard error
    DIR/N.samples   `perf script -i N.data -F tid,time,ip,sym`

Usage:
    phase-window.py KEY DIR                      leaf and inclusive symbols
    phase-window.py KEY DIR --children SUBSTRING what the innermost frame
                                                 matching SUBSTRING calls
"""

import collections
import pathlib
import re
import sys

HEADER = re.compile(r" *(\d+) +([\d.]+):")


def windows(path, key):
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "window" and parts[1] == key:
            yield float(parts[2]), float(parts[3])


def samples(path):
    """Yields (time, frames), the leaf first."""
    time, frames = None, []
    for line in path.read_text().splitlines():
        if not line.strip():
            if time is not None:
                yield time, frames
            time, frames = None, []
        elif match := HEADER.match(line):
            # A sample's first line (its thread and time); its frames follow, indented by a tab.
            if time is not None:
                yield time, frames
            time, frames = float(match.group(2)), []
        elif time is not None:
            parts = line.strip().split(None, 1)
            frames.append(parts[1] if len(parts) > 1 else parts[0])
    if time is not None:
        yield time, frames


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--children"):
        sys.exit(__doc__)
    key, folder = argv[1], pathlib.Path(argv[2])
    children_of = argv[4] if len(argv) == 5 else None
    leaf, inclusive, children = collections.Counter(), collections.Counter(), collections.Counter()
    total, runs = 0, 0
    for window_file in sorted(folder.glob("*.windows")):
        sample_file = window_file.with_suffix(".samples")
        spans = list(windows(window_file, key))
        if not spans or not sample_file.exists():
            continue
        runs += 1
        for time, frames in samples(sample_file):
            if not any(start <= time <= end for start, end in spans):
                continue
            total += 1
            if frames:
                leaf[frames[0]] += 1
            for frame in set(frames):
                inclusive[frame] += 1
            if children_of:
                hits = [i for i, frame in enumerate(frames) if children_of in frame]
                if hits:
                    i = hits[-1]
                    children[frames[i - 1] if i > 0 else "(itself)"] += 1
    print(f"{total} samples in '{key}' over {runs} runs")
    if children_of:
        print(f"--- what the innermost '{children_of}' calls ({sum(children.values())} samples)")
        for frame, count in children.most_common(25):
            print(f"{count:7d}  {frame[:140]}")
        return
    print("--- leaf")
    for frame, count in leaf.most_common(30):
        print(f"{count:7d}  {frame[:140]}")
    print("--- inclusive")
    for frame, count in inclusive.most_common(60):
        print(f"{count:7d}  {frame[:140]}")


if __name__ == "__main__":
    main(sys.argv)
