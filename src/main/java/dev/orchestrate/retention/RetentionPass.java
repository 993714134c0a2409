package dev.orchestrate.retention;

import dev.orchestrate.limits.StructureName;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rows deleted per structure by one retention pass, which structures have more to delete, and —
 * for a pass that stepped aside for the scheduler — the structures it has not finished yet, in order.
 */
public record RetentionPass(Map<StructureName, Long> deleted, Set<StructureName> unfinished,
    List<StructureName> left) {
  public RetentionPass {
    deleted = Map.copyOf(deleted);
    unfinished = Set.copyOf(unfinished);
    left = List.copyOf(left);
  }

  RetentionPass(Map<StructureName, Long> deleted, Set<StructureName> unfinished) {
    this(deleted, unfinished, List.of());
  }

  public long deleted(StructureName structure) {
    return deleted.getOrDefault(structure, 0L);
  }

  public long total() {
    return deleted.values().stream().mapToLong(Long::longValue).sum();
  }

  public boolean finished() {
    return unfinished.isEmpty();
  }

  /** Whether the pass stepped aside before its end; {@link RetentionStore#resume} continues it. */
  public boolean stepped() {
    return !left.isEmpty();
  }
}
