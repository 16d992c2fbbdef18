"""Fails when a README code block is not, verbatim, the example file CI builds and runs."""
import sys

readme_path, *examples = sys.argv[1:]
readme = open(readme_path, encoding="utf-8").read()
stale = [p for p in examples if open(p, encoding="utf-8").read().strip() not in readme]
for p in stale:
    print(f"{readme_path}: the snippet of {p} differs from the file; paste the file into the README")
sys.exit(1 if stale else 0)
