"""Regenerate fixture expectations from the current output. Review the diff before committing:
a snapshot is only a test once a human has checked it."""

import sys

from fixture_runner import expected_paths, fixed, fixture_inputs, report


def main(codes: list[str]) -> None:
    for path in fixture_inputs():
        if codes and path.parent.name not in codes:
            continue
        report_path, fixed_path, unsafe_path = expected_paths(path)
        original = path.read_text(encoding="utf-8")
        report_path.write_text(report(path), encoding="utf-8")
        safe, unsafe = fixed(path, False), fixed(path, True)
        for target, text, reference in ((fixed_path, safe, original), (unsafe_path, unsafe, safe)):
            if text != reference:
                target.write_text(text, encoding="utf-8")
            elif target.exists():
                target.unlink()
        print(f"updated {path.relative_to(path.parents[2])}")


if __name__ == "__main__":
    main(sys.argv[1:])
