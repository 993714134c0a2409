package dev.orchestrate.scheduler;

import java.util.List;

/** What syncing the backlog file changed in the stored items. */
public record SyncResult(List<String> added, List<String> vanished, List<String> returned) {
  public SyncResult {
    added = List.copyOf(added);
    vanished = List.copyOf(vanished);
    returned = List.copyOf(returned);
  }
}
