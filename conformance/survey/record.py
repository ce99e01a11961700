#!/usr/bin/env python3
"""conformance/survey/record.py - keep the library outputs that the profiles
reproduce (issue 14 point 4): survey.tgz -> h100/recorded.npz + recorded.json.

    python3 conformance/survey/record.py survey.tgz [--out conformance/survey/h100]

Every recorded cast that maps to a registered profile (report.profile_of) is
kept: its codes (one array per distinct output, compressed), and in the JSON
its id, profile spec, source, format and the library versions of its worker.
The inputs are not stored: inputs.py regenerates them, and the JSON keeps the
generator version and the sha256 of each source's bits so a drift is caught.
test_profiles_recorded.py replays every kept cast through `mxconform encode
--profile` and asserts byte equality.
"""

import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import inputs as survey_inputs  # noqa: E402
import report  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archive", help="survey.tgz (or its unpacked folder) from run.sh")
    ap.add_argument("--out", default=os.path.join(HERE, "h100"), help="folder for recorded.npz/.json")
    a = ap.parse_args(argv)
    manifest, codes = report.load_archive(a.archive)
    if manifest["inputs"].get("generator_version") != survey_inputs.GENERATOR_VERSION:
        sys.exit("record.py: the archive's inputs come from another generator version")
    kept, blobs = [], {}
    for e in manifest["entries"]:
        prof = report.profile_of(e)
        if e["status"] != "ok" or prof is None:
            continue
        worker = manifest["workers"].get(e["worker"], {})
        kept.append({"id": e["id"], "profile": prof, "source": e["source"], "format": e["target"],
                     "api": e.get("api", ""), "blob": e["blob"],
                     "versions": worker.get("versions", {})})
        blobs[e["blob"]] = np.asarray(codes[e["blob"]], dtype=np.uint8)
    # the sha256 of the bits the GPU machine converted (the test regenerates and compares)
    sha = {s: manifest["inputs"][s]["sha256"] for s in ("fp32", "bf16", "fp16")}
    os.makedirs(a.out, exist_ok=True)
    np.savez_compressed(os.path.join(a.out, "recorded.npz"), **blobs)
    doc = {"schema": 1, "device": manifest.get("device"), "created_unix": manifest.get("created_unix"),
           "generator_version": survey_inputs.GENERATOR_VERSION, "sha256": sha, "entries": kept}
    with open(os.path.join(a.out, "recorded.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"record.py: {len(kept)} casts, {len(blobs)} distinct outputs -> {a.out}")


if __name__ == "__main__":
    main()
