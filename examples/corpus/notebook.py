# %% [markdown]
# # Where does XLA's utilization heuristic go wrong? A corpus study
#
# A notebook in cells (`# %%`: Jupyter, VS Code and `jupytext` open it as
# one; `python examples/corpus/notebook.py` runs it top to bottom).  It
# analyses a corpus with `verifier corpus`, reads the tables back as
# DataFrames and reproduces the left panel of `verifier plot` — exact
# distinct elements read against XLA's heuristic — from the operand table
# alone, then asks the table which opcodes the heuristic gets wrong.
#
#     pip install -e '.[research]'
#     python examples/corpus/notebook.py [CORPUS_DIR] [--output figure.png]
#
# CORPUS_DIR defaults to `examples/real` (the committed dumps); a larger one
# comes from `python examples/corpus/generate.py DIR` (the `jax` extra).

# %%
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import verifier

parser = argparse.ArgumentParser()
parser.add_argument("corpus", nargs="?", default=str(Path(__file__).parents[1] / "real"))
parser.add_argument("--output", default="utilization_by_opcode.png")
args, _ = parser.parse_known_args()

# %% [markdown]
# ## 1. Analyse the corpus (two Parquet tables)

# %%
tables = Path(tempfile.mkdtemp(prefix="corpus-"))
subprocess.run(
    [sys.executable, "-m", "verifier", "corpus", args.corpus, "--output", str(tables)],
    check=True,
)
modules, operands = verifier.read_corpus(tables)
print(modules[["file", "status", "instructions", "proved", "refuted"]].head())

# %% [markdown]
# ## 2. Exact against heuristic, from the table
#
# `distinct_read` is null (`<NA>`) where the count depends on run-time
# values; those operands are left out here.

# %%
exact = operands.dropna(subset=["distinct_read"])
exact = exact[(exact["distinct_read"] > 0) & (exact["xla_heuristic_elements"] > 0)]
ratio = exact["xla_heuristic_elements"] / exact["distinct_read"]
exact = exact.assign(ratio=ratio.astype(float))
print(f"{len(exact)} operands with one exact count; XLA exact on {(exact['ratio'] == 1).sum()}")

# %% [markdown]
# ## 3. Which opcodes does the heuristic get wrong?

# %%
by_opcode = (
    exact.assign(wrong=exact["ratio"] != 1)
    .groupby("opcode")
    .agg(operands=("ratio", "size"), wrong=("wrong", "sum"), worst=("ratio", "max"))
    .sort_values("wrong", ascending=False)
)
print(by_opcode)

# %% [markdown]
# ## 4. The figure

# %%
figure, axes = plt.subplots(figsize=(6.4, 6.0))
low = min(exact["distinct_read"].min(), exact["xla_heuristic_elements"].min()) / 2
high = max(exact["distinct_read"].max(), exact["xla_heuristic_elements"].max()) * 2
axes.plot([low, high], [low, high], color="grey", linewidth=0.8, label="XLA = exact")
for opcode, group in exact.groupby("opcode"):
    axes.scatter(
        group["distinct_read"].astype(float),
        group["xla_heuristic_elements"].astype(float),
        s=18,
        alpha=0.7,
        label=f"{opcode} ({len(group)})",
    )
axes.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high))
axes.set_xlabel("exact distinct elements read per execution")
axes.set_ylabel("XLA heuristic (elements)")
axes.set_title(f"Operand utilization by opcode ({np.count_nonzero(exact['ratio'] != 1)} off)")
axes.legend(loc="lower right", fontsize=7)
figure.tight_layout()
figure.savefig(args.output, dpi=110)
print(f"wrote {args.output}")
