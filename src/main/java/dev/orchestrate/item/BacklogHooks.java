package dev.orchestrate.item;

import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which transition commands of {@code backlog.source} ({@code on_done}, {@code on_blocked},
 * {@code on_awaiting_review}: docs/backlog.md, "A backlog from a command") were called for an
 * item's present stay in their status, kept in the state so that a restarted run never calls one
 * twice, and calls one a stopped run left uncalled. A row goes when the item leaves the status, so
 * the next stay calls the command again. Bounded by the items.
 */
public interface BacklogHooks {
  /** Kept in memory only, for tests and a scheduler without a store. */
  static BacklogHooks inMemory() {
    Map<String, Set<String>> called = new TreeMap<>();
    return new BacklogHooks() {
      @Override
      public synchronized Set<String> called(String hook) {
        return Set.copyOf(called.getOrDefault(hook, Set.of()));
      }

      @Override
      public synchronized void recordCalled(String itemId, String hook, Instant at) {
        called.computeIfAbsent(hook, h -> new HashSet<>()).add(itemId);
      }

      @Override
      public synchronized void clear(String itemId, String hook) {
        called.getOrDefault(hook, new HashSet<>()).remove(itemId);
      }
    };
  }

  /** The items {@code hook} was called for, in their present stay in its status. */
  Set<String> called(String hook);

  /** {@code hook} ran for {@code itemId} (and exited 0) at {@code at}. */
  void recordCalled(String itemId, String hook, Instant at);

  /** {@code itemId} left the status of {@code hook}: its next stay there calls it again. */
  void clear(String itemId, String hook);
}
