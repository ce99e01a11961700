"""conformance/survey/profiles_cli.py - the profile registry as `mxconform
profiles` prints it, read back into rows (used by the profile tests and by
tables.py, so both see exactly what a user sees)."""

import subprocess


def profile_rows(exe):
    """Every row of `mxconform profiles`: dicts with profile, spec (NAME or
    NAME:MODE), source, format, mode, policy (None when not offered), basis, note."""
    out = subprocess.run([exe, "profiles"], capture_output=True, text=True, check=True).stdout
    rows, table = [], False
    for line in out.splitlines():
        f = line.split()
        if f[:3] == ["profile", "source", "format"]:
            table = True
            continue
        if not table or len(f) < 4:
            continue
        prof, source, fmt = f[0], f[1], f[2]
        if "not offered:" in line:
            rest = line.split("not offered:", 1)
            head = rest[0].split()
            mode = head[3] if len(head) > 3 else ""
            note = rest[1].strip().rstrip("-").strip()
            rows.append({"profile": prof, "spec": prof + (":" + mode if mode else ""), "source": source,
                         "format": fmt, "mode": mode, "policy": None, "basis": None, "note": note})
            continue
        mode = f[3] if len(f) >= 6 else ""  # profile source format [mode] policy basis
        rows.append({"profile": prof, "spec": prof + (":" + mode if mode else ""), "source": source,
                     "format": fmt, "mode": mode, "policy": f[-2], "basis": f[-1], "note": ""})
    return rows
