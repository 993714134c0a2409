package dev.orchestrate.app;

import dev.orchestrate.memory.JsonLinesImport;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.memory.MemoryKind;
import dev.orchestrate.memory.MemoryRepository;
import dev.orchestrate.memory.NewMemory;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * The {@code memory} commands' work on the state's memories: list, add, import, supersede. The
 * state is opened {@link StateStore.Mode#MAINTENANCE} (these may run beside a run).
 */
public final class Memories {
  private Memories() {
  }

  /** How many memories a file held and how many of them were new (the others updated ones already there). */
  public record Imported(long imported, long added) {
  }

  /** The active memories of {@code kind} with {@code tag} (each null: any); none when there is no state yet. */
  public static List<MemoryItem> list(StateBackend backend, MemoryKind kind, String tag) {
    if (!backend.exists()) {
      return List.of();
    }
    try (StateStore store = backend.open(StateStore.Mode.MAINTENANCE)) {
      return List.copyOf(store.memory().listActive(kind, tag));
    }
  }

  /** Stores {@code memory}, capped to the lengths a memory may have; the item as stored. */
  public static MemoryItem add(StateBackend backend, NewMemory memory, Instant now) {
    try (StateStore store = backend.open(StateStore.Mode.MAINTENANCE)) {
      return store.memory().put(memory.capped(), now);
    }
  }

  /**
   * Imports a JSON Lines file, every line checked before any is stored.
   *
   * @throws dev.orchestrate.memory.MemoryException naming a bad line; nothing imported
   */
  public static Imported importFile(StateBackend backend, Path file, Instant now) {
    JsonLinesImport.validate(file);
    try (StateStore store = backend.open(StateStore.Mode.MAINTENANCE);
        JsonLinesImport.Records records = JsonLinesImport.open(file)) {
      MemoryRepository repo = store.memory();
      long before = repo.size();
      long imported = repo.importAll(records, now);
      return new Imported(imported, repo.size() - before);
    }
  }

  /**
   * Marks memory {@code id} as replaced by {@code by}.
   *
   * @throws dev.orchestrate.memory.MemoryException when either does not exist
   */
  public static void supersede(StateBackend backend, String id, String by, Instant now) {
    try (StateStore store = backend.open(StateStore.Mode.MAINTENANCE)) {
      store.memory().supersede(id, by, now);
    }
  }
}
