"""Plots a soak's samples (the CSV `target/release/soak` writes) to a PNG: RSS (with the
allocator's live and held bytes when the CSV has them), open descriptors, threads and child
processes of each replica over time.
Usage: python scripts/plot_soak.py docs/soak.csv docs/soak.png  (needs matplotlib)."""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main(source: str, target: str) -> None:
    rows = list(csv.DictReader(open(source)))
    figures = [("rss_kib", "RSS (MiB)", 1 / 1024), ("fds", "open descriptors", 1),
               ("threads", "threads", 1), ("children", "child processes", 1)]
    fig, axes = plt.subplots(len(figures), 1, figsize=(8, 9), sharex=True)
    for ax, (key, label, scale) in zip(axes, figures):
        for replica in sorted({r["replica"] for r in rows}):
            mine = [r for r in rows if r["replica"] == replica]
            ax.plot([int(r["seconds"]) / 60 for r in mine],
                    [float(r[key]) * scale for r in mine], label=f"replica {replica}")
            if key == "rss_kib" and "heap_allocated_kib" in mine[0]:
                for extra, style, what in [("heap_resident_kib", ":", "heap held"),
                                           ("heap_allocated_kib", "--", "heap live")]:
                    ax.plot([int(r["seconds"]) / 60 for r in mine],
                            [float(r[extra]) * scale for r in mine], style,
                            label=f"replica {replica} {what}")
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0].legend()
    axes[-1].set_xlabel("minutes")
    fig.suptitle("switchboard soak: two replicas on Postgres under mixed load")
    fig.tight_layout()
    fig.savefig(target, dpi=80)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
