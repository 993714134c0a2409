package dev.orchestrate.memory;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One stored memory.
 *
 * @param seq           insertion order (higher is newer); 0 for an item not yet stored
 * @param sourceItem    the backlog item it came from, or null
 * @param supersededBy  the id of the memory that replaces it, or null while it is active
 */
public record MemoryItem(
    long seq,
    String id,
    MemoryKind kind,
    String title,
    String content,
    List<String> tags,
    String sourceItem,
    Instant createdAt,
    String supersededBy) {

  /** Items with this tag record an approach that was tried and rejected: never pruned. */
  public static final String REJECTED_PATH = "rejected-path";

  public MemoryItem {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(createdAt, "createdAt");
    title = title == null ? "" : title;
    tags = List.copyOf(tags);
  }

  public boolean active() {
    return supersededBy == null;
  }

  public boolean isLoadBearing() {
    return isLoadBearing(kind, tags);
  }

  /**
   * The single source of truth for what compaction must never delete and what every prompt's
   * boot context always includes: semantic and procedural memories, and anything tagged
   * {@value #REJECTED_PATH}. The store persists its value at write time (tags and kind never
   * change without a rewrite), so SQL can select on it without repeating the rule.
   */
  public static boolean isLoadBearing(MemoryKind kind, List<String> tags) {
    return kind == MemoryKind.SEMANTIC || kind == MemoryKind.PROCEDURAL || tags.contains(REJECTED_PATH);
  }
}
