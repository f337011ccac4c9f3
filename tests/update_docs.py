"""Rewrite README's generated sections (rule table, operator coverage numbers) from the catalog."""

from readme_sections import README, regenerate

if __name__ == "__main__":
    old = README.read_text(encoding="utf-8")
    new = regenerate(old)
    README.write_text(new, encoding="utf-8")
    print("README.md updated" if new != old else "README.md already current")
