package dev.orchestrate.app;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import java.util.List;

/**
 * What {@code run --dry-run} reads of the state: the stored items. Read-only: never created, never
 * migrated; a database of an older schema is read as it is (its items are all the plan needs).
 */
public final class PlanInput {
  private PlanInput() {
  }

  /** The stored items and the schema versions of the state and of this orchestrate. */
  public record Stored(List<ItemState> items, int schemaVersion, int latestSchemaVersion) {
    public static final Stored NONE = new Stored(List.of(), 0, 0);

    public Stored {
      items = Frozen.list(items);
    }

    /** Whether the state has an older schema than this orchestrate's (a run upgrades it first). */
    public boolean olderSchema() {
      return schemaVersion != latestSchemaVersion;
    }
  }

  /** The state's items ({@link Stored#NONE} when there is no state). */
  public static Stored read(StateBackend backend) {
    if (!backend.exists()) {
      return Stored.NONE;
    }
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      return new Stored(store.items().items(), store.schemaVersion(), store.latestSchemaVersion());
    }
  }
}
