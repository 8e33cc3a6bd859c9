"""Save a line chart of one column against another (carried as an asset)."""

import sys

import matplotlib.pyplot as plt
import pandas as pd


def main(path: str, x: str, y: str, out: str) -> None:
    df = pd.read_csv(path)
    df.plot(x=x, y=y)
    plt.savefig(out)


if __name__ == "__main__":
    main(*sys.argv[1:5])
