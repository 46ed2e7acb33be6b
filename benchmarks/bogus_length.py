"""Peak memory of reading a file whose first record claims a length just under --max-record-bytes (issue 15).

    python benchmarks/bogus_length.py                # 499,999,000-byte length, default cap 500,000,000
    python benchmarks/bogus_length.py --smoke        # 20 MB length

The file is sparse: a valid header (good length CRC) announcing the length, that many zero bytes (a hole)
and a wrong payload CRC, then one good record. Read in a fresh subprocess with `read_all`; prints the
tracemalloc peak, the peak RSS growth and what was read. The payload is CRC-checked in bounded chunks,
so a bogus length costs about one chunk (it cost ~3x the length).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import load_average


def child(length: int) -> None:
    import struct
    import tracemalloc

    from mindinsight_clone.ingest.record_reader import frame_record, masked_crc32c, read_all

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.out.events.summary.1.0.bench"
        raw = struct.pack("<Q", length)
        with path.open("wb") as f:
            f.write(raw + struct.pack("<I", masked_crc32c(raw)))
            f.truncate(12 + length + 4)
        with path.open("ab") as f:
            f.write(frame_record(b"after"))
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.start()
        start = time.perf_counter()
        result = read_all(path, max_record_bytes=max(length + 1, 500_000_000))
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"length": length, "peak_mb": peak / 2**20, "rss_growth_mb": (rss1 - rss0) / 1024,
                          "seconds": seconds, "records": len(result.records),
                          "problems": [p.kind for p in result.problems]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--length", type=int, default=499_999_000)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    length = 20_000_000 if args.smoke else args.length
    if args.child:
        child(length)
        return
    out = subprocess.run([sys.executable, __file__, "--child", "--length", str(length)], capture_output=True,
                         text=True, check=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    print(f"load average {load_average()}")
    print(f"bogus length {r['length']:,} bytes: tracemalloc peak {r['peak_mb']:.1f} MB, peak RSS growth "
          f"{r['rss_growth_mb']:.1f} MB, {r['seconds']:.2f} s; records read {r['records']}, problems {r['problems']}")


if __name__ == "__main__":
    main()
