"""Rewrite the golden replay files from the current code (then review `git diff tests/golden/`)."""

from tests.golden.cases import CASES, render

if __name__ == "__main__":
    for case in CASES:
        case.path.write_bytes(render(case))
        print(f"wrote {case.path}")
