package dev.orchestrate.testing;

import dev.orchestrate.context.Turn;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.select.StateBackends;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/** The state of a test's state directory, through the port as the commands reach it. */
public final class TestStores {
  private TestStores() {
  }

  /** The schema version this build writes, read through the port (a scratch state, deleted again). */
  public static int latestSchemaVersion() {
    try {
      Path scratch = Files.createTempDirectory("orchestrate-schema");
      try (StateStore store = open(scratch)) {
        return store.latestSchemaVersion();
      } finally {
        try (var files = Files.walk(scratch)) {
          files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The backend of the state directory {@code stateDir} (which need not exist yet). */
  public static StateBackend backend(Path stateDir) {
    return StateBackends.at(new StateDirectory(stateDir));
  }

  /** The store of {@code stateDir}, opened for reading and writing (created and migrated as needed). */
  public static StateStore open(Path stateDir) {
    return backend(stateDir).open(StateStore.Mode.READ_WRITE);
  }

  /**
   * What {@code query} reads from {@code stateDir} through a read-only store, as {@code logs} or
   * {@code serve} would read it: nothing is created, migrated or written, so a test can look between
   * two commands (or beside a running one) without changing what the next one finds.
   */
  public static <T> T read(Path stateDir, Function<StateStore, T> query) {
    try (StateStore store = backend(stateDir).open(StateStore.Mode.READ_ONLY)) {
      return query.apply(store);
    }
  }

  /** Every job the store holds, oldest first. */
  public static List<JobRecord> jobs(StateStore store) {
    List<JobRecord> jobs = new ArrayList<>(store.items().recentJobs(Integer.MAX_VALUE));
    Collections.reverse(jobs);
    return jobs;
  }

  /** Every turn of every item the store knows, item by item, each item's oldest first. */
  public static List<Turn> turns(StateStore store) {
    List<Turn> turns = new ArrayList<>();
    for (String itemId : store.itemIds().stream().sorted().toList()) {
      turns.addAll(store.turns().turns(itemId, 0, Long.MAX_VALUE));
    }
    return turns;
  }

  /** Every event of the log, of every item and of none, oldest first. */
  public static List<EventLog.Entry> events(StateStore store) {
    List<EventLog.Entry> events = new ArrayList<>(store.events().recent(Integer.MAX_VALUE));
    Collections.reverse(events);
    return events;
  }
}
