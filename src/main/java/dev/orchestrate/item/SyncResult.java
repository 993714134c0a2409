package dev.orchestrate.item;

import java.util.ArrayList;
import java.util.List;

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
   * wins (an item added and then removed again is reported as no longer listed).
   */
  public SyncResult then(SyncResult later) {
    List<String> a = new ArrayList<>(added);
    List<String> v = new ArrayList<>(vanished);
    List<String> r = new ArrayList<>(returned);
    for (String id : later.added) {
      v.remove(id);
      r.remove(id);
      a.add(id);
    }
    for (String id : later.vanished) {
      a.remove(id);
      r.remove(id);
      v.add(id);
    }
    for (String id : later.returned) {
      v.remove(id);
      r.add(id);
    }
    return new SyncResult(a, v, r);
  }
}
