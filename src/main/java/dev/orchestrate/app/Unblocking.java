package dev.orchestrate.app;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.scheduler.InvalidTransitionException;
import dev.orchestrate.scheduler.ItemState;
import dev.orchestrate.scheduler.ItemStatus;
import dev.orchestrate.scheduler.Step;
import dev.orchestrate.scheduler.Transitions;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Returns blocked items to the status and phase each was blocked in, with notes for the agents'
 * next prompts: all of them or none. Refusals are checked read-only first, so a refused unblock
 * leaves the state as it found it, and again under the run lease, where a run may have changed an
 * item meanwhile.
 */
public final class Unblocking {
  private final StateBackend backend;
  private final Clock clock;

  public Unblocking(StateBackend backend, Clock clock) {
    this.backend = backend;
    this.clock = clock;
  }

  /**
   * @return the items as they are now, in the order asked (duplicates once)
   * @throws UnblockRefusedException naming every id that cannot be unblocked; nothing changed
   * @throws dev.orchestrate.state.StateLockedException while a run holds the lease
   */
  @SuppressWarnings("try") // the lease is held, never read: closing it releases it
  public List<ItemState> unblock(List<String> ids, String notes) {
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    if (!backend.exists()) {
      throw new UnblockRefusedException("unknown item " + quoted(wanted) + ": there is no state in "
          + backend.directory().root() + " yet");
    }
    refuseBeforeLocking(wanted, notes);
    List<ItemState> unblocked = new ArrayList<>();
    // A shared state needs no lease: the write below is conditional on every item still blocked,
    // and blocked items are held by no runner.
    try (RunLease lease = backend.shared() ? null : backend.acquireLease(clock.instant());
        StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      List<Step> steps = steps(store.items()::item, wanted, notes);
      if (!store.items().applyAllIf(steps, ItemStatus.BLOCKED, clock.instant())) {
        throw new UnblockRefusedException("an item stopped being blocked while unblocking; nothing was unblocked; "
            + "check 'orchestrate status'");
      }
      steps.forEach(step -> unblocked.add(step.next()));
    }
    return unblocked;
  }

  private void refuseBeforeLocking(List<String> wanted, String notes) {
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      if (store.schemaVersion() == 0) {
        throw new UnblockRefusedException("unknown item " + quoted(wanted) + ": the state in "
            + backend.directory().root() + " has no items");
      }
      if (store.schemaVersion() != store.latestSchemaVersion()) {
        return; // an older schema is read after its upgrade, under the lease
      }
      Map<String, ItemState> items = new HashMap<>();
      store.items().items().forEach(item -> items.put(item.id(), item));
      steps(id -> Optional.ofNullable(items.get(id)), wanted, notes);
    }
  }

  /** Every id's step, or one refusal naming every id that cannot be unblocked. */
  private static List<Step> steps(Function<String, Optional<ItemState>> lookup, List<String> wanted, String notes) {
    List<Step> steps = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (String id : wanted) {
      Optional<ItemState> item = lookup.apply(id);
      if (item.isEmpty()) {
        unknown.add(id);
        continue;
      }
      try {
        steps.add(Transitions.unblock(item.get(), notes));
      } catch (InvalidTransitionException e) {
        refused.add(e.getMessage());
      }
    }
    List<String> problems = new ArrayList<>();
    if (!unknown.isEmpty()) {
      problems.add("unknown item " + quoted(unknown));
    }
    problems.addAll(refused);
    if (!problems.isEmpty()) {
      throw new UnblockRefusedException(String.join("; ", problems)
          + (wanted.size() > 1 ? " (nothing was unblocked)" : ""));
    }
    return steps;
  }

  private static String quoted(List<String> ids) {
    return ids.stream().map(Quote::value).collect(Collectors.joining(", "));
  }
}
