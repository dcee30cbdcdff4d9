"""Writes saved_model_cli's "Concrete Functions" blocks for committed zoo models.

.venv-peers/bin/python -P tests/generators/show_concrete_functions.py
tests/tools/show_command_test.cc compares `smrt show --all` with them.
saved_model_cli ends a list value with ", \\b\\b]" (backspaces that a
terminal draws as "]"); the files hold what the terminal shows.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
MODELS = ["tf_module", "mixed_f16_tfkeras", "transformer_small"]


def main():
    cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    for name in MODELS:
        model = os.path.join(ROOT, "tests", "data", "zoo", name, "saved_model")
        text = subprocess.run([cli, "show", "--all", "--dir", model], check=True,
                              capture_output=True, text=True).stdout
        block = text[text.index("\nConcrete Functions:"):]
        block = block.replace(", \b\b]", "]").replace(", \b\b}", "}")
        out = os.path.join(ROOT, "tests", "data", "show", name + "_concrete_functions.txt")
        with open(out, "w") as f:
            f.write(block)


if __name__ == "__main__":
    main()
