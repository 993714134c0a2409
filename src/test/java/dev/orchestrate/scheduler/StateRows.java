package dev.orchestrate.scheduler;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobRecord;

import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;
import java.util.List;

/**
 * What a finished run left in the state, read back through the port as a later command would, so
 * the tests assert on items and jobs rather than on one backend's tables.
 */
final class StateRows {
  private StateRows() {
  }

  /** Every item the state knows, in backlog order (the order sync first saw them). */
  static List<ItemState> items(Path stateDir) {
    try (StateStore store = TestStores.open(stateDir)) {
      return store.items().items();
    }
  }

  /** One item, which must exist. */
  static ItemState item(Path stateDir, String id) {
    try (StateStore store = TestStores.open(stateDir)) {
      return store.items().item(id).orElseThrow(() -> new AssertionError("no item " + id));
    }
  }

  /** Every job recorded, oldest first. */
  static List<JobRecord> jobs(Path stateDir) {
    try (StateStore store = TestStores.open(stateDir)) {
      return TestStores.jobs(store);
    }
  }
}
