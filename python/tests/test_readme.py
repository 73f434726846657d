"""The README's Python example runs as written."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Using it from Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "hurray.from_numpy" in code
    exec(compile(code, "README.md", "exec"), {})
