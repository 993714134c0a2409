package dev.orchestrate.item;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** What syncing the backlog file changed in the stored items. */
public record SyncResult(List<String> added, List<String> vanished, List<String> returned) {
  public SyncResult {
    added = List.copyOf(added);
    vanished = List.copyOf(vanished);
    returned = List.copyOf(returned);
  }

  public static final SyncResult NONE = new SyncResult(List.of(), List.of(), List.of());

  /** True when nothing was added, vanished or returned. */
  public boolean isEmpty() {
    return added.isEmpty() && vanished.isEmpty() && returned.isEmpty();
  }

  /**
   * This result followed by a later one, as one session's story: the latest word on each item
   * wins (an item added and then removed again is reported as no longer listed). A run asks this
   * on every tick, mostly with {@link #NONE}: then this very result comes back, without a copy of
   * the lists (a million-item backlog's first sync lists a million ids). Otherwise linear in the
   * ids of both.
   */
  public SyncResult then(SyncResult later) {
    if (later.isEmpty()) {
      return this;
    }
    Set<String> a = new LinkedHashSet<>(added);
    Set<String> v = new LinkedHashSet<>(vanished);
    Set<String> r = new LinkedHashSet<>(returned);
    for (String id : later.added) {
      v.remove(id);
      r.remove(id);
      a.remove(id); // re-added: last in order, as a list's add at the end had it
      a.add(id);
    }
    for (String id : later.vanished) {
      a.remove(id);
      r.remove(id);
      v.remove(id);
      v.add(id);
    }
    for (String id : later.returned) {
      v.remove(id);
      r.remove(id);
      r.add(id);
    }
    return new SyncResult(List.copyOf(a), List.copyOf(v), List.copyOf(r));
  }
}
