package dev.orchestrate.e2e;

import dev.orchestrate.context.Turn;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What the runner left in a state directory, read back through the port with a read-only store, as
 * a later command finds it: nothing created, migrated or written, so a test may look between two
 * commands, after a kill, or beside a running one.
 */
final class Stored {
  private Stored() {
  }

  /** Every job, oldest first. */
  static List<JobRecord> jobs(Path stateDir) {
    return TestStores.read(stateDir, TestStores::jobs);
  }

  /** The jobs of {@code itemId}'s {@code phase}, oldest first. */
  static List<JobRecord> jobs(Path stateDir, String itemId, String phase) {
    return jobs(stateDir).stream().filter(j -> j.itemId().equals(itemId) && j.phase().equals(phase)).toList();
  }

  /** The states of {@code jobs}, in their order. */
  static List<String> states(List<JobRecord> jobs) {
    return jobs.stream().map(j -> j.state().key()).toList();
  }

  /** Every item, in backlog order. */
  static List<ItemState> items(Path stateDir) {
    return TestStores.read(stateDir, store -> store.items().items());
  }

  /** Every item as {@code status|phase|attempts}, in backlog order. */
  static List<String> progress(Path stateDir) {
    return items(stateDir).stream()
        .map(i -> i.status().key() + "|" + i.progress().phase() + "|" + i.progress().attempts()).toList();
  }

  /** The usage every job reported (unknown usage as {@link Usage#UNKNOWN}), by job id. */
  static Map<Long, Usage> usage(Path stateDir) {
    return TestStores.read(stateDir,
        store -> store.items().jobUsage(TestStores.jobs(store).stream().map(JobRecord::id).toList()));
  }

  /** How many assistant turns contain the text {@code expected} makes of each. */
  static long assistantTurnsSaying(Path stateDir, Function<Turn, String> expected) {
    return TestStores.read(stateDir, TestStores::turns).stream()
        .filter(t -> t.role() == Turn.Role.ASSISTANT && t.text().contains(expected.apply(t))).count();
  }

  /** How many of {@code jobs} completed, per {@code item|phase}, in the order {@code order} puts the jobs. */
  static Map<String, Long> completedPerPhase(List<JobRecord> jobs, Comparator<JobRecord> order) {
    return jobs.stream().filter(j -> j.state() == JobState.COMPLETED).sorted(order)
        .collect(Collectors.groupingBy(j -> j.itemId() + "|" + j.phase(), LinkedHashMap::new, Collectors.counting()));
  }
}
