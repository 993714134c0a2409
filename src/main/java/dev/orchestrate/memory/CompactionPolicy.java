package dev.orchestrate.memory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The compaction rule as a pure function (docs/how-it-works.md): among active items that are not
 * load-bearing, keep the K most recent by insertion order and delete the rest; never delete a
 * load-bearing item; superseded items are not active and are left alone. The SQLite store
 * runs the same rule as one DELETE over the persisted {@link MemoryItem#isLoadBearing()} value;
 * tests hold it to this function.
 */
public final class CompactionPolicy {
  private CompactionPolicy() {
  }

  /** The ids to delete, oldest first. */
  public static List<String> toDelete(List<MemoryItem> items, int keepRecent) {
    if (keepRecent < 0) {
      throw new IllegalArgumentException("keep-recent must be 0 or more, got " + keepRecent);
    }
    List<MemoryItem> prunable = new ArrayList<>();
    for (MemoryItem item : items) {
      if (item.active() && !item.isLoadBearing()) {
        prunable.add(item);
      }
    }
    prunable.sort(Comparator.comparingLong(MemoryItem::seq));
    int cut = Math.max(0, prunable.size() - keepRecent);
    return prunable.subList(0, cut).stream().map(MemoryItem::id).toList();
  }

  /** Why a load-bearing item stays: its kind, or the rejected-path tag. */
  public static String protectedBecause(MemoryItem item) {
    if (item.kind() != MemoryKind.EPISODIC) {
      return item.kind().key();
    }
    return item.tags().contains(MemoryItem.REJECTED_PATH) ? MemoryItem.REJECTED_PATH : null;
  }
}
