package dev.orchestrate.memory;

import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * The memory store (docs/how-it-works.md) as domain operations; implemented in {@code state/sql} ({@code SqlMemoryRepository}). Every
 * write is its own short transaction, and every change writes a {@code memory.*} event, which
 * event-log compaction always keeps.
 */
public interface MemoryRepository {

  /** Inserts, or with a known id replaces kind/title/content/tags in place (idempotent upsert). */
  MemoryItem put(NewMemory memory, Instant now);

  Optional<MemoryItem> get(String id);

  /** Active (not superseded) items in insertion order, optionally of one kind and/or with one tag. */
  List<MemoryItem> listActive(MemoryKind kind, String tag);

  /** Every active load-bearing item, in insertion order. */
  List<MemoryItem> activeLoadBearing();

  /** The {@code limit} newest active items that are not load-bearing, newest first. */
  List<MemoryItem> recentPrunable(int limit);

  /**
   * Marks {@code id} as replaced by {@code by}.
   *
   * @throws MemoryException when either id is unknown, or they are the same
   */
  void supersede(String id, String by, Instant now);

  /**
   * Writes memories in order, in large transactions with one reused statement; returns how many.
   * The caller validates first: a failure part-way leaves the batches committed so far, and since
   * every memory has an id (given, or derived from its content), writing the same ones again
   * updates those rows instead of adding new ones.
   */
  long importAll(Iterator<NewMemory> memories, Instant now);

  /** Every row of the store, superseded ones included (for what an import added). */
  long size();

  /** What {@link #compact} would do, without changing anything; {@code sampleLimit} caps the ids listed. */
  MemoryCompaction preview(int keepRecent, int sampleLimit);

  /**
   * Deletes every active, not load-bearing item except the {@code keepRecent} newest, in one
   * transaction (one DELETE); the count is the DELETE's own.
   */
  MemoryCompaction compact(int keepRecent, Instant now);

}
