package dev.orchestrate.app;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import java.util.List;

/** Candidates for the shell completion scripts, read without changing or creating the state. */
public final class Completions {
  private Completions() {
  }

  /** Every item id the state knows, in the store's order; none when there is no state. */
  public static List<String> itemIds(StateBackend backend) {
    if (!backend.exists()) {
      return List.of();
    }
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      return List.copyOf(store.itemIds());
    }
  }
}
