package dev.orchestrate.memory;

/**
 * Why compaction keeps a load-bearing item. The compaction rule itself (docs/how-it-works.md: among
 * active items that are not load-bearing, keep the K most recent by insertion order and delete the
 * rest; never a load-bearing item; superseded items left alone) is one SQL DELETE over the persisted
 * {@link MemoryItem#isLoadBearing()} value, in {@code state/sql/SqlMemoryRepository}.
 */
public final class CompactionPolicy {
  private CompactionPolicy() {
  }

  /** Why a load-bearing item stays: its kind, or the rejected-path tag. */
  public static String protectedBecause(MemoryItem item) {
    if (item.kind() != MemoryKind.EPISODIC) {
      return item.kind().key();
    }
    return item.tags().contains(MemoryItem.REJECTED_PATH) ? MemoryItem.REJECTED_PATH : null;
  }
}
